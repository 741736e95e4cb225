/**
 * The clock seam. Every timer and every reading of "now" in the package goes through a
 * {@link Clock}, so tests (yours and ours) can drive time by hand instead of sleeping.
 * The idea is xstate's `Clock` and ably's `Platform.Config` timers: inject, never patch globals.
 */
import { typeError } from './validation.js';

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
    const own = typeof handle === 'object' && handle !== null ? (handle as { [CLEAR]?: unknown })[CLEAR] : undefined;
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
  if (typeof handle === 'object' && handle !== null && 'unref' in handle) {
    const unref = (handle as { unref?: unknown }).unref;
    if (typeof unref === 'function') unref.call(handle);
  }
}

/** @throws TypeError (`ERR_RS_INVALID_TYPE`) unless `value` has the three clock methods. */
export function assertClock(name: string, value: unknown): asserts value is Clock {
  const c = value as Partial<Clock> | null;
  if (
    typeof c !== 'object' ||
    c === null ||
    typeof c.setTimeout !== 'function' ||
    typeof c.clearTimeout !== 'function' ||
    typeof c.now !== 'function'
  ) {
    throw typeError(
      name,
      process.env.NODE_ENV !== 'production'
        ? `Expected \`${name}\` to be a Clock with setTimeout, clearTimeout and now functions`
        : '',
    );
  }
}
