/**
 * `resilient-socket/backoff`: the backoff strategies and `retry()`, with no dependency on
 * eventemitter3 or ws. Importing it has no side effects.
 * @packageDocumentation
 */

export { type Clock, systemClock, type TimerHandle } from '../clock.js';
export type { BaseCapPolicy } from './base-cap.js';
export { type ConstantOptions, type ConstantPolicy, constant } from './constant.js';
export { decorrelatedJitter } from './decorrelated-jitter.js';
export { equalJitter } from './equal-jitter.js';
export { type ExponentialOptions, exponential } from './exponential.js';
export { fullJitter } from './full-jitter.js';
export {
  type PhasedBinaryExponentialOptions,
  type PhasedBinaryExponentialPolicy,
  phasedBinaryExponential,
} from './phased-binary-exponential.js';
export { isBackoffPolicy, MAX_TIMER_DELAY } from './policy.js';
export { type RetryContext, type RetryInfo, type RetryOptions, retry } from './retry.js';
export { type RetryWaitOptions, toRetryWait } from './retry-wait.js';
export {
  TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS,
  type TruncatedBinaryExponentialOptions,
  type TruncatedBinaryExponentialPolicy,
  truncatedBinaryExponential,
  truncatedWindow,
} from './truncated-binary-exponential.js';
export type {
  BackoffPolicy,
  BackoffPolicyLike,
  BackoffStrategyName,
  BaseCapOptions,
  DelayStep,
  RandomOption,
  RandomSource,
} from './types.js';
