import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { BackoffPolicyLike } from '../../src/backoff/index.js';
import { expectInputError } from '../helpers/mode.js';

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

/**
 * Valid `[maxDelay, ceiling]` pairs of the truncated binary exponential windows: `ceiling` from 1
 * to `maxCeiling`, and `maxDelay` from `2^(ceiling − 1)` (a first window of exactly 1 ms, the
 * narrowest accepted, forced in often) up to `maxDelay` (or that bound itself when it is higher).
 */
export function windowOptionsArb({
  maxCeiling = 64,
  maxDelay = 1e12,
  minCeiling = 1,
} = {}): fc.Arbitrary<[maxDelay: number, ceiling: number]> {
  return fc.integer({ min: minCeiling, max: maxCeiling }).chain((ceiling) => {
    const least = 2 ** (ceiling - 1);
    const delay = fc.oneof(fc.double({ min: least, max: Math.max(least, maxDelay), noNaN: true }), fc.constant(least));
    return fc.tuple(delay, fc.constant(ceiling));
  });
}

/** Calls `policy.next()` `n` times and returns the delays. */
export function take(policy: BackoffPolicyLike, n: number): number[] {
  return Array.from({ length: n }, () => policy.next());
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The code of a TypeError (a wrong type) or a RangeError (a bad value) about an option. */
export const codeOf = (Type: ErrorConstructor): string =>
  Type === TypeError ? 'ERR_RS_INVALID_TYPE' : 'ERR_RS_INVALID_VALUE';

/**
 * Asserts that `fn` throws exactly `Type` with its code, naming the option: in development in
 * backticks, the message ending with `got <received>`.
 */
export function expectOptionError(fn: () => unknown, Type: ErrorConstructor, name: string, received: string): void {
  expectInputError(
    fn,
    Type,
    codeOf(Type),
    name,
    new RegExp(`\`${escapeRegExp(name)}\`.*got ${escapeRegExp(received)}$`),
  );
}

/** Asserts that `fn` throws a TypeError about the unknown option `name`; in development, the message `devText`. */
export function expectUnknownOption(fn: () => unknown, name: string, devText: string | RegExp): void {
  expectInputError(fn, TypeError, 'ERR_RS_UNKNOWN_OPTION', name, devText);
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
    ])('throws a RangeError naming `%s` for %o', (name, options, shown) => {
      expectOptionError(() => factory(options as never), RangeError, name, shown);
    });

    it('says which base the cap must not be below', () => {
      expectInputError(
        () => factory({ base: 100, cap: 50 } as never),
        RangeError,
        'ERR_RS_INVALID_VALUE',
        'cap',
        'Expected `cap` to be >= `base` (100), got 50',
      );
    });

    it('a base above the default cap: a RangeError naming `base` (the one given), development builds both', () => {
      expectInputError(
        () => factory({ base: 20_000 } as never),
        RangeError,
        'ERR_RS_INVALID_VALUE',
        'base',
        'Expected `cap` to be >= `base` (20000), got 10000 (the default)',
      );
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
    const value = 'ERR_RS_INVALID_VALUE';
    expectInputError(
      () => factory({ ceiling: 0.5 } as never),
      RangeError,
      value,
      'ceiling',
      'Expected `ceiling` to be an integer >= 1, got 0.5',
    );
    expectInputError(
      () => factory({ maxDelay: 0 } as never),
      RangeError,
      value,
      'maxDelay',
      'Expected `maxDelay` to be a finite number >= 1, got 0',
    );
  });

  it('refuses a ceiling whose first window maxDelay / 2^(ceiling − 1) is under 1 ms, naming both and the largest that fits', () => {
    const tooLarge = (options: object, devText: string | RegExp): void => {
      expectInputError(() => factory(options as never), RangeError, 'ERR_RS_INVALID_VALUE', 'ceiling', devText);
    };
    tooLarge(
      { maxDelay: 10_000, ceiling: 30_000 },
      'Expected `ceiling` to be at most 14 with `maxDelay` 10000 (the first retry window, `maxDelay` / 2^(`ceiling` − 1), must be at least 1 ms), got 30000',
    );
    // The default maxDelay (10 s) counts too, and a small maxDelay lowers the bound.
    expectOptionError(() => factory({ ceiling: 15 } as never), RangeError, 'ceiling', '15');
    tooLarge({ ceiling: 15 }, /at most 14 with `maxDelay` 10000/);
    tooLarge({ maxDelay: 100, ceiling: 10 }, /at most 7 with `maxDelay` 100 /);
    tooLarge({ maxDelay: 1e300, ceiling: 1e300 }, /at most 997 with `maxDelay` 1e\+300/);
  });

  it.each([
    [1, 1],
    [1.9999999999999998, 1], // 2 − 2^-52: Math.log2 gives 0.99…, floor + 1 = 1
    [2, 2],
    [7.999999999999999, 3], // Math.log2 rounds up to 3 here: the bound is not ⌊log2 T⌋ + 1 as computed in floats
    [1023.9999999999999, 10], // likewise (log2 → 10)
    [1024, 11],
    [10_000, 14],
    [30_000, 15],
    [2 ** 1023, 1024],
    [Number.MAX_VALUE, 1024],
  ])(
    'maxDelay %s takes a ceiling of %s at most, exactly (first window >= 1 ms, one more is refused)',
    (maxDelay, most) => {
      const policy = factory({ maxDelay, ceiling: most } as never) as { baseDelay: number };
      expect(policy.baseDelay).toBeGreaterThanOrEqual(1);
      expect(policy.baseDelay).toBeLessThan(2);
      expectInputError(
        () => factory({ maxDelay, ceiling: most + 1 } as never),
        RangeError,
        'ERR_RS_INVALID_VALUE',
        'ceiling',
        new RegExp(`to be at most ${most} with`),
      );
    },
  );

  it.each([0.5, 0.999, Number.MIN_VALUE])('refuses a maxDelay under 1 ms (%s): no ceiling can fit it', (maxDelay) => {
    expectOptionError(() => factory({ maxDelay } as never), RangeError, 'maxDelay', String(maxDelay));
    expectOptionError(() => factory({ maxDelay, ceiling: 1 } as never), RangeError, 'maxDelay', String(maxDelay));
  });

  it.each([
    [1, 1],
    [3, 2],
    [100, 7],
    [511.99, 9],
    [512, 10],
    [10_000, 10],
  ])('without a ceiling, maxDelay %s gets a ceiling of %s (10, lowered to fit under 512 ms)', (maxDelay, ceiling) => {
    const policy = factory({ maxDelay } as never) as { ceiling: number; baseDelay: number };
    expect(policy.ceiling).toBe(ceiling);
    expect(policy.baseDelay).toBeGreaterThanOrEqual(1);
  });
}

// ─── what the phased-binary-exponential-*.test.ts files share ────────────────────────────

/** The point of every window a phase ψ waits at: `2^(ψ−1)`, in [1/2, 1) (ψ = 1 counts as 1 − ε). */
export const fraction = (psi: number): number => 2 ** (Math.min(psi, ALMOST_ONE) - 1);

/**
 * Where in the period `[0, T)` the N-th retry lands, as a fraction of T: `g(ψ) = (ψ + 2^ψ − 1)/2`,
 * in [0, 1) (ψ = 1 counts as 1 − ε). Restated from the design, not imported.
 */
export const landing = (psi: number): number => {
  const p = Math.min(psi, ALMOST_ONE);
  return (p + 2 ** p - 1) / 2;
};

/** The sum of `waits`, added in order. */
export const sum = (waits: readonly number[]): number => waits.reduce((total, wait) => total + wait, 0);

/** Runs `fn` and returns what it threw (failing if it returned). */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to throw, but it returned');
}
