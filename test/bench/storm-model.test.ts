import { describe, expect, it } from 'vitest';
import { createPrng } from '../../bench/lib/prng.js';
import {
  DEFAULT_STORM_CLIENTS,
  DEFAULT_STORM_OUTAGES_MS,
  DEFAULT_STORM_SEED,
  equalJitterWindows,
  linearPhaseDoubling,
  logPhaseDoubling,
  logPhaseInWindows,
  phasedLanding,
  phasedRephasing,
  runStorm,
  STORM_STRATEGIES,
  STORM_VARIANTS,
  stormMarkdown,
  stormMetrics,
  stormParetoChart,
  stormSweep,
} from '../../bench/lib/storm-model.js';
import { logTicks } from '../../bench/lib/svg.js';
import { parseStormArgs } from '../../bench/simulate.js';
import { type BackoffPolicyLike, phasedBinaryExponential, type RandomSource } from '../../src/backoff/index.js';

/** A policy that waits the given delays in turn (the last one repeated), and counts how often it was created. */
function scripted(delays: readonly number[]) {
  let created = 0;
  const create = (): BackoffPolicyLike => {
    created += 1;
    let i = 0;
    return {
      next: () => delays[Math.min(i++, delays.length - 1)] as number,
      reset: () => {
        i = 0;
      },
    };
  };
  return { create, created: () => created };
}

const never: RandomSource = () => {
  throw new Error('the scripted policies draw nothing');
};

const byName = (name: string) => {
  const strategy = [...STORM_STRATEGIES, ...STORM_VARIANTS].find((s) => s.name === name);
  if (strategy === undefined) throw new Error(`no strategy ${name}`);
  return strategy;
};

const T = 10_000;
const N = 10;
const A = T / 2 ** (N - 1); // 19.53125 ms

describe('runStorm', () => {
  it('a constant policy gives exact attempt times: one fresh policy per client, first failure at t = 0', () => {
    const policy = scripted([100]);
    // Attempts at 100, 200 (fail), 300 >= R = 250: arrival 300, 2 failures.
    const run = runStorm(policy.create, { clients: 3, outageMs: 250, random: never });
    expect(policy.created()).toBe(3);
    expect([...run.arrivals]).toEqual([300, 300, 300]);
    expect([...run.failures]).toEqual([2, 2, 2]);
    expect([...run.firstRetries]).toEqual([100, 100, 100]);
    const m = stormMetrics(run);
    expect(m.outageAttempts).toBe(2);
    expect(m.recoveryP50Ms).toBe(50);
    expect(m.recoveryMaxMs).toBe(50);
    expect(m.peak).toBe(3);
    expect(m.peakPer1000).toBe(1000);
    expect(m.firstRetryMedianMs).toBe(100);
  });

  it('counts the failed attempts with latency: a failed attempt at s ends at s + L, then the next delay', () => {
    const policy = scripted([100]);
    // L = 20: attempts at 100, 220, 340, 460, 580, 700, 820, 940 (all < 1000, failed), 1060.
    const run = runStorm(policy.create, { clients: 1, outageMs: 1000, latencyMs: 20, random: never });
    expect([...run.arrivals]).toEqual([1060]);
    expect([...run.failures]).toEqual([8]);
    // An attempt made before R fails even if it would end after R; one made exactly at R succeeds.
    const edge = runStorm(scripted([90, 10]).create, { clients: 1, outageMs: 100, latencyMs: 50, random: never });
    expect([...edge.arrivals]).toEqual([150]); // 90 fails (at 140), then 140 + 10
    expect([...edge.failures]).toEqual([1]);
    const exact = runStorm(scripted([100]).create, { clients: 1, outageMs: 100, random: never });
    expect([...exact.arrivals]).toEqual([100]);
    expect([...exact.failures]).toEqual([0]);
  });

  it('each client follows its own policy in client order, all drawing from the one random source', () => {
    const draws = [0.5, 0.25, 0.75];
    let i = 0;
    const random = () => draws[i++] as number;
    // One draw per client: its constant delay is 1000·u.
    const create = (r: RandomSource): BackoffPolicyLike => {
      const delay = 1000 * r();
      return { next: () => delay, reset: () => {} };
    };
    const run = runStorm(create, { clients: 3, outageMs: 600, random });
    // 500 → 1000; 250 → 750; 750.
    expect([...run.arrivals]).toEqual([1000, 750, 750]);
    expect([...run.failures]).toEqual([1, 2, 0]);
    const m = stormMetrics(run);
    // Recovery 400, 150, 150 ms: bins [600, 700) empty, [700, 800) has 2, [1000, 1100) has 1.
    expect(m.peak).toBe(2);
    expect(m.recoveryP50Ms).toBe(150);
    expect(m.recoveryP99Ms).toBe(400);
    expect(m.outageAttempts).toBe(1);
  });

  it('stops a client that never gets anywhere, and rejects bad options', () => {
    expect(() =>
      runStorm(scripted([0]).create, { clients: 1, outageMs: 10, random: never, maxAttempts: 1000 }),
    ).toThrow(/more than 1000/);
    expect(() => runStorm(scripted([1]).create, { clients: 0, outageMs: 10, random: never })).toThrow(RangeError);
    expect(() => runStorm(scripted([1]).create, { clients: 1.5, outageMs: 10, random: never })).toThrow(RangeError);
    expect(() => runStorm(scripted([1]).create, { clients: 1, outageMs: -1, random: never })).toThrow(RangeError);
    expect(() => runStorm(scripted([1]).create, { clients: 1, outageMs: 1, latencyMs: -1, random: never })).toThrow(
      RangeError,
    );
  });
});

