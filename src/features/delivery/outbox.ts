/**
 * The outbox of one socket's delivery: the reliable messages waiting for their acknowledgement, in
 * first-sent order, each encoded once, and the bytes of those not written on the current
 * connection yet (what they add to the socket's `bufferedAmount`).
 *
 * It is a Map by id (a message still waiting for its id, while the store loads, is its own key):
 * insertion order is first-sent order, and an acknowledgement finds and takes out its message in
 * constant time, however many wait.
 */
import type { DeliveryCodec } from './codec.js';

/** A reliable message in the outbox. */
export interface Entry {
  /** Its id ('' while the store loads: ids are given out once the sequence is known). */
  id_: string;
  /** What `sendReliable()` was given (the `acked` event shows it), or what the store held. */
  readonly data_: unknown;
  /** Its `msg` frame as the codec encoded it (`undefined` until it has its id). */
  raw_: unknown;
  /** The frame's size (what it adds to `bufferedAmount` until written). */
  bytes_: number;
  /** Not written on the current connection yet (its bytes are in `unsent`). */
  waiting_: boolean;
  /** Sends so far, in this socket's life. */
  sends_: number;
  /** When it was last sent, or last due (clock time). */
  at_: number;
  /** Its promise's (none for a message loaded from the store). */
  ok_: (() => void) | undefined;
  no_: ((error: Error) => void) | undefined;
}

/**
 * A message with nothing sent yet: `id` its id (`''` until it has one), `raw` its frame if it has
 * its id, `bytes` that frame's size, `ok` and `no` its promise's.
 */
export const newEntry = (
  id: string,
  data: unknown,
  raw: unknown,
  bytes: number,
  ok?: () => void,
  no?: (error: Error) => void,
): Entry => ({ id_: id, data_: data, raw_: raw, bytes_: bytes, waiting_: false, sends_: 0, at_: 0, ok_: ok, no_: no });

export class Outbox {
  /** The messages, in first-sent order, by id. */
  entries_ = new Map<unknown, Entry>();
  /** The bytes of the messages not written on the current connection yet. */
  unsent_ = 0;

  /** Counts `entry` as waiting to be written on the current connection (`waiting`), or not. */
  count_(entry: Entry, waiting: boolean): void {
    if (entry.waiting_ !== waiting) this.unsent_ += waiting ? entry.bytes_ : -entry.bytes_;
    entry.waiting_ = waiting;
  }

  /** Takes the message of `key` out, if it is there. */
  take_(key: unknown): Entry | undefined {
    const entry = this.entries_.get(key);
    if (entry) {
      this.entries_.delete(key);
      this.count_(entry, false);
    }
    return entry;
  }

  /** Takes out, in order, the messages `lost` picks. */
  takeIf_(lost: (entry: Entry) => unknown): Entry[] {
    const gone: Entry[] = [];
    for (const [key, entry] of this.entries_) if (lost(entry)) gone.push(this.take_(key) as Entry);
    return gone;
  }

  /** The connection ended: on the next one every encoded message waits to be written again. */
  rewind_(): void {
    for (const entry of this.entries_.values()) if (entry.raw_ !== undefined) this.count_(entry, true);
  }

  /** Puts `entry` last, keyed by its id (by itself while it has none, as while the store loads). */
  last_(entry: Entry): void {
    this.entries_.delete(entry);
    this.entries_.set(entry.id_ || entry, entry);
  }

  /** Forgets every message (the socket was closed for good). */
  clear_(): void {
    this.entries_.clear();
    this.unsent_ = 0;
  }
}

/**
 * The data as the codec reads it back from `raw` (what the peer will read), else a structured
 * clone, else the data itself: the copy kept while a message waits for its id, and stored.
 */
export function copyOf(codec: DeliveryCodec, raw: unknown, data: unknown): unknown {
  try {
    const frame = codec.decode(raw);
    if (frame?.rs === 'msg') return frame.data;
  } catch {
    // a codec that does not read its own frames: a clone will do
  }
  try {
    return structuredClone(data);
  } catch {
    return data;
  }
}
