import { resolveBaseCap } from './base-cap.js';
import type { BaseCapPolicy } from './full-jitter.js';
import { createPolicy, exponentialWindow } from './policy.js';
import type { BaseCapOptions, DelayStep } from './types.js';

/** Options of {@link exponential}. `random` is accepted for uniformity and validated, but never called. */
export type ExponentialOptions = BaseCapOptions;

/**
 * Plain capped exponential backoff without jitter: `min(cap, base·2^attempt)`.
 * Every client that failed at the same moment retries at the same moment; it is here to
 * show, in the simulator and benchmarks, why jitter matters. Prefer a jittered strategy.
 *
 * @throws TypeError / RangeError naming the option when `base` or `cap` is invalid.
 */
export function exponential(options?: ExponentialOptions): BaseCapPolicy {
  const { base, cap, random } = resolveBaseCap('exponential', options);
  const step: DelayStep = (attempt) => exponentialWindow(base, cap, attempt);
  return createPolicy('exponential', step, random, { base, cap });
}
