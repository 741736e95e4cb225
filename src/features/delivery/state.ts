/**
 * What the `delivery()` feature keeps per socket (one object, in the socket's data slot), and how
 * it is made: fresh, or from what a store held.
 */
import type { Connection } from '../../core/connection.js';
import type { ResilientSocketError } from '../../errors.js';
import type { Frame } from './codec.js';
import type { DeliveryStore } from './store.js';

/** A reliable message in the outbox. */
export interface Entry {
  /** Its id ('' while the store loads: ids are given out once the sequence is known). */
  id_: string;
  readonly data_: unknown;
  /** Sends so far, in this socket's life. */
  attempts_: number;
  /** When it was last sent (clock time). */
  at_: number;
  /** Its promise's (no-ops for a message loaded from the store, or one whose promise already settled). */
  resolve_: () => void;
  reject_: (error: ResilientSocketError) => void;
}

/** A `msg` frame. */
export type Msg = Extract<Frame, { rs: 'msg' }>;

/** A socket's delivery state. */
export interface State {
  /** The outbox, in first-sent order. */
  readonly out_: Map<string, Entry>;
  /** Messages sent while the store loads, in order (given ids after the loaded ones). */
  early_: Entry[];
  /** The ids of the latest incoming messages, oldest first. */
  readonly seen_: Set<string>;
  /** `msg` frames that arrived before the connection was open. */
  inbox_: Msg[];
  /** The store; let go (memory only) after it failed. */
  store_: DeliveryStore | undefined;
  session_: string;
  /** The last sequence number given out. */
  seq_: number;
  /** While the store loads: what the first connection waits for, and what ends the wait. */
  wait_: Promise<void> | undefined;
  ready_: (() => void) | undefined;
  /** The open connection the outbox was sent on (messages sent now go straight out). */
  live_: Connection | undefined;
  acked_: number;
  resent_: number;
  duplicates_: number;
}

export const noop = (): void => undefined;

/** A fresh state; without a store its session is made now, with one once the store loaded. */
export function newState(store: DeliveryStore | undefined): State {
  return {
    out_: new Map(),
    early_: [],
    seen_: new Set(),
    inbox_: [],
    store_: store,
    session_: store ? '' : newSession(),
    seq_: 0,
    wait_: undefined,
    ready_: undefined,
    live_: undefined,
    acked_: 0,
    resent_: 0,
    duplicates_: 0,
  };
}

/** A session id: random, made once per store. */
export function newSession(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?(): string } }).crypto;
  // randomUUID exists in secure contexts (and Node); elsewhere about 100 random bits.
  return crypto?.randomUUID
    ? crypto.randomUUID()
    : Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
}

/**
 * Takes in what a store held: the session, the sequence (at least the highest id in the outbox,
 * should the two writes have been cut apart), the latest `window` ids seen, and the outbox in
 * sequence order. Values it cannot read are left out.
 */
export function restore(st: State, entries: Iterable<[string, unknown]>, window: number): void {
  let session = '';
  let seq = 0;
  let seen: unknown[] = [];
  const out: Entry[] = [];
  for (const [key, value] of entries) {
    if (key === 'session' && typeof value === 'string') session = value;
    else if (key === 'seq') seq = Math.max(seq, Number(value) || 0);
    else if (key === 'seen' && Array.isArray(value)) seen = value;
    else if (key.startsWith('out:')) {
      const id = key.slice(4);
      seq = Math.max(seq, Number(id) || 0);
      if (typeof value === 'object' && value !== null && 'data' in value) {
        out.push({ id_: id, data_: value.data, attempts_: 0, at_: 0, resolve_: noop, reject_: noop });
      }
    }
  }
  out.sort((a, b) => Number(a.id_) - Number(b.id_));
  for (const entry of out) st.out_.set(entry.id_, entry);
  for (const id of seen.slice(-window)) st.seen_.add(String(id));
  st.session_ = session;
  st.seq_ = seq;
}
