import { describe, expect, it, vi } from 'vitest';
import {
  MAX_TIMER_DELAY,
  TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS,
  truncatedBinaryExponential,
  truncatedWindow,
} from '../../src/backoff/index.js';
import {
  ALMOST_ONE,
  expectOptionError,
  expectUnknownOption,
  scripted,
  take,
  windowValidationCases,
} from './helpers.js';

/** The windows for T = 10 s, N = 10 (classic Ethernet truncation), n = 1 … 10. */
const WINDOWS_T10K_N10 = [19.53125, 39.0625, 78.125, 156.25, 312.5, 625, 1250, 2500, 5000, 10_000];

describe('truncatedWindow', () => {
  it('doubles from a = T/2^(N-1) up to T at n = N', () => {
    expect(WINDOWS_T10K_N10.map((_, i) => truncatedWindow(10_000, 10, i + 1))).toEqual(WINDOWS_T10K_N10);
  });

  it('stays at T for every n >= N', () => {
    for (const n of [10, 11, 12, 50, 1023, 1024, 5000]) {
      expect(truncatedWindow(10_000, 10, n)).toBe(10_000);
    }
  });

  it('is finite and equal to T for huge attempt counts', () => {
    expect(truncatedWindow(10_000, 10, 1e6)).toBe(10_000);
    expect(truncatedWindow(10_000, 10, Number.MAX_SAFE_INTEGER)).toBe(10_000);
    expect(truncatedWindow(10_000, 10, Number.POSITIVE_INFINITY)).toBe(10_000);
    expect(truncatedWindow(10_000, 64, 1e6)).toBe(10_000);
  });

  it('underflows towards 0 (never NaN or Infinity) for a huge ceiling', () => {
    for (const n of [1, 2, 100, 4000, 4999, 5000, 1e6]) {
      const window = truncatedWindow(10_000, 5000, n);
      expect(Number.isNaN(window)).toBe(false);
      expect(Number.isFinite(window)).toBe(true);
      expect(window).toBeGreaterThanOrEqual(0);
    }
    expect(truncatedWindow(10_000, 5000, 1)).toBe(0);
    expect(truncatedWindow(10_000, 5000, 4991)).toBe(19.53125);
    expect(truncatedWindow(10_000, 5000, 4999)).toBe(5000);
    expect(truncatedWindow(10_000, 5000, 5000)).toBe(10_000);
    // Small but not yet underflowed: 10_000 · 2^-1000.
    expect(truncatedWindow(10_000, 1001, 1)).toBe(10_000 * 2 ** -1000);
    expect(truncatedWindow(10_000, 1001, 1)).toBeGreaterThan(0);
  });

  it('with N = 1 every window is T', () => {
    expect([1, 2, 3, 100].map((n) => truncatedWindow(750, 1, n))).toEqual([750, 750, 750, 750]);
  });
});

