/**
 * Discrete-event simulation of the model in Marc Brooker's AWS Architecture Blog post
 * "Exponential Backoff And Jitter" (2015): N clients, started together, each make ONE successful
 * conditional write to a single row under optimistic concurrency control, backing off after every
 * failed write with this package's own policy objects. No real sleeps: simulated time only.
 *
 *   npm run simulate                        # markdown tables, default sweep
 *   npm run simulate -- --csv               # strategy,clients,work,completion_ms
 *   npm run simulate -- --charts            # also writes bench/charts/simulate-{work,completion}.svg
 *   npm run simulate -- --clients 10,50,100 --trials 200 --seed 7 --ceiling 10
 *
 * With --storm, the storm model instead (bench/lib/storm-model.ts): K clients dropped together, the
 * server down for R, the herd that comes back:
 *
 *   npm run simulate -- --storm                         # markdown tables, R = 0.3, 1, 5, 30, 120 s
 *   npm run simulate -- --storm --charts                # also writes bench/charts/storm-pareto.svg
 *   npm run simulate -- --storm --clients 20000 --latency 50 --seed s --outages 0.3,1,5 --variants
 *
 * See bench/SIMULATION.md for the models, the parameters and the results.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BackoffPolicyLike,
  constant,
  decorrelatedJitter,
  equalJitter,
  exponential,
  fullJitter,
  type RandomSource,
  truncatedBinaryExponential,
} from '../src/backoff/index.js';
import { largestCeiling } from '../src/backoff/truncated-binary-exponential.js';
import { EventQueue } from './lib/event-queue.js';
import { isMain } from './lib/load.js';
import { createPrng } from './lib/prng.js';
import {
  DEFAULT_STORM_CLIENTS,
  DEFAULT_STORM_OUTAGES_MS,
  DEFAULT_STORM_SEED,
  STORM_STRATEGIES,
  STORM_VARIANTS,
  stormMarkdown,
  stormParetoChart,
  stormSweep,
} from './lib/storm-model.js';
import { lineChart, type Series } from './lib/svg.js';

/** The strategies, in the order of every table, CSV and chart. */
export const STRATEGIES = ['none', 'exponential', 'full', 'equal', 'decorrelated', 'truncated'] as const;
export type StrategyName = (typeof STRATEGIES)[number];

/** The model's parameters (the AWS post's simulator: Net(10, 2), Backoff(base = 5, cap = 2000)). */
export const MODEL = Object.freeze({
  /** Mean one-way network delay of every hop, ms. */
  hopMeanMs: 10,
  /** Standard deviation of every hop, ms; a hop is |Normal(mean, sd)|. */
  hopSdMs: 2,
  /** The AWS `base`: the window after the n-th failure is min(cap, base·2^n), n from 1. */
  baseMs: 5,
  /** The AWS `cap`, and the truncated policy's `maxDelay` T. */
  capMs: 2000,
});

export const DEFAULT_CEILING = 8;
export const DEFAULT_TRIALS = 100;
export const DEFAULT_SEED = 'aws-backoff-2015';
/** N = 1, 2, 5, then 10 to 100 in steps of 5, then 150 and 200. */
export const DEFAULT_CLIENTS: readonly number[] = Object.freeze([
  1,
  2,
  5,
  ...Array.from({ length: 19 }, (_, i) => 10 + 5 * i),
  150,
  200,
]);

/**
 * One fresh policy for one client of one trial. Our base/cap policies compute base·2^attempt with
 * attempt from 0, so base = 2·5 gives exactly the AWS window min(cap, 5·2^n) with n from 1.
 * Decorrelated jitter does not use n: it keeps its own `prev` (starting at base = 5).
 */
