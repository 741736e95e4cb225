import { assertKnownKeys, assertNumber, assertOptionsObject, rangeError, withDefault } from '../validation.js';
import { resolveRandom } from './policy.js';
import type { BackoffPolicy, BaseCapOptions, RandomSource } from './types.js';

/** Defaults for the `base`/`cap` strategies (the values used by the AWS article's examples scaled to ms). */
export const BASE_CAP_DEFAULTS = /* @__PURE__ */ Object.freeze({ base: 100, cap: 10_000 });

/** The parameters of the base/cap strategies. */
export interface BaseCap {
  /** The first window, in milliseconds. */
  readonly base: number;
  /** The largest window, in milliseconds. */
  readonly cap: number;
}

/** A policy described by `base` and `cap`. */
export interface BaseCapPolicy extends BackoffPolicy, BaseCap {}

/** Validated `base`, `cap` and `random`. @internal */
export interface ResolvedBaseCap extends BaseCap {
  readonly random: RandomSource;
}

/** The options of the base/cap strategies, as a record so that the compiler reports one missing or extra. */
const BASE_CAP_OPTION_NAMES: Readonly<Record<keyof BaseCapOptions, true>> = { base: true, cap: true, random: true };

/**
 * Validates the options shared by full, equal, decorrelated jitter and plain exponential:
 * `base` finite and > 0, `cap` finite and >= `base`, `random` a function, and no other option
 * (``Unknown option `bse`: did you mean `base`?``).
 * @internal
 */
export function resolveBaseCap(factory: string, options: BaseCapOptions | undefined): ResolvedBaseCap {
  assertOptionsObject(`${factory} options`, options);
  assertKnownKeys('', options, Object.keys(BASE_CAP_OPTION_NAMES), `${factory}()`);
  const base = withDefault(options?.base, BASE_CAP_DEFAULTS.base);
  const cap = withDefault(options?.cap, BASE_CAP_DEFAULTS.cap);
  assertNumber('base', base, { above: 0 });
  assertNumber('cap', cap, { above: 0 });
  if (cap < base) {
    // Named after the one given: a `base` above the default cap is the `base`'s fault.
    throw rangeError(
      options?.cap === undefined ? 'base' : 'cap',
      process.env.NODE_ENV !== 'production'
        ? `Expected \`cap\` to be >= \`base\` (${base}), got ${cap}${options?.cap === undefined ? ' (the default)' : ''}`
        : '',
    );
  }
  return { base, cap, random: resolveRandom(options?.random) };
}
