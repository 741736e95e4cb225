/**
 * The storm model of `npm run simulate -- --storm`: K clients are connected, the server
 * dies at t = 0 and is down during [0, R); each client retries on its own backoff policy. What the
 * recovering server sees, per strategy: failed attempts during the outage, the busiest 100 ms
 * after recovery, how long each client takes to come back, and the combined figure
 * `peak × p99 / K`, whose lower limit (≈ 1) is reached by uniform arrivals.
 *
 * Pure functions, no I/O. The clients are independent (the server has no capacity limit), so each
 * client's attempt times are simply iterated until the first one at or after R: no event queue.
 * See bench/SIMULATION.md, section "Storm model: the herd after an outage".
 */
import {
  type BackoffPolicyLike,
  decorrelatedJitter,
  fullJitter,
  phasedBinaryExponential,
  type RandomSource,
  truncatedBinaryExponential,
  truncatedWindow,
} from '../../src/backoff/index.js';
import { createPrng } from './prng.js';
import { type ScatterSeries, scatterChart } from './svg.js';

// ---------------------------------------------------------------- the strategies

/** `T`, the widest window and the largest wait of every strategy of the storm model, ms. */
export const STORM_MAX_DELAY = 10_000;
/** `N`, the truncation point of the TBEB windows. */
export const STORM_CEILING = 10;

/** The options of the bench-local policies below (those of `truncatedBinaryExponential`). */
export interface WindowPolicyOptions {
  readonly maxDelay: number;
  readonly ceiling: number;
  readonly random: RandomSource;
}

/**
 * Equal jitter on the TBEB windows (bench-local): after the n-th failure wait
 * `W_n/2 + U(0, W_n/2)`, `W_n = a·2^(min(n,N)−1)`, `a = T/2^(N−1)`.
 */
export function equalJitterWindows({ maxDelay, ceiling, random }: WindowPolicyOptions): BackoffPolicyLike {
  let n = 0;
  return {
    next() {
      n += 1;
      const w = truncatedWindow(maxDelay, ceiling, n);
      return w / 2 + (random() * w) / 2;
    },
    reset() {
      n = 0;
    },
  };
}

/**
 * Log-phase ×2 (bench-local): one random log-phase ψ ~ U[0, 1) per run of failures, first wait
 * `a·2^ψ` (in `[a, 2a)`), then every wait doubles, capped at `T`: `min(T, a·2^(ψ+n−1))`.
 * (Each wait lies in the window *after* the TBEB window of its failure: `[W_n, 2W_n)`.)
 */
export function logPhaseDoubling({ maxDelay, ceiling, random }: WindowPolicyOptions): BackoffPolicyLike {
  const a = truncatedWindow(maxDelay, ceiling, 1);
  return phasePerRun(random, (n, psi) => Math.min(maxDelay, a * 2 ** (psi + n - 1)));
}

/**
 * Comparator "linear phase, doubling to T" (bench-local): one phase φ ~ U[0, 1) per run, uniform in
 * *linear* time, `w_n = min(T, φ·a·2^(n−1))` for every n (inside the n-th TBEB window up to N, and
 * in `[0, T]` after). Its retries are uniform over the top octave, so "peak × p99 / K" swings
 * between 1 and 2 depending on where R falls between the points `a·(2^n − 1)` (see SIMULATION.md).
 */
export function linearPhaseDoubling({ maxDelay, ceiling, random }: WindowPolicyOptions): BackoffPolicyLike {
  const a = truncatedWindow(maxDelay, ceiling, 1);
  return phasePerRun(random, (n, phi) => Math.min(maxDelay, phi * a * 2 ** (n - 1)));
}

/**
 * A policy whose n-th wait is `wait(n, phase)`, with one phase drawn from `random` per run of
 * failures (at its first wait; `reset()` starts a new run).
 */
function phasePerRun(random: RandomSource, wait: (n: number, phase: number) => number): BackoffPolicyLike {
  let n = 0;
  let phase: number | undefined;
  return {
    next() {
      phase ??= random();
      n += 1;
      return wait(n, phase);
    },
    reset() {
      n = 0;
      phase = undefined;
    },
  };
}

