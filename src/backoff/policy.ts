import { assertFunction, describeReceived, describeValue, rangeError, typeError } from '../validation.js';
import type { BackoffPolicy, BackoffPolicyLike, BackoffStrategyName, DelayStep, RandomSource } from './types.js';

/**
 * The largest delay `setTimeout` honours: 2^31 − 1 ms (about 24.8 days). Larger values overflow
 * to 1 ms in browsers and Node, so every delay the package hands out is clamped to it.
 */
export const MAX_TIMER_DELAY = 2_147_483_647; // 2^31 − 1 (a literal: `**` would count as a side effect)

/**
 * Where an object made by one of the package's factories says what it was made from: a getter of
 * that name gives the factory's name and the options it was made with, as resolved (defaults
 * filled in). The React hook compares such objects by these (`src/bindings/key.ts`), so that a
 * policy made afresh on every render is still the same option. A getter on the class costs
 * nothing per instance; a string name (no symbol) is the same in every copy of the package (its
 * ESM and CommonJS builds). The classes write the name out: a computed key, even a constant one,
 * would keep them in every bundle that does not use them.
 *
 * @internal
 */
export const MADE_FROM = 'resilient-socket.madeFrom';

/** What the {@link MADE_FROM} getter gives: the factory's name and its resolved options. @internal */
export type MadeFrom = readonly [factory: string, options: object];

/** Clamps a delay into `[0, MAX_TIMER_DELAY]`. `NaN` is a bug and throws (a RangeError about `delay`). */
export function clampDelay(ms: number): number {
  if (Number.isNaN(ms)) {
    throw rangeError(
      'delay',
      process.env.NODE_ENV !== 'production' ? 'Backoff produced NaN; this is a bug in the strategy' : '',
    );
  }
  return Math.min(MAX_TIMER_DELAY, Math.max(0, ms));
}

/**
 * The window `min(cap, base·2^attempt)`. For large attempts `2^attempt` overflows to `Infinity`;
 * since `base` is validated finite and > 0, `base·Infinity` is `Infinity` (never `0·Infinity = NaN`)
 * and `min` turns it into `cap`. Attempt counts of a million are therefore safe. (Capping the
 * exponent instead, as some libraries do, would stop a tiny `base` short of `cap`.)
 */
export function exponentialWindow(base: number, cap: number, attempt: number): number {
  return Math.min(cap, base * 2 ** attempt);
}

/** Resolves the `random` option: `Math.random` by default, otherwise it must be a function. */
export function resolveRandom(random: unknown): RandomSource {
  if (random === undefined) return Math.random;
  // null is a wrong type, not "use the default": only undefined means that.
  assertFunction('random', random);
  return random as RandomSource;
}

/** One draw from a user random source, failing loudly instead of leaking NaN or a negative delay. */
export function checkedDraw(random: RandomSource): number {
  const r = random();
  if (typeof r !== 'number' || !(r >= 0 && r <= 1)) {
    throw rangeError(
      'random',
      process.env.NODE_ENV !== 'production'
        ? `Expected \`random\` to return a number in [0, 1], got ${typeof r === 'number' ? describeValue(r) : describeReceived(r)}`
        : '',
    );
  }
  return r;
}

/**
 * A stateful policy around a pure {@link DelayStep}. It owns the state every strategy needs (the
 * attempt counter and the previous delay) and draws the random number; the step stays pure. A
 * class with module-level steps (no closure per policy) keeps each policy small: one per socket
 * adds up.
 *
 * @internal
 */
class Policy<Params> implements BackoffPolicy {
  readonly name: BackoffStrategyName;
  readonly #step: DelayStep<Params>;
  /** Undefined for strategies that draw no random number. */
  readonly #random: RandomSource | undefined;
  #attempt = 0;
  #previous: number | undefined;

  constructor(name: BackoffStrategyName, step: DelayStep<Params>, random: RandomSource | undefined) {
    this.name = name;
    this.#step = step;
    this.#random = random;
  }

  get attempt(): number {
    return this.#attempt;
  }

  next(): number {
    const u = this.#random === undefined ? 0 : checkedDraw(this.#random);
    // The policy carries its parameters as own properties (see createPolicy).
    const delay = clampDelay(this.#step(this as unknown as Params, this.#attempt, this.#previous, u));
    this.#previous = delay;
    // Saturate rather than lose integer precision after 2^53 failures.
    if (this.#attempt < Number.MAX_SAFE_INTEGER) this.#attempt += 1;
    return delay;
  }

  reset(): void {
    this.#attempt = 0;
    this.#previous = undefined;
  }

  /** The strategy and its options: the parameters (own properties) and the random source it draws from. */
  get 'resilient-socket.madeFrom'(): MadeFrom {
    const { name, ...params } = this;
    return [name, { ...params, random: this.#random }];
  }
}

/**
 * Builds a policy: a {@link Policy} with the strategy's parameters (`baseDelay`, `cap`, …) as own
 * read-only properties, frozen. `random` is undefined for strategies that never draw (so a user's
 * random source is validated but never called by them).
 *
 * @internal
 */
export function createPolicy<Params extends object>(
  name: BackoffStrategyName,
  step: DelayStep<Params>,
  random: RandomSource | undefined,
  params: Params,
): BackoffPolicy & Readonly<Params> {
  const policy = Object.assign(new Policy(name, step, random), params);
  return Object.freeze(policy) as BackoffPolicy & Readonly<Params>;
}

/** True when `value` has callable `next` and `reset`, i.e. can be used as a policy. */
export function isBackoffPolicy(value: unknown): value is BackoffPolicyLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as BackoffPolicyLike).next === 'function' &&
    typeof (value as BackoffPolicyLike).reset === 'function'
  );
}

/** @throws TypeError unless `value` is a policy object. */
export function assertBackoffPolicy(name: string, value: unknown): asserts value is BackoffPolicyLike {
  if (!isBackoffPolicy(value)) {
    throw typeError(
      name,
      process.env.NODE_ENV !== 'production'
        ? `Expected \`${name}\` to be a backoff policy (an object with next() and reset()), got ${describeReceived(value)}`
        : '',
    );
  }
}
