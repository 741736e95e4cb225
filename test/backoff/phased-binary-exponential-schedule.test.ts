/**
 * phasedBinaryExponential's schedule: its defaults and derived properties, the waits `2^(ψ−1)·W_n`
 * below the ceiling, the N-th retry at `T·(1 + g(ψ))` and one per T after it, and the clamping of
 * waits to the timer limit.
 */
import { describe, expect, it } from 'vitest';
import {
  isBackoffPolicy,
  MAX_TIMER_DELAY,
  phasedBinaryExponential,
  TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS,
  truncatedBinaryExponential,
  truncatedWindow,
} from '../../src/backoff/index.js';
import { ALMOST_ONE, fraction, landing, scripted, sum, take } from './helpers.js';

/** The windows for T = 10 s, N = 10 (classic Ethernet truncation), n = 1 … 10. */
const WINDOWS_T10K_N10 = [19.53125, 39.0625, 78.125, 156.25, 312.5, 625, 1250, 2500, 5000, 10_000];

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
});