/**
 * Variant "fix A: period T after N" (bench-local, not in src): the waits of `phased` before the
 * ceiling, `w_n = 2^(ψ−1)·W_n` (in `[W_n/2, W_n)`) for every n ≤ N, then exactly `T` from the
 * (N+1)-th on: retries at `S_N + m·T`, with no landing. That is `min(T, a·2^(ψ+n−2))`: log-phase ×2
 * moved down by one window. Its period keeps the log phase (1/ln 2 ≈ 1.44 for long outages).
 */
export function logPhaseInWindows({ maxDelay, ceiling, random }: WindowPolicyOptions): BackoffPolicyLike {
  let n = 0;
  let psi: number | undefined;
  return {
    next() {
      psi ??= random();
      n += 1;
      return n > ceiling ? maxDelay : truncatedWindow(maxDelay, ceiling, n) * 2 ** (psi - 1);
    },
    reset() {
      n = 0;
      psi = undefined;
    },
  };
}

/**
 * "Landing λ" (bench-local): `w_n = 2^(ψ−1)·W_n` for n < N; the N-th wait (inside the N-th window
 * `[0, T]`) lands the N-th retry at `T·(1 + g(ψ))` (at `T·g(ψ)` when N = 1),
 * `w_N = min(T, max(0, T·(1 + g(ψ)) − S_(N−1)))`, with `g(ψ) = λ·ψ + (1 − λ)·(2^ψ − 1)`; then exactly
 * `T`. **λ = 1/2 is src's `phasedBinaryExponential`** (the tests check that the waits are identical);
 * λ = 0 is fix A (up to `2^−N`); λ = 1 lands on the uniform grid `T·(m + ψ)`. Waits stay ≤ T for
 * 0 ≤ λ ≤ 1. (g is written `λ·(ψ + 2^ψ − 1) + (1 − 2λ)·(2^ψ − 1)` so that λ = 1/2 rounds exactly
 * as src's `(ψ + 2^ψ − 1)/2`.)
 */
export function phasedLanding(lambda: number, { maxDelay, ceiling, random }: WindowPolicyOptions): BackoffPolicyLike {
  let n = 0;
  let psi: number | undefined;
  let elapsed = 0;
  return {
    next() {
      psi ??= random();
      n += 1;
      let wait: number;
      if (n < ceiling) wait = truncatedWindow(maxDelay, ceiling, n) * 2 ** (psi - 1);
      else if (n === ceiling) {
        const g = lambda * (psi + 2 ** psi - 1) + (1 - 2 * lambda) * (2 ** psi - 1);
        wait = Math.min(maxDelay, Math.max(0, maxDelay * ((ceiling > 1 ? 1 : 0) + g) - elapsed));
      } else wait = maxDelay;
      elapsed += wait;
      return wait;
    },
    reset() {
      n = 0;
      psi = undefined;
      elapsed = 0;
    },
  };
}

/**
 * Variant "phased v1: re-phasing after N" (bench-local): the first version of
 * `phasedBinaryExponential`, kept to measure the history. `w_n = 2^(ψ−1)·W_n` for every n ≤ N (the
 * N-th retry at `S_N = 2^ψ·T·(1 − 2^−N)`, in [T, 2T)); then one re-phasing wait `T·(1 + ψ) − S_N`
 * (0 to 0.09·T) moves the (N+1)-th retry to `T·(1 + ψ)`; then exactly `T` (the uniform grid
 * `T·(m + ψ)`). Its re-phasing retries land among the N-th retries of the others: see SIMULATION.md.
 */
export function phasedRephasing({ maxDelay, ceiling, random }: WindowPolicyOptions): BackoffPolicyLike {
  let n = 0;
  let psi: number | undefined;
  let elapsed = 0;
  return {
    next() {
      psi ??= random();
      n += 1;
      let wait: number;
      if (n <= ceiling) wait = truncatedWindow(maxDelay, ceiling, n) * 2 ** (psi - 1);
      else if (n === ceiling + 1) wait = Math.min(maxDelay, Math.max(0, maxDelay * (1 + psi) - elapsed));
      else wait = maxDelay;
      elapsed += wait;
      return wait;
    },
    reset() {
      n = 0;
      psi = undefined;
      elapsed = 0;
    },
  };
}

/** A strategy of the storm model: a name for the tables and a factory of one fresh policy per client. */
export interface StormStrategy {
  readonly name: string;
  readonly create: (random: RandomSource) => BackoffPolicyLike;
}

