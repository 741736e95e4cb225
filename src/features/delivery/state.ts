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
  sends_: number;
  /** When it was last sent (clock time). */
  at_: number;
  /** Its promise's (no-ops for a message loaded from the store, or one whose promise already settled). */
  ok_: () => void;
  no_: (error: ResilientSocketError) => void;
}

/** A `msg` frame. */
export type Msg = Extract<Frame, { rs: 'msg' }>;

/** A socket's delivery state. */
export interface State {
  /** The outbox, in first-sent order (what the store held first, then what was sent while it loaded). */
  out_: Entry[];
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
    out_: [],
    seen_: new Set(),
    inbox_: [],
    store_: store,
    session_: store ? '' : newSession(),
    seq_: 0,
    acked_: 0,
    resent_: 0,
    duplicates_: 0,
  } as Partial<State> as State;
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
 * sequence order, before what was sent while it loaded. Values it cannot read are left out.
 */
export function restore(st: State, entries: Iterable<[string, unknown]>, window: number): void {
  const out: Entry[] = [];
  for (const [key, value] of entries) {
    if (key === 'session' && typeof value === 'string') st.session_ = value;
    else if (key === 'seq') st.seq_ = Math.max(st.seq_, Number(value) || 0);
    else if (key === 'seen' && Array.isArray(value)) for (const id of value.slice(-window)) st.seen_.add(String(id));
    else if (key.startsWith('out:') && typeof value === 'object' && value !== null && 'data' in value) {
      const id = key.slice(4);
      st.seq_ = Math.max(st.seq_, Number(id) || 0);
      out.push({ id_: id, data_: value.data, sends_: 0, at_: 0, ok_: noop, no_: noop });
    }
  }
  st.out_.unshift(...out.sort((a, b) => Number(a.id_) - Number(b.id_)));
}
