import { type BaseCap, type BaseCapPolicy, resolveBaseCap } from './base-cap.js';
import { createPolicy, exponentialWindow } from './policy.js';
import type { BaseCapOptions, DelayStep } from './types.js';

/** Options of {@link exponential}. `random` is accepted for uniformity and validated, but never called. */
export type ExponentialOptions = BaseCapOptions;

const step: DelayStep<BaseCap> = (p, attempt) => exponentialWindow(p.base, p.cap, attempt);

/**
 * Plain capped exponential backoff without jitter: `min(cap, base·2^attempt)`.
 * Every client that failed at the same moment retries at the same moment; it is here to
 * show, in the simulator and benchmarks, why jitter matters. Prefer a jittered strategy.
 *
 * @throws TypeError / RangeError naming the option when `base` or `cap` is invalid;
 *   TypeError naming an option it does not know.
 */
export function exponential(options?: ExponentialOptions): BaseCapPolicy {
  // `random` is validated by resolveBaseCap but never called: no jitter.
  const { base, cap } = resolveBaseCap('exponential', options);
  return createPolicy('exponential', step, undefined, { base, cap });
}