const windows = (random: RandomSource): WindowPolicyOptions => ({
  maxDelay: STORM_MAX_DELAY,
  ceiling: STORM_CEILING,
  random,
});

/** The strategies of the storm table, in its order (T = 10 s, N = 10). */
export const STORM_STRATEGIES: readonly StormStrategy[] = Object.freeze([
  { name: 'default', create: (random) => truncatedBinaryExponential(windows(random)) },
  { name: 'full jitter', create: (random) => fullJitter({ base: 100, cap: STORM_MAX_DELAY, random }) },
  { name: 'equal jitter (TBEB windows)', create: (random) => equalJitterWindows(windows(random)) },
  { name: 'log-phase ×2', create: (random) => logPhaseDoubling(windows(random)) },
  { name: 'phased', create: (random) => phasedBinaryExponential(windows(random)) },
  { name: 'decorrelated jitter', create: (random) => decorrelatedJitter({ random }) },
]);

/** The history, the alternatives and a comparator of `phased` (bench-local), shown with `--variants`. */
export const STORM_VARIANTS: readonly StormStrategy[] = Object.freeze([
  { name: 'phased v1: re-phasing after N (T·(1+ψ))', create: (random) => phasedRephasing(windows(random)) },
  { name: 'fix A: period T after N', create: (random) => logPhaseInWindows(windows(random)) },
  { name: 'landing λ = 1 (uniform grid)', create: (random) => phasedLanding(1, windows(random)) },
  { name: 'linear phase, doubling to T', create: (random) => linearPhaseDoubling(windows(random)) },
]);

// ---------------------------------------------------------------- the model

export const DEFAULT_STORM_CLIENTS = 20_000;
export const DEFAULT_STORM_OUTAGES_MS: readonly number[] = Object.freeze([300, 1_000, 5_000, 30_000, 120_000]);
export const DEFAULT_STORM_SEED = 'storm-17';
/** Width of the bins of the arrival peak, ms; bins are aligned at R. */
export const STORM_BIN_MS = 100;

export interface StormRunOptions {
  /** K, an integer >= 1. */
  readonly clients: number;
  /** R: the server is down during [0, R), ms; >= 0. */
  readonly outageMs: number;
  /** L: an attempt made at s fails at s + L (when s < R), ms; >= 0. @default 0 */
  readonly latencyMs?: number;
  /** Feeds every policy (one fresh policy per client, created in client order). */
  readonly random: RandomSource;
  /** A client that fails more often than this is a bug (e.g. a zero delay with zero latency). @default 1e6 */
  readonly maxAttempts?: number;
}

/** The raw outcome of one storm: per client, in client order. */
export interface StormRun {
  readonly outageMs: number;
  /** When the successful attempt was made (the first attempt at or after R), ms from the drop. */
  readonly arrivals: Float64Array;
  /** Failed attempts during the outage. */
  readonly failures: Float64Array;
  /** The first delay (the time of the first attempt), ms. */
  readonly firstRetries: Float64Array;
}

function assertRange(name: string, value: number, min: number, integer: boolean): void {
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value)))
    throw new RangeError(`${name} must be ${integer ? 'an integer' : 'a finite number'} >= ${min}, got ${value}`);
}

/**
 * One storm. Every client is dropped at t = 0 (its first failure; its policy is fresh), waits its
 * first delay, and attempts at s: at or after R the attempt succeeds (arrival s, recovery s − R);
 * before R it fails at s + L and the client waits its next delay.
 */
export function runStorm(create: (random: RandomSource) => BackoffPolicyLike, options: StormRunOptions): StormRun {
  const { clients, outageMs: r, random } = options;
  const latency = options.latencyMs ?? 0;
  const maxAttempts = options.maxAttempts ?? 1e6;
  assertRange('clients', clients, 1, true);
  assertRange('outageMs', r, 0, false);
  assertRange('latencyMs', latency, 0, false);
  const arrivals = new Float64Array(clients);
  const failures = new Float64Array(clients);
  const firstRetries = new Float64Array(clients);
  for (let c = 0; c < clients; c++) {
    const policy = create(random);
    let s = policy.next();
    firstRetries[c] = s;
    let failed = 0;
    while (s < r) {
      failed += 1;
      if (failed > maxAttempts) throw new RangeError(`client ${c} failed more than ${maxAttempts} times`);
      s = s + latency + policy.next();
    }
    arrivals[c] = s;
    failures[c] = failed;
  }
  return { outageMs: r, arrivals, failures, firstRetries };
}

