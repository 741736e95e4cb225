import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../bench/lib/event-queue.js';
import { createPrng } from '../../bench/lib/prng.js';
import {
  charts,
  DEFAULT_CLIENTS,
  parseArgs,
  STRATEGIES,
  type StrategyName,
  simulate,
  toCsv,
  toMarkdown,
} from '../../bench/simulate.js';

const JITTERED: readonly StrategyName[] = ['full', 'equal', 'decorrelated', 'truncated'];

describe('createPrng', () => {
  it('is deterministic in the seed, and numbers seed like their decimal string', () => {
    const a = createPrng('x');
    const b = createPrng('x');
    const c = createPrng('y');
    const drawsA = Array.from({ length: 5 }, a.next);
    expect(Array.from({ length: 5 }, b.next)).toEqual(drawsA);
    expect(Array.from({ length: 5 }, c.next)).not.toEqual(drawsA);
    expect(createPrng(7).next()).toBe(createPrng('7').next());
  });

  it('draws uniforms in [0, 1) and normals with the asked mean and sd', () => {
    const prng = createPrng(1);
    let sum = 0;
    let sq = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const u = prng.next();
      expect(u >= 0 && u < 1).toBe(true);
      const x = prng.normal(10, 2);
      sum += x;
      sq += x * x;
    }
    const mean = sum / n;
    const sd = Math.sqrt(sq / n - mean * mean);
    expect(mean).toBeCloseTo(10, 1);
    expect(sd).toBeGreaterThan(1.9);
    expect(sd).toBeLessThan(2.1);
  });
});

describe('EventQueue', () => {
  it('pops in time order, ties in insertion order, and grows past its initial capacity', () => {
    const queue = new EventQueue(2);
    const prng = createPrng('queue');
    const pushed: [number, number][] = [];
    for (let i = 0; i < 500; i++) {
      const time = Math.floor(prng.next() * 50); // many ties
      queue.push(time, i);
      pushed.push([time, i]);
    }
    const expected = pushed.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    const popped: [number, number][] = [];
    while (queue.size > 0) {
      const time = queue.peekTime();
      popped.push([time, queue.pop()]);
    }
    expect(popped).toEqual(expected);
    expect(queue.peekTime()).toBe(Number.POSITIVE_INFINITY);
    expect(() => queue.pop()).toThrow(RangeError);
  });
});

describe('simulate', () => {
  it('with one client: exactly one write and four hops (≈ 40 ms) for every strategy', () => {
    for (const strategy of STRATEGIES) {
      const r = simulate({ strategy, clients: 1, trials: 200, seed: 1 });
      expect(r.work).toBe(1);
      expect(r.workSd).toBe(0);
      // Four |N(10, 2)| hops: mean 40 ms, sd 4 ms per trial, so the mean of 200 is within ±1 ms.
      expect(r.completionMs).toBeGreaterThan(38.5);
      expect(r.completionMs).toBeLessThan(41.5);
    }
  });

  it('is reproducible: same seed, same result; another seed, another result', () => {
    for (const strategy of STRATEGIES) {
      const options = { strategy, clients: 15, trials: 5, seed: 'repro' } as const;
      const first = simulate(options);
      expect(simulate(options)).toEqual(first);
      const other = simulate({ ...options, seed: 'other' });
      expect([other.work, other.completionMs]).not.toEqual([first.work, first.completionMs]);
    }
  });

  // (simulate() itself throws unless every client succeeded exactly once.)
  it('30 clients starting together collide: work > N, and its sd is not 0', () => {
    for (const strategy of STRATEGIES) {
      const r = simulate({ strategy, clients: 30, trials: 5, seed: 2 });
      expect(r.work).toBeGreaterThan(30);
      expect(r.workSd).toBeGreaterThan(0);
    }
  });

  it('none: N = 20 costs between N(N+1)/4 and N(N+1)/2 writes', () => {
    // The textbook lock-step picture (every round, all remaining clients write and one wins) gives
    // N(N+1)/2 = 210. In this model the attempts pipeline: successive successes are one read→write
    // gap apart (2 hops ≈ 20 ms) while a loser retries once per 4 hops (≈ 40 ms), so each success
    // costs about k/2 writes from the k clients left: ≈ N(N+1)/4 = 105, plus the synchronised
    // start. Measured: 152 ± 12 (sd per trial), so the mean of 50 trials is ≈ 152 ± 2.
    const r = simulate({ strategy: 'none', clients: 20, trials: 50, seed: 3 });
    expect(r.work).toBeGreaterThan(105);
    expect(r.work).toBeLessThan(210);
    // …and it is quadratic: doubling N multiplies the work by ≈ 3.07 (4 minus the linear terms;
    // 3.00–3.15 over 20 seeds), well above the 2 of a linear cost.
    const r40 = simulate({ strategy: 'none', clients: 40, trials: 50, seed: 3 });
    expect(r40.work / r.work).toBeGreaterThan(2.7);
  });

  it('jittered strategies need far less work than none and exponential for N = 50', () => {
    const trials = 30;
    const none = simulate({ strategy: 'none', clients: 50, trials, seed: 4 }).work; // ≈ 690
    const expo = simulate({ strategy: 'exponential', clients: 50, trials, seed: 4 }).work; // ≈ 630
    for (const strategy of JITTERED) {
      // full ≈ 332, equal ≈ 348, decorrelated ≈ 374, truncated ≈ 310: at most 0.6× exponential.
      const work = simulate({ strategy, clients: 50, trials, seed: 4 }).work;
      expect(work, strategy).toBeLessThan(0.7 * Math.min(none, expo));
    }
  });

  it('none: completion time grows linearly in N, about one read→write gap (≈ 20 ms) per client', () => {
    const at = (clients: number) => simulate({ strategy: 'none', clients, trials: 20, seed: 5 }).completionMs;
    const [t25, t50, t100] = [at(25), at(50), at(100)];
    const slope1 = (t50 - t25) / 25; // ≈ 18 ms per client
    const slope2 = (t100 - t50) / 50; // ≈ 18 ms per client
    for (const slope of [slope1, slope2]) {
      expect(slope).toBeGreaterThan(14);
      expect(slope).toBeLessThan(24);
    }
    expect(slope2 / slope1).toBeGreaterThan(0.8);
    expect(slope2 / slope1).toBeLessThan(1.25);
  });

  it('plain exponential takes far longer than every jittered strategy', () => {
    const expo = simulate({ strategy: 'exponential', clients: 20, trials: 10, seed: 6 }).completionMs; // ≈ 14 s
    for (const strategy of JITTERED) {
      expect(simulate({ strategy, clients: 20, trials: 10, seed: 6 }).completionMs).toBeLessThan(expo / 4);
    }
  });

  it('ceiling only changes the truncated strategy', () => {
    const base = { clients: 20, trials: 5, seed: 7 } as const;
    expect(simulate({ ...base, strategy: 'full', ceiling: 3 })).toEqual(simulate({ ...base, strategy: 'full' }));
    expect(simulate({ ...base, strategy: 'truncated', ceiling: 3 })).not.toEqual(
      simulate({ ...base, strategy: 'truncated' }),
    );
  });

  it('rejects bad options', () => {
    expect(() => simulate({ strategy: 'none', clients: 0 })).toThrow(RangeError);
    expect(() => simulate({ strategy: 'none', clients: 2.5 })).toThrow(RangeError);
    expect(() => simulate({ strategy: 'none', clients: 2, trials: 0 })).toThrow(RangeError);
    expect(() => simulate({ strategy: 'nope' as StrategyName, clients: 2 })).toThrow(RangeError);
  });
});