describe('stormMetrics', () => {
  it('uniform arrivals give peak × p99 / K ≈ 1 (0.99: the p99 of a uniform spread is 99% of it)', () => {
    const k = 10_000;
    const r = 5_000;
    const spread = 10_000;
    const arrivals = Float64Array.from({ length: k }, (_, i) => r + ((i + 0.5) * spread) / k);
    const m = stormMetrics({ outageMs: r, arrivals });
    expect(m.peak).toBe(100); // 100 per 100 ms bin, every bin
    expect(m.peakPer1000).toBe(10);
    expect(m.recoveryP99Ms).toBe(9_899.5); // the 9,900th of 10,000 (nearest rank), at its bin centre
    expect(m.peakTimesP99).toBeCloseTo(0.99, 3);
    // No failures or first retries given: those figures are NaN.
    expect(m.outageAttempts).toBeNaN();
    expect(m.firstRetryMedianMs).toBeNaN();
  });

  it('bins are aligned at R, and piling everyone into one bin costs K / (clients in the p99 span)', () => {
    // 1000 clients all at R + 950: one bin of 1000, p99 = 950 ms: metric = 1000 × 950 / (100 × 1000) = 9.5.
    const m = stormMetrics({ outageMs: 300, arrivals: new Float64Array(1000).fill(1250) });
    expect(m.peak).toBe(1000);
    expect(m.peakTimesP99).toBeCloseTo(9.5, 9);
    // Two clients 1 ms apart straddling a bin edge (R + 100) land in two bins.
    expect(stormMetrics({ outageMs: 300, arrivals: Float64Array.of(399.5, 400.5) }).peak).toBe(1);
  });

  it('rejects an arrival before R and an empty storm', () => {
    expect(() => stormMetrics({ outageMs: 300, arrivals: Float64Array.of(299) })).toThrow(RangeError);
    expect(() => stormMetrics({ outageMs: 300, arrivals: new Float64Array(0) })).toThrow(RangeError);
  });
});