export function createPolicyFor(
  strategy: StrategyName,
  random: RandomSource,
  ceiling = DEFAULT_CEILING,
): BackoffPolicyLike {
  const cap = MODEL.capMs;
  const base = 2 * MODEL.baseMs;
  switch (strategy) {
    case 'none':
      return constant({ delay: 0, random });
    case 'exponential':
      return exponential({ base, cap, random });
    case 'full':
      return fullJitter({ base, cap, random });
    case 'equal':
      return equalJitter({ base, cap, random });
    case 'decorrelated':
      return decorrelatedJitter({ base: MODEL.baseMs, cap, random });
    case 'truncated':
      return truncatedBinaryExponential({ maxDelay: cap, ceiling, random });
  }
}

export interface SimulateOptions {
  readonly strategy: StrategyName;
  /** Competing clients N, an integer >= 1. */
  readonly clients: number;
  /** Independent trials to average, an integer >= 1. @default 100 */
  readonly trials?: number;
  /** PRNG seed. One generator per call feeds every hop and every policy of every trial. */
  readonly seed?: string | number;
  /** `N` of the truncated binary exponential policy (ignored by the others). @default 8 */
  readonly ceiling?: number;
}

export interface SimulationResult {
  readonly strategy: StrategyName;
  readonly clients: number;
  readonly trials: number;
  /** Mean number of write calls the server received per trial (successful ones included). */
  readonly work: number;
  /** Mean time at which the last client learned of its success, ms. */
  readonly completionMs: number;
  /** Standard deviation of `work` across trials. */
  readonly workSd: number;
  /** Standard deviation of the completion time across trials, ms. */
  readonly completionSd: number;
}

// Event kinds; the queue payload is `client * 4 + kind`.
const READ_ARRIVES = 0; // the read request reaches the server: it reads the version
const READ_REPLY_ARRIVES = 1; // the client has the version: it sends the conditional write
const WRITE_ARRIVES = 2; // the write reaches the server: it succeeds iff the version is unchanged
const WRITE_REPLY_ARRIVES = 3; // the client learns the outcome: done, or back off and read again

function assertInteger(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min)
    throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
}

/** Runs `trials` independent trials of the model and returns the averages. Deterministic in `seed`. */
export function simulate(options: SimulateOptions): SimulationResult {
  const { strategy, clients } = options;
  const trials = options.trials ?? DEFAULT_TRIALS;
  const ceiling = options.ceiling ?? DEFAULT_CEILING;
  if (!STRATEGIES.includes(strategy)) throw new RangeError(`unknown strategy ${String(strategy)}`);
  assertInteger('clients', clients, 1);
  assertInteger('trials', trials, 1);
  assertInteger('ceiling', ceiling, 1);

  const prng = createPrng(options.seed ?? DEFAULT_SEED);
  const random = prng.next;
  const hop = (): number => Math.abs(prng.normal(MODEL.hopMeanMs, MODEL.hopSdMs));
  const queue = new EventQueue(clients);
  const readVersion = new Int32Array(clients);
  const succeeded = new Uint8Array(clients);
  const policies: BackoffPolicyLike[] = new Array(clients);

  let workSum = 0;
  let workSq = 0;
  let timeSum = 0;
  let timeSq = 0;
  for (let trial = 0; trial < trials; trial++) {
    queue.clear();
    let version = 0;
    let work = 0;
    let completion = 0;
    for (let c = 0; c < clients; c++) {
      policies[c] = createPolicyFor(strategy, random, ceiling);
      queue.push(hop(), c * 4 + READ_ARRIVES);
    }
    while (queue.size > 0) {
      const now = queue.peekTime();
      const event = queue.pop();
      const c = event >> 2;
      switch (event & 3) {
        case READ_ARRIVES:
          readVersion[c] = version;
          queue.push(now + hop(), c * 4 + READ_REPLY_ARRIVES);
          break;
        case READ_REPLY_ARRIVES:
          queue.push(now + hop(), c * 4 + WRITE_ARRIVES);
          break;
        case WRITE_ARRIVES:
          work += 1;
          if (readVersion[c] === version) {
            version += 1;
            succeeded[c] = 1;
          } else {
            succeeded[c] = 0;
          }
          queue.push(now + hop(), c * 4 + WRITE_REPLY_ARRIVES);
          break;
        default: // WRITE_REPLY_ARRIVES
          if (succeeded[c] === 1) {
            completion = now; // time only moves forward: the last success learned is the completion
          } else {
            // Retry n = 1, 2, …: the policy's own counter. The read request leaves after the delay.
            const delay = (policies[c] as BackoffPolicyLike).next();
            queue.push(now + delay + hop(), c * 4 + READ_ARRIVES);
          }
      }
    }
    // Each client has exactly one event in flight until its success, so an empty queue means every
    // client succeeded, once: N successful writes, i.e. the version went from 0 to N.
    if (version !== clients) throw new Error(`invariant broken: ${version} successful writes for ${clients} clients`);
    workSum += work;
    workSq += work * work;
    timeSum += completion;
    timeSq += completion * completion;
  }
  const sd = (sum: number, sq: number) =>
    trials > 1 ? Math.sqrt(Math.max(0, (sq - (sum * sum) / trials) / (trials - 1))) : 0;
  return {
    strategy,
    clients,
    trials,
    work: workSum / trials,
    completionMs: timeSum / trials,
    workSd: sd(workSum, workSq),
    completionSd: sd(timeSum, timeSq),
  };
}

