import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type BackoffPolicyLike,
  type Clock,
  constant,
  MAX_TIMER_DELAY,
  type RetryWaitOptions,
  toRetryWait,
  truncatedBinaryExponential,
} from '../../src/backoff/index.js';
import { TestClock } from '../../src/testing/test-clock.js';
import { expectInputError, rethrow } from '../helpers/mode.js';
import { ALMOST_ONE, expectOptionError, expectUnknownOption } from './helpers.js';

// toRetryWait(policy) is graphql-ws's `retryWait`: `wait(retries)` resolves after the policy's next
// delay; graphql-ws passes retries = 0 for the first wait after a connection was lost. Time is a
// TestClock (or a stub clock that records what it is asked), never real timers.

/** T = 400 ms, N = 3: windows of 100, 200, 400, 400 … ms. */
const tbeb = (random: () => number) => truncatedBinaryExponential({ maxDelay: 400, ceiling: 3, random });

/** Runs `wait(retries)` on `clock`, firing its timers one by one, and returns how long it waited. */
async function waited(wait: (retries: number) => Promise<void>, retries: number, clock: TestClock): Promise<number> {
  const started = clock.now();
  let resolvedAt: number | undefined;
  const done = wait(retries).then(() => {
    resolvedAt = clock.now();
  });
  while (resolvedAt === undefined && (await clock.next()));
  await done;
  if (resolvedAt === undefined) throw new Error(`wait(${retries}) did not resolve, and no timer is pending`);
  return resolvedAt - started;
}

/** A clock that records every `setTimeout` and hands out Node-like handles with a spied `unref`. */
function stubClock() {
  const handles: { ms: number; callback: () => void; unref: ReturnType<typeof vi.fn> }[] = [];
  const clock: Clock = {
    setTimeout: vi.fn((callback: () => void, ms: number) => {
      const handle = { ms, callback, unref: vi.fn() };
      handles.push(handle);
      return handle;
    }),
    clearTimeout: vi.fn(),
    now: () => 0,
  };
  return { clock, handles };
}

