import { assertKnownKeys, assertNumber, assertOptionsObject, withDefault } from '../validation.js';
import { createPolicy, resolveRandom } from './policy.js';
import type { BackoffPolicy, DelayStep, RandomOption } from './types.js';

/** Options of {@link truncatedBinaryExponential}. */
export interface TruncatedBinaryExponentialOptions extends RandomOption {
  /**
   * `T`: the upper end of the widest window, in milliseconds, reached at the `ceiling`-th
   * consecutive failure and kept from then on. Finite and > 0.
   * @default 10_000
   * @example
   * ```ts
   * truncatedBinaryExponential({ maxDelay: 30_000 }) // spread retries over up to 30 s
   * ```
   */
  maxDelay?: number;
  /**
   * `N`: the failure count at which the window stops doubling (the truncation point). An integer >= 1.
   * With `N = 1` every delay is drawn from `[0, T)`.
   * @default 10
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
  /** `N`, as resolved. */
  readonly ceiling: number;
  /** `a = T / 2^(N−1)`: the first window, in milliseconds (≈ 19.53 ms for T = 10 s, N = 10). */
  readonly baseDelay: number;
}

/** The defaults of {@link truncatedBinaryExponential}: T = 10 s, N = 10 (a first window of 19.53125 ms). */
export const TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS = /* @__PURE__ */ Object.freeze({
  /** T, in ms. */
  maxDelay: 10_000,
  /** N. */
  ceiling: 10,
});

/**
 * The window after the `n`-th consecutive failure (n from 1): `a·2^(min(n,N)−1)`, computed as
 * `T·2^(min(n,N)−N)` so that the exponent is never positive and a huge `N` underflows to a
 * tiny window instead of producing `Infinity · 0 = NaN`.
 */
export function truncatedWindow(maxDelay: number, ceiling: number, n: number): number {
  return maxDelay * 2 ** (Math.min(n, ceiling) - ceiling);
}

/** The options of {@link truncatedBinaryExponential}, as a record so that the compiler reports one missing or extra. */
const TBE_OPTION_NAMES: Readonly<Record<keyof TruncatedBinaryExponentialOptions, true>> = {
  maxDelay: true,
  ceiling: true,
  random: true,
};

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
 * @throws TypeError / RangeError naming the option when `maxDelay`, `ceiling` or `random` is invalid;
 *   TypeError naming an option it does not know (``Unknown option `maxDelays`: did you mean `maxDelay`?``).
 */
export function truncatedBinaryExponential(
  options?: TruncatedBinaryExponentialOptions,
): TruncatedBinaryExponentialPolicy {
  assertOptionsObject('truncatedBinaryExponential options', options);
  assertKnownKeys('', options, Object.keys(TBE_OPTION_NAMES), 'truncatedBinaryExponential()');
  const maxDelay = withDefault(options?.maxDelay, TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS.maxDelay);
  const ceiling = withDefault(options?.ceiling, TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS.ceiling);
  assertNumber('maxDelay', maxDelay, { above: 0 });
  assertNumber('ceiling', ceiling, { integer: true, min: 1 });
  const random = resolveRandom(options?.random);
  return createPolicy('truncated-binary-exponential', step, random, {
    maxDelay,
    ceiling,
    baseDelay: truncatedWindow(maxDelay, ceiling, 1),
  });
}