describe('truncatedBinaryExponential', () => {
  describe('defaults and descriptive properties', () => {
    it('exposes frozen defaults T = 10 s, N = 10', () => {
      expect(TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS).toEqual({ maxDelay: 10_000, ceiling: 10 });
      expect(Object.isFrozen(TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS)).toBe(true);
    });

    it('uses the defaults when called without options or with {}', () => {
      for (const policy of [truncatedBinaryExponential(), truncatedBinaryExponential({})]) {
        expect(policy.name).toBe('truncated-binary-exponential');
        expect(policy.maxDelay).toBe(10_000);
        expect(policy.ceiling).toBe(10);
        expect(policy.baseDelay).toBe(19.53125);
        expect(policy.attempt).toBe(0);
      }
    });

    it('derives baseDelay = T / 2^(N-1) from custom options', () => {
      expect(truncatedBinaryExponential({ maxDelay: 1000, ceiling: 3 }).baseDelay).toBe(250);
      expect(truncatedBinaryExponential({ maxDelay: 1000, ceiling: 1 }).baseDelay).toBe(1000);
      expect(truncatedBinaryExponential({ maxDelay: 64, ceiling: 7 }).baseDelay).toBe(1);
    });

    it('keeps a partially specified option set on the other default', () => {
      const onlyT = truncatedBinaryExponential({ maxDelay: 5120 });
      expect(onlyT.ceiling).toBe(10);
      expect(onlyT.baseDelay).toBe(10);
      const onlyN = truncatedBinaryExponential({ ceiling: 2 });
      expect(onlyN.maxDelay).toBe(10_000);
      expect(onlyN.baseDelay).toBe(5000);
    });
  });

  describe('delays at the window bounds', () => {
    it('random = 0 gives 0 for every attempt', () => {
      const policy = truncatedBinaryExponential({ random: () => 0 });
      expect(take(policy, 15)).toEqual(Array(15).fill(0));
    });

    it('random = 1 - ε gives a delay just below each window, and stays below T for n >= N', () => {
      const policy = truncatedBinaryExponential({ maxDelay: 10_000, ceiling: 10, random: () => ALMOST_ONE });
      const windows = [...WINDOWS_T10K_N10, 10_000, 10_000, 10_000];
      const delays = take(policy, windows.length);
      delays.forEach((delay, i) => {
        const window = windows[i] as number;
        expect(delay).toBeLessThan(window);
        expect(delay).toBeGreaterThan(window * (1 - 1e-12));
      });
      expect(delays[0]).toBeCloseTo(19.53125, 10);
      expect(delays[9]).toBeCloseTo(10_000, 8);
    });

    it('random = 1 (tolerated) gives exactly the windows', () => {
      const policy = truncatedBinaryExponential({ random: () => 1 });
      expect(take(policy, 13)).toEqual([...WINDOWS_T10K_N10, 10_000, 10_000, 10_000]);
    });

    it('scales each scripted draw by its own window', () => {
      const { random } = scripted([0.5, 0.25, 0.75, 0.125, 0.875, 0, 0.5]);
      const policy = truncatedBinaryExponential({ maxDelay: 1000, ceiling: 3, random });
      // windows 250, 500, 1000, 1000, …
      expect(take(policy, 7)).toEqual([125, 125, 750, 125, 875, 0, 500]);
    });

    it('with N = 1 draws every delay from [0, T)', () => {
      const { random } = scripted([0.5, 0.25, ALMOST_ONE]);
      const policy = truncatedBinaryExponential({ maxDelay: 400, ceiling: 1, random });
      const delays = take(policy, 3);
      expect(delays.slice(0, 2)).toEqual([200, 100]);
      expect(delays[2]).toBeLessThan(400);
      expect(delays[2]).toBeCloseTo(400, 10);
    });
  });

  describe('attempt and reset', () => {
    it('counts the delays handed out', () => {
      const policy = truncatedBinaryExponential({ random: () => 0.5 });
      expect(policy.attempt).toBe(0);
      policy.next();
      expect(policy.attempt).toBe(1);
      take(policy, 4);
      expect(policy.attempt).toBe(5);
    });

    it('reset() returns attempt to 0 and restarts the sequence (same draws, same delays)', () => {
      const draws = [0.5, 0.25, 0.75, 0.125];
      const { random, rewind } = scripted(draws);
      const policy = truncatedBinaryExponential({ random });
      const first = take(policy, 4);
      expect(first).toEqual([9.765625, 9.765625, 58.59375, 19.53125]);
      policy.reset();
      expect(policy.attempt).toBe(0);
      rewind();
      expect(take(policy, 4)).toEqual(first);
      expect(policy.attempt).toBe(4);
    });

    it('reset() brings the window back to baseDelay', () => {
      const policy = truncatedBinaryExponential({ random: () => 1 });
      take(policy, 12);
      expect(policy.next()).toBe(10_000);
      policy.reset();
      expect(policy.next()).toBe(19.53125);
    });

    it('reset() on a fresh policy is harmless', () => {
      const policy = truncatedBinaryExponential({ random: () => 1 });
      policy.reset();
      expect(policy.attempt).toBe(0);
      expect(policy.next()).toBe(19.53125);
    });
  });

  describe('randomness', () => {
    it('draws exactly once per next()', () => {
      const random = vi.fn(() => 0.5);
      const policy = truncatedBinaryExponential({ random });
      expect(random).not.toHaveBeenCalled();
      take(policy, 7);
      expect(random).toHaveBeenCalledTimes(7);
      policy.reset();
      expect(random).toHaveBeenCalledTimes(7);
      policy.next();
      expect(random).toHaveBeenCalledTimes(8);
    });

    it('draws afresh on every call (different draws at the same window give different delays)', () => {
      const { random } = scripted([0.5, 0.25]);
      const policy = truncatedBinaryExponential({ maxDelay: 100, ceiling: 1, random });
      expect(take(policy, 2)).toEqual([50, 25]);
    });

    it('uses Math.random by default and stays within the window', () => {
      const spy = vi.spyOn(Math, 'random').mockReturnValue(0.5);
      try {
        const policy = truncatedBinaryExponential();
        expect(policy.next()).toBe(9.765625);
        expect(spy).toHaveBeenCalledTimes(1);
      } finally {
        spy.mockRestore();
      }
    });

    it.each([
      [Number.NaN, 'NaN'],
      [-0.1, '-0.1'],
      [1.5, '1.5'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      ['0.5', 'string "0.5"'],
      [undefined, 'undefined'],
    ])('next() throws a RangeError naming `random` when it returns %s', (value, shown) => {
      const policy = truncatedBinaryExponential({ random: () => value as number });
      expectOptionError(() => policy.next(), RangeError, 'random', shown);
      expect(policy.attempt).toBe(0);
    });

    it('a bad draw does not advance the policy', () => {
      const { random } = scripted([Number.NaN, 0.5]);
      const policy = truncatedBinaryExponential({ random });
      expect(() => policy.next()).toThrow(RangeError);
      expect(policy.attempt).toBe(0);
      // The retry still uses the first window.
      expect(policy.next()).toBe(9.765625);
      expect(policy.attempt).toBe(1);
    });

    it('propagates an exception thrown by random', () => {
      const policy = truncatedBinaryExponential({
        random: () => {
          throw new Error('entropy exhausted');
        },
      });
      expect(() => policy.next()).toThrow('entropy exhausted');
      expect(policy.attempt).toBe(0);
    });
  });

  describe('huge values', () => {
    it('stays finite and at most T over 1_100 attempts', () => {
      const policy = truncatedBinaryExponential({ random: () => ALMOST_ONE });
      let last = Number.NaN;
      for (let i = 0; i < 1_100; i += 1) {
        last = policy.next();
        expect(Number.isFinite(last)).toBe(true);
        expect(last).toBeLessThan(10_000);
      }
      expect(policy.attempt).toBe(1_100);
      expect(last).toBeCloseTo(10_000, 8);
    });

    it('the largest ceiling a maxDelay allows starts at 1 ms or more, and stays finite (the underflow is refused)', () => {
      // T = 10 s takes N = 14 at most: a = 10_000 / 2^13 ≈ 1.22 ms (N = 5000 would start at 0 ms: a hot loop).
      const policy = truncatedBinaryExponential({ maxDelay: 10_000, ceiling: 14, random: () => ALMOST_ONE });
      expect(policy.baseDelay).toBe(10_000 / 2 ** 13);
      const delays = take(policy, 50);
      for (const delay of delays) {
        expect(Number.isNaN(delay)).toBe(false);
        expect(delay).toBeGreaterThan(1.2);
        expect(delay).toBeLessThan(10_000);
      }
      expect(() => truncatedBinaryExponential({ maxDelay: 10_000, ceiling: 5000 })).toThrow(RangeError);
      expect(() => truncatedBinaryExponential({ ceiling: Number.MAX_SAFE_INTEGER })).toThrow(RangeError);
    });

    it('clamps delays to MAX_TIMER_DELAY when maxDelay exceeds 2^31 - 1', () => {
      expect(MAX_TIMER_DELAY).toBe(2_147_483_647);
      const { random } = scripted([1, ALMOST_ONE, 0.5, 0.25, 0]);
      const policy = truncatedBinaryExponential({ maxDelay: 2 ** 40, ceiling: 1, random });
      expect(policy.maxDelay).toBe(2 ** 40);
      // 2^40, 2^40·(1-ε), 2^39 are all above the timer limit; 2^38 is too; 0 stays 0.
      expect(take(policy, 5)).toEqual([MAX_TIMER_DELAY, MAX_TIMER_DELAY, MAX_TIMER_DELAY, MAX_TIMER_DELAY, 0]);
    });

    it('does not clamp a delay just below the timer limit', () => {
      const policy = truncatedBinaryExponential({ maxDelay: 2 ** 31, ceiling: 1, random: () => 0.5 });
      expect(policy.next()).toBe(2 ** 30);
    });
  });

  describe('validation', () => {
    windowValidationCases('truncatedBinaryExponential', truncatedBinaryExponential);

    it('accepts the smallest valid values', () => {
      const policy = truncatedBinaryExponential({ maxDelay: 1, ceiling: 1, random: () => 1 });
      expect(policy.next()).toBe(1);
    });
  });
});

describe('truncatedBinaryExponential: unknown options', () => {
  it('a misspelt option is a TypeError that suggests the right one', () => {
    expect(() => truncatedBinaryExponential({ maxDelays: 1 } as never)).toThrow(TypeError);
    expectUnknownOption(
      () => truncatedBinaryExponential({ maxDelays: 1 } as never),
      'maxDelays',
      'Unknown option `maxDelays`: did you mean `maxDelay`?',
    );
  });

  it('an option of another strategy is a TypeError that lists its options', () => {
    const other = 'base';
    expectUnknownOption(
      () => truncatedBinaryExponential({ [other]: 1 } as never),
      other,
      `Unknown option \`${other}\`: the options of truncatedBinaryExponential() are \`maxDelay\`, \`ceiling\`, \`random\``,
    );
  });

  it('is checked before the values, and an unknown key with an undefined value counts', () => {
    expectUnknownOption(
      () => truncatedBinaryExponential({ maxDelay: 'not a number', zzzz: undefined } as never),
      'zzzz',
      /^Unknown option `zzzz`/,
    );
  });

  it('ignores symbol keys and inherited properties', () => {
    expect(() => truncatedBinaryExponential({ [Symbol('x')]: 1 } as never)).not.toThrow();
    expect(() => truncatedBinaryExponential(Object.create({ zzzz: 1 }) as never)).not.toThrow();
  });
});
