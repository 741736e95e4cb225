import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPrng } from '../../bench/lib/prng.js';
import {
  isBackoffPolicy,
  MAX_TIMER_DELAY,
  type PhasedBinaryExponentialPolicy,
  phasedBinaryExponential,
  retry,
  TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS,
  truncatedBinaryExponential,
  truncatedWindow,
} from '../../src/backoff/index.js';
import {
  advance,
  cleanup,
  createSocket,
  MOCK_DELAY,
  openSocket,
  record,
  startServer,
  uniqueUrl,
} from '../full/helpers.js';
import {
  ALMOST_ONE,
  expectOptionError,
  expectUnknownOption,
  scripted,
  take,
  windowOptionsArb,
  windowValidationCases,
} from './helpers.js';

/** The windows for T = 10 s, N = 10 (classic Ethernet truncation), n = 1 … 10. */
const WINDOWS_T10K_N10 = [19.53125, 39.0625, 78.125, 156.25, 312.5, 625, 1250, 2500, 5000, 10_000];

/** The point of every window a phase ψ waits at: `2^(ψ−1)`, in [1/2, 1) (ψ = 1 counts as 1 − ε). */
const fraction = (psi: number): number => 2 ** (Math.min(psi, ALMOST_ONE) - 1);

/**
 * Where in the period `[0, T)` the N-th retry lands, as a fraction of T: `g(ψ) = (ψ + 2^ψ − 1)/2`,
 * in [0, 1) (ψ = 1 counts as 1 − ε). Restated from the design, not imported.
 */
const landing = (psi: number): number => {
  const p = Math.min(psi, ALMOST_ONE);
  return (p + 2 ** p - 1) / 2;
};

/** The sum of `waits`, added in order. */
const sum = (waits: readonly number[]): number => waits.reduce((total, wait) => total + wait, 0);