describe('output', () => {
  const results = [10, 20].flatMap((clients) =>
    STRATEGIES.map((strategy) => simulate({ strategy, clients, trials: 2, seed: 8 })),
  );

  it('CSV has the exact header and one row per (strategy, clients)', () => {
    const lines = toCsv(results).trimEnd().split('\n');
    expect(lines[0]).toBe('strategy,clients,work,completion_ms');
    expect(lines).toHaveLength(1 + 12);
    expect(lines[1]).toMatch(/^none,10,\d+\.\d\d,\d+\.\d\d$/);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[0]))).toEqual(new Set(STRATEGIES));
  });

  it('markdown has one row per N and one column per strategy', () => {
    const md = toMarkdown(results);
    expect(md).toContain(`| clients | ${STRATEGIES.join(' | ')} |`);
    expect(md.split('\n').filter((l) => l.startsWith('| 10 '))).toHaveLength(2);
  });

  it('charts are SVG with one legend entry per strategy', () => {
    const svg = charts(results);
    for (const chart of [svg.work, svg.completion]) {
      expect(chart.startsWith('<svg')).toBe(true);
      for (const s of STRATEGIES) expect(chart).toContain(`>${s}`);
    }
  });
});

describe('parseArgs', () => {
  it('has the documented defaults', () => {
    expect(parseArgs([])).toEqual({
      csv: false,
      charts: false,
      help: false,
      clients: DEFAULT_CLIENTS,
      trials: 100,
      seed: 'aws-backoff-2015',
      ceiling: 8,
    });
    expect(DEFAULT_CLIENTS.slice(0, 5)).toEqual([1, 2, 5, 10, 15]);
    expect(DEFAULT_CLIENTS.slice(-3)).toEqual([100, 150, 200]);
  });

  it('reads every flag, with a space or an =', () => {
    expect(
      parseArgs(['--csv', '--charts', '--clients', '50,10,100', '--trials=7', '--seed', 'abc', '--ceiling', '10']),
    ).toEqual({ csv: true, charts: true, help: false, clients: [10, 50, 100], trials: 7, seed: 'abc', ceiling: 10 });
  });

  it('rejects unknown flags and bad numbers', () => {
    expect(() => parseArgs(['--nope'])).toThrow(RangeError);
    expect(() => parseArgs(['--trials', '0'])).toThrow(RangeError);
    expect(() => parseArgs(['--trials'])).toThrow(RangeError);
    expect(() => parseArgs(['--clients', '10,x'])).toThrow(RangeError);
    expect(() => parseArgs(['--ceiling', '1.5'])).toThrow(RangeError);
  });

  it('--ceiling stops where the first window (2000/2^(C-1) ms) would be under 1 ms', () => {
    expect(parseArgs(['--ceiling', '11']).ceiling).toBe(11);
    expect(() => parseArgs(['--ceiling', '12'])).toThrow(
      new RangeError('--ceiling expects at most 11 (a = 2000/2^(C-1) ms must be at least 1 ms), got 12'),
    );
  });
});
