import { type BaseCap, type BaseCapPolicy, resolveBaseCap } from './base-cap.js';
import { createPolicy } from './policy.js';
import type { BaseCapOptions, DelayStep } from './types.js';

const step: DelayStep<BaseCap> = (p, _attempt, previous, u) => {
  const prev = previous ?? p.base;
  // prev·3 overflows to Infinity when prev > MAX_VALUE/3 (a legal, if absurd, base or cap);
  // capping the upper end keeps `u·(hi − base)` finite, so a draw of 0 cannot give 0·∞ = NaN.
  const hi = Math.min(prev * 3, Number.MAX_VALUE);
  return Math.min(p.cap, p.base + u * (hi - p.base));
};

/**
 * "Decorrelated Jitter" exactly as the AWS Architecture Blog (2015) gives it:
 * `prev` starts at `base`, then `prev = min(cap, U(base, prev·3))`. Each delay depends on the
 * previous one rather than on the attempt count. (This is not cockatiel's/Polly's
 * "decorrelated jitter V2", which is a different formula.) `reset()` puts `prev` back to `base`.
 *
 * @throws TypeError / RangeError naming the option when `base`, `cap` or `random` is invalid;
 *   TypeError naming an option it does not know.
 */
export function decorrelatedJitter(options?: BaseCapOptions): BaseCapPolicy {
  const { base, cap, random } = resolveBaseCap('decorrelatedJitter', options);
  return createPolicy('decorrelated-jitter', step, random, { base, cap });
}
