/**
 * One client's session on the server: what `send()` keeps until it is acknowledged (the outbox, in
 * first-sent order), the window of recent incoming ids, the sequence of its outgoing ids, and the
 * connection it said hello on last. Its size is bounded by `maxPending` and `window` in numbers,
 * and by `maxSessionBytes` and `maxBytes` in bytes (`budget.ts` says how they are counted).
 */
import type { TimerHandle } from '../clock.js';
import { type Budget, idBytes, type Metered, sessionBytes } from './budget.js';

/**
 * What the server needs of a connection: a `ws` WebSocket, server side (any object with these
 * members will do).
 */
export interface ServerSocket {
  /** `1` while the connection is open (ws's `readyState`). */
  readonly readyState: number;
  /** Sends a text (string) or binary message. */
  send(data: string | ArrayBuffer | Uint8Array): void;
  /** Closes the connection with a close frame. */
  close(code?: number, reason?: string): void;
  /**
   * Cuts the connection at once, freeing what it had not written yet (ws's `terminate()`); without
   * it, `close()` is used.
   */
  terminate?(): void;
  /**
   * The bytes sent but not written to the network yet (ws's `bufferedAmount`). While it is above
   * 0, no message is written again; `send()` counts it against `maxSessionBytes`. Without it, 0.
   */
  readonly bufferedAmount?: number;
  /** Adds the listener of incoming messages: `(data, isBinary)`. */
  on(event: 'message', listener: (data: unknown, isBinary: boolean) => void): unknown;
  /** Adds the listener of the connection's end. */
  on(event: 'close', listener: () => void): unknown;
  /** Removes a listener added with `on`. */
  off(event: 'message', listener: (data: unknown, isBinary: boolean) => void): unknown;
  /** Removes a listener added with `on`. */
  off(event: 'close', listener: () => void): unknown;
}

/** A client's session, as `ReliableServer` shows it (read-only). */
export interface Session<S extends ServerSocket = ServerSocket> {
  /** The id the client named in its hello (or the one given to `send()` before it came). */
  readonly id: string;
  /** The connection the client said hello on last, while it is open; `undefined` meanwhile. */
  readonly socket: S | undefined;
  /** Whether the client is connected (`socket` is set): `send()` writes at once. */
  readonly connected: boolean;
  /** How many messages `send()` keeps for this session until the client acknowledges them. */
  readonly pending: number;
}

/**
 * What `send()` returns: a promise resolved once the client acknowledged the message (rejected
 * with a coded error when it never will be), and `stored`, resolved once the message is kept
 * where it survives what may happen next: at once in this process's memory (the default store),
 * once Redis recorded it with `redisStore()`, from then on surviving the death of this process
 * and of the one holding the client's connection. A `send()` refused at once rejects both.
 */
export interface Delivery extends Promise<void> {
  /** Resolves once the message is stored (see {@link Delivery}); rejects as the delivery does when it never is. */
  readonly stored: Promise<void>;
}

/** A message `send()` keeps until it is acknowledged. @internal */
export interface Outgoing {
  /** The encoded `msg` frame, written again as it is. */
  readonly frame: string | ArrayBuffer | Uint8Array;
  /** What it counts against the budgets (`messageBytes` in `budget.ts`). */
  readonly bytes: number;
  /** How many times it was written. */
  attempts: number;
  /** When it was last written on the session's current connection (clock time); `undefined` if it was not. */
  sentAt: number | undefined;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** A session's state; the public face is {@link Session}. @internal */
export class SessionState<S extends ServerSocket> implements Session<S>, Metered {
  readonly id: string;
  readonly fixed_: number;
  bytes_ = 0;
  /** The current connection (see {@link Session.socket}). */
  socket_: S | undefined = undefined;
  /** Messages waiting for their acknowledgement, by id, in first-sent order. */
  readonly outbox_ = new Map<string, Outgoing>();
  /** Recent incoming ids, oldest first (at most `window`, and what the budgets leave room for). */
  readonly seen_ = new Set<string>();
  /** The id added to the window last: it sits in the room the session's fixed cost keeps for it. */
  newest_: string | undefined = undefined;
  /** The last outgoing id's number (ids are this sequence in base 10). */
  seq_: number;
  /** When the last connection went away (clock time); meaningful while disconnected. */
  disconnectedAt_ = 0;
  /** Whether a client said hello for it yet (the `session` event is emitted at the first). */
  greeted_ = false;
  /** The acknowledgement timer, armed while messages are in flight on an open connection. */
  timer_: TimerHandle | undefined = undefined;

  /**
   * @param start where the sequence of outgoing ids starts: random, so that a server that forgot
   *   the session (a restart) does not reuse ids its client still remembers (see `docs/guide/protocol.md`).
   */
  constructor(id: string, start: number) {
    this.id = id;
    this.fixed_ = sessionBytes(id);
    this.seq_ = start;
  }

  get socket(): S | undefined {
    return this.socket_;
  }

  get connected(): boolean {
    return this.socket_ !== undefined;
  }

  get pending(): number {
    return this.outbox_.size;
  }

  /**
   * Adds an incoming id to the window, forgetting the oldest ones past `window` ids or past a
   * budget (`maxSessionBytes`, `maxBytes`): the newest id always stays.
   */
  remember_(id: string, window: number, budget: Budget): void {
    const previous = this.newest_;
    this.seen_.add(id);
    this.newest_ = id;
    // The newest id fills the room kept in the fixed cost; the one it follows now counts on its own.
    if (previous !== undefined) budget.charge_(this, idBytes(previous));
    while (this.seen_.size > 1 && (this.seen_.size > window || budget.over_(this))) {
      const oldest = this.seen_.values().next().value as string;
      this.seen_.delete(oldest);
      budget.charge_(this, -idBytes(oldest));
    }
  }
}

/**
 * The delivery of a `send()`: `acknowledged`, with `stored` as its `stored`. Each is awaited on
 * its own: reading `stored` takes care of the delivery's rejection (it says the same), and
 * `stored` never goes unhandled.
 */
export function deliveryOf(acknowledged: Promise<void>, stored: Promise<void>): Delivery {
  stored.catch(noop);
  return Object.defineProperty(acknowledged, 'stored', {
    enumerable: true,
    get() {
      acknowledged.catch(noop);
      return stored;
    },
  }) as Delivery;
}

/** A `send()` refused at once: the delivery and its `stored` both reject with `error`. */
export function refused(error: unknown): Delivery {
  const delivery = Promise.reject(error);
  return deliveryOf(delivery, delivery);
}

/** A `send()` kept in this process's memory: stored as soon as it is queued (now). */
export function delivered(acknowledged: Promise<void>): Delivery {
  return deliveryOf(acknowledged, Promise.resolve());
}

const noop = (): void => undefined;
