import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Clock, systemClock } from '../src/clock.js';
import { TimerSlots, type TimerSpec } from '../src/timers.js';

/** Three slots, named for the test. */
const [a, b, c] = [0, 1, 2];
const NAMES = ['a', 'b', 'c'];

/** Slots whose owner is a log of what fired, and when (fake time). */
function slots(settings: { clock: Clock; unref: boolean } = { clock: systemClock, unref: false }) {
  const fired: string[] = [];
  const spec: TimerSpec<string[]> = {
    count: 3,
    fire: (log, slot) => log.push(`${NAMES[slot]}@${Date.now()}`),
  };
  return { timers: new TimerSlots(spec, settings, fired), fired };
}

/** A clock driven by hand: `now()` moves only through `advance`, its timers fire only through `fire`. */
function manualClock() {
  let time = 0;
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
    now: () => time,
  };
  return {
    clock,
    pending,
    advance: (ms: number) => {
      time += ms;
    },
    /** Runs the only pending timer, without moving `now()`. */
    fire: () => {
      expect(pending).toHaveLength(1);
      pending.shift()?.callback();
    },
  };
}

describe('TimerSlots on the system clock (fake timers installed after import)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
  });

  it('fires every slot after its own delay, with a single clock timer live', async () => {
    const { timers, fired } = slots();
    timers.set(a, 300);
    timers.set(b, 100);
    timers.set(c, 200);
    expect(vi.getTimerCount()).toBe(1);
    expect([a, b, c].map((slot) => timers.has(slot))).toEqual([true, true, true]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(fired).toEqual(['b@100', 'c@200', 'a@300']);
    expect(timers.has(a)).toBe(false);
  });

  it('re-arming a slot replaces its deadline; clearing cancels it', async () => {
    const { timers, fired } = slots();
    timers.set(a, 100);
    timers.set(b, 150);
    await vi.advanceTimersByTimeAsync(50);
    timers.set(a, 200); // now due at 250, after b
    timers.clear(b);
    expect(timers.has(b)).toBe(false);
    expect(timers.has(a)).toBe(true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(fired).toEqual(['a@250']);
  });

  it('clearAll() leaves no timer at all', async () => {
    const { timers, fired } = slots();
    timers.set(a, 10);
    timers.set(b, 20);
    timers.clearAll();
    expect(vi.getTimerCount()).toBe(0);
    expect(timers.has(a) || timers.has(b)).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    expect(fired).toEqual([]);
  });

  it('equal deadlines fire together, lowest slot first', async () => {
    const { timers, fired } = slots();
    timers.set(c, 100);
    timers.set(b, 50);
    timers.set(a, 100);
    await vi.advanceTimersByTimeAsync(100);
    expect(fired).toEqual(['b@50', 'a@100', 'c@100']);
  });

  it('a slot due with others that a callback clears does not fire', async () => {
    const log: string[] = [];
    const spec: TimerSpec<string[]> = {
      count: 3,
      fire: (owner, slot) => {
        owner.push(NAMES[slot] as string);
        if (slot === a) timers.clear(b);
      },
    };
    const timers = new TimerSlots(spec, { clock: systemClock, unref: false }, log);
    timers.set(b, 100);
    timers.set(a, 100);
    timers.set(c, 100);
    await vi.advanceTimersByTimeAsync(100);
    expect(log).toEqual(['a', 'c']);
  });

  it('a slot set with 0 ms from inside a callback fires in a later task, as a new timer would', async () => {
    const log: string[] = [];
    const spec: TimerSpec<string[]> = {
      count: 3,
      fire: (owner, slot) => {
        owner.push(`${NAMES[slot]}@${Date.now()}`);
        if (slot === a) {
          timers.set(b, 0); // b was due too: re-arming replaces that deadline
          timers.set(c, 0);
          owner.push('a done');
        }
      },
    };
    const timers = new TimerSlots(spec, { clock: systemClock, unref: false }, log);
    timers.set(a, 10);
    timers.set(b, 10);
    await vi.advanceTimersByTimeAsync(10);
    expect(log).toEqual(['a@10', 'a done']);
    // Fake timers, like Node, run a 0 ms timer set from a timer callback 1 ms later.
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(['a@10', 'a done', 'b@11', 'c@11']);
  });

  it('a callback that throws does not lose the other slots', async () => {
    const log: string[] = [];
    const spec: TimerSpec<string[]> = {
      count: 3,
      fire: (owner, slot) => {
        owner.push(NAMES[slot] as string);
        if (slot === a) throw new Error('boom');
      },
    };
    const timers = new TimerSlots(spec, { clock: systemClock, unref: false }, log);
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

describe('TimerSlots on a clock whose now() moves only when told', () => {
  it('fires the slot its timer was armed for even though now() stood still', () => {
    const manual = manualClock();
    const { timers, fired } = slots({ clock: manual.clock, unref: false });
    timers.set(a, 777);
    expect(manual.pending.map((p) => p.ms)).toEqual([777]);
    manual.fire();
    expect(fired).toHaveLength(1);
    expect(manual.pending).toEqual([]);
  });

  it("measures the next slot from the fired one's deadline, as a timer of its own would", () => {
    const manual = manualClock();
    const { timers, fired } = slots({ clock: manual.clock, unref: false });
    timers.set(a, 5_000);
    timers.set(b, 30_000);
    expect(manual.pending.map((p) => p.ms)).toEqual([5_000]);
    manual.fire(); // a, at 5 000 in the clock's timer time
    expect(manual.pending.map((p) => p.ms)).toEqual([25_000]);
    timers.set(c, 1_500); // set at 5 000 → due at 6 500
    expect(manual.pending.map((p) => p.ms)).toEqual([1_500]);
    manual.fire(); // c
    expect(manual.pending.map((p) => p.ms)).toEqual([23_500]); // b still at 30 000
    manual.fire();
    expect(fired.map((f) => f[0])).toEqual(['a', 'c', 'b']);
  });

  it('counts clock progress between timers, but never more than the armed delay', () => {
    const manual = manualClock();
    const { timers } = slots({ clock: manual.clock, unref: false });
    timers.set(a, 1_000);
    manual.advance(400);
    timers.set(b, 100); // due at 500
    expect(manual.pending.map((p) => p.ms)).toEqual([100]);
    manual.advance(100_000); // now() jumps far ahead (a machine waking from sleep)
    timers.set(c, 50); // slot time is capped at b's deadline (500): due at 550
    manual.fire(); // b
    expect(manual.pending.map((p) => p.ms)).toEqual([50]);
  });

  it('a clock set back moves no deadline', () => {
    const manual = manualClock();
    const { timers } = slots({ clock: manual.clock, unref: false });
    timers.set(a, 1_000);
    timers.set(b, 3_000);
    manual.advance(-3_600_000); // the wall clock went back an hour
    timers.clear(a); // re-arms for b: still 3 000 after it was set
    expect(manual.pending.map((p) => p.ms)).toEqual([3_000]);
  });

  it('unrefs the clock timer when asked, and only then', () => {
    for (const unref of [true, false]) {
      const manual = manualClock();
      const { timers } = slots({ clock: manual.clock, unref });
      timers.set(a, 10);
      timers.set(b, 5);
      expect(manual.pending).toHaveLength(1);
      expect(manual.pending[0]?.unref).toHaveBeenCalledTimes(unref ? 1 : 0);
    }
  });
});
