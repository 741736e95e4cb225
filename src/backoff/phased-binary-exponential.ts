/**
 * `phasedBinaryExponential`: the truncated binary exponential windows, walked with **one** random
 * phase per run of failures instead of a fresh draw per attempt, so that what a recovering server
 * sees (each client's *remaining* wait at the moment it comes back) is spread as evenly as a
 * doubling schedule allows.
 *
 * ## The schedule
 *
 * Let `T = maxDelay`, `N = ceiling` (a count of doublings, not milliseconds), `a = T / 2^(N−1)` and
 * `W_n = a·2^(min(n,N)−1)`, the window of the n-th consecutive failure (as in
 * {@link truncatedBinaryExponential}; `a` is at least 1 ms, so `N` is at most `⌊log2 T⌋ + 1`). A
 * run of failures draws one `ψ ~ U[0, 1)` (the phase) and waits
 *
 * - `w_n = 2^(ψ−1)·W_n` for `n < N`: the same point of every window, between its middle and its end,
 *   so the n-th retry comes at `S_n = 2^(ψ−1)·a·(2^n − 1)`, always before `T`;
 * - `w_N = min(T, T·(1 + g(ψ)) − S_(N−1))` with `g(ψ) = (ψ + 2^ψ − 1)/2`: the N-th retry lands at
 *   `T·(1 + g(ψ))` (at `T·g(ψ)` when `N = 1`), or one `T` after the (N−1)-th when that is sooner;
 * - `w_n = T` after that: one retry per `T`, at times `T·(m + g(ψ))`.
 *
 * Every wait stays inside its window (`[0, W_n)`, or `[0, T]` once the windows stop growing), never
 * more than `maxDelay`, and the waits never shrink.
 *
 * ## Why this phase, and what it buys
 *
 * Under full jitter a client caught in a wait is caught in proportion to that wait's length (the
 * inspection paradox of renewal theory), so at a recovery time R the remaining waits of a
 * population pile up near 0 (density `2/W` at 0 for a window W): about twice `K/W` arrive at once.
 *
 * Here, while the windows double, the retries of one client come at `S_n = 2^(ψ−1)·a·(2^n − 1)`: one
 * per octave `(R, 2R]` of time, whatever R. For every R at once the population's retries must then have
 * a density `f` with `∫ f = 1` over every octave; the flattest such density is `1/(t·ln 2)` (any
 * other has a higher maximum somewhere), and it is what a phase that is uniform *in log time*
 * gives: `2^ψ` with `ψ` uniform. The next retry after R then falls in `(R, 2R]` with density
 * `1/(t·ln 2)`: the peak is `K/(R·ln 2) ≈ 1.44·K/R` and the last client is back after about R, for
 * "peak × p99 / K ≈ 1/ln 2 ≈ 1.44" at every R, the least a doubling schedule can have (1.0 would need
 * uniform arrivals, which no schedule with one retry per octave has at every R). A phase uniform
 * in linear time would leave the clients with a small phase racing through all N windows within
 * the first moments and then waiting up to T: a tail of up to T even after a short outage.
 *
 * Once the windows stop growing, the retries settle at `T·(m + g(ψ))`. Where they settle is a
 * compromise, measured in `bench/SIMULATION.md`: uniform modulo T (`g(ψ) = ψ`) would be the ideal
 * for long outages (1.0), but the N-th retries of a population would then land denser than
 * `1/(t·ln 2)` just after T, on top of the last doubling retries; log-uniform (`2^ψ − 1`) keeps 1.44
 * there but also for every long outage. Half of each gives at most about 1.5 over every R and 1.2
 * for long outages. The change of pace happens at the N-th retry, which is always at or after T,
 * while every (N−1)-th retry is before T, so the two never land together.
 *
 * **Fresh per run.** `reset()` (the socket's stable reset) forgets the phase; the next failure
 * draws a new one, so clients that were dropped together do not stay in lock-step.
 *
 * Credits: the remaining-wait view of a herd is the inspection paradox (length-biased sampling) of
 * renewal theory; a random start followed by deterministic growth is what reconnecting-websocket
 * does by accident (one random minimum per module load), as the storm benchmark shows, and the
 * "one random log-phase per client, then ×2" schedule of the storm model; the windows are
 * Ethernet's truncated binary exponential backoff (IEEE 802.3). `bench/SIMULATION.md` has the storm
 * model and the measurements.
 */
import { assertKnownKeys, assertOptionsObject, withDefault } from '../validation.js';
import { checkedDraw, clampDelay, resolveRandom } from './policy.js';
import {
  resolveCeiling,
  TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS,
  type TruncatedBinaryExponentialOptions,
  type TruncatedBinaryExponentialPolicy,
  truncatedWindow,
  WINDOW_OPTION_NAMES,
} from './truncated-binary-exponential.js';
import type { BackoffStrategyName, RandomSource } from './types.js';

/** Options of {@link phasedBinaryExponential}: those of {@link truncatedBinaryExponential}. */
export type PhasedBinaryExponentialOptions = TruncatedBinaryExponentialOptions;