export interface SweepOptions {
  readonly clients?: readonly number[];
  readonly trials?: number;
  readonly seed?: string | number;
  readonly ceiling?: number;
  readonly strategies?: readonly StrategyName[];
}

/**
 * Every (strategy, N) of the sweep. Each cell is `simulate()` with the same seed, so a cell's
 * numbers do not depend on which other cells are in the sweep.
 */
export function sweep(options: SweepOptions = {}): SimulationResult[] {
  const results: SimulationResult[] = [];
  for (const clients of options.clients ?? DEFAULT_CLIENTS) {
    for (const strategy of options.strategies ?? STRATEGIES) {
      results.push(
        // simulate() applies the defaults of what is not given.
        simulate({ ...options, strategy, clients }),
      );
    }
  }
  return results;
}

/** CSV, header `strategy,clients,work,completion_ms`; means rounded to 0.01. */
export function toCsv(results: readonly SimulationResult[]): string {
  const rows = results.map((r) => `${r.strategy},${r.clients},${r.work.toFixed(2)},${r.completionMs.toFixed(2)}`);
  return `${['strategy,clients,work,completion_ms', ...rows].join('\n')}\n`;
}

function strategiesOf(results: readonly SimulationResult[]): StrategyName[] {
  return STRATEGIES.filter((s) => results.some((r) => r.strategy === s));
}

function clientsOf(results: readonly SimulationResult[]): number[] {
  return [...new Set(results.map((r) => r.clients))].sort((a, b) => a - b);
}

function table(results: readonly SimulationResult[], value: (r: SimulationResult) => string): string {
  const strategies = strategiesOf(results);
  const header = ['clients', ...strategies];
  const rows = clientsOf(results).map((clients) => [
    String(clients),
    ...strategies.map((s) => {
      const r = results.find((x) => x.strategy === s && x.clients === clients);
      return r === undefined ? '' : value(r);
    }),
  ]);
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((l) => (l[i] ?? '').length)));
  // The first column is left-aligned, the numbers right-aligned.
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = widths.map((width, i) => (i === 0 ? '-'.repeat(width) : `${'-'.repeat(width - 1)}:`));
  return [line(header), line(rule), ...rows.map(line)].join('\n');
}

/** Two markdown tables (rows: clients N; one column per strategy): work, then completion time. */
export function toMarkdown(results: readonly SimulationResult[]): string {
  const trials = [...new Set(results.map((r) => r.trials))].join('/');
  return [
    `Work: write calls received by the server (mean of ${trials} trials)`,
    '',
    table(results, (r) => r.work.toFixed(1)),
    '',
    `Completion time: when the last client learns of its success, ms (mean of ${trials} trials)`,
    '',
    table(results, (r) => r.completionMs.toFixed(0)),
    '',
  ].join('\n');
}