/** A policy whose next() returns the given values in turn (the last one from then on). */
function returning(...values: unknown[]): BackoffPolicyLike {
  let i = 0;
  return {
    next: () => values[Math.min(i++, values.length - 1)] as number,
    reset: () => undefined,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('toRetryWait: the waits', () => {
  it('waits the policy’s delays on the clock: exact TBEB windows with a pinned random', async () => {
    const clock = new TestClock();
    const half = toRetryWait(
      tbeb(() => 0.5),
      { clock },
    );
    const waits = [];
    for (const retries of [0, 1, 2, 3, 4]) waits.push(await waited(half, retries, clock));
    expect(waits).toEqual([50, 100, 200, 200, 200]);

    // At the top edge, read what the clock was asked (a TestClock adds it to a float `now`).
    const { clock: stub, handles } = stubClock();
    const top = toRetryWait(
      tbeb(() => ALMOST_ONE),
      { clock: stub },
    );
    for (const retries of [0, 1, 2, 3]) void top(retries);
    expect(handles.map((h) => h.ms)).toEqual([100 * ALMOST_ONE, 200 * ALMOST_ONE, 400 * ALMOST_ONE, 400 * ALMOST_ONE]);
  });

  it('resolves only when the delay has passed, with undefined', async () => {
    const clock = new TestClock();
    const wait = toRetryWait(constant({ delay: 250 }), { clock });
    const settled = vi.fn();
    wait(0).then(settled);
    expect(clock.pending).toBe(1);
    await clock.advance(249);
    expect(settled).not.toHaveBeenCalled();
    await clock.advance(1);
    expect(settled).toHaveBeenCalledWith(undefined);
    expect(clock.pending).toBe(0);
  });

  it('goes through the clock even for a 0 ms delay (never resolves synchronously)', async () => {
    const clock = new TestClock();
    const settled = vi.fn();
    toRetryWait(
      tbeb(() => 0),
      { clock },
    )(0).then(settled);
    await Promise.resolve();
    expect(settled).not.toHaveBeenCalled();
    expect(clock.pending).toBe(1);
    await clock.advance(0);
    expect(settled).toHaveBeenCalledOnce();
  });

  it('starts the policy over when retries is 0, and only then', async () => {
    const clock = new TestClock();
    const policy = tbeb(() => 0.5); // frozen: spy on a wrapper
    const reset = vi.fn(() => policy.reset());
    const wait = toRetryWait({ next: () => policy.next(), reset }, { clock });
    const run = async (retries: number[]) => {
      const out = [];
      for (const r of retries) out.push(await waited(wait, r, clock));
      return out;
    };
    // graphql-ws's retries: 0, 1, 2 … for one outage, and 0 again after it connected.
    expect(await run([0, 1, 2])).toEqual([50, 100, 200]);
    expect(reset).toHaveBeenCalledTimes(1);
    expect(await run([0, 1])).toEqual([50, 100]);
    expect(reset).toHaveBeenCalledTimes(2);
    // A count that is not 0 never resets, whatever it is.
    expect(await run([7, 3, 1])).toEqual([200, 200, 200]);
    expect(reset).toHaveBeenCalledTimes(2);
  });

  it('calls next() once per wait and reset() before next() on retries 0, for a policy of your own', async () => {
    const clock = new TestClock();
    const calls: string[] = [];
    const policy: BackoffPolicyLike = {
      next: () => {
        calls.push('next');
        return 10;
      },
      reset: () => {
        calls.push('reset');
      },
    };
    const wait = toRetryWait(policy, { clock });
    expect(calls).toEqual([]);
    for (const retries of [0, 1, 0]) await waited(wait, retries, clock);
    expect(calls).toEqual(['reset', 'next', 'next', 'reset', 'next']);
  });

  it('takes a factory: called once, up front, and its policy reset on retries 0', async () => {
    const clock = new TestClock();
    const made: BackoffPolicyLike[] = [];
    const factory = vi.fn(() => {
      const policy = tbeb(() => 0.5);
      made.push(policy);
      return policy;
    });
    const wait = toRetryWait(factory, { clock });
    expect(factory).toHaveBeenCalledOnce();
    const waits = [];
    for (const retries of [0, 1, 2, 0, 1]) waits.push(await waited(wait, retries, clock));
    expect(waits).toEqual([50, 100, 200, 50, 100]);
    expect(factory).toHaveBeenCalledOnce();
    expect(made).toHaveLength(1);
  });

  it('defaults to the global timers (looked up at call time, so fake timers apply)', async () => {
    vi.useFakeTimers();
    const wait = toRetryWait(constant({ delay: 300 }));
    const settled = vi.fn();
    wait(0).then(settled);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(299);
    expect(settled).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toHaveBeenCalledOnce();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('toRetryWait: unref', () => {
  it('calls unref() on each timer handle with unref: true', () => {
    const { clock, handles } = stubClock();
    const wait = toRetryWait(constant({ delay: 100 }), { clock, unref: true });
    void wait(0);
    void wait(1);
    expect(handles).toHaveLength(2);
    for (const handle of handles) {
      expect(handle.unref).toHaveBeenCalledOnce();
      expect(handle.unref.mock.contexts[0]).toBe(handle);
    }
  });

  it('leaves the handles alone by default and with unref: false', () => {
    for (const options of [{}, { unref: false }, { unref: undefined }]) {
      const { clock, handles } = stubClock();
      void toRetryWait(constant({ delay: 100 }), { clock, ...options } as RetryWaitOptions)(0);
      expect(handles).toHaveLength(1);
      expect(handles[0]?.unref).not.toHaveBeenCalled();
    }
  });

  it('is a no-op for clocks whose handles have no unref (numbers)', async () => {
    const clock = new TestClock();
    const wait = toRetryWait(constant({ delay: 5 }), { clock, unref: true });
    expect(await waited(wait, 0, clock)).toBe(5);
  });
});

describe('toRetryWait: what next() returns', () => {
  it.each([
    [-5, 0],
    [-0, 0],
    [Number.NEGATIVE_INFINITY, 0],
    [2.5, 2.5],
    [MAX_TIMER_DELAY, MAX_TIMER_DELAY],
    [MAX_TIMER_DELAY + 1, MAX_TIMER_DELAY],
    [1e12, MAX_TIMER_DELAY],
    [Number.MAX_VALUE, MAX_TIMER_DELAY],
    [Number.POSITIVE_INFINITY, MAX_TIMER_DELAY],
  ])('clamps a delay of %d ms to %d ms', (delay, armed) => {
    const { clock, handles } = stubClock();
    void toRetryWait(returning(delay), { clock })(1);
    expect(handles.map((h) => h.ms)).toEqual([armed]);
  });

  it.each([
    [Number.NaN, 'number NaN'],
    ['100', 'string "100"'],
    [undefined, 'undefined'],
    [null, 'null'],
    [10n, 'bigint 10n'],
    [{ delay: 10 }, 'an object'],
  ])('rejects with a TypeError when next() returns %s, and arms no timer', async (value, shown) => {
    const { clock, handles } = stubClock();
    const result = toRetryWait(returning(value), { clock })(1);
    expect(result).toBeInstanceOf(Promise);
    expectInputError(
      rethrow(await result.catch((e: unknown) => e)),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'policy.next()',
      `Expected \`policy.next()\` to return a number, got ${shown}`,
    );
    expect(handles).toEqual([]);
  });

  it('waits again after a bad value once next() returns a number', async () => {
    const clock = new TestClock();
    const wait = toRetryWait(returning(Number.NaN, 40), { clock });
    await expect(wait(0)).rejects.toThrow(TypeError);
    expect(clock.pending).toBe(0);
    expect(await waited(wait, 1, clock)).toBe(40);
  });

  it('rejects (never throws) with what the policy throws (e.g. a random source out of [0, 1])', async () => {
    const clock = new TestClock();
    let bad = true;
    const wait = toRetryWait(
      tbeb(() => (bad ? 2 : 0.5)),
      { clock },
    );
    // A promise even then, so that `wait(n).catch(…)` sees it.
    let pending: Promise<void> | undefined;
    expect(() => {
      pending = wait(0);
    }).not.toThrow();
    expectInputError(
      rethrow(await pending?.catch((e: unknown) => e)),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'random',
      'Expected `random` to return a number in [0, 1], got 2',
    );
    expect(clock.pending).toBe(0);
    bad = false;
    expect(await waited(wait, 0, clock)).toBe(50);
  });

  it('rejects with what `reset()` throws', async () => {
    const clock = new TestClock();
    const wait = toRetryWait(
      {
        next: () => 10,
        reset: () => {
          throw new Error('reset failed');
        },
      },
      { clock },
    );
    await expect(wait(0)).rejects.toThrow('reset failed');
    expect(clock.pending).toBe(0);
  });
});

describe('toRetryWait: validation', () => {
  it.each([
    [undefined, 'undefined'],
    [null, 'null'],
    [42, 'number 42'],
    ['tbeb', 'string "tbeb"'],
    [{}, 'an object'],
    [{ next: () => 1 }, 'an object'],
    [{ next: 1, reset: () => undefined }, 'an object'],
    [[], 'an array of length 0'],
  ])('throws a TypeError naming `policy` for %o', (policy, shown) => {
    expectOptionError(() => toRetryWait(policy as never), TypeError, 'policy', shown);
  });

  it('says what a policy is', () => {
    expectInputError(
      () => toRetryWait({} as never),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'policy',
      'Expected `policy` to be a backoff policy (an object with next() and reset()), got an object',
    );
  });

  it.each([
    [() => undefined, 'undefined'],
    [() => ({ next: () => 1 }), 'an object'],
    [() => 100, 'number 100'],
  ])('throws a TypeError naming `policy()` when the factory returns no policy (%s)', (factory, shown) => {
    expectOptionError(() => toRetryWait(factory as never), TypeError, 'policy()', shown);
  });

  it.each([
    [null, 'null'],
    [[], 'an array of length 0'],
    [5, 'number 5'],
    ['fast', 'string "fast"'],
  ])('throws a TypeError naming the options for %o', (options, shown) => {
    expectOptionError(() => toRetryWait(constant(), options as never), TypeError, 'toRetryWait options', shown);
  });

  it('refuses an unknown option, suggesting the closest one or listing them', () => {
    expectUnknownOption(
      () => toRetryWait(constant(), { clok: new TestClock() } as never),
      'clok',
      'Unknown option `clok`: did you mean `clock`?',
    );
    expectUnknownOption(() => toRetryWait(constant(), { unRef: true } as never), 'unRef', /did you mean `unref`\?/);
    expectUnknownOption(
      () => toRetryWait(constant(), { maxDelay: 10 } as never),
      'maxDelay',
      'Unknown option `maxDelay`: the options of toRetryWait() are `clock`, `unref`',
    );
  });

  it.each<[unknown]>([
    [null],
    [{}],
    [{ setTimeout: () => 0, clearTimeout: () => undefined }],
    [{ setTimeout: 1, clearTimeout: () => undefined, now: () => 0 }],
    ['clock'],
    [Date],
  ])('throws a TypeError naming `clock` for %o', (clock) => {
    expectInputError(
      () => toRetryWait(constant(), { clock: clock as never }),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'clock',
      'Expected `clock` to be a Clock with setTimeout, clearTimeout and now functions',
    );
  });

  it.each([
    ['yes', 'string "yes"'],
    [1, 'number 1'],
    [null, 'null'],
    [{}, 'an object'],
  ])('throws a TypeError naming `unref` for %o', (unref, shown) => {
    expectOptionError(() => toRetryWait(constant(), { unref: unref as never }), TypeError, 'unref', shown);
  });

  it('validates up front: nothing is called or armed before the first wait', () => {
    const { clock, handles } = stubClock();
    const policy = { next: vi.fn(() => 10), reset: vi.fn() };
    toRetryWait(policy, { clock, unref: true });
    expect(policy.next).not.toHaveBeenCalled();
    expect(policy.reset).not.toHaveBeenCalled();
    expect(handles).toEqual([]);
  });

  it('accepts undefined options and undefined option values as the defaults', () => {
    expect(toRetryWait(constant())).toBeTypeOf('function');
    expect(toRetryWait(constant(), undefined)).toBeTypeOf('function');
    expect(toRetryWait(constant(), { clock: undefined, unref: undefined } as never)).toBeTypeOf('function');
  });
});
