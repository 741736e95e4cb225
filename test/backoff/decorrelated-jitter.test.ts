import { describe, expect, it, vi } from 'vitest';
import { decorrelatedJitter, MAX_TIMER_DELAY } from '../../src/backoff/index.js';
import {
  ALMOST_ONE,
  baseCapValidationSuite,
  expectOptionError,
  expectUnknownOption,
  scripted,
  take,
} from './helpers.js';

describe('decorrelatedJitter', () => {
  it('defaults to base 100, cap 10 000', () => {
    const policy = decorrelatedJitter();
    expect(policy.name).toBe('decorrelated-jitter');
    expect(policy.base).toBe(100);
    expect(policy.cap).toBe(10_000);
    expect(policy.attempt).toBe(0);
  });

  describe('delays at the bounds', () => {
    it('random = 0 gives base every time (prev never grows)', () => {
      expect(take(decorrelatedJitter({ random: () => 0 }), 10)).toEqual(Array(10).fill(100));
    });

    it('random = 1 (tolerated) triples until the cap: 300, 900, 2700, 8100, 10 000', () => {
      expect(take(decorrelatedJitter({ random: () => 1 }), 7)).toEqual([300, 900, 2700, 8100, 10_000, 10_000, 10_000]);
    });

    it('random = 1 - ε stays just below 300, 900, 2700, 8100, then sits on the cap', () => {
      const delays = take(decorrelatedJitter({ random: () => ALMOST_ONE }), 6);
      [300, 900, 2700, 8100].forEach((ideal, i) => {
        const delay = delays[i] as number;
        expect(delay).toBeLessThan(ideal);
        expect(delay).toBeCloseTo(ideal, 8);
      });
      expect(delays.slice(4)).toEqual([10_000, 10_000]);
    });

    it('depends on the previous delay, not on the attempt count', () => {
      const { random } = scripted([0.5, 0.5, 0, 1, 1]);
      // prev=100 → 100 + .5·200 = 200; prev=200 → 100 + .5·500 = 350; → 100; prev=100 → 300; prev=300 → 900
      expect(take(decorrelatedJitter({ random }), 5)).toEqual([200, 350, 100, 300, 900]);
    });

    it('uses the configured base and cap', () => {
      expect(take(decorrelatedJitter({ base: 10, cap: 100, random: () => 1 }), 4)).toEqual([30, 90, 100, 100]);
      expect(take(decorrelatedJitter({ base: 10, cap: 10, random: () => 1 }), 3)).toEqual([10, 10, 10]);
    });

    it('after hitting the cap, draws from [base, 3·cap) capped at cap', () => {
      const { random } = scripted([1, 1, 0.25]);
      const policy = decorrelatedJitter({ base: 100, cap: 900, random });
      // 300, 900, then 100 + 0.25·(2700 - 100) = 750
      expect(take(policy, 3)).toEqual([300, 900, 750]);
    });
  });

  describe('attempt and reset', () => {
    it('counts delays handed out', () => {
      const policy = decorrelatedJitter({ random: () => 0.5 });
      take(policy, 3);
      expect(policy.attempt).toBe(3);
    });

    it('reset() puts prev back to base', () => {
      const policy = decorrelatedJitter({ random: () => 1 });
      expect(take(policy, 3)).toEqual([300, 900, 2700]);
      policy.reset();
      expect(policy.attempt).toBe(0);
      expect(policy.next()).toBe(300);
    });

    it('reset() restarts the sequence (same draws, same delays)', () => {
      const { random, rewind } = scripted([0.5, 0.5, 0, 1]);
      const policy = decorrelatedJitter({ random });
      const first = take(policy, 4);
      policy.reset();
      rewind();
      expect(take(policy, 4)).toEqual(first);
      expect(first).toEqual([200, 350, 100, 300]);
    });
  });

  describe('randomness', () => {
    it('draws exactly once per next()', () => {
      const random = vi.fn(() => 0.3);
      take(decorrelatedJitter({ random }), 5);
      expect(random).toHaveBeenCalledTimes(5);
    });

    it.each([
      [Number.NaN, 'NaN'],
      [-0.1, '-0.1'],
      [1.5, '1.5'],
      ['x', 'string "x"'],
    ])('next() throws a RangeError naming `random` when it returns %s', (value, shown) => {
      const policy = decorrelatedJitter({ random: () => value as number });
      expectOptionError(() => policy.next(), RangeError, 'random', shown);
      expect(policy.attempt).toBe(0);
    });

    it('a bad draw leaves prev untouched', () => {
      const { random } = scripted([1, Number.NaN, 1]);
      const policy = decorrelatedJitter({ random });
      expect(policy.next()).toBe(300);
      expect(() => policy.next()).toThrow(RangeError);
      expect(policy.attempt).toBe(1);
      expect(policy.next()).toBe(900);
    });
  });

  describe('huge values', () => {
    it('stays finite and within [base, cap] over 1_100 attempts', () => {
      const { random } = scripted(Array.from({ length: 1_100 }, (_, i) => (i % 5) / 5));
      const policy = decorrelatedJitter({ random });
      for (const delay of take(policy, 1_100)) {
        expect(Number.isFinite(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(100);
        expect(delay).toBeLessThanOrEqual(10_000);
      }
    });

    it('clamps delays (and hence prev) to MAX_TIMER_DELAY when cap exceeds 2^31 - 1', () => {
      const policy = decorrelatedJitter({ base: 1e9, cap: 1e12, random: () => 1 });
      expect(take(policy, 4)).toEqual([MAX_TIMER_DELAY, MAX_TIMER_DELAY, MAX_TIMER_DELAY, MAX_TIMER_DELAY]);
      const small = decorrelatedJitter({ base: 1e9, cap: 1e12, random: () => 0 });
      expect(small.next()).toBe(1e9);
    });
  });

  baseCapValidationSuite('decorrelatedJitter', decorrelatedJitter as (options?: never) => unknown);
});

describe('decorrelatedJitter: unknown options', () => {
  it('a misspelt option is a TypeError that suggests the right one', () => {
    expect(() => decorrelatedJitter({ randon: 1 } as never)).toThrow(TypeError);
    expectUnknownOption(
      () => decorrelatedJitter({ randon: 1 } as never),
      'randon',
      'Unknown option `randon`: did you mean `random`?',
    );
  });

  it('an option of another strategy is a TypeError that lists its options', () => {
    const other = 'ceiling';
    expectUnknownOption(
      () => decorrelatedJitter({ [other]: 1 } as never),
      other,
      `Unknown option \`${other}\`: the options of decorrelatedJitter() are \`base\`, \`cap\`, \`random\``,
    );
  });

  it('is checked before the values, and an unknown key with an undefined value counts', () => {
    expectUnknownOption(
      () => decorrelatedJitter({ random: 'not a number', zzzz: undefined } as never),
      'zzzz',
      /^Unknown option `zzzz`/,
    );
  });

  it('ignores symbol keys and inherited properties', () => {
    expect(() => decorrelatedJitter({ [Symbol('x')]: 1 } as never)).not.toThrow();
    expect(() => decorrelatedJitter(Object.create({ zzzz: 1 }) as never)).not.toThrow();
  });
});