/**
 * How far above the other strategies' largest completion time plain exponential may go before the
 * completion chart leaves it off (as the AWS post did), keeping it in the legend as "off scale".
 */
const OFF_SCALE_FACTOR = 3;

/**
 * The two SVG line charts (x: clients, one line per strategy). When plain exponential's completion
 * times dwarf the others (by more than {@link OFF_SCALE_FACTOR}×), its line is left off the completion
 * chart so the jittered strategies stay readable; the legend still lists it, and the tables have it.
 */
export function charts(
  results: readonly SimulationResult[],
  ceiling = DEFAULT_CEILING,
): { work: string; completion: string } {
  const label = (s: StrategyName) => (s === 'truncated' ? `truncated (C=${ceiling})` : s);
  const series = (value: (r: SimulationResult) => number, offScale: StrategyName | undefined): Series[] =>
    strategiesOf(results).map((s) =>
      s === offScale
        ? { name: `${s} (off)`, points: [] }
        : {
            name: label(s),
            points: results.filter((r) => r.strategy === s).map((r) => [r.clients, value(r)] as const),
          },
    );
  const maxOf = (keep: (r: SimulationResult) => boolean) =>
    Math.max(0, ...results.filter(keep).map((r) => r.completionMs));
  const exponentialOff =
    maxOf((r) => r.strategy === 'exponential') > OFF_SCALE_FACTOR * maxOf((r) => r.strategy !== 'exponential');
  return {
    work: lineChart(
      series((r) => r.work, undefined),
      {
        title: 'Work: write calls per run (mean)',
        xLabel: 'competing clients',
        yLabel: 'write calls',
      },
    ),
    completion: lineChart(
      series((r) => r.completionMs, exponentialOff ? 'exponential' : undefined),
      {
        title: `Completion time of the last client (mean)${exponentialOff ? '; exponential off scale' : ''}`,
        xLabel: 'competing clients',
        yLabel: 'milliseconds',
      },
    ),
  };
}

export interface CliOptions {
  readonly csv: boolean;
  readonly charts: boolean;
  readonly help: boolean;
  readonly clients: readonly number[];
  readonly trials: number;
  readonly seed: string;
  readonly ceiling: number;
}

export const USAGE = `Usage: npm run simulate -- [--csv] [--charts] [--clients 10,50,100] [--trials N] [--seed S] [--ceiling C]

  --csv          print CSV (strategy,clients,work,completion_ms) instead of markdown tables
  --charts       also write bench/charts/simulate-work.svg and simulate-completion.svg
  --clients LIST comma-separated client counts (default ${DEFAULT_CLIENTS.join(',')})
  --trials N     trials per (strategy, clients) (default ${DEFAULT_TRIALS})
  --seed S       PRNG seed, any string (default ${DEFAULT_SEED})
  --ceiling C    ceiling of the truncated policy (default ${DEFAULT_CEILING}: a = 2000/2^(C-1) ms; at most
                 ${largestCeiling(2000)}, where a is still at least 1 ms)
  --storm        the storm model instead (see npm run simulate -- --storm --help)
`;

function positiveInteger(flag: string, text: string | undefined): number {
  const value = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isInteger(value) || value < 1) {
    throw new RangeError(
      `${flag} expects a positive integer, got ${text === undefined ? 'nothing' : JSON.stringify(text)}`,
    );
  }
  return value;
}