/** Runs `fn` and returns what it threw (failing if it returned). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to throw, but it returned');
}

describe('phasedBinaryExponential', () => {
  describe('defaults and descriptive properties', () => {
    it('uses T = 10 s, N = 10 when called without options, with {} or with undefined values', () => {
      const policies = [
        phasedBinaryExponential(),
        phasedBinaryExponential({}),
        // undefined means the default, as a JavaScript caller may pass it (exactOptionalPropertyTypes forbids it in TS)
        phasedBinaryExponential({ maxDelay: undefined, ceiling: undefined, random: undefined } as never),
      ];
      for (const policy of policies) {
        expect(policy.name).toBe('phased-binary-exponential');
        expect(policy.maxDelay).toBe(TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS.maxDelay);
        expect(policy.ceiling).toBe(TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS.ceiling);
        expect(policy.baseDelay).toBe(19.53125);
        expect(policy.attempt).toBe(0);
        expect(policy.phase).toBeUndefined();
      }
    });

    it('derives baseDelay = T / 2^(N-1), the same as truncatedBinaryExponential', () => {
      for (const [maxDelay, ceiling, baseDelay] of [
        [1000, 3, 250],
        [1000, 1, 1000],
        [64, 7, 1],
        [5120, 10, 10],
      ] as const) {
        const policy = phasedBinaryExponential({ maxDelay, ceiling });
        expect(policy.maxDelay).toBe(maxDelay);
        expect(policy.ceiling).toBe(ceiling);
        expect(policy.baseDelay).toBe(baseDelay);
        expect(policy.baseDelay).toBe(truncatedBinaryExponential({ maxDelay, ceiling }).baseDelay);
      }
    });

    it('keeps a partially specified option set on the other default', () => {
      const onlyT = phasedBinaryExponential({ maxDelay: 5120 });
      expect([onlyT.maxDelay, onlyT.ceiling, onlyT.baseDelay]).toEqual([5120, 10, 10]);
      const onlyN = phasedBinaryExponential({ ceiling: 2 });
      expect([onlyN.maxDelay, onlyN.ceiling, onlyN.baseDelay]).toEqual([10_000, 2, 5000]);
    });

    it('is a backoff policy', () => {
      expect(isBackoffPolicy(phasedBinaryExponential())).toBe(true);
    });
  });

  describe('the schedule: 2^(ψ−1)·W_n below the ceiling, the N-th retry at T·(1 + g(ψ)), then one per T', () => {
    it('ψ = 0 waits half of every default window below the ceiling, then up to T exactly, then 10 s', () => {
      const policy = phasedBinaryExponential({ random: () => 0 });
      const waits = take(policy, 13);
      // S_9 = (T − a)/2 = 4990.234375; g(0) = 0, so the 10th wait brings the 10th retry to T·(1 + 0)
      expect(waits).toEqual([...WINDOWS_T10K_N10.slice(0, 9).map((w) => w / 2), 5009.765625, 10_000, 10_000, 10_000]);
      expect(sum(waits.slice(0, 9))).toBe(4990.234375);
      expect(sum(waits.slice(0, 10))).toBe(10_000);
      expect(sum(waits.slice(0, 13))).toBe(40_000);
    });

    it('one scripted phase sets the point in every window (a second draw would exhaust the script)', () => {
      const { random } = scripted([0]);
      const policy = phasedBinaryExponential({ maxDelay: 1000, ceiling: 3, random });
      // windows 250, 500: 125, 250 (375 ms so far), 625 to reach T·(1 + g(0)) = 1000, then 1000 each
      expect(take(policy, 7)).toEqual([125, 250, 625, 1000, 1000, 1000, 1000]);
      expect(policy.phase).toBe(0);
      expect(random).toHaveBeenCalledTimes(1);
    });

    it('waits exactly 2^(ψ−1)·truncatedWindow(T, N, n) for n < N: the same point of every window', () => {
      for (const psi of [0, 0.1, 0.3, 0.5, 0.7, 0.9, ALMOST_ONE, 1]) {
        for (const [maxDelay, ceiling] of [
          [10_000, 10],
          [30_000, 5],
          [777, 4],
          [5, 2],
          [1, 1],
        ] as const) {
          const policy = phasedBinaryExponential({ maxDelay, ceiling, random: () => psi });
          const waits = take(policy, ceiling + 2);
          waits.slice(0, ceiling - 1).forEach((wait, i) => {
            const window = truncatedWindow(maxDelay, ceiling, i + 1);
            expect(wait).toBe(fraction(psi) * window);
            expect(wait).toBeGreaterThanOrEqual(window / 2);
            expect(wait).toBeLessThan(window);
          });
          // the N-th: up to T·(j + g(ψ)) (j = 1 for N > 1, 0 for N = 1), at most T; then T
          const before = sum(waits.slice(0, ceiling - 1));
          const target = maxDelay * ((ceiling > 1 ? 1 : 0) + landing(psi));
          expect(waits[ceiling - 1]).toBe(Math.min(maxDelay, target - before));
          expect(waits.slice(ceiling)).toEqual([maxDelay, maxDelay]);
        }
      }
    });

    it('ψ = 0.5: waits W_n/√2, the N-th retry at T·(1 + g(0.5)) = (750 + 500·√2) ms, then every T', () => {
      const policy = phasedBinaryExponential({ maxDelay: 1000, ceiling: 3, random: () => 0.5 });
      const waits = take(policy, 6);
      expect(waits.slice(0, 2)).toEqual([250 * 2 ** -0.5, 500 * 2 ** -0.5]);
      expect(waits[0]).toBeCloseTo(176.7767, 4);
      // g(0.5) = (√2 − 1/2)/2; S_2 = 750/√2; 1000·(1 + g) − S_2 = 750 + 125·√2 ≈ 926.78 (below T: not clamped)
      expect(waits[2]).toBeCloseTo(750 + 125 * Math.SQRT2, 9);
      expect(waits[2]).toBeLessThan(1000);
      expect(sum(waits.slice(0, 3))).toBeCloseTo(750 + 500 * Math.SQRT2, 9); // ≈ 1457.11
      expect(waits.slice(3)).toEqual([1000, 1000, 1000]);
    });

    it('ψ = 1 − ε stays just below each window, then the N-th wait is clamped to T, then T', () => {
      const policy = phasedBinaryExponential({ random: () => ALMOST_ONE });
      const waits = take(policy, 13);
      waits.slice(0, 9).forEach((wait, i) => {
        const window = WINDOWS_T10K_N10[i] as number;
        expect(wait).toBeLessThan(window);
        expect(wait).toBeGreaterThan(window * (1 - 1e-12));
      });
      // S_9 ≈ T − a = 9980.47; T·(1 + g(1 − ε)) − S_9 ≈ 2T − (T − a) = T + a exceeds the window T
      expect(sum(waits.slice(0, 9))).toBeCloseTo(10_000 - 19.53125, 6);
      expect(waits.slice(9)).toEqual([10_000, 10_000, 10_000, 10_000]);
      // so the 10th retry comes at S_9 + T ≈ 2T − a, a little before T·(1 + g) ≈ 2T
      expect(sum(waits.slice(0, 10))).toBeCloseTo(20_000 - 19.53125, 6);
    });

    it('a draw of 1 (tolerated) is the phase, and waits as 1 − ε', () => {
      const one = phasedBinaryExponential({ random: () => 1 });
      const almost = phasedBinaryExponential({ random: () => ALMOST_ONE });
      expect(take(one, 13)).toEqual(take(almost, 13));
      expect(one.phase).toBe(1);
      expect(almost.phase).toBe(ALMOST_ONE);
    });

    it('the N-th wait is in [T − S_(N−1), T], so the N-th retry is after T, and every retry after it one per T', () => {
      const T = 10_000;
      const a = 19.53125;
      for (const psi of [0, 0.01, 0.25, 0.5288, 0.75, 0.99, ALMOST_ONE]) {
        const waits = take(phasedBinaryExponential({ random: () => psi }), 14);
        const before = sum(waits.slice(0, 9)); // S_9, the 9th retry
        expect(before).toBeCloseTo(fraction(psi) * (T - a), 6);
        expect(before).toBeLessThan(T);
        const wait = waits[9] as number;
        expect(wait).toBeGreaterThanOrEqual(T - before);
        expect(wait).toBeLessThanOrEqual(T);
        // the retries from the ceiling on come at T·(m + g(ψ)), m = 1, 2, 3, 4, 5; for ψ = 1 − ε the
        // N-th wait is clamped to T (g ≈ 1 would need T + a) and they come at S_9 + m·T instead
        const clamped = psi === ALMOST_ONE;
        expect(wait === T).toBe(clamped);
        let time = before;
        for (let m = 1; m <= 5; m += 1) {
          time += waits[8 + m] as number;
          expect(time).toBeCloseTo(clamped ? before + m * T : T * (m + landing(psi)), 6);
        }
      }
    });

    it('with N = 1: the first wait is T·g(ψ) (the retry lands at T·g(ψ)), then T', () => {
      expect(take(phasedBinaryExponential({ maxDelay: 400, ceiling: 1, random: () => 0 }), 4)).toEqual([
        0, 400, 400, 400,
      ]);
      const waits = take(phasedBinaryExponential({ maxDelay: 400, ceiling: 1, random: () => 0.5 }), 4);
      expect(waits[0]).toBe(400 * landing(0.5));
      expect(waits[0]).toBeCloseTo(200 * Math.SQRT2 - 100, 9); // 400·(√2 − 1/2)/2 ≈ 182.84
      expect(waits.slice(1)).toEqual([400, 400, 400]);
      const top = take(phasedBinaryExponential({ maxDelay: 400, ceiling: 1, random: () => 1 }), 3);
      expect(top[0]).toBeLessThan(400);
      expect(top[0]).toBeGreaterThan(400 * (1 - 1e-12));
      expect(top.slice(1)).toEqual([400, 400]);
    });

    it('stays finite and equal to T over 1_100 attempts', () => {
      const policy = phasedBinaryExponential({ random: () => 0.5 });
      const waits = take(policy, 1_100);
      expect(waits.every(Number.isFinite)).toBe(true);
      expect(waits.slice(10).every((wait) => wait === 10_000)).toBe(true);
      expect(policy.attempt).toBe(1_100);
    });

    it('the largest ceiling a maxDelay allows starts at 1 ms or more (the underflow to 0 is refused)', () => {
      // T = 10 s takes N = 14 at most: a = 10_000 / 2^13 ≈ 1.22 ms; the first wait is 2^(ψ−1)·a.
      const policy = phasedBinaryExponential({ maxDelay: 10_000, ceiling: 14, random: () => ALMOST_ONE });
      expect(policy.baseDelay).toBe(10_000 / 2 ** 13);
      const waits = take(policy, 50);
      expect(waits[0]).toBeCloseTo(10_000 / 2 ** 13, 9);
      for (const wait of waits) expect(wait).toBeGreaterThan(1.2);
      expect(() => phasedBinaryExponential({ maxDelay: 10_000, ceiling: 5000 })).toThrow(RangeError);
      expect(() => phasedBinaryExponential({ ceiling: Number.MAX_SAFE_INTEGER })).toThrow(RangeError);
    });
  });

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

  describe('the timer limit', () => {
    it('clamps waits to MAX_TIMER_DELAY when maxDelay exceeds 2^31 - 1', () => {
      expect(MAX_TIMER_DELAY).toBe(2_147_483_647);
      const policy = phasedBinaryExponential({ maxDelay: 2 ** 40, ceiling: 2, random: () => 0 });
      expect(policy.maxDelay).toBe(2 ** 40);
      // 2^38, 2^39, then up to T = 2^40: all above the timer limit
      expect(take(policy, 5)).toEqual(Array(5).fill(MAX_TIMER_DELAY));
    });

    it('clamps only the waits above the limit', () => {
      // windows 2^29 … 2^40 (N = 12): ψ = 0 waits 2^28 … 2^39; those from 2^31 on are clamped
      const policy = phasedBinaryExponential({ maxDelay: 2 ** 40, ceiling: 12, random: () => 0 });
      const waits = take(policy, 14);
      expect(waits.slice(0, 3)).toEqual([2 ** 28, 2 ** 29, 2 ** 30]);
      expect(waits.slice(3)).toEqual(Array(11).fill(MAX_TIMER_DELAY));
    });

    it('does not clamp a wait just below the timer limit', () => {
      const policy = phasedBinaryExponential({ maxDelay: 2 ** 31, ceiling: 2, random: () => 0 });
      // 2^29, then 3·2^29 more to reach T·(1 + g(0)) = 2^31, then T = 2^31 (clamped)
      expect(take(policy, 3)).toEqual([2 ** 29, 3 * 2 ** 29, MAX_TIMER_DELAY]);
      // N = 1, ψ = 0.999: T·g(ψ) ≈ 0.9988·2^31, 0.12 % below the limit
      const near = take(phasedBinaryExponential({ maxDelay: 2 ** 31, ceiling: 1, random: () => 0.999 }), 2);
      expect(near[0]).toBe(2 ** 31 * landing(0.999));
      expect(near[0]).toBeLessThan(MAX_TIMER_DELAY);
      expect(near[0]).toBeGreaterThan(0.998 * MAX_TIMER_DELAY);
      expect(near[1]).toBe(MAX_TIMER_DELAY);
    });
  });

  describe('properties under arbitrary valid options', () => {
    const phaseArb = fc.oneof(
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      fc.constantFrom(0, 0.5288, ALMOST_ONE, 1),
    );

    it('0 <= wait <= W_n and <= min(maxDelay, MAX_TIMER_DELAY); one draw per run; reset replays the phase', () => {
      fc.assert(
        fc.property(
          windowOptionsArb(),
          phaseArb,
          fc.integer({ min: 1, max: 80 }),
          ([maxDelay, ceiling], phase, count) => {
            const random = vi.fn(() => phase);
            const policy = phasedBinaryExponential({ maxDelay, ceiling, random });
            const waits = take(policy, count);
            expect(random).toHaveBeenCalledTimes(1);
            expect(policy.attempt).toBe(count);
            expect(policy.phase).toBe(phase);
            waits.forEach((wait, i) => {
              const window = truncatedWindow(maxDelay, ceiling, i + 1);
              expect(Number.isNaN(wait)).toBe(false);
              expect(wait).toBeGreaterThanOrEqual(0);
              expect(wait).toBeLessThanOrEqual(Math.min(window, MAX_TIMER_DELAY));
              expect(wait).toBeLessThanOrEqual(maxDelay);
              if (i >= ceiling) expect(wait).toBe(Math.min(maxDelay, MAX_TIMER_DELAY));
            });
            // after reset(): a second draw, and the same phase replays the same waits
            policy.reset();
            expect(policy.phase).toBeUndefined();
            expect(take(policy, count)).toEqual(waits);
            expect(random).toHaveBeenCalledTimes(2);
          },
        ),
        { numRuns: 200 },
      );
    });

    it('below the timer limit: the first N − 1 waits double from 2^(ψ−1)·a, the N-th retry lands at T·(j + g(ψ)) or S_(N−1) + T', () => {
      fc.assert(
        fc.property(
          windowOptionsArb({ maxCeiling: 31, maxDelay: MAX_TIMER_DELAY }),
          phaseArb,
          ([maxDelay, ceiling], phase) => {
            const policy = phasedBinaryExponential({ maxDelay, ceiling, random: () => phase });
            const waits = take(policy, ceiling + 3);
            if (ceiling > 1) expect(waits[0]).toBe(fraction(phase) * policy.baseDelay);
            for (let i = 1; i < ceiling - 1; i += 1) expect(waits[i]).toBe(2 * (waits[i - 1] as number));
            const before = sum(waits.slice(0, ceiling - 1)); // S_(N−1), the (N−1)-th retry
            const reached = sum(waits.slice(0, ceiling)); // the N-th retry
            const tolerance = maxDelay * 1e-12;
            if (ceiling === 1) {
              expect(Math.abs(reached - maxDelay * landing(phase))).toBeLessThanOrEqual(tolerance);
            } else {
              // S_(N−1) = 2^(ψ−1)·(T − a), a = T/2^(N−1); the N-th wait is at most T (its window)
              const elapsed = fraction(phase) * (maxDelay - maxDelay * 2 ** (1 - ceiling));
              expect(Math.abs(before - elapsed)).toBeLessThanOrEqual(tolerance);
              const expected = Math.min(elapsed + maxDelay, maxDelay * (1 + landing(phase)));
              expect(Math.abs(reached - expected)).toBeLessThanOrEqual(tolerance);
              // the separation the design rests on: every (N−1)-th retry (and so every earlier one) is
              // at or before T, every N-th at or after T (up to one rounding of the sum: g(0) = 0 lands
              // exactly on T, and S_(N−1) + (T − S_(N−1)) can round one ulp below it)
              expect(before).toBeLessThanOrEqual(maxDelay);
              expect(reached).toBeGreaterThanOrEqual(maxDelay - maxDelay * Number.EPSILON);
            }
            expect(waits[ceiling - 1]).toBeGreaterThanOrEqual(0);
            expect(waits[ceiling - 1]).toBeLessThanOrEqual(maxDelay);
            // the retries after the N-th are exactly T apart
            expect(waits.slice(ceiling)).toEqual([maxDelay, maxDelay, maxDelay]);
          },
        ),
        { numRuns: 200 },
      );
    });

    it('below the ceiling, the waits are those of truncatedBinaryExponential with every draw = 2^(ψ−1)', () => {
      fc.assert(
        fc.property(
          windowOptionsArb({ minCeiling: 2, maxCeiling: 20, maxDelay: 1e9 }),
          phaseArb,
          ([maxDelay, ceiling], phase) => {
            const count = ceiling - 1;
            const phased = take(phasedBinaryExponential({ maxDelay, ceiling, random: () => phase }), count);
            const draw = fraction(phase);
            const truncated = take(truncatedBinaryExponential({ maxDelay, ceiling, random: () => draw }), count);
            expect(phased).toEqual(truncated);
          },
        ),
        { numRuns: 200 },
      );
    });
  });

  describe('frozen', () => {
    it('cannot be modified', () => {
      const policy = phasedBinaryExponential({ random: () => 0 });
      expect(Object.isFrozen(policy)).toBe(true);
      const writable = policy as unknown as Record<string, unknown>;
      expect(() => {
        writable.maxDelay = 1;
      }).toThrow(TypeError);
      expect(() => {
        writable.ceiling = 1;
      }).toThrow(TypeError);
      expect(() => {
        writable.baseDelay = 1;
      }).toThrow(TypeError);
      expect(() => {
        writable.name = 'full-jitter';
      }).toThrow(TypeError);
      expect(() => {
        writable.phase = 0.9;
      }).toThrow(TypeError);
      expect(() => {
        writable.attempt = 5;
      }).toThrow(TypeError);
      expect(() => {
        writable.next = () => 0;
      }).toThrow(TypeError);
      expect(() => {
        writable.extra = true;
      }).toThrow(TypeError);
      expect(() => delete writable.maxDelay).toThrow(TypeError);
      expect([policy.maxDelay, policy.ceiling, policy.baseDelay, policy.name]).toEqual([
        10_000,
        10,
        19.53125,
        'phased-binary-exponential',
      ]);
      // and it still works, with its state behind the frozen surface
      expect(take(policy, 2)).toEqual([9.765625, 19.53125]);
      expect(policy.phase).toBe(0);
      expect(policy.attempt).toBe(2);
    });
  });

  describe('validation (as truncatedBinaryExponential)', () => {
    windowValidationCases('phasedBinaryExponential', phasedBinaryExponential);

    it('throws the same error type and message as truncatedBinaryExponential, up to the factory name', () => {
      const bad: unknown[] = [
        null,
        [],
        7,
        { maxDelay: 0 },
        { maxDelay: '1' },
        { ceiling: 0 },
        { ceiling: 2.5 },
        { ceiling: '3' },
        { random: 1 },
        { random: null },
        { maxDelays: 1 },
        { base: 1 },
        { maxDelay: -1, ceiling: 0, random: 5 }, // the first problem is reported, in the same order
        { maxDelay: 'x', zzzz: undefined },
      ];
      for (const options of bad) {
        const phased = thrown(() => phasedBinaryExponential(options as never));
        const truncated = thrown(() => truncatedBinaryExponential(options as never));
        expect(phased.constructor).toBe(truncated.constructor);
        expect((phased as { code?: unknown }).code).toBe((truncated as { code?: unknown }).code);
        expect(phased.message).toBe(
          truncated.message.replaceAll('truncatedBinaryExponential', 'phasedBinaryExponential'),
        );
      }
    });

    it('accepts the smallest valid values', () => {
      const policy = phasedBinaryExponential({ maxDelay: 1, ceiling: 1, random: () => 1 });
      // N = 1: the first retry lands at T·g(ψ) (ψ capped just below 1), then one per T.
      const [first, second] = take(policy, 2);
      expect(first).toBeCloseTo(1, 12);
      expect(first).toBeLessThanOrEqual(1);
      expect(second).toBe(1);
    });
  });

  describe('unknown options', () => {
    it('a misspelt option is a TypeError that suggests the right one', () => {
      expectUnknownOption(
        () => phasedBinaryExponential({ maxDelays: 1 } as never),
        'maxDelays',
        'Unknown option `maxDelays`: did you mean `maxDelay`?',
      );
      expectUnknownOption(
        () => phasedBinaryExponential({ celing: 3 } as never),
        'celing',
        'Unknown option `celing`: did you mean `ceiling`?',
      );
    });

    it('an option of another strategy is a TypeError that lists its options', () => {
      expectUnknownOption(
        () => phasedBinaryExponential({ base: 1 } as never),
        'base',
        'Unknown option `base`: the options of phasedBinaryExponential() are `maxDelay`, `ceiling`, `random`',
      );
    });

    it('is checked before the values, and an unknown key with an undefined value counts', () => {
      expectUnknownOption(
        () => phasedBinaryExponential({ maxDelay: 'not a number', zzzz: undefined } as never),
        'zzzz',
        /^Unknown option `zzzz`/,
      );
    });

    it('ignores symbol keys and inherited properties', () => {
      expect(() => phasedBinaryExponential({ [Symbol('x')]: 1 } as never)).not.toThrow();
      expect(() => phasedBinaryExponential(Object.create({ zzzz: 1 }) as never)).not.toThrow();
    });
  });
});

describe('phasedBinaryExponential as the socket backoff', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(cleanup);

  it('the reconnect delays are 0.5·W_n with random 0 (defaults)', async () => {
    const socket = createSocket(uniqueUrl(), { backoff: () => phasedBinaryExponential({ random: () => 0 }) });
    const log = record(socket);
    await advance(2000);
    const reconnecting = log.of('reconnecting');
    expect(reconnecting.length).toBeGreaterThanOrEqual(6);
    reconnecting.forEach(({ attempt, delay }, i) => {
      expect(attempt).toBe(i + 2);
      expect(delay).toBe(0.5 * truncatedWindow(10_000, 10, i + 1));
    });
    expect(reconnecting.slice(0, 3).map((r) => r.delay)).toEqual([9.765625, 19.53125, 39.0625]);
  });

  it('the reconnect delays are 2^(ψ−1)·W_n with random ψ = 0.5', async () => {
    const socket = createSocket(uniqueUrl(), { backoff: () => phasedBinaryExponential({ random: () => 0.5 }) });
    const log = record(socket);
    await advance(2000);
    const delays = log.of('reconnecting').map((r) => r.delay);
    expect(delays.length).toBeGreaterThanOrEqual(6);
    delays.forEach((delay, i) => {
      expect(delay).toBe(2 ** -0.5 * truncatedWindow(10_000, 10, i + 1));
    });
  });

  it('one phase for the whole run of failures, then T, and a new phase after the stable reset', async () => {
    const url = uniqueUrl();
    const { random } = scripted([0, 0.5]);
    let policy: PhasedBinaryExponentialPolicy | undefined;
    const socket = createSocket(url, {
      backoff: () => {
        policy = phasedBinaryExponential({ maxDelay: 100, ceiling: 3, random });
        return policy;
      },
      stableAfter: 50,
    });
    const log = record(socket);
    // no server: failures at ~4, ~20.5, ~49.5, ~116 ms (mock-socket fails 4 ms after each attempt)
    await advance(150);
    // windows 25, 50 at ψ = 0: 12.5, 25; 62.5 more to reach T·(1 + g(0)) = 100; then T
    expect(log.of('reconnecting').map((r) => r.delay)).toEqual([12.5, 25, 62.5, 100]);
    expect(random).toHaveBeenCalledTimes(1);
    expect(policy?.phase).toBe(0);

    const server = startServer(url); // the retry at ~216 ms opens; stable 50 ms later
    await advance(150);
    expect(socket.state).toBe('open');
    expect(log.names()).toContain('stable');
    expect(policy?.phase).toBeUndefined();
    expect(policy?.attempt).toBe(0);
    expect(random).toHaveBeenCalledTimes(1);

    log.clear();
    server.closeLast(1011);
    await advance(MOCK_DELAY);
    expect(log.of('reconnecting')).toEqual([{ attempt: 1, delay: 2 ** -0.5 * 25 }]);
    expect(random).toHaveBeenCalledTimes(2);
    expect(policy?.phase).toBe(0.5);
  });

  it('a server-side drop retries after 2^(ψ−1)·a', async () => {
    const { server, log } = await openSocket({ backoff: () => phasedBinaryExponential({ random: () => 0.75 }) });
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    expect(log.of('reconnecting')).toEqual([{ attempt: 2, delay: 2 ** -0.25 * 19.53125 }]);
  });
});

describe('phasedBinaryExponential with retry()', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
  });

  it('waits 2^(ψ−1)·W_n between attempts, reaches T·(1 + g(ψ)), then T; one draw per retry() call', async () => {
    const random = vi.fn(() => 0);
    const delays: number[] = [];
    const fn = vi.fn(async (attempt: number) => {
      throw new Error(`fail ${attempt}`);
    });
    const settled = retry(fn, {
      maxAttempts: 5,
      backoff: () => phasedBinaryExponential({ maxDelay: 100, ceiling: 2, random }),
      onRetry: ({ delay }) => {
        delays.push(delay);
      },
    }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1000);
    expect(((await settled) as Error).message).toBe('fail 5');
    // window 50 at ψ = 0: 25; 75 more to reach T·(1 + g(0)) = 100; then T
    expect(delays).toEqual([25, 75, 100, 100]);
    expect(fn).toHaveBeenCalledTimes(5);
    expect(random).toHaveBeenCalledTimes(1);
  });

  it('a policy object reused across retry() calls draws a new phase for each call (retry resets it)', async () => {
    const { random } = scripted([0, 0.5]);
    const policy = phasedBinaryExponential({ maxDelay: 100, ceiling: 2, random });
    const runs: number[][] = [];
    for (let call = 0; call < 2; call += 1) {
      const delays: number[] = [];
      const settled = retry(
        async () => {
          throw new Error('no');
        },
        { maxAttempts: 3, backoff: policy, onRetry: ({ delay }) => void delays.push(delay) },
      ).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(1000);
      expect(((await settled) as Error).message).toBe('no');
      runs.push(delays);
    }
    // ψ = 0: 25, then 75 to reach T; ψ = 0.5: 50/√2, then T·(1 + g(0.5)) − 50/√2 ≈ 110.4 clamped to T
    expect(runs).toEqual([
      [25, 75],
      [2 ** -0.5 * 50, 100],
    ]);
    expect(random).toHaveBeenCalledTimes(2);
  });
});
