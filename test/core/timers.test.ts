/**
 * The socket's timers (`src/core/machine.ts`: `arm_`, `disarm_`, `fire_`), as a feature uses them
 * through its `Host`: numbered slots, each holding at most one pending timer; re-arming replaces,
 * clearing cancels, `close()` leaves none. Any clock works, also one whose `now()` stands still,
 * whose `clearTimeout` misses, or whose `setTimeout` returns no handle.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Clock, systemClock } from '../../src/clock.js';
import { clearTimer, type Feature, type Host, hasTimer, setTimer } from '../../src/core/feature.js';
import { BaseSocket } from '../../src/core/socket.js';
import { unref as unrefFeature } from '../../src/features/unref/unref.js';
import { WebSocketImpl } from '../resilient-socket/helpers.js';

/** Three slots, named for the test. */
const [a, b, c] = [0, 1, 2];
const NAMES = ['a', 'b', 'c'];

/** The timers of an idle socket, seen through a feature with three slots whose timer hook runs `fire`. */
function timersOf(clock: Clock, fire: (slot: number) => void, unref = false) {
  let host: Host | undefined;
  let me = -1;
  const probe: Feature = {
    name: 'timer-probe',
    rank: 50,
    slots: 3,
    init(m, index) {
      host = m;
      me = index;
    },
    timer: (_m, _me, slot) => fire(slot),
  };
  const socket = new BaseSocket('ws://127.0.0.1:9/', {
    WebSocket: WebSocketImpl,
    clock,
    autoConnect: false,
    features: unref ? [probe, unrefFeature()] : [probe],
  });
  const m = host as Host;
  return {
    set: (slot: number, ms: number) => setTimer(m, me, slot, ms),
    clear: (slot: number) => clearTimer(m, me, slot),
    has: (slot: number) => hasTimer(m, me, slot),
    clearAll: () => socket.close(),
  };
}

/** Slots whose timer hook logs what fired, and when (fake time). */
function slots(settings: { clock: Clock; unref: boolean } = { clock: systemClock, unref: false }) {
  const fired: string[] = [];
  const timers = timersOf(settings.clock, (slot) => fired.push(`${NAMES[slot]}@${Date.now()}`), settings.unref);
  return { timers, fired };
}

/** A clock driven by hand: `now()` never moves, its timers fire only when the test says. */
function manualClock() {
  const pending: { callback: () => void; ms: number; unref: ReturnType<typeof vi.fn> }[] = [];
  const clock: Clock = {
    setTimeout: (callback, ms) => {
      const handle = { callback, ms, unref: vi.fn() };
      pending.push(handle);
      return handle;
    },
    clearTimeout: (handle) => {
      const index = pending.indexOf(handle as (typeof pending)[number]);
      if (index >= 0) pending.splice(index, 1);
    },
    now: () => 0,
  };
  return { clock, pending };
}