describe('the bench-local policies', () => {
  const zero = () => 0;
  const top = () => 1 - 2 ** -32;
  const take = (policy: BackoffPolicyLike, n: number) => Array.from({ length: n }, () => policy.next());

  it('equal jitter on the TBEB windows: W_n/2 + U(0, W_n/2)', () => {
    const windows = Array.from({ length: 12 }, (_, i) => A * 2 ** (Math.min(i + 1, N) - 1));
    expect(take(equalJitterWindows({ maxDelay: T, ceiling: N, random: zero }), 12)).toEqual(windows.map((w) => w / 2));
    const high = take(equalJitterWindows({ maxDelay: T, ceiling: N, random: top }), 12);
    high.forEach((d, i) => {
      expect(d).toBeLessThan(windows[i] as number);
      expect(d).toBeGreaterThan(0.99 * (windows[i] as number));
    });
  });

  it('log-phase ×2: a·2^ψ, doubling, capped at T; a new ψ after reset()', () => {
    const draws = [0.5, 0];
    let i = 0;
    const policy = logPhaseDoubling({ maxDelay: T, ceiling: N, random: () => draws[i++] as number });
    const first = take(policy, 11);
    expect(first[0]).toBeCloseTo(A * Math.SQRT2, 9);
    expect(first[8]).toBeCloseTo(A * 2 ** 8.5, 6);
    expect(first.slice(9)).toEqual([T, T]);
    policy.reset();
    expect(policy.next()).toBe(A); // ψ = 0
  });

  it('the variants stay inside the TBEB windows and never exceed T', () => {
    for (const create of [
      (random: RandomSource) => phasedRephasing({ maxDelay: T, ceiling: N, random }),
      (random: RandomSource) => logPhaseInWindows({ maxDelay: T, ceiling: N, random }),
      (random: RandomSource) => phasedLanding(0.3, { maxDelay: T, ceiling: N, random }),
      (random: RandomSource) => phasedLanding(1, { maxDelay: T, ceiling: N, random }),
      (random: RandomSource) => linearPhaseDoubling({ maxDelay: T, ceiling: N, random }),
    ]) {
      const prng = createPrng('windows');
      for (let c = 0; c < 200; c++) {
        const policy = create(prng.next);
        take(policy, 20).forEach((d, i) => {
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(A * 2 ** (Math.min(i + 1, N) - 1));
        });
      }
    }
    // λ = 0 lands the N-th retry where fix A has it (2^ψ·T, up to the 2^−N of the sum).
    const landing = take(phasedLanding(0, { maxDelay: T, ceiling: N, random: () => 0.5 }), N).reduce((x, y) => x + y);
    const plain = take(logPhaseInWindows({ maxDelay: T, ceiling: N, random: () => 0.5 }), N).reduce((x, y) => x + y);
    expect(landing / T).toBeCloseTo(Math.SQRT2, 9);
    expect(Math.abs(landing - plain)).toBeLessThan(T * 2 ** -N * 2);
  });

  it('phased v1: 2^(ψ−1)·W_n up to N, the (N+1)-th retry at T·(1 + ψ), then every T', () => {
    const times = (psi: number) => {
      const waits = take(phasedRephasing({ maxDelay: T, ceiling: N, random: () => psi }), N + 3);
      return waits.map((_, i) => waits.slice(0, i + 1).reduce((x, y) => x + y));
    };
    for (const psi of [0, 0.25, 0.7, 0.999]) {
      const t = times(psi);
      expect(t[N - 1]).toBeCloseTo(2 ** psi * T * (1 - 2 ** -N), 6);
      expect(t[N]).toBeCloseTo(T * (1 + psi), 6);
      expect(t[N + 2]).toBeCloseTo(T * (3 + psi), 6);
    }
  });

  it('landing λ = 1/2 is src: the same waits as phasedBinaryExponential, for any ψ, T and N', () => {
    for (const [maxDelay, ceiling] of [
      [T, N],
      [1_000, 1],
      [5_000, 2],
      [3_000, 3],
      [30_000, 6],
    ] as const) {
      for (const psi of [0, 0.1, 0.37, 0.5, 0.8, 0.999]) {
        const draws = [psi, 0.6];
        let i = 0;
        const random = () => draws[i++ % 2] as number;
        const src = phasedBinaryExponential({ maxDelay, ceiling, random });
        const bench = phasedLanding(0.5, { maxDelay, ceiling, random: () => psi });
        const srcWaits = take(src, ceiling + 3);
        expect(take(bench, ceiling + 3), `T = ${maxDelay}, N = ${ceiling}, ψ = ${psi}`).toEqual(srcWaits);
        // The N-th retry lands at T·(1 + g(ψ)) (T·g(ψ) for N = 1), g(ψ) = (ψ + 2^ψ − 1)/2, unless that
        // would take a wait over T; then every T.
        const g = (psi + 2 ** psi - 1) / 2;
        const sum = (n: number) => srcWaits.slice(0, n).reduce((x, y) => x + y, 0);
        const landing = Math.min(maxDelay * ((ceiling > 1 ? 1 : 0) + g), sum(ceiling - 1) + maxDelay);
        expect(sum(ceiling)).toBeCloseTo(landing, 6);
        expect(srcWaits.slice(ceiling)).toEqual([maxDelay, maxDelay, maxDelay]);
        // After reset() both draw a new phase (src the second draw, 0.6).
        src.reset();
        const again = phasedLanding(0.5, { maxDelay, ceiling, random: () => 0.6 });
        expect(take(src, ceiling + 1)).toEqual(take(again, ceiling + 1));
      }
    }
  });
});

