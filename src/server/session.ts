/**
 * One client's session on the server: what `send()` keeps until it is acknowledged (the outbox, in
 * first-sent order), the window of recent incoming ids, the sequence of its outgoing ids, and the
 * connection it said hello on last. Its size is bounded by `maxPending` and `window`.
 */
import type { TimerHandle } from '../clock.js';

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

/** A message `send()` keeps until it is acknowledged. @internal */
export interface Outgoing {
  /** The encoded `msg` frame, written again as it is. */
  readonly frame: string | ArrayBuffer | Uint8Array;
  /** How many times it was written. */
  attempts: number;
  /** When it was last written on the session's current connection (clock time); `undefined` if it was not. */
  sentAt: number | undefined;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** A session's state; the public face is {@link Session}. @internal */
export class SessionState<S extends ServerSocket> implements Session<S> {
  readonly id: string;
  /** The current connection (see {@link Session.socket}). */
  socket_: S | undefined = undefined;
  /** Messages waiting for their acknowledgement, by id, in first-sent order. */
  readonly outbox_ = new Map<string, Outgoing>();
  /** Recent incoming ids, oldest first (at most `window`). */
  readonly seen_ = new Set<string>();
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

  /** Adds an incoming id to the window, forgetting the oldest past `window` ids. */
  remember_(id: string, window: number): void {
    this.seen_.add(id);
    if (this.seen_.size > window) this.seen_.delete(this.seen_.values().next().value as string);
  }
}
