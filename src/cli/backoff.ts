/** The backoff policy a command line asks for, built with the package's own factories. */
import { constant } from '../backoff/constant.js';
import { decorrelatedJitter } from '../backoff/decorrelated-jitter.js';
import { equalJitter } from '../backoff/equal-jitter.js';
import { exponential } from '../backoff/exponential.js';
import { fullJitter } from '../backoff/full-jitter.js';
import { phasedBinaryExponential } from '../backoff/phased-binary-exponential.js';
import { truncatedBinaryExponential } from '../backoff/truncated-binary-exponential.js';
import type { BackoffPolicy } from '../backoff/types.js';
import type { StrategyName } from './args.js';
import { usageErrorFrom } from './flags.js';

/** What {@link createBackoff} reads from the command line. */
export interface BackoffFlags {
  readonly strategy: StrategyName;
  readonly maxDelay: number;
  readonly ceiling: number;
  readonly baseDelay: number;
}

/**
 * `--strategy` with `--max-delay` (T or cap), `--ceiling` and `--base-delay` (base, or the fixed
 * delay of `constant`). The factories validate the combination; their TypeError or RangeError
 * (e.g. a base above the cap) becomes a usage error naming the flags.
 */
export function createBackoff(flags: BackoffFlags): BackoffPolicy {
  const { strategy, maxDelay, ceiling, baseDelay } = flags;
  const baseCap = { base: baseDelay, cap: maxDelay };
  try {
    switch (strategy) {
      case 'truncated':
        return truncatedBinaryExponential({ maxDelay, ceiling });
      case 'phased':
        return phasedBinaryExponential({ maxDelay, ceiling });
      case 'full':
        return fullJitter(baseCap);
      case 'equal':
        return equalJitter(baseCap);
      case 'decorrelated':
        return decorrelatedJitter(baseCap);
      case 'exponential':
        return exponential(baseCap);
      case 'constant':
        return constant({ delay: baseDelay });
    }
  } catch (error) {
    throw usageErrorFrom(error) ?? error;
  }
}
