/**
 * phasedBinaryExponential's phase: one draw per run of failures, kept by next() and forgotten by
 * reset() (with the time spent), its distribution over many runs, and what a bad or throwing random
 * source does.
 */
import { describe, expect, it, vi } from 'vitest';
import { createPrng } from '../../bench/lib/prng.js';
import { phasedBinaryExponential, truncatedBinaryExponential } from '../../src/backoff/index.js';
import { expectOptionError, scripted, sum, take, thrown } from './helpers.js';

describe('phasedBinaryExponential', () => {
  describe('one draw per run', () => {
    it('calls random exactly once per run, however many next() calls it has', () => {
      const random = vi.fn(() => 0.5);
      const policy = phasedBinaryExponential({ random });
      expect(random).not.toHaveBeenCalled();
      policy.next();
      expect(random).toHaveBeenCalledTimes(1);
      take(policy, 14);
      expect(random).toHaveBeenCalledTimes(1);
      policy.reset();
      expect(random).toHaveBeenCalledTimes(1); // reset() itself draws nothing
      take(policy, 9);
      expect(random).toHaveBeenCalledTimes(2);
      policy.reset();
      policy.reset();
      take(policy, 3);
      expect(random).toHaveBeenCalledTimes(3);
    });

    it('exposes the phase of the current run, unchanged by next()', () => {
      const { random } = scripted([0.375]);
      const policy = phasedBinaryExponential({ random });
      expect(policy.phase).toBeUndefined();
      for (let i = 0; i < 14; i += 1) {
        policy.next();
        expect(policy.phase).toBe(0.375);
      }
    });

    it('reset() forgets the phase and the time spent; the next run draws a new phase', () => {
      const { random } = scripted([0, 0.5]);
      const policy = phasedBinaryExponential({ maxDelay: 1000, ceiling: 3, random });
      expect(take(policy, 5)).toEqual([125, 250, 625, 1000, 1000]);
      expect(policy.phase).toBe(0);
      policy.reset();
      expect(policy.phase).toBeUndefined();
      expect(policy.attempt).toBe(0);
      const second = take(policy, 5);
      expect(policy.phase).toBe(0.5);
      expect(second.slice(0, 2)).toEqual([250, 500].map((w) => w * 2 ** -0.5));
      // the time of the first run is forgotten: the 3rd retry of this run is at T·(1 + g(0.5)) from its start
      expect(second[2]).toBeCloseTo(750 + 125 * Math.SQRT2, 9);
      expect(sum(second.slice(0, 3))).toBeCloseTo(750 + 500 * Math.SQRT2, 9);
      expect(second.slice(3)).toEqual([1000, 1000]);
      expect(random).toHaveBeenCalledTimes(2);
    });

    it('reset() part-way through a run also forgets the time spent', () => {
      const { random } = scripted([0, 0]);
      const policy = phasedBinaryExponential({ maxDelay: 1000, ceiling: 3, random });
      take(policy, 2); // 375 ms spent: were they remembered, the 3rd wait would be 1000 − 750 = 250
      policy.reset();
      expect(take(policy, 5)).toEqual([125, 250, 625, 1000, 1000]);
    });

    it('reset() brings the wait back to 2^(ψ−1)·baseDelay', () => {
      const { random } = scripted([1, 0]);
      const policy = phasedBinaryExponential({ random });
      take(policy, 12);
      expect(policy.next()).toBe(10_000);
      policy.reset();
      expect(policy.next()).toBe(19.53125 / 2);
    });

    it('reset() on a fresh policy is harmless', () => {
      const random = vi.fn(() => 0);
      const policy = phasedBinaryExponential({ random });
      policy.reset();
      expect(random).not.toHaveBeenCalled();
      expect(policy.attempt).toBe(0);
      expect(policy.phase).toBeUndefined();
      expect(policy.next()).toBe(9.765625);
    });

    it('attempt counts the waits handed out', () => {
      const policy = phasedBinaryExponential({ random: () => 0.5 });
      expect(policy.attempt).toBe(0);
      policy.next();
      expect(policy.attempt).toBe(1);
      take(policy, 14);
      expect(policy.attempt).toBe(15);
      policy.reset();
      expect(policy.attempt).toBe(0);
      take(policy, 2);
      expect(policy.attempt).toBe(2);
    });

    it('uses Math.random by default, once per run', () => {
      const spy = vi.spyOn(Math, 'random').mockReturnValue(0);
      try {
        const policy = phasedBinaryExponential();
        expect(take(policy, 3)).toEqual([9.765625, 19.53125, 39.0625]);
        expect(spy).toHaveBeenCalledTimes(1);
      } finally {
        spy.mockRestore();
      }
    });

    it('policies do not share a phase', () => {
      const { random } = scripted([0, 0.5]);
      const a = phasedBinaryExponential({ random });
      const b = phasedBinaryExponential({ random });
      expect(a.next()).toBe(19.53125 / 2);
      expect(b.next()).toBe(19.53125 * 2 ** -0.5);
      expect(a.next()).toBe(39.0625 / 2);
      expect(b.next()).toBe(39.0625 * 2 ** -0.5);
      expect([a.phase, b.phase]).toEqual([0, 0.5]);
    });

    it('over many runs the first wait is a·2^(ψ−1), ψ uniform: median a/√2 ≈ 13.8 ms (at most 40 ms)', () => {
      const prng = createPrng('phased-binary-exponential: first wait');
      const policy = phasedBinaryExponential({ random: prng.next });
      const a = policy.baseDelay;
      const RUNS = 2001;
      const first: number[] = [];
      for (let run = 0; run < RUNS; run += 1) {
        first.push(policy.next());
        policy.next(); // the rest of the run reuses the phase
        policy.reset();
      }
      first.sort((x, y) => x - y);
      const quantile = (q: number) => first[Math.round(q * (RUNS - 1))] as number;
      expect(quantile(0.5)).toBeLessThanOrEqual(40);
      expect(first[0]).toBeGreaterThanOrEqual(a / 2);
      expect(first[RUNS - 1]).toBeLessThan(a);
      // log2(2·w/a) = ψ is uniform: its quartiles are 1/4, 1/2, 3/4 (within a few hundredths for 2001 runs)
      for (const q of [0.25, 0.5, 0.75]) {
        expect(Math.log2((2 * quantile(q)) / a)).toBeCloseTo(q, 1);
      }
      expect(quantile(0.5)).toBeCloseTo(a / Math.SQRT2, 0);
      // the runs really drew different phases, over the whole range
      expect(first[0]).toBeLessThan((a / 2) * 1.01);
      expect(first[RUNS - 1]).toBeGreaterThan(a * 0.99);
      expect(new Set(first).size).toBeGreaterThan(RUNS * 0.99);
    });
  });

  describe('the random source', () => {
    it.each([
      [Number.NaN, 'NaN'],
      [-0.1, '-0.1'],
      [1.5, '1.5'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      ['0.5', 'string "0.5"'],
      [undefined, 'undefined'],
    ])('next() throws a RangeError naming `random` when it returns %s', (value, shown) => {
      const policy = phasedBinaryExponential({ random: () => value as number });
      expectOptionError(() => policy.next(), RangeError, 'random', shown);
      expect(policy.attempt).toBe(0);
      expect(policy.phase).toBeUndefined();
    });

    it('gives the same RangeError message as truncatedBinaryExponential', () => {
      for (const value of [Number.NaN, -1, 2, 'x', null]) {
        const random = () => value as number;
        const phased = thrown(() => phasedBinaryExponential({ random }).next());
        const truncated = thrown(() => truncatedBinaryExponential({ random }).next());
        expect(phased.constructor).toBe(RangeError);
        expect(phased.message).toBe(truncated.message);
        expect((phased as { code?: unknown }).code).toBe('ERR_RS_INVALID_VALUE');
      }
    });

    it('a bad draw neither advances the policy nor fixes a phase: the next call draws again', () => {
      const { random } = scripted([Number.NaN, 0]);
      const policy = phasedBinaryExponential({ random });
      expect(() => policy.next()).toThrow(RangeError);
      expect(policy.attempt).toBe(0);
      expect(policy.phase).toBeUndefined();
      expect(policy.next()).toBe(9.765625);
      expect(policy.phase).toBe(0);
      expect(policy.attempt).toBe(1);
      expect(random).toHaveBeenCalledTimes(2);
    });

    it('propagates an exception thrown by random', () => {
      const policy = phasedBinaryExponential({
        random: () => {
          throw new Error('entropy exhausted');
        },
      });
      expect(() => policy.next()).toThrow('entropy exhausted');
      expect(policy.attempt).toBe(0);
      expect(policy.phase).toBeUndefined();
    });
  });
});
