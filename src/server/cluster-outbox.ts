/**
 * The outbox as the process holding a session's connection writes it (`./cluster.ts`): each
 * stored message written once, in the order Redis keeps, then again every `ackTimeout` while the
 * connection has written what it was given (its frame read again from Redis: the process keeps
 * only a small record per message), until the client acknowledges it or `maxAttempts` writes
 * went unanswered. Either way it leaves the outbox in Redis (`SETTLE`) and its sender is told.
 */
import { type Budget, messageBytes } from './budget.js';
import { charge, type Held, type Outgoing } from './cluster-held.js';
import type { Link } from './cluster-link.js';
import { ACKNOWLEDGED, GAVE_UP } from './cluster-sends.js';
import * as lua from './redis-scripts.js';
import { frameOf, script, storedOfEntry } from './redis-store.js';
import type { ServerSocket } from './session.js';

const SETTLE = /* @__PURE__ */ script(lua.SETTLE);
/** The scripts this file runs. */
export const OUTBOX_SCRIPTS = [SETTLE];

/** `ws`'s `readyState` of an open connection. */
const OPEN = 1;

/** What a process keeps per message of an outbox it writes: its record and its id. */
const recordBytes = (id: string): number => messageBytes(id, '');

export class HeldOutbox<S extends ServerSocket> {
  readonly #link: Link;
  readonly #budget: Budget;
  /** Tells this process's own `send()` what became of its message. */
  readonly #outcome: (session: string, id: string, state: number) => void;

  constructor(link: Link, budget: Budget, outcome: (session: string, id: string, state: number) => void) {
    this.#link = link;
    this.#budget = budget;
    this.#outcome = outcome;
  }

  /**
   * This process was told of message `id` (by its channel, or its own `send()`): written after
   * the outbox last read, unless the session is stale (the next read has it, in its place).
   */
  told(held: Held<S>, id: string, stored: string): void {
    if (held.stale_) return;
    void held.synced_.then(() => {
      if (held.holding_) this.#offer(held, id, stored);
    });
  }

  /** The outbox as a script lists it (id, sender, stored frame, …): each written once, in order. */
  offerAll(held: Held<S>, out: string[]): void {
    for (let i = 0; i + 2 < out.length; i += 3) this.#offer(held, out[i] as string, out[i + 2] as string);
  }

  /** The client acknowledged message `id`. */
  ack(held: Held<S>, id: string): void {
    this.forget(held, id);
    this.#settle(held, id, 'ack');
  }

  /** Message `id` leaves what this process writes (in Redis it stays). */
  forget(held: Held<S>, id: string): void {
    if (held.out_.delete(id)) charge(this.#budget, held, -recordBytes(id));
  }

  /** A stored message for the client of `held`: written now (once), then again after `ackTimeout`. */
  #offer(held: Held<S>, id: string, stored: string): void {
    if (held.out_.has(id)) return;
    const entry: Outgoing = { attempts: 0, sentAt: 0 };
    held.out_.set(id, entry);
    charge(this.#budget, held, recordBytes(id));
    this.#write(held, entry, stored);
    this.#arm(held);
  }

  /** Writes one message (`stored` as Redis keeps it), if the connection is open. */
  #write(held: Held<S>, entry: Outgoing, stored: string): void {
    const socket = held.socket_;
    entry.sentAt = this.#link.now();
    if (socket === undefined || socket.readyState !== OPEN) return;
    try {
      socket.send(frameOf(stored));
      entry.attempts += 1;
    } catch {
      // closing: its `close` follows, and the next hello sends it again
    }
  }

  #arm(held: Held<S>): void {
    if (held.timer_ !== undefined || held.out_.size === 0 || this.#link.closed) return;
    held.timer_ = this.#link.arm(() => {
      held.timer_ = undefined;
      this.#resend(held);
    }, this.#link.options.ackTimeout);
  }

  /**
   * `ackTimeout` passed: overdue messages go again (their frames read from Redis in one round
   * trip), once the connection wrote what it was given.
   */
  #resend(held: Held<S>): void {
    const socket = held.socket_;
    if (socket === undefined || !held.holding_) return;
    const { ackTimeout, maxAttempts } = this.#link.options;
    const now = this.#link.now();
    const overdue: string[] = [];
    if ((socket.bufferedAmount ?? 0) === 0) {
      for (const [id, entry] of [...held.out_]) {
        if (now - entry.sentAt < ackTimeout) continue;
        if (entry.attempts >= maxAttempts) {
          this.forget(held, id);
          this.#settle(held, id, 'gaveup');
        } else overdue.push(id);
      }
    }
    if (overdue.length === 0) {
      this.#arm(held);
      return;
    }
    this.#link.command(['HMGET', held.keys[2], ...overdue]).then(
      (entries) => {
        (entries as (string | null)[]).forEach((entry, i) => {
          const id = overdue[i] as string;
          const out = held.out_.get(id);
          if (out === undefined || held.socket_ !== socket) return;
          // Gone from Redis: settled meanwhile (by this process or another), or the session lost.
          if (typeof entry !== 'string') this.forget(held, id);
          else this.#write(held, out, storedOfEntry(entry));
        });
        this.#arm(held);
      },
      (error: unknown) => {
        this.#link.trouble('a resend', error);
        this.#arm(held);
      },
    );
  }

  /** Takes message `id` out of the outbox in Redis (`ack`, or `gaveup`) and tells its sender. */
  #settle(held: Held<S>, id: string, how: 'ack' | 'gaveup'): void {
    const { me } = this.#link;
    this.#link.run(SETTLE, held.keys, [me, held.id, id, how]).then(
      (sender) => {
        if (sender === me) this.#outcome(held.id, id, how === 'ack' ? ACKNOWLEDGED : GAVE_UP);
      },
      (error: unknown) => this.#link.trouble('an acknowledgement', error),
    );
  }
}
