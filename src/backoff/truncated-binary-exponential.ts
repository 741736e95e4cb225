import { assertKnownKeys, assertNumber, assertOptionsObject, rangeError, withDefault } from '../validation.js';
import { createPolicy, resolveRandom } from './policy.js';
import type { BackoffPolicy, DelayStep, RandomOption } from './types.js';

/** Options of {@link truncatedBinaryExponential}. */
export interface TruncatedBinaryExponentialOptions extends RandomOption {
  /**
   * `T`: the upper end of the widest window, in milliseconds, reached at the `ceiling`-th
   * consecutive failure and kept from then on. Finite and at least 1 ms.
   * @default 10_000
   * @example
   * ```ts
   * truncatedBinaryExponential({ maxDelay: 30_000 }) // spread retries over up to 30 s
   * ```
   */
  maxDelay?: number;
  /**
   * `N`: a count of doublings, not milliseconds. The window doubles with each consecutive failure
   * until the `N`-th, then stays at `T`; the first window is `T / 2^(N−1)`. That first window must
   * be at least 1 ms (a narrower one, or one a huge `N` underflows to 0, would retry in a hot
   * loop), so `N` is an integer from 1 to `⌊log2 T⌋ + 1`: at most 14 for `T = 10_000`, 15 for
   * 30 s, 10 for 512 ms. With `N = 1` every delay is drawn from `[0, T)`.
   * @default 10 (or, for a `maxDelay` under 512 ms, the largest that keeps the first window at least 1 ms)
   * @example
   * ```ts
   * truncatedBinaryExponential({ maxDelay: 10_000, ceiling: 5 }) // windows 625, 1250, 2500, 5000, 10000 ms
   * ```
   */
  ceiling?: number;
}

/** A truncated binary exponential policy, with its derived parameters on display. */
export interface TruncatedBinaryExponentialPolicy extends BackoffPolicy {
  /** `T`, as resolved. */
  readonly maxDelay: number;
  /** `N`, as resolved (given, or its default for this `maxDelay`). */
  readonly ceiling: number;
  /** `a = T / 2^(N−1)`: the first window, in milliseconds, never under 1 (≈ 19.53 ms for T = 10 s, N = 10). */
  readonly baseDelay: number;
}

/**
 * `N` and `T` of the default backoff, the one place they are written (literals apart from the
 * frozen defaults, so that a bundle reading them needs no object). @internal
 */
export const DEFAULT_CEILING = 10;
/** @internal */
export const DEFAULT_MAX_DELAY = 10_000;

/** The defaults of {@link truncatedBinaryExponential}: T = 10 s, N = 10 (a first window of 19.53125 ms). */
export const TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS = /* @__PURE__ */ Object.freeze({
  /** T, in ms. */
  maxDelay: DEFAULT_MAX_DELAY,
  /** N. */
  ceiling: DEFAULT_CEILING,
});

/**
 * The window after the `n`-th consecutive failure (n from 1): `a·2^(min(n,N)−1)`, computed as
 * `T·2^(min(n,N)−N)` so that the exponent is never positive and a huge `N` underflows to a
 * tiny window instead of producing `Infinity · 0 = NaN`.
 */
export function truncatedWindow(maxDelay: number, ceiling: number, n: number): number {
  return maxDelay * 2 ** (Math.min(n, ceiling) - ceiling);
}

/**
 * The largest ceiling `N` whose first window `T / 2^(N−1)` is at least 1 ms (`⌊log2 T⌋ + 1`), or 0
 * when `T` is under 1 ms: no ceiling fits. Counted rather than taken from `Math.log2`, which rounds
 * up to the next integer just below a power of two (`Math.log2(1024 − 2^-43)` is 10); `T` times a
 * power of two is exact in floating point, so every comparison here is. At most 1024 steps, once
 * per construction.
 * @internal
 */
export function largestCeiling(maxDelay: number): number {
  let n = 0;
  while (maxDelay * 2 ** -n >= 1) n++;
  return n;
}

/**
 * `T` and `N` checked together, the one check of the socket's `maxDelay`/`ceiling` and of both
 * factories': `T` finite and at least 1 ms, `N` an integer from 1 to {@link largestCeiling}`(T)`,
 * so that the first retry window is never under 1 ms (a narrower one, or one a huge `N` underflows
 * to 0, retries in a hot loop). Returns `N`: the given one, or the default (10, lowered to the
 * largest that fits when `T` is under 512 ms).
 * @throws TypeError naming the option for a wrong type; RangeError naming it for a bad value (for
 *   a ceiling too large for `T`, naming both and the largest that fits).
 * @internal
 */
export function resolveCeiling(maxDelay: unknown, ceiling: unknown): number {
  assertNumber('maxDelay', maxDelay, { min: 1 });
  const most = largestCeiling(maxDelay);
  if (ceiling === undefined) return Math.min(DEFAULT_CEILING, most);
  assertNumber('ceiling', ceiling, { integer: true, min: 1 });
  if (ceiling > most) {
    throw rangeError(
      'ceiling',
      process.env.NODE_ENV !== 'production'
        ? `Expected \`ceiling\` to be at most ${most} with \`maxDelay\` ${maxDelay} (the first retry window, \`maxDelay\` / 2^(\`ceiling\` − 1), must be at least 1 ms), got ${ceiling}`
        : '',
    );
  }
  return ceiling;
}

/** The options of {@link truncatedBinaryExponential} (and of its phased walk); the compiler reports one that is not an option. */
export const WINDOW_OPTION_NAMES: readonly (keyof TruncatedBinaryExponentialOptions)[] = [
  'maxDelay',
  'ceiling',
  'random',
];

const step: DelayStep<{ readonly maxDelay: number; readonly ceiling: number }> = (p, attempt, _previous, u) =>
  u * truncatedWindow(p.maxDelay, p.ceiling, attempt + 1);

/**
 * Truncated binary exponential backoff, the package default: after the n-th consecutive failure
 * wait `U(0, a·2^(min(n,N)−1))` with `a = T/2^(N−1)`. This is the backoff of classic Ethernet
 * (IEEE 802.3 CSMA/CD, which truncates at N = 10) re-expressed in time: instead of a slot size
 * you give the widest window `T`, and the first window follows from it.
 *
 * @example
 * ```ts
 * const policy = truncatedBinaryExponential({ maxDelay: 10_000, ceiling: 10 });
 * policy.baseDelay; // 19.53125
 * policy.next();    // somewhere in [0, 19.5) ms, then [0, 39), [0, 78) … [0, 10_000)
 * ```
 * @throws TypeError / RangeError naming the option when `maxDelay`, `ceiling` or `random` is invalid,
 *   among them a `ceiling` whose first window would be under 1 ms (``Expected `ceiling` to be at most
 *   14 with `maxDelay` 10000 (…), got 30000``); TypeError naming an option it does not know (``Unknown option `maxDelays`: did you mean `maxDelay`?``).
 */
export function truncatedBinaryExponential(
  options?: TruncatedBinaryExponentialOptions,
): TruncatedBinaryExponentialPolicy {
  assertOptionsObject('truncatedBinaryExponential options', options);
  assertKnownKeys('', options, WINDOW_OPTION_NAMES, 'truncatedBinaryExponential()');
  const maxDelay = withDefault(options?.maxDelay, DEFAULT_MAX_DELAY);
  const ceiling = resolveCeiling(maxDelay, options?.ceiling);
  const random = resolveRandom(options?.random);
  return createPolicy('truncated-binary-exponential', step, random, {
    maxDelay,
    ceiling,
    baseDelay: truncatedWindow(maxDelay, ceiling, 1),
  });
}
