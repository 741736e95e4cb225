import { describe, expect, it } from 'vitest';
import {
  herd,
  largestCeiling,
  STRATEGIES,
  sampleDraws,
  strategyById,
  windows,
} from '../../docs/.vitepress/theme/playground/model.js';
import { truncatedBinaryExponential } from '../../src/backoff/index.js';

const T = 10_000;
const N = 10;
const a = T / 2 ** (N - 1);

describe('the playground model', () => {
  it('gives the TBEB windows a·2^(min(n,N)−1)', () => {
    expect(windows({ maxDelay: T, ceiling: N }, 12)).toEqual([
      a,
      2 * a,
      4 * a,
      8 * a,
      16 * a,
      32 * a,
      64 * a,
      128 * a,
      256 * a,
      T,
      T,
      T,
    ]);
    expect(windows({ maxDelay: 2_000, ceiling: 1 }, 3)).toEqual([2_000, 2_000, 2_000]);
  });

  it('offers exactly the ceilings the policy accepts', () => {
    for (const maxDelay of [500, 511, 512, 10_000, 60_000]) {
      const top = largestCeiling(maxDelay);
      expect(() => truncatedBinaryExponential({ maxDelay, ceiling: top })).not.toThrow();
      expect(() => truncatedBinaryExponential({ maxDelay, ceiling: top + 1 })).toThrow(RangeError);
    }
    expect(largestCeiling(10_000)).toBe(14);
  });

  it("draws the default's delays inside its windows, the same for the same seed", () => {
    const params = { maxDelay: T, ceiling: N };
    const tbeb = strategyById('truncatedBinaryExponential');
    const draws = sampleDraws(tbeb, params, 's1', 50, 12);
    expect(draws).toHaveLength(600);
    const bounds = windows(params, 12);
    for (const { attempt, delay } of draws) {
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(bounds[attempt - 1] as number);
    }
    expect(sampleDraws(tbeb, params, 's1', 50, 12)).toEqual(draws);
    expect(sampleDraws(tbeb, params, 's2', 50, 12)).not.toEqual(draws);
  });

  it('builds every strategy on offer from the two sliders, each waiting at most T', () => {
    expect(STRATEGIES.map((s) => s.id)).toEqual([
      'truncatedBinaryExponential',
      'phasedBinaryExponential',
      'fullJitter',
      'equalJitter',
      'decorrelatedJitter',
      'exponential',
      'constant',
    ]);
    for (const strategy of STRATEGIES) {
      const draws = sampleDraws(strategy, { maxDelay: 5_000, ceiling: 6 }, 'x', 5, 10);
      for (const { delay } of draws) expect(delay, strategy.id).toBeLessThanOrEqual(5_000);
    }
  });

  it('counts every client of the herd once, in 100 ms bins from the recovery, the same for the same seed', () => {
    const params = { maxDelay: T, ceiling: N };
    const run = (id: 'truncatedBinaryExponential' | 'phasedBinaryExponential', seed = 'h') =>
      herd(strategyById(id), params, 5_000, 30_000, seed);
    const tbeb = run('truncatedBinaryExponential');
    expect(tbeb.counts.reduce((sum, count) => sum + count, 0)).toBe(5_000);
    expect(tbeb.peak).toBe(Math.max(...tbeb.counts));
    expect(tbeb.p99Ms).toBeLessThan(T);
    expect(tbeb.outageAttempts).toBeGreaterThan(N);
    expect(run('truncatedBinaryExponential')).toEqual(tbeb);
    expect(run('truncatedBinaryExponential', 'other')).not.toEqual(tbeb);
    // What the page shows: after a 30 s outage the phased strategy's busiest 100 ms is quieter.
    expect(run('phasedBinaryExponential').peak).toBeLessThan(tbeb.peak);
  });
});
