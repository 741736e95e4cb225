/**
 * One process's `send()`s on Redis: each message is stored first (`SEND`, with this process as
 * its sender), then written by the process holding the client's connection, this one or another
 * (`./cluster.ts`). Its promise resolves when the client acknowledged it: told by the holder on
 * this process's channel, or, should that message be missed (the subscription was down), found by
 * the poll (`POLL`) that runs every `ackTimeout` while anything waits. The poll is also how an
 * expiry is noticed: a session whose keys are gone rejects what waits for it.
 *
 * Order is per sending process: two processes sending to one session interleave as Redis ran
 * their scripts.
 */
import type { TimerHandle } from '../clock.js';
import { ResilientSocketError } from '../errors.js';
import { messageBytes } from './budget.js';
import type { Link } from './cluster-link.js';
import { lostInStore, stopped, storeFailed, tooManyBytes, tooManyPending, unacknowledged } from './failures.js';
import { POLL as POLL_SOURCE, SEND as SEND_SOURCE } from './redis-scripts.js';
import { script, storedFrame } from './redis-store.js';
import { type Delivery, deliveryOf } from './session.js';

const SEND = /* @__PURE__ */ script(SEND_SOURCE);
const POLL = /* @__PURE__ */ script(POLL_SOURCE);
/** The scripts this file runs. */
export const SENDS_SCRIPTS = [SEND, POLL];

/** What became of a message: acknowledged, given up (`maxAttempts`), its session expired, or Redis lost it. */
export const ACKNOWLEDGED = 0;
export const GAVE_UP = 2;
export const EXPIRED = -1;
export const LOST = -2;

/** A `send()` waiting for the client's acknowledgement. */
interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  /** Stored in Redis (only then is it polled). */
  stored: boolean;
  /** The session's epoch when it was stored (a session made again since lost it). */
  epoch: string;
}

export class Sends {
  readonly #link: Link;
  /** Until this process hears its channel. */
  readonly #ready: Promise<void>;
  /** A message stored for a session this process holds: it writes it. */
  readonly #offer: (session: string, id: string, stored: string) => void;
  /** What waits, by session, then message id. */
  readonly #waiting = new Map<string, Map<string, Waiter>>();
  #sequence = 0;
  #poll: TimerHandle | undefined;
  #closed = false;
  /** While a `message` listener runs: the `stored` of each `send()` it makes. */
  during: Promise<void>[] | undefined;

  constructor(link: Link, ready: Promise<void>, offer: (session: string, id: string, stored: string) => void) {
    this.#link = link;
    this.#ready = ready;
    this.#offer = offer;
  }

  /** The id of this process's next message: unique in the cluster (this process's id, then a count). */
  nextId(): string {
    this.#sequence += 1;
    return `${this.#link.me}.${this.#sequence}`;
  }

  /**
   * Stores `frame` (message `id` for `session`) and hands it to the holder; the delivery resolves
   * on the client's acknowledgement, its `stored` once Redis has it.
   */
  send(session: string, id: string, frame: string | ArrayBuffer | Uint8Array): Delivery {
    const { options: o, store, me } = this.#link;
    const kept = storedFrame(frame);
    let waiter: Waiter | undefined;
    const acknowledged = new Promise<void>((resolve, reject) => {
      waiter = { resolve, reject, stored: false, epoch: '' };
    });
    const w = waiter as Waiter;
    const waits = this.#waiting.get(session) ?? new Map<string, Waiter>();
    this.#waiting.set(session, waits);
    waits.set(id, w);
    // The bytes it counts against `maxSessionBytes`: as in memory (see `./budget.ts`).
    const bytes = String(messageBytes(id, frame));
    const bound = o.maxSessionBytes === Number.POSITIVE_INFINITY ? '-1' : String(o.maxSessionBytes);
    const args = [me, session, id, kept, String(o.maxPending), bytes, bound];
    const stored = this.#ready
      .then(() => this.#link.run(SEND, store.keys(session), args))
      .then((reply) => {
        if (reply === 1) throw tooManyPending(o.maxPending);
        if (!Array.isArray(reply))
          throw tooManyBytes('maxSessionBytes', o.maxSessionBytes, 'the message was not stored');
        const [holder, epoch] = reply as [string, string];
        w.stored = true;
        w.epoch = epoch;
        this.#armPoll();
        if (holder === me) this.#offer(session, id, kept);
      })
      .then(undefined, (thrown: unknown) => {
        const error = thrown instanceof ResilientSocketError ? thrown : storeFailed('a send', thrown);
        this.#forget(session, id);
        w.reject(error);
        throw error;
      });
    this.during?.push(stored.catch(() => undefined));
    return deliveryOf(acknowledged, stored);
  }

  /** What became of message `id` of `session` (see {@link ACKNOWLEDGED}, …): its promise settles. */
  outcome(session: string, id: string, state: number): void {
    const w = this.#waiting.get(session)?.get(id);
    if (w === undefined) return;
    this.#forget(session, id);
    const o = this.#link.options;
    if (state === ACKNOWLEDGED) w.resolve();
    else if (state === GAVE_UP) w.reject(unacknowledged(o.maxAttempts));
    else if (state === EXPIRED) w.reject(stopped('expired', o.sessionTtl));
    else w.reject(lostInStore());
  }

  /** `close()`: the poll stops, and what waits rejects (the messages stay stored, for the next holder). */
  close(): void {
    this.#closed = true;
    this.#link.disarm(this.#poll);
    const error = stopped('closed', 0);
    for (const [session, waits] of [...this.#waiting]) {
      this.#waiting.delete(session);
      for (const w of waits.values()) w.reject(error);
    }
  }

  #forget(session: string, id: string): void {
    const waits = this.#waiting.get(session);
    waits?.delete(id);
    if (waits?.size === 0) this.#waiting.delete(session);
  }

  /** Every `ackTimeout` while anything waits: what became of it. */
  #armPoll(): void {
    if (this.#poll !== undefined || this.#closed || this.#waiting.size === 0) return;
    const { store } = this.#link;
    this.#poll = this.#link.arm(() => {
      this.#poll = undefined;
      for (const [session, waits] of this.#waiting) {
        const ids = [...waits].filter(([, w]) => w.stored).map(([id]) => id);
        if (ids.length === 0) continue;
        this.#link.run(POLL, store.keys(session), ids).then(
          (reply) => {
            if (reply === EXPIRED) for (const id of ids) this.outcome(session, id, EXPIRED);
            else {
              const [epoch, ...states] = reply as [string, ...number[]];
              states.forEach((state, i) => {
                const id = ids[i] as string;
                // Not there any more, in a session made again: lost, not acknowledged.
                const lost = state !== 1 && waits.get(id)?.epoch !== epoch;
                if (state !== 1) this.outcome(session, id, lost ? LOST : state);
              });
            }
          },
          (error: unknown) => this.#link.trouble('a poll', error),
        );
      }
      this.#armPoll();
    }, this.#link.options.ackTimeout);
  }
}