describe('timer slots on the system clock (fake timers installed after import)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
  });

  it('fires every slot after its own delay', async () => {
    const { timers, fired } = slots();
    timers.set(a, 300);
    timers.set(b, 100);
    timers.set(c, 200);
    expect([a, b, c].map((slot) => timers.has(slot))).toEqual([true, true, true]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(fired).toEqual(['b@100', 'c@200', 'a@300']);
    expect(timers.has(a)).toBe(false);
  });

  it('re-arming a slot replaces its timer; clearing cancels it', async () => {
    const { timers, fired } = slots();
    timers.set(a, 100);
    timers.set(b, 150);
    await vi.advanceTimersByTimeAsync(50);
    timers.set(a, 200); // now due at 250, after b
    timers.clear(b);
    expect(timers.has(b)).toBe(false);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(fired).toEqual(['a@250']);
  });

  it('close() leaves no timer at all', async () => {
    const { timers, fired } = slots();
    timers.set(a, 10);
    timers.set(b, 20);
    timers.clearAll();
    expect(vi.getTimerCount()).toBe(0);
    expect(timers.has(a) || timers.has(b)).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    expect(fired).toEqual([]);
  });

  it('equal delays fire together, in the order they were set', async () => {
    const { timers, fired } = slots();
    timers.set(c, 100);
    timers.set(a, 100);
    await vi.advanceTimersByTimeAsync(100);
    expect(fired).toEqual(['c@100', 'a@100']);
  });

  it('a callback that throws does not disturb the other slots', async () => {
    const log: string[] = [];
    const timers = timersOf(systemClock, (slot) => {
      log.push(NAMES[slot] as string);
      if (slot === a) throw new Error('boom');
    });
    timers.set(a, 10);
    timers.set(b, 20);
    await expect(vi.advanceTimersByTimeAsync(10)).rejects.toThrow('boom');
    await vi.advanceTimersByTimeAsync(10);
    expect(log).toEqual(['a', 'b']);
  });

  it('clamps delays to [0, 2^31 − 1] and rejects NaN', async () => {
    const { timers, fired } = slots();
    timers.set(a, -5);
    await vi.advanceTimersByTimeAsync(0);
    expect(fired).toEqual(['a@0']);
    timers.set(b, Number.POSITIVE_INFINITY);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(timers.has(b)).toBe(true);
    timers.clear(b);
    expect(() => timers.set(c, Number.NaN)).toThrow(RangeError);
  });
});

describe('timer slots on a clock whose now() never moves', () => {
  it('fires a slot when its timer fires, whatever now() says', () => {
    const manual = manualClock();
    const { timers, fired } = slots({ clock: manual.clock, unref: false });
    timers.set(a, 777);
    timers.set(b, 5);
    expect(manual.pending.map((p) => p.ms)).toEqual([777, 5]);
    manual.pending[0]?.callback();
    expect(fired).toHaveLength(1);
    expect(timers.has(a)).toBe(false);
    expect(timers.has(b)).toBe(true);
  });

  it('ignores a timer that fires after its slot was cleared (a clock whose clearTimeout missed it)', () => {
    const manual = manualClock();
    const { timers, fired } = slots({ clock: manual.clock, unref: false });
    timers.set(a, 10);
    const stale = manual.pending[0];
    timers.clear(a);
    stale?.callback();
    expect(fired).toEqual([]);
  });

  it('unrefs every timer when asked, and only then', () => {
    for (const unref of [true, false]) {
      const manual = manualClock();
      const { timers } = slots({ clock: manual.clock, unref });
      timers.set(a, 10);
      timers.set(b, 5);
      expect(manual.pending).toHaveLength(2);
      for (const timer of manual.pending) expect(timer.unref).toHaveBeenCalledTimes(unref ? 1 : 0);
    }
  });
});

describe('timer slots on a clock whose setTimeout returns no handle', () => {
  function handleless() {
    const pending: (() => void)[] = [];
    const clock: Clock = {
      setTimeout: (callback) => {
        pending.push(callback);
        return undefined;
      },
      clearTimeout: () => undefined, // nothing to cancel with
      now: () => 0,
    };
    return { clock, pending };
  }

  it('a pending slot fires; has() sees it pending although the handle is undefined', () => {
    const manual = handleless();
    const { timers, fired } = slots({ clock: manual.clock, unref: false });
    timers.set(a, 10);
    expect(timers.has(a)).toBe(true);
    manual.pending[0]?.();
    expect(fired).toHaveLength(1);
    expect(timers.has(a)).toBe(false);
  });

  it('a callback of an earlier arming (cleared or replaced, but not cancelled) never fires the slot', () => {
    const manual = handleless();
    const { timers, fired } = slots({ clock: manual.clock, unref: false });
    timers.set(a, 10);
    timers.set(a, 20); // replaces the first; the first's callback is still out there
    manual.pending[0]?.();
    expect(fired).toEqual([]);
    expect(timers.has(a)).toBe(true);
    manual.pending[1]?.();
    expect(fired).toHaveLength(1);
    timers.set(b, 5);
    timers.clear(b);
    manual.pending[2]?.();
    expect(fired).toHaveLength(1);
  });
});
