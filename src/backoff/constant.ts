import { assertKnownKeys, assertNumber, assertOptionsObject, withDefault } from '../validation.js';
import { createPolicy, resolveRandom } from './policy.js';
import type { BackoffPolicy, DelayStep, RandomOption } from './types.js';

/** Options of {@link constant}. `random` is accepted for uniformity and validated, but never called. */
export interface ConstantOptions extends RandomOption {
  /**
   * The delay before every retry, in milliseconds. Finite and >= 0; clamped to 2^31 − 1.
   * @default 1_000
   * @example
   * ```ts
   * constant({ delay: 500 }) // every retry after half a second
   * ```
   */
  delay?: number;
}

/** A policy that always waits the same time. */
export interface ConstantPolicy extends BackoffPolicy {
  /** The fixed delay, in milliseconds. */
  readonly delay: number;
}

const step: DelayStep<{ readonly delay: number }> = (p) => p.delay;

/** The options of {@link constant}, as a record so that the compiler reports one missing or extra. */
const CONSTANT_OPTION_NAMES: Readonly<Record<keyof ConstantOptions, true>> = { delay: true, random: true };

/**
 * No backoff: the same delay after every failure (the "sleep = base" of the seed articles).
 * Simple, and the worst choice for many clients hitting one recovering server.
 *
 * @throws TypeError / RangeError naming `delay` when it is invalid; TypeError naming an option
 *   it does not know.
 */
export function constant(options?: ConstantOptions): ConstantPolicy {
  assertOptionsObject('constant options', options);
  assertKnownKeys('', options, Object.keys(CONSTANT_OPTION_NAMES), 'constant()');
  const delay = withDefault(options?.delay, 1_000);
  assertNumber('delay', delay, { min: 0 });
  resolveRandom(options?.random); // validated for uniformity, never called
  return createPolicy('constant', step, undefined, { delay });
}