/** A phased binary exponential policy: its parameters, and the phase of the current run. */
export interface PhasedBinaryExponentialPolicy extends TruncatedBinaryExponentialPolicy {
  /** The phase ψ of the current run of failures (the draw, in [0, 1]); `undefined` before its first `next()`. */
  readonly phase: number | undefined;
}

/**
 * Where in `[0, 1)` of the period the retries settle once the windows stop growing: half uniform,
 * half log-uniform in ψ (`λ = 1/2` between `ψ` and `2^ψ − 1`). Uniform alone would make the N-th
 * retries of a population land denser than `1/ln 2` just after T; log-uniform alone leaves the
 * period at 1.44 for long outages. Measured in `bench/SIMULATION.md` (`--variants`).
 */
const landing = (psi: number): number => (psi + 2 ** psi - 1) / 2;

class Phased {
  readonly name: BackoffStrategyName = 'phased-binary-exponential';
  readonly maxDelay: number;
  readonly ceiling: number;
  readonly baseDelay: number;
  readonly #random: RandomSource;
  #attempt = 0;
  #phase: number | undefined;
  /** The time since the first failure of the run, summed over the waits handed out. */
  #elapsed = 0;

  constructor(maxDelay: number, ceiling: number, random: RandomSource) {
    this.maxDelay = maxDelay;
    this.ceiling = ceiling;
    this.baseDelay = truncatedWindow(maxDelay, ceiling, 1);
    this.#random = random;
  }

  get attempt(): number {
    return this.#attempt;
  }

  get phase(): number | undefined {
    return this.#phase;
  }

  next(): number {
    // One draw per run: the first delay of the run.
    this.#phase ??= checkedDraw(this.#random);
    const psi = Math.min(this.#phase, 1 - Number.EPSILON);
    const n = this.#attempt + 1;
    const T = this.maxDelay;
    const N = this.ceiling;
    let delay: number;
    if (n < N) delay = 2 ** (psi - 1) * truncatedWindow(T, N, n);
    // The N-th retry lands at T·(1 + g(ψ)) (at T·g(ψ) when N = 1): after every (N−1)-th retry, and
    // from there one per T, spread evenly modulo T.
    else if (n === N) delay = Math.min(T, Math.max(0, T * ((N > 1 ? 1 : 0) + landing(psi)) - this.#elapsed));
    else delay = T;
    delay = clampDelay(delay);
    this.#elapsed += delay;
    if (this.#attempt < Number.MAX_SAFE_INTEGER) this.#attempt += 1;
    return delay;
  }

  reset(): void {
    this.#attempt = 0;
    this.#phase = undefined;
    this.#elapsed = 0;
  }

  /** The strategy and its options: what the React hook compares it by (see `MADE_FROM` in `./policy.ts`). */
  get 'resilient-socket.madeFrom'(): readonly [string, object] {
    return [this.name, { maxDelay: this.maxDelay, ceiling: this.ceiling, random: this.#random }];
  }
}

/**
 * Phased binary exponential backoff: the truncated binary exponential windows (`T = maxDelay`,
 * `N = ceiling`, a count of doublings, `a = T/2^(N−1)`, at least 1 ms), walked with one random
 * phase ψ per run of failures: wait `2^(ψ−1)·a·2^(n−1)` after the n-th failure below the ceiling,
 * then retry at `T·(1 + g(ψ))` and every `T` after that. At any moment the remaining waits of a population of clients are as even as a
 * doubling schedule allows ("peak × p99 / K" 1.2–1.5 against 1.8–4 for independent draws), so a
 * recovering server sees a lower peak, or its last client sooner (see the file's header for the
 * math, `bench/SIMULATION.md` for the storm model). The first retry is as quick as the default's
 * (median `a/√2`, about 14 ms for T = 10 s, N = 10); a new phase is drawn after every `reset()`.
 *
 * @example
 * ```ts
 * import { phasedBinaryExponential } from 'resilient-socket/backoff';
 * const socket = new ResilientSocket(url, { backoff: () => phasedBinaryExponential({ maxDelay: 10_000 }) });
 * ```
 * @throws TypeError / RangeError naming the option, as {@link truncatedBinaryExponential}: among
 *   them a `ceiling` whose first window `maxDelay / 2^(ceiling − 1)` would be under 1 ms
 *   (``Expected `ceiling` to be at most 14 with `maxDelay` 10000 (…), got 30000``).
 */
export function phasedBinaryExponential(options?: PhasedBinaryExponentialOptions): PhasedBinaryExponentialPolicy {
  assertOptionsObject('phasedBinaryExponential options', options);
  assertKnownKeys('', options, WINDOW_OPTION_NAMES, 'phasedBinaryExponential()');
  const maxDelay = withDefault(options?.maxDelay, TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS.maxDelay);
  const ceiling = resolveCeiling(maxDelay, options?.ceiling);
  return Object.freeze(new Phased(maxDelay, ceiling, resolveRandom(options?.random)));
}
