/**
 * What every backoff strategy in this package is, and the minimum a user's own strategy must be.
 */

/** A source of uniform random numbers in `[0, 1)`, like `Math.random`. `1` itself is tolerated. */
export type RandomSource = () => number;

/**
 * The smallest contract a backoff policy must meet. Pass your own object with these two methods
 * wherever the package accepts a policy (`retry({ backoff })`, `ResilientSocket({ backoff })`).
 */
export interface BackoffPolicyLike {
  /** Milliseconds to wait before the next attempt; each call is one more consecutive failure. */
  next(): number;
  /** Forget the failures so far: the next `next()` is the first delay again. */
  reset(): void;
}

/** A policy built by one of the package's factories. */
export interface BackoffPolicy extends BackoffPolicyLike {
  /** The strategy's name, e.g. `'truncated-binary-exponential'` or `'full-jitter'`. */
  readonly name: BackoffStrategyName;
  /** How many delays `next()` has handed out since creation or the last `reset()`. */
  readonly attempt: number;
}

/** The names of the built-in strategies. */
export type BackoffStrategyName =
  | 'truncated-binary-exponential'
  | 'phased-binary-exponential'
  | 'full-jitter'
  | 'equal-jitter'
  | 'decorrelated-jitter'
  | 'exponential'
  | 'constant';

/**
 * A pure delay step: given the strategy's parameters, how many delays came before (`attempt`,
 * from 0), the previous delay (`undefined` for the first) and one uniform draw `u` in [0, 1] (0
 * for strategies that draw none), return the raw next delay. No state, no I/O, no closure: the
 * policy keeps the counter, draws and validates `u`, and clamps the result.
 */
export type DelayStep<Params = unknown> = (
  params: Params,
  attempt: number,
  previous: number | undefined,
  u: number,
) => number;

/** Options every jittered factory takes. */
export interface RandomOption {
  /**
   * Uniform random source, called afresh for every delay. Inject a seeded generator of your own
   * for reproducible runs (the package exports none), or `() => 0` / `() => 1 - Number.EPSILON`
   * to pin a delay to a window's edge.
   * @default Math.random
   * @example
   * ```ts
   * fullJitter({ random: mySeededRandom(42) }) // your own seeded generator: reproducible delays
   * ```
   */
  random?: RandomSource;
}

/** `base` and `cap`, shared by the classic AWS-style strategies. */
export interface BaseCapOptions extends RandomOption {
  /**
   * The first window in milliseconds (`attempt` 0); it doubles on each further failure. Must be > 0.
   * @default 100
   * @example
   * ```ts
   * fullJitter({ base: 250 }) // windows of 250, 500, 1000… ms
   * ```
   */
  base?: number;
  /**
   * The largest window in milliseconds. Must be finite and >= `base`.
   * @default 10_000
   * @example
   * ```ts
   * equalJitter({ base: 100, cap: 30_000 }) // never wait more than 30 s
   * ```
   */
  cap?: number;
}
