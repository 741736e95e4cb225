/**
 * The numbers behind the playground page: the package's own backoff policies, fed by a seeded
 * generator, so a chart redraws the same while a slider moves and changes only on "reseed".
 *
 * Pure and browser-safe (no `node:` import): the policies come from the sources (src/backoff), the herd from the
 * storm model of `npm run simulate -- --storm` (bench/lib/storm-model.ts), the generator from
 * bench/lib/prng.ts.
 */

import { createPrng } from '../../../../bench/lib/prng.js';
import { runStorm, STORM_BIN_MS } from '../../../../bench/lib/storm-model.js';
import {
  type BackoffPolicyLike,
  constant,
  decorrelatedJitter,
  equalJitter,
  exponential,
  fullJitter,
  phasedBinaryExponential,
  type RandomSource,
  truncatedBinaryExponential,
  truncatedWindow,
} from '../../../../src/backoff/index.js';
import { largestCeiling } from '../../../../src/backoff/truncated-binary-exponential.js';

/** The largest `N` whose first window `T/2^(N−1)` is at least 1 ms: the sliders' top for `ceiling`. */
export { largestCeiling };

/** What the sliders set: `T` and `N` of the windows. */
export interface PlaygroundParams {
  /** `T`, ms. */
  readonly maxDelay: number;
  /** `N`, an integer from 1 to {@link largestCeiling}(T). */
  readonly ceiling: number;
}

export type StrategyId =
  | 'truncatedBinaryExponential'
  | 'phasedBinaryExponential'
  | 'fullJitter'
  | 'equalJitter'
  | 'decorrelatedJitter'
  | 'exponential'
  | 'constant';

export interface PlaygroundStrategy {
  readonly id: StrategyId;
  /** How the page names it (the factory's call with the parameters the sliders give it). */
  readonly label: string;
  readonly create: (params: PlaygroundParams, random: RandomSource) => BackoffPolicyLike;
}

/**
 * The strategies on offer. The AWS-style ones (`base`, `cap`) get `base = a = T/2^(N−1)` and
 * `cap = T`, so their windows are those of the default and the two sliders mean the same for all;
 * `constant` waits `T`.
 */
export const STRATEGIES: readonly PlaygroundStrategy[] = Object.freeze([
  {
    id: 'truncatedBinaryExponential',
    label: 'truncatedBinaryExponential (default)',
    create: ({ maxDelay, ceiling }, random) => truncatedBinaryExponential({ maxDelay, ceiling, random }),
  },
  {
    id: 'phasedBinaryExponential',
    label: 'phasedBinaryExponential',
    create: ({ maxDelay, ceiling }, random) => phasedBinaryExponential({ maxDelay, ceiling, random }),
  },
  { id: 'fullJitter', label: 'fullJitter (base a, cap T)', create: (p, random) => fullJitter(baseCap(p, random)) },
  { id: 'equalJitter', label: 'equalJitter (base a, cap T)', create: (p, random) => equalJitter(baseCap(p, random)) },
  {
    id: 'decorrelatedJitter',
    label: 'decorrelatedJitter (base a, cap T)',
    create: (p, random) => decorrelatedJitter(baseCap(p, random)),
  },
  { id: 'exponential', label: 'exponential (base a, cap T, no jitter)', create: (p) => exponential(baseCap(p)) },
  { id: 'constant', label: 'constant (delay T)', create: ({ maxDelay }) => constant({ delay: maxDelay }) },
]);

function baseCap(params: PlaygroundParams, random?: RandomSource) {
  const base = truncatedWindow(params.maxDelay, params.ceiling, 1);
  return random ? { base, cap: params.maxDelay, random } : { base, cap: params.maxDelay };
}

export function strategyById(id: StrategyId): PlaygroundStrategy {
  const found = STRATEGIES.find((strategy) => strategy.id === id);
  if (!found) throw new RangeError(`unknown strategy ${JSON.stringify(id)}`);
  return found;
}

/** The TBEB window of the n-th consecutive failure, n = 1…attempts: `[0, a·2^(min(n,N)−1))`. */
export function windows(params: PlaygroundParams, attempts: number): number[] {
  const out: number[] = [];
  for (let n = 1; n <= attempts; n++) out.push(truncatedWindow(params.maxDelay, params.ceiling, n));
  return out;
}

/** One delay drawn by one client (`run`) after its `attempt`-th consecutive failure. */
export interface Draw {
  readonly run: number;
  readonly attempt: number;
  readonly delay: number;
}

/** `runs` fresh policies of `strategy`, each asked for `attempts` delays in a row. */
export function sampleDraws(
  strategy: PlaygroundStrategy,
  params: PlaygroundParams,
  seed: string,
  runs: number,
  attempts: number,
): Draw[] {
  const random = createPrng(`draws:${seed}`).next;
  const out: Draw[] = [];
  for (let run = 0; run < runs; run++) {
    const policy = strategy.create(params, random);
    for (let attempt = 1; attempt <= attempts; attempt++) out.push({ run, attempt, delay: policy.next() });
  }
  return out;
}

/** The herd of one strategy: arrivals per {@link STORM_BIN_MS} ms after the server came back. */
export interface Herd {
  readonly strategy: StrategyId;
  /** `counts[i]`: successful attempts in `[R + 100i, R + 100(i+1))`. */
  readonly counts: number[];
  /** The busiest bin. */
  readonly peak: number;
  /** The time from recovery by which 99 % of the clients are back (nearest rank), ms. */
  readonly p99Ms: number;
  /** Failed attempts per client during the outage, on average. */
  readonly outageAttempts: number;
}

/**
 * K clients lose the server at t = 0, it is down for `outageMs`, each retries on its own fresh
 * policy (storm model: no latency, no capacity limit). Same seed, same herd.
 */
export function herd(
  strategy: PlaygroundStrategy,
  params: PlaygroundParams,
  clients: number,
  outageMs: number,
  seed: string,
): Herd {
  const random = createPrng(`herd:${seed}`).next;
  const run = runStorm((r) => strategy.create(params, r), { clients, outageMs, random });
  const recovery = Array.from(run.arrivals, (arrival) => arrival - outageMs).sort((x, y) => x - y);
  const last = recovery[recovery.length - 1] ?? 0;
  const counts = new Array<number>(Math.floor(last / STORM_BIN_MS) + 1).fill(0);
  for (const t of recovery) {
    const bin = Math.floor(t / STORM_BIN_MS);
    counts[bin] = (counts[bin] ?? 0) + 1;
  }
  const p99 = recovery[Math.max(0, Math.ceil(0.99 * recovery.length) - 1)] ?? 0;
  let failures = 0;
  for (const f of run.failures) failures += f;
  return {
    strategy: strategy.id,
    counts,
    peak: Math.max(...counts),
    p99Ms: p99,
    outageAttempts: failures / clients,
  };
}

export { STORM_BIN_MS as BIN_MS };
