import { type BaseCap, type BaseCapPolicy, resolveBaseCap } from './base-cap.js';
import { createPolicy, exponentialWindow } from './policy.js';
import type { BaseCapOptions, DelayStep } from './types.js';

const step: DelayStep<BaseCap> = (p, attempt, _previous, u) => u * exponentialWindow(p.base, p.cap, attempt);

/**
 * "Full Jitter" from Marc Brooker's AWS Architecture Blog post *Exponential Backoff And Jitter*
 * (2015): `U(0, min(cap, base·2^attempt))`, `attempt` counting from 0.
 *
 * @throws TypeError / RangeError naming the option when `base`, `cap` or `random` is invalid;
 *   TypeError naming an option it does not know.
 */
export function fullJitter(options?: BaseCapOptions): BaseCapPolicy {
  const { base, cap, random } = resolveBaseCap('fullJitter', options);
  return createPolicy('full-jitter', step, random, { base, cap });
}