/** Parses the command line (without `node` and the script). Throws RangeError on a bad flag. */
export function parseArgs(argv: readonly string[]): CliOptions {
  let csv = false;
  let withCharts = false;
  let help = false;
  let clients: readonly number[] = DEFAULT_CLIENTS;
  let trials = DEFAULT_TRIALS;
  let seed = DEFAULT_SEED;
  let ceiling = DEFAULT_CEILING;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case '--csv':
        csv = true;
        break;
      case '--charts':
        withCharts = true;
        break;
      case '--help':
      case '-h':
        help = true;
        break;
      case '--clients': {
        const text = value();
        if (text === undefined || text === '') throw new RangeError('--clients expects a list like 10,50,100');
        clients = [...new Set(text.split(',').map((part) => positiveInteger('--clients', part)))].sort((a, b) => a - b);
        break;
      }
      case '--trials':
        trials = positiveInteger('--trials', value());
        break;
      case '--seed': {
        const text = value();
        if (text === undefined) throw new RangeError('--seed expects a value');
        seed = text;
        break;
      }
      case '--ceiling':
        ceiling = positiveInteger('--ceiling', value());
        // The policy refuses a first window under 1 ms; say so in terms of the flag.
        if (ceiling > largestCeiling(MODEL.capMs)) {
          throw new RangeError(
            `--ceiling expects at most ${largestCeiling(MODEL.capMs)} (a = ${MODEL.capMs}/2^(C-1) ms must be at least 1 ms), got ${ceiling}`,
          );
        }
        break;
      default:
        throw new RangeError(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  return { csv, charts: withCharts, help, clients, trials, seed, ceiling };
}

export interface StormCliOptions {
  readonly charts: boolean;
  readonly help: boolean;
  /** K. */
  readonly clients: number;
  /** L, ms. */
  readonly latencyMs: number;
  readonly seed: string;
  /** The outages R, ms. */
  readonly outagesMs: readonly number[];
  /** Also the bench-local variants of `phased` (its first version, alternatives, a comparator). */
  readonly variants: boolean;
}

export const STORM_USAGE = `Usage: npm run simulate -- --storm [--charts] [--clients K] [--latency L] [--seed S] [--outages 0.3,1,5] [--variants]

  --charts       also write bench/charts/storm-pareto.svg
  --clients K    clients dropped together (default ${DEFAULT_STORM_CLIENTS})
  --latency L    attempt latency in ms: a failed attempt made at s fails at s + L (default 0)
  --seed S       PRNG seed, any string (default ${DEFAULT_STORM_SEED}); every cell draws from its own stream of it
  --outages LIST comma-separated outage lengths R in seconds (default ${DEFAULT_STORM_OUTAGES_MS.map((ms) => ms / 1000).join(',')})
  --variants     also the bench-local variants of phased (${STORM_VARIANTS.map((v) => v.name).join('; ')})
`;

function nonNegative(flag: string, text: string | undefined, positive = false): number {
  const value = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(value) || value < 0 || (positive && value === 0)) {
    throw new RangeError(
      `${flag} expects a ${positive ? 'positive' : 'non-negative'} number, got ${text === undefined ? 'nothing' : JSON.stringify(text)}`,
    );
  }
  return value;
}

