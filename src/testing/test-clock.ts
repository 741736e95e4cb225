/**
 * A manual {@link Clock}: time moves only when the test says so. Inject it as the `clock` option
 * of `ResilientSocket` or `retry()`; nothing global is patched (the idea of xstate's
 * `SimulatedClock` and ably's test `FakeClock`).
 */
import type { Clock, TimerHandle } from '../clock.js';
import { assertNumber } from '../validation.js';
import { realSetImmediate } from './timing.js';

interface Entry {
  readonly id: number;
  readonly at: number;
  readonly callback: () => void;
}

/**
 * Time that moves by hand. Timers fire in due order (ties in the order they were set), each with
 * `now()` equal to its due time, and `advance()` lets promises settle between two timers, so
 * async work a timer starts (a URL provider, a handshake) runs before the next one fires.
 *
 * ```ts
 * const clock = new TestClock();
 * const socket = new ResilientSocket(url, { clock, WebSocket });
 * await clock.advance(1_000);
 * ```
 */
export class TestClock implements Clock {
  #now: number;
  #nextId = 0;
  #timers: Entry[] = [];
  /** The end of the latest `advance()` call: calls run one after the other, never interleaved. */
  #queue: Promise<void> = Promise.resolve();

  /** @param start - the initial `now()`, in ms. @default 0 */
  constructor(start = 0) {
    assertNumber('start', start);
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
    this.#nextId += 1;
    const entry = { id: this.#nextId, at: this.#now + delay, callback };
    // Keep the list sorted by due time, then by creation (a stable insert).
    let i = this.#timers.length;
    while (i > 0 && (this.#timers[i - 1] as Entry).at > entry.at) i--;
    this.#timers.splice(i, 0, entry);
    return entry.id;
  }

  clearTimeout(handle: TimerHandle): void {
    const i = this.#timers.findIndex((entry) => entry.id === handle);
    if (i !== -1) this.#timers.splice(i, 1);
  }

  /** How many timers are pending. */
  get pending(): number {
    return this.#timers.length;
  }

  /** When the next timer is due (`undefined` when none is pending). */
  get nextAt(): number | undefined {
    return this.#timers[0]?.at;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way (also the ones those
   * timers set), and lets pending promises settle before and after each. Calls that overlap run
   * one after the other, so time never goes backwards.
   */
  advance(ms: number): Promise<void> {
    try {
      assertNumber('ms', ms, { min: 0 });
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(() => this.#advance(ms));
  }

  /**
   * A machine that slept: `now()` jumps `ms` ahead while every pending timer keeps the time it
   * still had to wait (as real timers do: they run on a monotonic clock that stops in sleep).
   * Nothing fires; the next {@link TestClock.advance} goes on from the new time. Use it to test
   * what a socket does after a laptop lid was closed (it probes the link: the `resume` option).
   */
  jump(ms: number): void {
    assertNumber('ms', ms, { min: 0 });
    this.#now += ms;
    this.#timers = this.#timers.map((entry) => ({ ...entry, at: entry.at + ms }));
  }

  /** Moves time to the next timer and fires it (and any due at the same time); false if none is pending. */
  next(): Promise<boolean> {
    return this.#enqueue(async () => {
      const at = this.nextAt;
      if (at === undefined) return false;
      await this.#advance(at - this.#now);
      return true;
    });
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  async #advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    await settle();
    for (;;) {
      const entry = this.#timers[0];
      if (entry === undefined || entry.at > end) break;
      this.#timers.shift();
      this.#now = entry.at;
      entry.callback();
      await settle();
    }
    this.#now = end;
  }
}

/**
 * Lets every queued promise callback run, however deep the chain: a real `setImmediate` runs only
 * once the microtask queue is empty (captured from `node:timers`, so fake timers cannot stop it).
 */
function settle(): Promise<void> {
  return new Promise((resolve) => realSetImmediate(resolve));
}
