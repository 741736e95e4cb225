/**
 * The clock seam. Every timer and every reading of "now" in the package goes through a
 * {@link Clock}, so tests (yours and ours) can drive time by hand instead of sleeping.
 * The idea is xstate's `Clock` and ably's `Platform.Config` timers: inject, never patch globals.
 */
import { rangeError, typeError } from './validation.js';

/** An opaque timer handle, whatever the clock's `setTimeout` returns. */
export type TimerHandle = unknown;

/** The three time primitives the package needs. */
export interface Clock {
  /** Schedules `callback` after `ms` milliseconds and returns a handle for {@link Clock.clearTimeout}. */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /** Cancels a timer; must accept a handle that already fired. */
  clearTimeout(handle: TimerHandle): void;
  /** Current time in milliseconds; only differences between two readings are used. */
  now(): number;
}

/** Where a Node timer handle keeps the `clearTimeout` that goes with the `setTimeout` that made it. */
const CLEAR: unique symbol = /* @__PURE__ */ Symbol('resilient-socket.clearTimeout');

/**
 * The default clock: the runtime's global timers and `Date.now()`, looked up at call time so
 * that fake-timer libraries installed after import (vitest, sinon) still take effect.
 *
 * A timer is cleared with the `clearTimeout` of the implementation that armed it: a test runner
 * that installs fake timers between arming and clearing would otherwise hand a real Node timer
 * to the fake `clearTimeout`, which ignores it, and the real timer would keep the process alive
 * after `close()`. Node timer handles are objects and carry their own; browser handles are
 * numbers, and a real browser timer left over does no harm (its callback finds its slot cleared).
 */
export const systemClock: Clock = /* @__PURE__ */ Object.freeze({
  setTimeout: (callback: () => void, ms: number): TimerHandle => {
    const clear = globalThis.clearTimeout;
    const handle: unknown = globalThis.setTimeout(callback, ms);
    if (typeof handle === 'object' && handle !== null) (handle as { [CLEAR]?: unknown })[CLEAR] = clear;
    return handle;
  },
  clearTimeout: (handle: TimerHandle): void => {
    // (A browser's handle is a number: it carries nothing.)
    const own = (handle as { [CLEAR]?: unknown } | null | undefined)?.[CLEAR];
    const clear = typeof own === 'function' ? (own as typeof globalThis.clearTimeout) : globalThis.clearTimeout;
    clear(handle as ReturnType<typeof setTimeout>);
  },
  now: (): number => Date.now(),
});

/**
 * Lets a Node timer stop holding the process open. A no-op for browser timers (numbers) and
 * for custom clocks whose handles have no `unref`.
 */
export function unrefTimer(handle: TimerHandle): void {
  const timer = handle as { unref?: unknown } | null | undefined;
  if (typeof timer?.unref === 'function') timer.unref();
}

/**
 * @throws TypeError unless `value` has the three clock methods; with `reads` (for a user of
 *   `now()`), RangeError when its `now()` does not return a finite number now (a clock that does
 *   so later is contained: {@link steadyClock}).
 */
export function assertClock(name: string, value: unknown, reads = false): asserts value is Clock {
  const c = value as Partial<Clock> | null;
  const ok = typeof c?.setTimeout === 'function' && typeof c.clearTimeout === 'function' && typeof c.now === 'function';
  if (!ok) {
    throw typeError(
      name,
      process.env.NODE_ENV !== 'production'
        ? `Expected \`${name}\` to be a Clock with setTimeout, clearTimeout and now functions`
        : '',
    );
  }
  if (!reads) return;
  let now: unknown;
  try {
    now = (c as Clock).now();
  } catch {
    // a clock whose now() throws is refused as one that returns no number
  }
  if (!Number.isFinite(now)) {
    throw rangeError(
      `${name}.now()`,
      process.env.NODE_ENV !== 'production'
        ? `Expected \`${name}.now()\` to return a finite number (milliseconds), got ${String(now)}`
        : '',
    );
  }
}

/** The steady clocks made so far, one per clock given (so that equal options still share one). */
const steadied = /* @__PURE__ */ new WeakMap<Clock, Clock>();

/**
 * `clock` with a `now()` that never returns what no timer can use: a reading that is not a finite
 * number (NaN, Infinity, a string) stands for the last good one, and `bad` is told once. Every
 * wait computed from two readings then stays a finite number: a broken clock can stop time, never
 * make a timer fire at once over and over. Its timers are the clock's own. One per clock.
 */
export function steadyClock(clock: Clock, bad: (value: unknown) => void): Clock {
  if (clock === systemClock) return clock;
  let steady = steadied.get(clock);
  if (!steady) {
    const first: unknown = clock.now();
    let last = Number.isFinite(first) ? (first as number) : 0;
    let told = false;
    steady = {
      setTimeout: (callback, ms) => clock.setTimeout(callback, ms),
      clearTimeout: (handle) => clock.clearTimeout(handle),
      now: () => {
        const value: unknown = clock.now();
        if (Number.isFinite(value)) last = value as number;
        else if (!told) {
          told = true;
          bad(value);
        }
        return last;
      },
    };
    steadied.set(clock, steady);
  }
  return steady;
}
