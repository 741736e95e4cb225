/**
 * What `ReliableServer.send()` keeps for each session until the client acknowledges it: writing it
 * (now, after `ackTimeout`, after a hello), giving up after `maxAttempts`, and the one timer per
 * session (the acknowledgement timer while connected, the expiry while not).
 */
import { unrefTimer } from '../clock.js';
import { unacknowledged } from './failures.js';
import type { ResolvedServerOptions } from './options.js';
import type { Outgoing, ServerSocket, SessionState } from './session.js';

/** `ws`'s `readyState` of an open connection. */
const OPEN = 1;

/** The outboxes of every session of one server, and their timers. @internal */
export class Outbox<S extends ServerSocket> {
  readonly #o: ResolvedServerOptions;
  readonly #expire: (session: SessionState<S>) => void;

  /** @param expire called when a disconnected session's `sessionTtl` ran out */
  constructor(options: ResolvedServerOptions, expire: (session: SessionState<S>) => void) {
    this.#o = options;
    this.#expire = expire;
  }

  /** Keeps a new message (already encoded as `frame`) and writes it if the session is connected. */
  add_(s: SessionState<S>, id: string, frame: string | ArrayBuffer | Uint8Array): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry: Outgoing = { frame, attempts: 0, sentAt: undefined, resolve, reject };
      s.outbox_.set(id, entry);
      if (s.socket_ !== undefined && this.#transmit(s, id, entry)) this.#armAck(s);
    });
  }

  /** The client acknowledged `id`: its promise resolves (an unknown id is ignored: a late duplicate). */
  ack_(s: SessionState<S>, id: string): void {
    const entry = s.outbox_.get(id);
    if (entry === undefined) return;
    s.outbox_.delete(id);
    if (s.outbox_.size === 0) this.#disarm(s);
    entry.resolve();
  }

  /** The session has no connection: nothing is in flight any more, and its expiry starts. */
  park_(s: SessionState<S>): void {
    this.#disarm(s);
    for (const entry of s.outbox_.values()) entry.sentAt = undefined;
    const ttl = this.#o.sessionTtl;
    if (ttl === Number.POSITIVE_INFINITY) return;
    s.timer_ = this.#o.clock.setTimeout(() => {
      s.timer_ = undefined;
      this.#expire(s);
    }, ttl);
    unrefTimer(s.timer_);
  }

  /** The client said hello: every message still pending goes again, in first-sent order. */
  resume_(s: SessionState<S>): void {
    this.#disarm(s);
    let sent = false;
    for (const [id, entry] of [...s.outbox_]) {
      if (s.socket_ === undefined) break;
      sent = this.#transmit(s, id, entry) || sent;
    }
    if (sent) this.#armAck(s);
  }

  /** The session is forgotten: its timer stops, and every pending promise rejects with `error`. */
  forget_(s: SessionState<S>, error: Error): void {
    this.#disarm(s);
    const entries = [...s.outbox_.values()];
    s.outbox_.clear();
    for (const entry of entries) entry.reject(error);
  }

  /**
   * Writes one message on the session's connection, or gives it up if it was written
   * `maxAttempts` times already. @returns whether it was written
   */
  #transmit(s: SessionState<S>, id: string, entry: Outgoing): boolean {
    if (entry.attempts >= this.#o.maxAttempts) {
      s.outbox_.delete(id);
      entry.reject(unacknowledged(entry.attempts));
      return false;
    }
    const socket = s.socket_;
    try {
      if (socket === undefined || socket.readyState !== OPEN) throw new Error('not open');
      socket.send(entry.frame);
    } catch {
      // Closing: its `close` follows, and the next hello sends it again. Not in flight meanwhile.
      entry.sentAt = undefined;
      return false;
    }
    entry.attempts += 1;
    entry.sentAt = this.#o.clock.now();
    return true;
  }

  /** Arms the acknowledgement timer for the message in flight the longest, unless it is armed. */
  #armAck(s: SessionState<S>): void {
    if (s.timer_ !== undefined) return;
    let oldest: number | undefined;
    for (const entry of s.outbox_.values()) {
      if (entry.sentAt !== undefined && (oldest === undefined || entry.sentAt < oldest)) oldest = entry.sentAt;
    }
    if (oldest === undefined) return;
    const wait = Math.max(0, oldest + this.#o.ackTimeout - this.#o.clock.now());
    s.timer_ = this.#o.clock.setTimeout(() => {
      s.timer_ = undefined;
      this.#overdue(s);
    }, wait);
    unrefTimer(s.timer_);
  }

  /** The acknowledgement timer fired: every message in flight for `ackTimeout` goes again (in order). */
  #overdue(s: SessionState<S>): void {
    if (s.socket_ === undefined) return;
    const now = this.#o.clock.now();
    for (const [id, entry] of [...s.outbox_]) {
      if (entry.sentAt !== undefined && now - entry.sentAt >= this.#o.ackTimeout) this.#transmit(s, id, entry);
    }
    this.#armAck(s);
  }

  /** Cancels the session's timer, whichever it is. */
  #disarm(s: SessionState<S>): void {
    if (s.timer_ === undefined) return;
    this.#o.clock.clearTimeout(s.timer_);
    s.timer_ = undefined;
  }
}
