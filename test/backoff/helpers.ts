import { describe, expect, it, vi } from 'vitest';
import type { BackoffPolicyLike } from '../../src/backoff/index.js';

/** The value the docs suggest to pin a delay to the top of its window: the largest `1 - ε` draw. */
export const ALMOST_ONE = 1 - Number.EPSILON;

/**
 * A random source that replays `draws` in order and throws once they are used up (so an
 * unexpected extra draw fails the test). `rewind()` starts the script over.
 */
export function scripted(draws: readonly number[]) {
  let index = 0;
  const random = vi.fn((): number => {
    const value = draws[index];
    if (value === undefined) throw new Error(`scripted random exhausted after ${index} draws`);
    index += 1;
    return value;
  });
  return {
    random,
    rewind(): void {
      index = 0;
    },
  };
}

/** Calls `policy.next()` `n` times and returns the delays. */
export function take(policy: BackoffPolicyLike, n: number): number[] {
  return Array.from({ length: n }, () => policy.next());
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw, but it returned');
}

/**
 * Asserts that `fn` throws exactly `Type` and that the message names the option in backticks
 * and ends with `got <received>`.
 */
export function expectOptionError(fn: () => unknown, Type: ErrorConstructor, name: string, received: string): void {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(Type);
  expect((error as Error).constructor).toBe(Type);
  expect((error as Error).message).toMatch(new RegExp(`\`${escapeRegExp(name)}\`.*got ${escapeRegExp(received)}$`));
}

/**
 * The validation every `base`/`cap` factory shares (it goes through `resolveBaseCap`), registered
 * as tests for one factory so each strategy's file checks its own factory name in messages.
 */
export function baseCapValidationSuite(factoryName: string, factory: (options?: never) => unknown): void {
  describe('validation', () => {
    it.each([
      ['base', { base: '100' }, 'string "100"'],
      ['base', { base: false }, 'boolean false'],
      ['cap', { cap: '10000' }, 'string "10000"'],
      ['cap', { cap: {} }, 'an object'],
      ['random', { random: 5 }, 'number 5'],
      ['random', { random: {} }, 'an object'],
    ])('throws a TypeError naming `%s` for a value of the wrong type', (name, options, shown) => {
      expectOptionError(() => factory(options as never), TypeError, name, shown);
    });

    it.each([
      [null, 'null'],
      [[], 'an array of length 0'],
      [[{ base: 1 }], 'an array of length 1'],
      [7, 'number 7'],
    ])('throws a TypeError when options is %s', (options, shown) => {
      expectOptionError(() => factory(options as never), TypeError, `${factoryName} options`, shown);
    });

    it.each([
      ['base', { base: 0 }, '0'],
      ['base', { base: -1 }, '-1'],
      ['base', { base: Number.NaN }, 'NaN'],
      ['base', { base: Number.POSITIVE_INFINITY, cap: Number.POSITIVE_INFINITY }, 'Infinity'],
      ['cap', { cap: 0 }, '0'],
      ['cap', { cap: Number.NaN }, 'NaN'],
      ['cap', { cap: Number.POSITIVE_INFINITY }, 'Infinity'],
      ['cap', { base: 100, cap: 50 }, '50'],
      ['cap', { base: 100, cap: 99.999 }, '99.999'],
      ['cap', { cap: 99 }, '99'],
      ['cap', { base: 20_000 }, '10000 (the default)'],
    ])('throws a RangeError naming `%s` for %o', (name, options, shown) => {
      expectOptionError(() => factory(options as never), RangeError, name, shown);
    });

    it('says which base the cap must not be below', () => {
      expect(() => factory({ base: 100, cap: 50 } as never)).toThrow('Expected `cap` to be >= `base` (100), got 50');
    });

    it('accepts cap === base', () => {
      expect(() => factory({ base: 250, cap: 250 } as never)).not.toThrow();
    });
  });
}

/**
 * The validation every `maxDelay`/`ceiling` factory shares (truncated binary exponential and its
 * phased walk go through the same checks), registered as tests for one factory so each strategy's
 * file checks its own factory name in messages. The caller's `describe` holds it.
 */
export function windowValidationCases(factoryName: string, factory: (options?: never) => unknown): void {
  it.each([
    ['ceiling', { ceiling: '10' }, 'string "10"'],
    ['ceiling', { ceiling: true }, 'boolean true'],
    ['maxDelay', { maxDelay: '10000' }, 'string "10000"'],
    ['maxDelay', { maxDelay: 10n }, 'bigint 10n'],
    ['random', { random: 5 }, 'number 5'],
    ['random', { random: 'Math.random' }, 'string "Math.random"'],
    ['random', { random: null }, 'null'],
  ])('throws a TypeError naming `%s` for a value of the wrong type', (name, options, shown) => {
    expectOptionError(() => factory(options as never), TypeError, name, shown);
  });

  it.each([
    [null, 'null'],
    [[], 'an array of length 0'],
    [42, 'number 42'],
    ['fast', 'string "fast"'],
    [() => ({}), 'function (anonymous)'],
  ])('throws a TypeError when options is %s', (options, shown) => {
    expectOptionError(() => factory(options as never), TypeError, `${factoryName} options`, shown);
  });

  it.each([
    ['ceiling', 0, '0'],
    ['ceiling', -1, '-1'],
    ['ceiling', 1.5, '1.5'],
    ['ceiling', Number.NaN, 'NaN'],
    ['ceiling', Number.POSITIVE_INFINITY, 'Infinity'],
    ['maxDelay', 0, '0'],
    ['maxDelay', -1, '-1'],
    ['maxDelay', Number.NaN, 'NaN'],
    ['maxDelay', Number.POSITIVE_INFINITY, 'Infinity'],
    ['maxDelay', Number.NEGATIVE_INFINITY, '-Infinity'],
  ])('throws a RangeError naming `%s` for %s', (name, value, shown) => {
    expectOptionError(() => factory({ [name]: value } as never), RangeError, name, shown);
  });

  it('describes the accepted range in the message', () => {
    expect(() => factory({ ceiling: 0.5 } as never)).toThrow('Expected `ceiling` to be an integer >= 1, got 0.5');
    expect(() => factory({ maxDelay: 0 } as never)).toThrow('Expected `maxDelay` to be a finite number > 0, got 0');
  });
}
