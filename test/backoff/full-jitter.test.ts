import { describe, expect, it, vi } from 'vitest';
import { fullJitter, MAX_TIMER_DELAY } from '../../src/backoff/index.js';
import { exponentialWindow } from '../../src/backoff/policy.js';
import {
  ALMOST_ONE,
  baseCapValidationSuite,
  expectOptionError,
  expectUnknownOption,
  scripted,
  take,
} from './helpers.js';

/** base 100, cap 10 000: 100·2^attempt, capped. */
const WINDOWS = [100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000, 10_000];

describe('fullJitter', () => {
  it('defaults to base 100, cap 10 000', () => {
    const policy = fullJitter();
    expect(policy.name).toBe('full-jitter');
    expect(policy.base).toBe(100);
    expect(policy.cap).toBe(10_000);
    expect(policy.attempt).toBe(0);
    expect(fullJitter({ base: 5 }).cap).toBe(10_000);
    expect(fullJitter({ cap: 500 }).base).toBe(100);
  });

  describe('delays at the window bounds', () => {
    it('random = 0 gives 0', () => {
      expect(take(fullJitter({ random: () => 0 }), 12)).toEqual(Array(12).fill(0));
    });

    it('random = 1 (tolerated) gives exactly the windows 100, 200, 400, … capped at 10 000', () => {
      expect(take(fullJitter({ base: 100, cap: 10_000, random: () => 1 }), WINDOWS.length)).toEqual(WINDOWS);
    });

    it('random = 1 - ε gives a delay just below each window', () => {
      const delays = take(fullJitter({ random: () => ALMOST_ONE }), WINDOWS.length);
      delays.forEach((delay, i) => {
        const window = WINDOWS[i] as number;
        expect(delay).toBeLessThan(window);
        expect(delay).toBeGreaterThan(window * (1 - 1e-12));
      });
    });

    it('scales each scripted draw by its window', () => {
      const { random } = scripted([0.5, 0.25, 0.75, 0.125, 0, 0.5, 0.5, 0.5]);
      expect(take(fullJitter({ random }), 8)).toEqual([50, 50, 300, 100, 0, 1600, 3200, 5000]);
    });

    it('uses the configured base and cap', () => {
      expect(take(fullJitter({ base: 3, cap: 20, random: () => 1 }), 5)).toEqual([3, 6, 12, 20, 20]);
      expect(take(fullJitter({ base: 7, cap: 7, random: () => 1 }), 3)).toEqual([7, 7, 7]);
    });
  });

  describe('attempt and reset', () => {
    it('counts delays; reset() returns to 0 and restarts the sequence', () => {
      const { random, rewind } = scripted([0.5, 0.5, 0.5, 0.5]);
      const policy = fullJitter({ random });
      expect(take(policy, 4)).toEqual([50, 100, 200, 400]);
      expect(policy.attempt).toBe(4);
      policy.reset();
      expect(policy.attempt).toBe(0);
      rewind();
      expect(take(policy, 4)).toEqual([50, 100, 200, 400]);
      expect(policy.attempt).toBe(4);
    });
  });

  describe('randomness', () => {
    it('draws exactly once per next()', () => {
      const random = vi.fn(() => 0.3);
      const policy = fullJitter({ random });
      take(policy, 9);
      expect(random).toHaveBeenCalledTimes(9);
    });

    it.each([
      [Number.NaN, 'NaN'],
      [-0.1, '-0.1'],
      [1.5, '1.5'],
      ['0.5', 'string "0.5"'],
    ])('next() throws a RangeError naming `random` when it returns %s', (value, shown) => {
      const policy = fullJitter({ random: () => value as number });
      expectOptionError(() => policy.next(), RangeError, 'random', shown);
      expect(policy.attempt).toBe(0);
    });
  });

  describe('huge values', () => {
    it('stays finite and reaches the cap over 1_100 attempts', () => {
      const policy = fullJitter({ random: () => 1 });
      let last = Number.NaN;
      for (let i = 0; i < 1_100; i += 1) {
        last = policy.next();
        expect(Number.isFinite(last)).toBe(true);
      }
      expect(last).toBe(10_000);
      expect(exponentialWindow(100, 10_000, 1e6)).toBe(10_000);
    });

    it('clamps delays to MAX_TIMER_DELAY when cap exceeds 2^31 - 1', () => {
      const policy = fullJitter({ base: 2 ** 30, cap: 2 ** 40, random: () => 1 });
      expect(policy.cap).toBe(2 ** 40);
      expect(take(policy, 4)).toEqual([2 ** 30, MAX_TIMER_DELAY, MAX_TIMER_DELAY, MAX_TIMER_DELAY]);
      const half = fullJitter({ base: 2 ** 30, cap: 2 ** 40, random: () => 0.25 });
      // 0.25 · 2^30, 0.25 · 2^31, 0.25 · 2^32 = 2^30, then 2^31 > limit.
      expect(take(half, 4)).toEqual([2 ** 28, 2 ** 29, 2 ** 30, MAX_TIMER_DELAY]);
    });
  });

  baseCapValidationSuite('fullJitter', fullJitter as (options?: never) => unknown);
});

describe('fullJitter: unknown options', () => {
  it('a misspelt option is a TypeError that suggests the right one', () => {
    expect(() => fullJitter({ bsae: 1 } as never)).toThrow(TypeError);
    expectUnknownOption(() => fullJitter({ bsae: 1 } as never), 'bsae', 'Unknown option `bsae`: did you mean `base`?');
  });

  it('an option of another strategy is a TypeError that lists its options', () => {
    const other = 'ceiling';
    expectUnknownOption(
      () => fullJitter({ [other]: 1 } as never),
      other,
      `Unknown option \`${other}\`: the options of fullJitter() are \`base\`, \`cap\`, \`random\``,
    );
  });

  it('is checked before the values, and an unknown key with an undefined value counts', () => {
    expectUnknownOption(
      () => fullJitter({ base: 'not a number', zzzz: undefined } as never),
      'zzzz',
      /^Unknown option `zzzz`/,
    );
  });

  it('ignores symbol keys and inherited properties', () => {
    expect(() => fullJitter({ [Symbol('x')]: 1 } as never)).not.toThrow();
    expect(() => fullJitter(Object.create({ zzzz: 1 }) as never)).not.toThrow();
  });
});
