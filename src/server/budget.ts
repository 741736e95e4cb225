/**
 * How `ReliableServer` counts the memory it keeps, and the two budgets that bound it:
 * `maxSessionBytes` for one session's window and outbox, `maxBytes` for everything every session
 * keeps (its fixed cost, its window, its outbox).
 *
 * The count is an upper bound of the heap the helper holds, so that the budgets bound memory, not
 * only numbers of things:
 * - a string counts 2 bytes per character (V8 keeps 1 or 2), binary data its `byteLength`;
 * - each session, window id and pending message adds a fixed overhead for the objects around it
 *   (measured on Node 20 with `--expose-gc`, then rounded up: `test/integration/server-heap.test.ts`
 *   checks the heap against the count);
 * - a session's fixed cost keeps room for the newest id of its window, so that the window can
 *   always remember the id it just delivered without passing either budget.
 * What the helper keeps is copied out of what it came in (an id a codec sliced from a large
 * message would otherwise keep the whole message alive): the count is what is really held.
 */
import { MAX_ID_LENGTH } from './codec.js';

/**
 * The heap of one session besides its id: its record, its outbox map and window set, its entry
 * in the sessions table and its expiry timer (measured about 0.8 kB).
 */
export const SESSION_BYTES = 1_024;

/**
 * The heap of one id in a window besides its characters: the set's entry (up to twice its size
 * just after the set grew) and the string's header (measured about 50 B).
 */
export const ID_BYTES = 96;

/**
 * The heap of one pending message besides its frame and id: its record, the promise `send()`
 * returns and the two functions that settle it (measured about 0.4 kB).
 */
export const MESSAGE_BYTES = 512;

/** What a string counts: 2 bytes per character. */
export function textBytes(text: string): number {
  return 2 * text.length;
}

/** What one id in a window counts. */
export function idBytes(id: string): number {
  return ID_BYTES + textBytes(id);
}

/** The room a session's fixed cost keeps for the newest id of its window: an id of the longest length. */
export const ID_SLOT: number = ID_BYTES + 2 * MAX_ID_LENGTH;

/** What a session counts whatever it holds: its overhead, its id, and room for its newest window id. */
export function sessionBytes(id: string): number {
  return SESSION_BYTES + textBytes(id) + ID_SLOT;
}

/** What one pending message counts: its overhead, its id, and its encoded frame. */
export function messageBytes(id: string, frame: string | ArrayBuffer | Uint8Array): number {
  return MESSAGE_BYTES + textBytes(id) + (typeof frame === 'string' ? textBytes(frame) : frame.byteLength);
}

/** What a frame as `ws` gives it counts: a string 2 bytes per character, binary data its bytes. */
export function wireBytes(raw: unknown): number {
  if (typeof raw === 'string') return textBytes(raw);
  if (Array.isArray(raw)) return raw.reduce((sum: number, part) => sum + wireBytes(part), 0);
  if (raw instanceof ArrayBuffer || ArrayBuffer.isView(raw)) return raw.byteLength;
  return 0;
}

/** A copy of `text` that shares no memory with a larger string (a slice keeps its whole source alive). */
export function ownText(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}

/** `frame`, or, for a view of a larger buffer, a copy of just its bytes (what it counts is what it keeps). */
export function ownFrame(frame: string | ArrayBuffer | Uint8Array): string | ArrayBuffer | Uint8Array {
  return frame instanceof Uint8Array && frame.byteLength !== frame.buffer.byteLength ? new Uint8Array(frame) : frame;
}

/** What the budget reads and writes of a session. @internal */
export interface Metered {
  /** Its fixed cost ({@link sessionBytes}), counted in the total from its creation to its end. */
  readonly fixed_: number;
  /** Its window (all but the newest id) and its outbox, counted against `maxSessionBytes`. */
  bytes_: number;
}

/** Which budget a number of bytes would pass. */
export type BudgetName = 'maxSessionBytes' | 'maxBytes';

/** The bytes every session of one server keeps, against `maxSessionBytes` and `maxBytes`. @internal */
export class Budget {
  readonly #max: number;
  readonly #perSession: number;
  #total = 0;

  constructor(maxBytes: number, maxSessionBytes: number) {
    this.#max = maxBytes;
    this.#perSession = maxSessionBytes;
  }

  /** Every session's fixed cost, window and outbox. */
  get total(): number {
    return this.#total;
  }

  /**
   * Which budget `more` bytes kept by `s` would pass (`undefined`: they fit). `unsent`: bytes its
   * connection has not written yet, which count against `maxSessionBytes` too. With no session:
   * the fixed cost of a new one, against `maxBytes`.
   */
  refuses_(s: Metered | undefined, more: number, unsent = 0): BudgetName | undefined {
    if (s !== undefined && s.bytes_ + more + unsent > this.#perSession) return 'maxSessionBytes';
    return this.#total + more > this.#max ? 'maxBytes' : undefined;
  }

  /** Whether `s` or the total is past its budget (a window then forgets its oldest ids). */
  over_(s: Metered): boolean {
    return s.bytes_ > this.#perSession || this.#total > this.#max;
  }

  /** A new session: its fixed cost counts from now. */
  open_(s: Metered): void {
    this.#total += s.fixed_;
  }

  /** `s` keeps `bytes` more (fewer, when negative). */
  charge_(s: Metered, bytes: number): void {
    s.bytes_ += bytes;
    this.#total += bytes;
  }

  /** `s` is forgotten: nothing it kept counts any more. */
  close_(s: Metered): void {
    this.#total -= s.fixed_ + s.bytes_;
    s.bytes_ = 0;
  }
}
