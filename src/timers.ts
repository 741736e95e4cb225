import { clampDelay } from './backoff/policy.js';
import { type Clock, type TimerHandle, unrefTimer } from './clock.js';

/**
 * Named timer slots: one handle per name, cleared before it is re-armed, forgotten when it fires
 * or is cleared, and `clearAll()` for teardown. Every timer of a socket lives here, so "close()
 * leaves no timer" is one call and tests can count what is pending.
 *
 * @internal
 */
export class TimerSlots<Name extends string> {
  readonly #clock: Clock;
  readonly #unref: boolean;
  /** One slot per name; `undefined` when not armed (a plain object is smaller than a Map). */
  readonly #handles: Partial<Record<Name, TimerHandle>> = {};

  constructor(clock: Clock, unref: boolean) {
    this.#clock = clock;
    this.#unref = unref;
  }

  /** Arms `name` to call `callback` after `ms` (clamped to [0, 2^31 − 1]), replacing any pending one. */
  set(name: Name, ms: number, callback: () => void): void {
    this.clear(name);
    // Clamped here, for every timer: setTimeout fires after 1 ms for anything above 2^31 − 1.
    const delay = clampDelay(ms);
    const handle = this.#clock.setTimeout(() => {
      if (this.#handles[name] === handle) this.#handles[name] = undefined;
      callback();
    }, delay);
    if (this.#unref) unrefTimer(handle);
    this.#handles[name] = handle;
  }

  /** Cancels `name` if pending. */
  clear(name: Name): void {
    const handle = this.#handles[name];
    if (handle === undefined) return;
    this.#handles[name] = undefined;
    this.#clock.clearTimeout(handle);
  }

  /** Cancels every pending timer. */
  clearAll(): void {
    for (const name in this.#handles) this.clear(name);
  }

  /** Whether `name` is pending. */
  has(name: Name): boolean {
    return this.#handles[name] !== undefined;
  }

  /** How many timers are pending. */
  get size(): number {
    let pending = 0;
    for (const name in this.#handles) if (this.#handles[name] !== undefined) pending++;
    return pending;
  }
}