describe('the storm (K = 20,000, seeded)', () => {
  const results = stormSweep({ seed: 'storm-test' });
  const cell = (strategy: string, outageMs: number) => {
    const r = results.find((x) => x.strategy === strategy && x.outageMs === outageMs);
    if (r === undefined) throw new Error(`no cell ${strategy} at ${outageMs}`);
    return r;
  };

  it('has one cell per strategy and R, and is reproducible in the seed', () => {
    expect(results).toHaveLength(STORM_STRATEGIES.length * DEFAULT_STORM_OUTAGES_MS.length);
    const again = stormSweep({ seed: 'storm-test', outagesMs: [1_000], strategies: [byName('phased')] });
    expect(again[0]).toEqual(cell('phased', 1_000));
    const other = stormSweep({ seed: 'other', outagesMs: [1_000], strategies: [byName('phased')] });
    expect(other[0]?.peak).not.toBe(cell('phased', 1_000).peak);
  });

  it('no schedule beats uniform arrivals: peak × p99 / K >= 0.99·p99 / (p99 + bin)', () => {
    for (const r of results) {
      // 99% of the clients arrive within the ceil(p99/100) + 1 bins from R: one bin holds at least their mean.
      const bins = Math.floor(r.recoveryP99Ms / 100) + 1;
      expect(r.peak, `${r.strategy} at ${r.outageMs}`).toBeGreaterThanOrEqual((0.99 * r.clients) / bins - 1e-9);
    }
  });

  it('phased at R = 1 s: peak × p99 / K between 1 and 1.6 (theory 1/ln 2 ≈ 1.44 at most), under half the default', () => {
    const phased = cell('phased', 1_000);
    expect(phased.peakTimesP99).toBeGreaterThan(1);
    expect(phased.peakTimesP99).toBeLessThan(1.6);
    expect(phased.peakTimesP99).toBeLessThan(cell('default', 1_000).peakTimesP99 / 2);
    // Its last client is back within about R (one retry per octave: the next one is before 2R).
    expect(phased.recoveryMaxMs).toBeLessThan(1_100);
  });

  it('phased: a quick first retry (median a/√2 ≈ 13.8 ms) and no more outage attempts than the default', () => {
    for (const outageMs of DEFAULT_STORM_OUTAGES_MS) {
      const phased = cell('phased', outageMs);
      expect(phased.firstRetryMedianMs).toBeCloseTo(A / Math.SQRT2, 0);
      expect(phased.outageAttempts).toBeLessThanOrEqual(cell('default', outageMs).outageAttempts);
    }
    // The default's first window is [0, a): median a/2.
    expect(cell('default', 1_000).firstRetryMedianMs).toBeCloseTo(A / 2, 0);
  });

  it('the landing at the N-th retry: phased stays near its grid after T, where v1 (re-phasing after N) piles up', () => {
    const [phased, v1] = stormSweep({
      seed: 'storm-test',
      outagesMs: [10_500],
      strategies: [byName('phased'), byName('phased v1: re-phasing after N (T·(1+ψ))')],
    });
    // Formula for v1: 1 + 1/(1.05·ln 2) ≈ 2.37; phased: the grid g(ψ), 1/(1/2 + ln 2 / 2) ≈ 1.18 (+ noise).
    expect(v1?.peakTimesP99).toBeGreaterThan(2);
    expect(phased?.peakTimesP99).toBeLessThan(1.45);
  });

  it('the default piles up (metric > 2.5 at R = 0.3 s and 1 s); after a long outage everyone is back within T', () => {
    expect(cell('default', 300).peakTimesP99).toBeGreaterThan(2.5);
    expect(cell('default', 1_000).peakTimesP99).toBeGreaterThan(2.5);
    for (const r of results.filter((x) => x.outageMs === 120_000)) {
      expect(r.recoveryMaxMs, r.strategy).toBeLessThanOrEqual(T);
    }
  });

  it('prints both tables and draws the Pareto chart', () => {
    const md = stormMarkdown(results);
    expect(md).toContain('| strategy ');
    expect(md).toContain('| R = 0.3 s | R = 1 s | R = 5 s | R = 30 s | R = 120 s |');
    expect(md.split('\n').filter((l) => l.startsWith('| 120 s '))).toHaveLength(STORM_STRATEGIES.length);
    const svg = stormParetoChart(results);
    expect(svg.startsWith('<svg')).toBe(true);
    for (const s of STORM_STRATEGIES) expect(svg).toContain(`>${s.name}</text>`);
    expect(svg).toContain('peak × p99 / K = 1');
    expect(svg.match(/<circle /g)?.length).toBe(results.length + STORM_STRATEGIES.length); // points + legend
  });
});

