import { describe, expect, it, vi } from 'vitest';
import { constant, MAX_TIMER_DELAY } from '../../src/backoff/index.js';
import { expectInputError } from '../helpers/mode.js';
import { expectOptionError, expectUnknownOption, take } from './helpers.js';

describe('constant', () => {
  it('defaults to 1 000 ms', () => {
    const policy = constant();
    expect(policy.name).toBe('constant');
    expect(policy.delay).toBe(1_000);
    expect(take(policy, 3)).toEqual([1_000, 1_000, 1_000]);
    expect(constant({}).delay).toBe(1_000);
  });

  it('returns the same delay every time', () => {
    expect(take(constant({ delay: 250 }), 20)).toEqual(Array(20).fill(250));
    expect(take(constant({ delay: 12.5 }), 3)).toEqual([12.5, 12.5, 12.5]);
  });

  it('accepts a delay of 0', () => {
    expect(take(constant({ delay: 0 }), 2)).toEqual([0, 0]);
  });

  it('never calls random, but validates it', () => {
    const random = vi.fn(() => 2);
    expect(take(constant({ delay: 5, random }), 4)).toEqual([5, 5, 5, 5]);
    expect(random).not.toHaveBeenCalled();
    expectOptionError(() => constant({ random: 'nope' } as never), TypeError, 'random', 'string "nope"');
  });

  it('counts delays; reset() returns to 0', () => {
    const policy = constant({ delay: 7 });
    take(policy, 3);
    expect(policy.attempt).toBe(3);
    policy.reset();
    expect(policy.attempt).toBe(0);
    expect(policy.next()).toBe(7);
    expect(policy.attempt).toBe(1);
  });

  it('stays the same over 1_100 attempts', () => {
    const policy = constant({ delay: 42 });
    expect(take(policy, 1_100).every((d) => d === 42)).toBe(true);
    expect(policy.attempt).toBe(1_100);
  });

  it('clamps a delay above 2^31 - 1 to MAX_TIMER_DELAY', () => {
    expect(constant({ delay: 5e9 }).next()).toBe(MAX_TIMER_DELAY);
    expect(constant({ delay: MAX_TIMER_DELAY }).next()).toBe(MAX_TIMER_DELAY);
    expect(constant({ delay: MAX_TIMER_DELAY - 1 }).next()).toBe(MAX_TIMER_DELAY - 1);
  });

  describe('validation', () => {
    it.each([
      [-1, '-1'],
      [-0.001, '-0.001'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
    ])('throws a RangeError naming `delay` for %s', (delay, shown) => {
      expectOptionError(() => constant({ delay }), RangeError, 'delay', shown);
    });

    it('describes the accepted range', () => {
      expectInputError(
        () => constant({ delay: -1 }),
        RangeError,
        'ERR_RS_INVALID_VALUE',
        'delay',
        'Expected `delay` to be a finite number >= 0, got -1',
      );
    });

    it.each([
      [{ delay: '1000' }, 'delay', 'string "1000"'],
      [{ delay: [1] }, 'delay', 'an array of length 1'],
      [{ random: 5 }, 'random', 'number 5'],
      [null, 'constant options', 'null'],
      [[], 'constant options', 'an array of length 0'],
      ['1000', 'constant options', 'string "1000"'],
    ])('throws a TypeError for %o', (options, name, shown) => {
      expectOptionError(() => constant(options as never), TypeError, name, shown);
    });
  });
});

describe('constant: unknown options', () => {
  it('a misspelt option is a TypeError that suggests the right one', () => {
    expect(() => constant({ dealy: 1 } as never)).toThrow(TypeError);
    expectUnknownOption(
      () => constant({ dealy: 1 } as never),
      'dealy',
      'Unknown option `dealy`: did you mean `delay`?',
    );
  });

  it('an option of another strategy is a TypeError that lists its options', () => {
    const other = 'base';
    expectUnknownOption(
      () => constant({ [other]: 1 } as never),
      other,
      `Unknown option \`${other}\`: the options of constant() are \`delay\`, \`random\``,
    );
  });

  it('is checked before the values, and an unknown key with an undefined value counts', () => {
    expectUnknownOption(
      () => constant({ delay: 'not a number', zzzz: undefined } as never),
      'zzzz',
      /^Unknown option `zzzz`/,
    );
  });

  it('ignores symbol keys and inherited properties', () => {
    expect(() => constant({ [Symbol('x')]: 1 } as never)).not.toThrow();
    expect(() => constant(Object.create({ zzzz: 1 }) as never)).not.toThrow();
  });
});