/** Parses the command line of `--storm` (the flag itself is accepted and ignored). Throws RangeError on a bad flag. */
export function parseStormArgs(argv: readonly string[]): StormCliOptions {
  let withCharts = false;
  let help = false;
  let clients = DEFAULT_STORM_CLIENTS;
  let latencyMs = 0;
  let seed = DEFAULT_STORM_SEED;
  let outagesMs: readonly number[] = DEFAULT_STORM_OUTAGES_MS;
  let variants = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case '--storm':
        break;
      case '--charts':
        withCharts = true;
        break;
      case '--variants':
        variants = true;
        break;
      case '--help':
      case '-h':
        help = true;
        break;
      case '--clients':
        clients = positiveInteger('--clients', value());
        break;
      case '--latency':
        latencyMs = nonNegative('--latency', value());
        break;
      case '--seed': {
        const text = value();
        if (text === undefined) throw new RangeError('--seed expects a value');
        seed = text;
        break;
      }
      case '--outages': {
        const text = value();
        if (text === undefined || text === '') throw new RangeError('--outages expects a list like 0.3,1,5 (seconds)');
        outagesMs = [
          ...new Set(text.split(',').map((part) => Math.round(nonNegative('--outages', part, true) * 1e6) / 1e3)),
        ].sort((a, b) => a - b);
        break;
      }
      default:
        throw new RangeError(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  return { charts: withCharts, help, clients, latencyMs, seed, outagesMs, variants };
}

const CHART_DIR = join(dirname(fileURLToPath(import.meta.url)), 'charts');

/**
 * The options `parse` makes of `argv`, or `undefined` when there is nothing more to do: a usage
 * error (printed with `usage`, exit code 2) or `--help` (the usage printed).
 */
function cliOptions<T extends { readonly help: boolean }>(
  argv: readonly string[],
  parse: (argv: readonly string[]) => T,
  usage: string,
): T | undefined {
  let options: T;
  try {
    options = parse(argv);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
    process.exitCode = 2;
    return undefined;
  }
  if (!options.help) return options;
  process.stdout.write(usage);
  return undefined;
}

function stormMain(argv: readonly string[]): void {
  const options = cliOptions<StormCliOptions>(argv, parseStormArgs, STORM_USAGE);
  if (!options) return;
  const started = performance.now();
  const results = stormSweep({
    clients: options.clients,
    outagesMs: options.outagesMs,
    latencyMs: options.latencyMs,
    seed: options.seed,
    strategies: options.variants ? [...STORM_STRATEGIES, ...STORM_VARIANTS] : STORM_STRATEGIES,
  });
  const elapsed = (performance.now() - started) / 1000;
  process.stdout.write(
    `Storm model: K = ${options.clients} clients dropped at t = 0, server down during [0, R), attempt latency ` +
      `${options.latencyMs} ms, T = 10 s, N = 10, seed ${JSON.stringify(options.seed)}\n\n`,
  );
  process.stdout.write(stormMarkdown(results));
  if (options.charts) {
    mkdirSync(CHART_DIR, { recursive: true });
    writeFileSync(join(CHART_DIR, 'storm-pareto.svg'), stormParetoChart(results));
  }
  process.stderr.write(
    `${results.length} cells of ${options.clients} clients, simulated in ${elapsed.toFixed(2)} s` +
      `${options.charts ? `; chart written to ${join(CHART_DIR, 'storm-pareto.svg')}` : ''}\n`,
  );
}

function main(argv: readonly string[]): void {
  if (argv.includes('--storm')) {
    stormMain(argv);
    return;
  }
  const options = cliOptions<CliOptions>(argv, parseArgs, USAGE);
  if (!options) return;
  const started = performance.now();
  const results = sweep(options);
  const elapsed = (performance.now() - started) / 1000;
  if (options.csv) {
    process.stdout.write(toCsv(results));
  } else {
    process.stdout.write(
      `Model: AWS "Exponential Backoff And Jitter" (2015); hops |N(${MODEL.hopMeanMs}, ${MODEL.hopSdMs})| ms, ` +
        `base ${MODEL.baseMs} ms, cap ${MODEL.capMs} ms, truncated ceiling ${options.ceiling}, seed ${JSON.stringify(options.seed)}\n\n`,
    );
    process.stdout.write(toMarkdown(results));
  }
  if (options.charts) {
    const svg = charts(results, options.ceiling);
    mkdirSync(CHART_DIR, { recursive: true });
    writeFileSync(join(CHART_DIR, 'simulate-work.svg'), svg.work);
    writeFileSync(join(CHART_DIR, 'simulate-completion.svg'), svg.completion);
  }
  process.stderr.write(
    `${results.length} cells, ${options.trials} trials each, simulated in ${elapsed.toFixed(2)} s` +
      `${options.charts ? `; charts written to ${CHART_DIR}` : ''}\n`,
  );
}

if (isMain(import.meta.url)) {
  main(process.argv.slice(2));
}
