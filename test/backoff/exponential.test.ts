import { describe, expect, it, vi } from 'vitest';
import { exponential, MAX_TIMER_DELAY } from '../../src/backoff/index.js';
import { baseCapValidationSuite, expectOptionError, expectUnknownOption, take } from './helpers.js';

describe('exponential', () => {
  it('defaults to base 100, cap 10 000', () => {
    const policy = exponential();
    expect(policy.name).toBe('exponential');
    expect(policy.base).toBe(100);
    expect(policy.cap).toBe(10_000);
  });

  it('doubles from base and stops at the cap: 100, 200, …, 6400, 10 000', () => {
    expect(take(exponential(), 10)).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000, 10_000]);
  });

  it('uses the configured base and cap', () => {
    expect(take(exponential({ base: 1, cap: 10 }), 6)).toEqual([1, 2, 4, 8, 10, 10]);
    expect(take(exponential({ base: 0.5, cap: 0.5 }), 3)).toEqual([0.5, 0.5, 0.5]);
  });

  it('never calls random, but validates it', () => {
    const random = vi.fn(() => Number.NaN);
    const policy = exponential({ random });
    expect(take(policy, 5)).toEqual([100, 200, 400, 800, 1600]);
    expect(random).not.toHaveBeenCalled();
    expectOptionError(() => exponential({ random: 5 } as never), TypeError, 'random', 'number 5');
  });

  it('counts delays; reset() returns to 0 and restarts at base', () => {
    const policy = exponential();
    take(policy, 4);
    expect(policy.attempt).toBe(4);
    policy.reset();
    expect(policy.attempt).toBe(0);
    expect(take(policy, 3)).toEqual([100, 200, 400]);
    expect(policy.attempt).toBe(3);
  });

  it('stays finite and equal to the cap over 1_100 attempts', () => {
    const delays = take(exponential({ base: 100, cap: 10_000 }), 1_100);
    expect(delays.every(Number.isFinite)).toBe(true);
    expect(delays.slice(7).every((d) => d === 10_000)).toBe(true);
    expect(delays[1_099]).toBe(10_000);
  });

  it('clamps delays to MAX_TIMER_DELAY when cap exceeds 2^31 - 1', () => {
    const policy = exponential({ base: 2 ** 30, cap: 2 ** 40 });
    expect(take(policy, 4)).toEqual([2 ** 30, MAX_TIMER_DELAY, MAX_TIMER_DELAY, MAX_TIMER_DELAY]);
    expect(exponential({ base: MAX_TIMER_DELAY + 1, cap: Number.MAX_VALUE }).next()).toBe(MAX_TIMER_DELAY);
  });

  baseCapValidationSuite('exponential', exponential as (options?: never) => unknown);
});

describe('exponential: unknown options', () => {
  it('a misspelt option is a TypeError that suggests the right one', () => {
    expect(() => exponential({ bases: 1 } as never)).toThrow(TypeError);
    expectUnknownOption(
      () => exponential({ bases: 1 } as never),
      'bases',
      'Unknown option `bases`: did you mean `base`?',
    );
  });

  it('an option of another strategy is a TypeError that lists its options', () => {
    const other = 'ceiling';
    expectUnknownOption(
      () => exponential({ [other]: 1 } as never),
      other,
      `Unknown option \`${other}\`: the options of exponential() are \`base\`, \`cap\`, \`random\``,
    );
  });

  it('is checked before the values, and an unknown key with an undefined value counts', () => {
    expectUnknownOption(
      () => exponential({ base: 'not a number', zzzz: undefined } as never),
      'zzzz',
      /^Unknown option `zzzz`/,
    );
  });

  it('ignores symbol keys and inherited properties', () => {
    expect(() => exponential({ [Symbol('x')]: 1 } as never)).not.toThrow();
    expect(() => exponential(Object.create({ zzzz: 1 }) as never)).not.toThrow();
  });
});