describe('logTicks', () => {
  it('covers the data with 1-2-5 ticks', () => {
    expect(logTicks(0.26, 11.5)).toEqual([0.2, 0.5, 1, 2, 5, 10, 20]);
    expect(logTicks(12, 390)).toEqual([10, 20, 50, 100, 200, 500]);
  });
});

describe('parseStormArgs', () => {
  it('has the documented defaults', () => {
    expect(parseStormArgs(['--storm'])).toEqual({
      charts: false,
      help: false,
      clients: DEFAULT_STORM_CLIENTS,
      latencyMs: 0,
      seed: DEFAULT_STORM_SEED,
      outagesMs: DEFAULT_STORM_OUTAGES_MS,
      variants: false,
    });
    expect(DEFAULT_STORM_CLIENTS).toBe(20_000);
    expect(DEFAULT_STORM_OUTAGES_MS).toEqual([300, 1_000, 5_000, 30_000, 120_000]);
  });

  it('reads every flag, with a space or an =', () => {
    expect(
      parseStormArgs([
        '--storm',
        '--charts',
        '--clients=500',
        '--latency',
        '50',
        '--seed',
        'x',
        '--outages',
        '5,0.3,1',
      ]),
    ).toEqual({
      charts: true,
      help: false,
      clients: 500,
      latencyMs: 50,
      seed: 'x',
      outagesMs: [300, 1_000, 5_000],
      variants: false,
    });
    expect(parseStormArgs(['--variants']).variants).toBe(true);
  });

  it('rejects unknown flags and bad numbers', () => {
    expect(() => parseStormArgs(['--trials', '3'])).toThrow(RangeError);
    expect(() => parseStormArgs(['--clients', '0'])).toThrow(RangeError);
    expect(() => parseStormArgs(['--latency', '-1'])).toThrow(RangeError);
    expect(() => parseStormArgs(['--outages', '1,x'])).toThrow(RangeError);
    expect(() => parseStormArgs(['--outages', '0'])).toThrow(RangeError);
  });
});