/** The figures of one storm. Times in ms. */
export interface StormMetrics {
  readonly clients: number;
  readonly outageMs: number;
  /** Mean failed attempts per client during the outage. */
  readonly outageAttempts: number;
  /** Median first delay, ms. */
  readonly firstRetryMedianMs: number;
  /** Most successful arrivals in one bin [R + 100i, R + 100(i+1)). */
  readonly peak: number;
  /** `peak × 1000 / K`: the peak per 1,000 clients. */
  readonly peakPer1000: number;
  /** Recovery (s − R) percentiles over all clients by nearest rank, and the maximum. */
  readonly recoveryP50Ms: number;
  readonly recoveryP99Ms: number;
  readonly recoveryMaxMs: number;
  /** `(peak / 0.1 s) × p99 (s) / K`: ≈ 1 for uniform arrivals, the lower limit of any schedule. */
  readonly peakTimesP99: number;
}

/** Nearest-rank percentile of a sorted array. */
function rank(sorted: Float64Array, p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

/** The figures of a storm (`failures` and `firstRetries` may be empty: their figures are then NaN). */
export function stormMetrics(
  run: Pick<StormRun, 'outageMs' | 'arrivals'> & Partial<Pick<StormRun, 'failures' | 'firstRetries'>>,
  binMs = STORM_BIN_MS,
): StormMetrics {
  const { outageMs: r, arrivals } = run;
  const k = arrivals.length;
  if (k === 0) throw new RangeError('no clients');
  const recovery = new Float64Array(k);
  for (let c = 0; c < k; c++) {
    const t = (arrivals[c] as number) - r;
    if (!(t >= 0)) throw new RangeError(`client ${c} arrived at ${arrivals[c]}, before R = ${r}`);
    recovery[c] = t;
  }
  recovery.sort();
  const maxMs = recovery[k - 1] as number;
  const bins = new Uint32Array(Math.floor(maxMs / binMs) + 1);
  for (let c = 0; c < k; c++) {
    const i = Math.floor((recovery[c] as number) / binMs);
    bins[i] = (bins[i] as number) + 1;
  }
  let peak = 0;
  for (const count of bins) peak = Math.max(peak, count);
  const failures = run.failures ?? new Float64Array(0);
  let failed = 0;
  for (const f of failures) failed += f;
  const firsts = Float64Array.from(run.firstRetries ?? []).sort();
  const p99 = rank(recovery, 99);
  return {
    clients: k,
    outageMs: r,
    outageAttempts: failures.length > 0 ? failed / failures.length : Number.NaN,
    firstRetryMedianMs:
      firsts.length === 0
        ? Number.NaN
        : firsts.length % 2
          ? (firsts[(firsts.length - 1) / 2] as number)
          : ((firsts[firsts.length / 2 - 1] as number) + (firsts[firsts.length / 2] as number)) / 2,
    peak,
    peakPer1000: (peak * 1000) / k,
    recoveryP50Ms: rank(recovery, 50),
    recoveryP99Ms: p99,
    recoveryMaxMs: maxMs,
    peakTimesP99: (peak * p99) / (binMs * k),
  };
}

export interface StormSweepOptions {
  readonly clients?: number;
  readonly outagesMs?: readonly number[];
  readonly latencyMs?: number;
  readonly seed?: string | number;
  readonly strategies?: readonly StormStrategy[];
}

/** One row of the storm table. */
export interface StormResult extends StormMetrics {
  readonly strategy: string;
  readonly latencyMs: number;
}

/**
 * Every (R, strategy) cell. Each cell has its own PRNG seeded with `seed` (the same stream for
 * every cell), so a cell's numbers do not depend on which other cells are in the sweep.
 */
export function stormSweep(options: StormSweepOptions = {}): StormResult[] {
  const clients = options.clients ?? DEFAULT_STORM_CLIENTS;
  const latencyMs = options.latencyMs ?? 0;
  const seed = options.seed ?? DEFAULT_STORM_SEED;
  const results: StormResult[] = [];
  for (const outageMs of options.outagesMs ?? DEFAULT_STORM_OUTAGES_MS) {
    for (const strategy of options.strategies ?? STORM_STRATEGIES) {
      const random = createPrng(seed).next;
      const run = runStorm(strategy.create, { clients, outageMs, latencyMs, random });
      results.push({ strategy: strategy.name, latencyMs, ...stormMetrics(run) });
    }
  }
  return results;
}

// ---------------------------------------------------------------- output

/** A markdown table: the first `leftColumns` columns left-aligned, the numbers right-aligned. */
function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], leftColumns = 1): string {
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((l) => (l[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => (i < leftColumns ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = widths.map((width, i) => (i < leftColumns ? '-'.repeat(width) : `${'-'.repeat(width - 1)}:`));
  return [line(header), line(rule), ...rows.map(line)].join('\n');
}

/** "0.3 s", "120 s". */
export function formatOutage(ms: number): string {
  return `${Number((ms / 1000).toPrecision(6))} s`;
}

const seconds = (ms: number) => (ms / 1000).toFixed(ms < 9_995 ? 2 : 1);

/**
 * Two markdown tables: `peak × p99 / K` per strategy (rows) and R (columns), then every figure of
 * every cell (one row per R and strategy).
 */
export function stormMarkdown(results: readonly StormResult[]): string {
  const strategies = [...new Set(results.map((r) => r.strategy))];
  const outages = [...new Set(results.map((r) => r.outageMs))];
  const cell = (s: string, r: number) => results.find((x) => x.strategy === s && x.outageMs === r);
  const summary = markdownTable(
    ['strategy', ...outages.map((r) => `R = ${formatOutage(r)}`)],
    strategies.map((s) => [s, ...outages.map((r) => cell(s, r)?.peakTimesP99.toFixed(2) ?? '')]),
  );
  const full = markdownTable(
    [
      'R',
      'strategy',
      'outage attempts / client',
      'median first retry (ms)',
      'peak / 100 ms / 1k clients',
      'p50 (s)',
      'p99 (s)',
      'max (s)',
      'peak × p99 / K',
    ],
    results.map((r) => [
      formatOutage(r.outageMs),
      r.strategy,
      r.outageAttempts.toFixed(1),
      r.firstRetryMedianMs.toFixed(1),
      r.peakPer1000.toFixed(1),
      seconds(r.recoveryP50Ms),
      seconds(r.recoveryP99Ms),
      seconds(r.recoveryMaxMs),
      r.peakTimesP99.toFixed(2),
    ]),
    2,
  );
  return [
    'peak × p99 / K (≈ 1 for uniform arrivals, the lower limit; lower is better)',
    '',
    summary,
    '',
    'Every figure (recovery = time from R to the successful attempt)',
    '',
    full,
    '',
  ].join('\n');
}

/**
 * The Pareto chart: the arrival peak (per 100 ms per 1,000 clients) against p99 recovery (s), log
 * scales, one point per strategy and R (labelled with R, joined in R order), and the lines
 * `peak × p99 / K = 1` (the limit) and `= 2`.
 */
export function stormParetoChart(results: readonly StormResult[]): string {
  const strategies = [...new Set(results.map((r) => r.strategy))];
  const series: ScatterSeries[] = strategies.map((name) => ({
    name,
    points: results
      .filter((r) => r.strategy === name)
      .sort((a, b) => a.outageMs - b.outageMs)
      .map((r) => ({ x: r.recoveryP99Ms / 1000, y: r.peakPer1000, label: formatOutage(r.outageMs).replace(' ', '') })),
  }));
  // peak × p99 / K = m  ⇔  peakPer1000 = 100·m / p99(s).
  const iso = (m: number) => ({ name: `peak × p99 / K = ${m}`, value: (x: number) => (100 * m) / x });
  const k = results[0]?.clients ?? 0;
  const latency = results[0]?.latencyMs ?? 0;
  return scatterChart(series, {
    title: `Storm: arrival peak against p99 recovery (K = ${k}, latency ${latency} ms)`,
    xLabel: 'p99 recovery after R (s, log scale)',
    yLabel: 'peak arrivals per 100 ms per 1,000 clients (log)',
    width: 860,
    height: 520,
    logX: true,
    logY: true,
    guides: [iso(1), iso(2)],
  });
}
