import { describe, expect, it, vi } from 'vitest';
import { equalJitter, MAX_TIMER_DELAY } from '../../src/backoff/index.js';
import {
  ALMOST_ONE,
  baseCapValidationSuite,
  expectOptionError,
  expectUnknownOption,
  scripted,
  take,
} from './helpers.js';

const WINDOWS = [100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000, 10_000];

describe('equalJitter', () => {
  it('defaults to base 100, cap 10 000', () => {
    const policy = equalJitter();
    expect(policy.name).toBe('equal-jitter');
    expect(policy.base).toBe(100);
    expect(policy.cap).toBe(10_000);
    expect(policy.attempt).toBe(0);
  });

  describe('delays at the window bounds', () => {
    it('random = 0 gives exactly half of each window', () => {
      expect(take(equalJitter({ random: () => 0 }), WINDOWS.length)).toEqual(WINDOWS.map((w) => w / 2));
    });

    it('random = 1 (tolerated) gives exactly each window', () => {
      expect(take(equalJitter({ random: () => 1 }), WINDOWS.length)).toEqual(WINDOWS);
    });

    it('random = 1 - ε gives a delay at (or, after rounding t/2 + t/2·(1-ε), equal to) the top of each window', () => {
      const delays = take(equalJitter({ random: () => ALMOST_ONE }), WINDOWS.length);
      // 50 + 50·(1-ε) stays just below 100, while 5000 + 5000·(1-ε) rounds (to even) to 10 000.
      expect(delays[0]).toBeLessThan(100);
      expect(delays[9]).toBe(10_000);
      delays.forEach((delay, i) => {
        const window = WINDOWS[i] as number;
        expect(delay).toBeLessThanOrEqual(window);
        expect(delay).toBeGreaterThan(window * (1 - 1e-12));
        expect(delay).toBeGreaterThanOrEqual(window / 2);
      });
    });

    it('maps scripted draws to t/2 + draw·t/2', () => {
      const { random } = scripted([0.5, 0.25, 0.75, 0, 0.5]);
      // windows 100, 200, 400, 800, 1600
      expect(take(equalJitter({ random }), 5)).toEqual([75, 125, 350, 400, 1200]);
    });

    it('uses the configured base and cap', () => {
      expect(take(equalJitter({ base: 4, cap: 20, random: () => 0 }), 5)).toEqual([2, 4, 8, 10, 10]);
    });
  });

  describe('attempt and reset', () => {
    it('counts delays; reset() returns to 0 and restarts the sequence', () => {
      const { random, rewind } = scripted([0.5, 0.25, 0.75]);
      const policy = equalJitter({ random });
      const first = take(policy, 3);
      expect(first).toEqual([75, 125, 350]);
      expect(policy.attempt).toBe(3);
      policy.reset();
      expect(policy.attempt).toBe(0);
      rewind();
      expect(take(policy, 3)).toEqual(first);
    });
  });

  describe('randomness', () => {
    it('draws exactly once per next()', () => {
      const random = vi.fn(() => 0.3);
      take(equalJitter({ random }), 6);
      expect(random).toHaveBeenCalledTimes(6);
    });

    it.each([
      [Number.NaN, 'NaN'],
      [-0.1, '-0.1'],
      [1.5, '1.5'],
      ['1', 'string "1"'],
    ])('next() throws a RangeError naming `random` when it returns %s', (value, shown) => {
      const policy = equalJitter({ random: () => value as number });
      expectOptionError(() => policy.next(), RangeError, 'random', shown);
      expect(policy.attempt).toBe(0);
    });
  });

  describe('huge values', () => {
    it('stays finite and within [cap/2, cap] over 1_100 attempts', () => {
      const { random } = scripted(Array.from({ length: 1_100 }, (_, i) => (i % 8) / 8));
      const policy = equalJitter({ random });
      const delays = take(policy, 1_100);
      for (const delay of delays.slice(7)) {
        expect(Number.isFinite(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(5000);
        expect(delay).toBeLessThanOrEqual(10_000);
      }
      expect(delays[1_099]).toBe(5000 + (3 / 8) * 5000); // 1_099 % 8 = 3
    });

    it('clamps delays to MAX_TIMER_DELAY when cap exceeds 2^31 - 1', () => {
      const policy = equalJitter({ base: 2 ** 30, cap: 2 ** 40, random: () => 0 });
      // halves: 2^29, 2^30, 2^31 (> limit), …
      expect(take(policy, 4)).toEqual([2 ** 29, 2 ** 30, MAX_TIMER_DELAY, MAX_TIMER_DELAY]);
    });
  });

  baseCapValidationSuite('equalJitter', equalJitter as (options?: never) => unknown);
});

describe('equalJitter: unknown options', () => {
  it('a misspelt option is a TypeError that suggests the right one', () => {
    expect(() => equalJitter({ Cap: 1 } as never)).toThrow(TypeError);
    expectUnknownOption(() => equalJitter({ Cap: 1 } as never), 'Cap', 'Unknown option `Cap`: did you mean `cap`?');
  });

  it('an option of another strategy is a TypeError that lists its options', () => {
    const other = 'ceiling';
    expectUnknownOption(
      () => equalJitter({ [other]: 1 } as never),
      other,
      `Unknown option \`${other}\`: the options of equalJitter() are \`base\`, \`cap\`, \`random\``,
    );
  });

  it('is checked before the values, and an unknown key with an undefined value counts', () => {
    expectUnknownOption(
      () => equalJitter({ cap: 'not a number', zzzz: undefined } as never),
      'zzzz',
      /^Unknown option `zzzz`/,
    );
  });

  it('ignores symbol keys and inherited properties', () => {
    expect(() => equalJitter({ [Symbol('x')]: 1 } as never)).not.toThrow();
    expect(() => equalJitter(Object.create({ zzzz: 1 }) as never)).not.toThrow();
  });
});
