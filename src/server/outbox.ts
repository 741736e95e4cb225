/**
 * What `ReliableServer.send()` keeps for each session until the client acknowledges it: writing it
 * (now, after `ackTimeout`, after a hello), giving up after `maxAttempts`, counting it against the
 * budgets, and the one timer per session (the acknowledgement timer while connected, the expiry
 * while not).
 *
 * Writing again is paced by the connection: while it still holds bytes it has not written
 * (`bufferedAmount`), nothing is written again, so a client that does not read costs one copy of
 * its outbox in its connection's buffer, never one more per `ackTimeout`.
 */
import { unrefTimer } from '../clock.js';
import type { Budget } from './budget.js';
import { unacknowledged } from './failures.js';
import { MAX_DELAY, type ResolvedServerOptions } from './options.js';
import type { Outgoing, ServerSocket, SessionState } from './session.js';

/** `ws`'s `readyState` of an open connection. */
const OPEN = 1;

/** The outboxes of every session of one server, and their timers. @internal */
export class Outbox<S extends ServerSocket> {
  readonly #o: ResolvedServerOptions;
  readonly #budget: Budget;
  readonly #expire: (session: SessionState<S>) => void;

  /** @param expire called when a disconnected session's `sessionTtl` ran out */
  constructor(options: ResolvedServerOptions, budget: Budget, expire: (session: SessionState<S>) => void) {
    this.#o = options;
    this.#budget = budget;
    this.#expire = expire;
  }

  /**
   * Keeps a new message (already encoded as `frame`, counting `bytes`) and writes it if the session
   * is connected.
   */
  add_(s: SessionState<S>, id: string, frame: string | ArrayBuffer | Uint8Array, bytes: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry: Outgoing = { frame, bytes, attempts: 0, sentAt: undefined, resolve, reject };
      s.outbox_.set(id, entry);
      this.#budget.charge_(s, bytes);
      if (s.socket_ !== undefined && this.#transmit(s, id, entry)) this.#armAck(s);
    });
  }

  /** The client acknowledged `id`: its promise resolves (an unknown id is ignored: a late duplicate). */
  ack_(s: SessionState<S>, id: string): void {
    const entry = s.outbox_.get(id);
    if (entry === undefined) return;
    this.#drop(s, id, entry);
    if (s.outbox_.size === 0) this.#disarm(s);
    entry.resolve();
  }

  /** The session has no connection: nothing is in flight any more, and its expiry starts. */
  park_(s: SessionState<S>): void {
    this.#disarm(s);
    for (const entry of s.outbox_.values()) entry.sentAt = undefined;
    const ttl = this.#o.sessionTtl;
    if (ttl === Number.POSITIVE_INFINITY) return;
    s.timer_ = this.#o.clock.setTimeout(
      () => {
        s.timer_ = undefined;
        this.#expire(s);
      },
      delay(ttl, MAX_DELAY),
    );
    unrefTimer(s.timer_);
  }

  /**
   * The client said hello on a new connection: every message still pending goes once on it, in
   * first-sent order.
   */
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
    const entries = [...s.outbox_];
    for (const [id, entry] of entries) this.#drop(s, id, entry);
    for (const [, entry] of entries) entry.reject(error);
  }

  /** Removes a message from the outbox and from the budget. */
  #drop(s: SessionState<S>, id: string, entry: Outgoing): void {
    s.outbox_.delete(id);
    this.#budget.charge_(s, -entry.bytes);
  }

  /**
   * Writes one message on the session's connection, or gives it up if it was written
   * `maxAttempts` times already. @returns whether it was written
   */
  #transmit(s: SessionState<S>, id: string, entry: Outgoing): boolean {
    if (entry.attempts >= this.#o.maxAttempts) {
      this.#drop(s, id, entry);
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

  /**
   * Arms the acknowledgement timer, unless it is armed: for the message in flight the longest, or
   * after `wait` ms when given (the connection was still busy).
   */
  #armAck(s: SessionState<S>, wait?: number): void {
    if (s.timer_ !== undefined) return;
    let oldest: number | undefined;
    for (const entry of s.outbox_.values()) {
      if (entry.sentAt !== undefined && (oldest === undefined || entry.sentAt < oldest)) oldest = entry.sentAt;
    }
    if (oldest === undefined) return;
    const { ackTimeout } = this.#o;
    s.timer_ = this.#o.clock.setTimeout(
      () => {
        s.timer_ = undefined;
        this.#overdue(s);
      },
      delay(wait ?? oldest + ackTimeout - this.#o.clock.now(), ackTimeout),
    );
    unrefTimer(s.timer_);
  }

  /**
   * The acknowledgement timer fired: every message in flight for `ackTimeout` goes again (in
   * order), once the connection wrote everything it was given before; until then, it waits
   * another `ackTimeout`.
   */
  #overdue(s: SessionState<S>): void {
    const socket = s.socket_;
    if (socket === undefined) return;
    if ((socket.bufferedAmount ?? 0) > 0) {
      this.#armAck(s, this.#o.ackTimeout);
      return;
    }
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

/** `ms` as a timer can take it: within [0, 2^31 - 1], and `fallback` for what is not a number. */
function delay(ms: number, fallback: number): number {
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_DELAY) : fallback;
}
