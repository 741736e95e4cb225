import { type BaseCap, type BaseCapPolicy, resolveBaseCap } from './base-cap.js';
import { createPolicy, exponentialWindow } from './policy.js';
import type { BaseCapOptions, DelayStep } from './types.js';

const step: DelayStep<BaseCap> = (p, attempt, _previous, u) => {
  const half = exponentialWindow(p.base, p.cap, attempt) / 2;
  return half + u * half;
};

/**
 * "Equal Jitter" (AWS Architecture Blog, 2015): with `t = min(cap, base·2^attempt)`, wait
 * `t/2 + U(0, t/2)`. Never shorter than half the window, at the cost of less spread.
 *
 * @throws TypeError / RangeError naming the option when `base`, `cap` or `random` is invalid;
 *   TypeError naming an option it does not know.
 */
export function equalJitter(options?: BaseCapOptions): BaseCapPolicy {
  const { base, cap, random } = resolveBaseCap('equalJitter', options);
  return createPolicy('equal-jitter', step, random, { base, cap });
}
