/**
 * phasedBinaryExponential under arbitrary valid options and phases: every wait within its window and
 * the timer limit, one draw per run, the separation of the (N−1)-th and N-th retries around T, and
 * the waits below the ceiling equal to truncatedBinaryExponential's at the phase's point.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  MAX_TIMER_DELAY,
  phasedBinaryExponential,
  truncatedBinaryExponential,
  truncatedWindow,
} from '../../src/backoff/index.js';
import { ALMOST_ONE, fraction, landing, sum, take, windowOptionsArb } from './helpers.js';

describe('phasedBinaryExponential', () => {
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
});
