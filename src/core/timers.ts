import { clampDelay } from '../backoff/policy.js';
import { type Clock, unrefTimer } from '../clock.js';

/** Where the clock timers come from, and whether they may hold a Node process open. */
export interface TimerSettings {
  readonly clock: Clock;
  /** Unref the clock timers (they then do not keep a Node process alive). */
  readonly unref: boolean;
}

/**
 * How many slots there are and what to do when one is due. One spec serves every instance (the
 * owner is passed in), so an instance holds no closure per slot or per timer.
 */
export interface TimerSpec<Owner> {
  /** Slots are numbered 0 to `count − 1` (unless the constructor is given the count). */
  readonly count?: number;
  fire(owner: Owner, slot: number): void;
}

/**
 * Numbered timer slots: each holds at most one pending timer, re-arming a slot replaces it, a slot
 * is idle again when it fires or is cleared, and `clearAll()` is the teardown. Every timer of a
 * socket lives here, so "close() leaves no timer" is one call and tests can count what is pending.
 *
 * Each pending slot is a clock timer of its own, so timing is exactly the clock's (equal delays
 * fire in the order they were set; a clock whose `now()` stands still or jumps changes nothing).
 * What a timer calls is the spec's one function, bound to the slot and the arming: one small bound
 * function per armed timer (no closure over the owner), nothing kept once it fired. Any clock works,
 * also one whose `setTimeout` returns nothing or whose `clearTimeout` misses: a callback fires its
 * slot only if that slot is still pending from the same arming.
 *
 * Two cheaper layouts were built and measured, and not kept. One clock timer per socket,
 * multiplexed over its slots, saves about 200 bytes per open socket, for 0.3 kB gzipped of
 * bookkeeping to keep the timing exact. One clock timer per clock, shared by every socket (a heap
 * of sockets keyed by their earliest deadline), saves about 420 bytes, but costs 0.7 kB gzipped,
 * has to guess at clock jumps (one timer serves deadlines set at different times), and couples
 * sockets: under fake timers, state left by one test's clock changed when another test's timers
 * fired (it made a property test fail about one run in three). A timer per slot is exact and
 * isolated by construction.
 *
 * @internal
 */
export class TimerSlots<Owner> {
  readonly #spec: TimerSpec<Owner>;
  readonly #settings: TimerSettings;
  readonly #owner: Owner;
  /**
   * Two entries per slot: `[2·slot]` the clock's handle of its pending timer, `[2·slot + 1]` the
   * arming it belongs to (0 when the slot is idle). One array rather than two: a socket keeps one
   * of these for its whole life (the memory budget, STYLE 23).
   */
  readonly #pending: unknown[];
  /** How many timers were armed; numbers each arming, so a late or stale callback is told apart. */
  #armed = 0;

  constructor(spec: TimerSpec<Owner>, settings: TimerSettings, owner: Owner, count = spec.count ?? 0) {
    this.#spec = spec;
    this.#settings = settings;
    this.#owner = owner;
    this.#pending = new Array(count * 2).fill(0);
  }

  /** Arms `slot` to fire after `ms` (clamped to [0, 2^31 − 1]), replacing any pending timer. */
  set(slot: number, ms: number): void {
    this.clear(slot);
    // Clamped here, for every timer: setTimeout fires after 1 ms for anything above 2^31 − 1.
    const delay = clampDelay(ms);
    const arming = ++this.#armed;
    this.#pending[2 * slot + 1] = arming;
    // The arming travels with the callback: a clock whose handles are not unique (or that returns
    // none at all) cannot make a stale callback fire a slot armed since.
    const handle = this.#settings.clock.setTimeout(this.#fire.bind(this, slot, arming), delay);
    if (this.#settings.unref) unrefTimer(handle);
    // A clock that ran the callback at once may have re-armed the slot: keep that timer's handle.
    if (this.#pending[2 * slot + 1] === arming) this.#pending[2 * slot] = handle;
  }

  /** Cancels `slot` if pending. */
  clear(slot: number): void {
    if (this.#pending[2 * slot + 1] === 0) return;
    const handle = this.#pending[2 * slot];
    this.#pending[2 * slot] = 0;
    this.#pending[2 * slot + 1] = 0;
    this.#settings.clock.clearTimeout(handle);
  }

  /** Cancels every pending slot; no clock timer is left. */
  clearAll(): void {
    for (let slot = 0; slot * 2 < this.#pending.length; slot++) this.clear(slot);
  }

  /** Whether `slot` is pending. */
  has(slot: number): boolean {
    return this.#pending[2 * slot + 1] !== 0;
  }

  #fire(slot: number, arming: number): void {
    // Cleared or re-armed since (the clock's clearTimeout missed it, or its handles are not unique).
    if (this.#pending[2 * slot + 1] !== arming) return;
    this.#pending[2 * slot] = 0;
    this.#pending[2 * slot + 1] = 0;
    this.#spec.fire(this.#owner, slot);
  }
}
