import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BackoffPolicy,
  constant,
  decorrelatedJitter,
  equalJitter,
  exponential,
  fullJitter,
  MAX_TIMER_DELAY,
  phasedBinaryExponential,
  truncatedBinaryExponential,
} from '../../src/backoff/index.js';
import { ALMOST_ONE, scripted, take, windowOptionsArb } from './helpers.js';

const NUM_RUNS = 150;

/** A draw in [0, 1), with the two edges forced in often. */
const drawArb = fc.oneof(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.constantFrom(0, ALMOST_ONE));
const drawsArb = fc.array(drawArb, { minLength: 1, maxLength: 40 });

// Kept to normal doubles: with subnormal windows (< 2^-1022 ms) t/2 is not exact, and equal
// jitter can then round one ulp above its window (e.g. base 2.5e-323, cap 5.4e-323 gives 6e-323).
const baseArb = fc.double({ min: 1e-300, max: 1e6, noNaN: true });
/** `[base, cap]` with cap >= base, sometimes equal, sometimes far above the timer limit. */
const baseCapArb = baseArb.chain((base) =>
  fc.tuple(fc.constant(base), fc.oneof(fc.constant(base), fc.double({ min: base, max: 1e12, noNaN: true }))),
);

/** Exact `min(cap, base·2^attempt)` for the small attempt counts used here (< 1023). */
const windowOf = (base: number, cap: number, attempt: number): number => Math.min(cap, base * 2 ** attempt);

interface Run {
  first: number[];
  second: number[];
  calls: number;
  attemptAfter: number;
}

/** Feeds `draws` through `make`, resets, replays the same draws, and reports both sequences. */
function run(make: (random: () => number) => BackoffPolicy, draws: readonly number[]): Run {
  const { random, rewind } = scripted(draws);
  const policy = make(random);
  const first = take(policy, draws.length);
  const attemptAfter = policy.attempt;
  const calls = random.mock.calls.length;
  policy.reset();
  expect(policy.attempt).toBe(0);
  rewind();
  const second = take(policy, draws.length);
  return { first, second, calls, attemptAfter };
}

function expectSane(delays: readonly number[]): void {
  for (const delay of delays) {
    expect(Number.isNaN(delay)).toBe(false);
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThanOrEqual(MAX_TIMER_DELAY);
  }
}

describe('properties of every strategy under arbitrary valid options and draws', () => {
  it('truncatedBinaryExponential: 0 <= delay <= window(n), exactly draw·window, reset replays', () => {
    fc.assert(
      fc.property(windowOptionsArb(), drawsArb, ([maxDelay, ceiling], draws) => {
        const { first, second, calls, attemptAfter } = run(
          (random) => truncatedBinaryExponential({ maxDelay, ceiling, random }),
          draws,
        );
        expectSane(first);
        expect(calls).toBe(draws.length);
        expect(attemptAfter).toBe(draws.length);
        first.forEach((delay, i) => {
          const n = i + 1;
          const window = maxDelay * 2 ** (Math.min(n, ceiling) - ceiling);
          expect(delay).toBeLessThanOrEqual(Math.min(window, MAX_TIMER_DELAY));
          expect(delay).toBe(Math.min(MAX_TIMER_DELAY, (draws[i] as number) * window));
        });
        expect(second).toEqual(first);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('phasedBinaryExponential: one draw per run, 0 <= delay <= window(n), 2^(ψ−1)·window below N, T after, never decreasing, reset replays', () => {
    fc.assert(
      fc.property(windowOptionsArb(), drawsArb, ([maxDelay, ceiling], draws) => {
        const { first, second, calls, attemptAfter } = run(
          (random) => phasedBinaryExponential({ maxDelay, ceiling, random }),
          draws,
        );
        expectSane(first);
        // Unlike the other strategies, it draws once per run of failures (the phase ψ), not once
        // per delay: only draws[0] is used, before and after reset().
        expect(calls).toBe(1);
        expect(attemptAfter).toBe(draws.length);
        const psi = Math.min(draws[0] as number, ALMOST_ONE);
        first.forEach((delay, i) => {
          const n = i + 1;
          const window = maxDelay * 2 ** (Math.min(n, ceiling) - ceiling);
          expect(delay).toBeLessThanOrEqual(Math.min(window, MAX_TIMER_DELAY));
          if (n < ceiling) expect(delay).toBe(Math.min(MAX_TIMER_DELAY, 2 ** (psi - 1) * window));
          if (n > ceiling) expect(delay).toBe(Math.min(MAX_TIMER_DELAY, maxDelay));
          if (i > 0) expect(delay).toBeGreaterThanOrEqual(first[i - 1] as number);
        });
        expect(second).toEqual(first);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('fullJitter: 0 <= delay <= min(cap, base·2^attempt), reset replays', () => {
    fc.assert(
      fc.property(baseCapArb, drawsArb, ([base, cap], draws) => {
        const { first, second, calls } = run((random) => fullJitter({ base, cap, random }), draws);
        expectSane(first);
        expect(calls).toBe(draws.length);
        first.forEach((delay, i) => {
          const window = windowOf(base, cap, i);
          expect(delay).toBeLessThanOrEqual(Math.min(window, MAX_TIMER_DELAY));
          expect(delay).toBe(Math.min(MAX_TIMER_DELAY, (draws[i] as number) * window));
        });
        expect(second).toEqual(first);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('equalJitter: window/2 <= delay <= window (both clamped), reset replays', () => {
    fc.assert(
      fc.property(baseCapArb, drawsArb, ([base, cap], draws) => {
        const { first, second, calls } = run((random) => equalJitter({ base, cap, random }), draws);
        expectSane(first);
        expect(calls).toBe(draws.length);
        first.forEach((delay, i) => {
          const window = windowOf(base, cap, i);
          expect(delay).toBeGreaterThanOrEqual(Math.min(window / 2, MAX_TIMER_DELAY));
          expect(delay).toBeLessThanOrEqual(Math.min(window, MAX_TIMER_DELAY));
        });
        expect(second).toEqual(first);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('decorrelatedJitter: base <= delay <= min(cap, 3·prev), reset replays', () => {
    fc.assert(
      fc.property(baseCapArb, drawsArb, ([base, cap], draws) => {
        const { first, second, calls } = run((random) => decorrelatedJitter({ base, cap, random }), draws);
        expectSane(first);
        expect(calls).toBe(draws.length);
        let prev = base;
        first.forEach((delay, i) => {
          expect(delay).toBeGreaterThanOrEqual(base);
          expect(delay).toBeLessThanOrEqual(Math.min(cap, MAX_TIMER_DELAY));
          expect(delay).toBeLessThanOrEqual(Math.max(base, prev * 3));
          const expected = Math.min(MAX_TIMER_DELAY, cap, base + (draws[i] as number) * (prev * 3 - base));
          expect(delay).toBe(expected);
          prev = delay;
        });
        expect(second).toEqual(first);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('exponential: delay = min(cap, base·2^attempt) clamped, never draws, reset replays', () => {
    fc.assert(
      fc.property(baseCapArb, drawsArb, ([base, cap], draws) => {
        const { first, second, calls } = run((random) => exponential({ base, cap, random }), draws);
        expectSane(first);
        expect(calls).toBe(0);
        first.forEach((delay, i) => {
          expect(delay).toBe(Math.min(windowOf(base, cap, i), MAX_TIMER_DELAY));
        });
        expect(second).toEqual(first);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('constant: every delay = min(delay, MAX_TIMER_DELAY), never draws', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e12, noNaN: true }), drawsArb, (delay, draws) => {
        const { first, second, calls } = run((random) => constant({ delay, random }), draws);
        expectSane(first);
        expect(calls).toBe(0);
        expect(first).toEqual(Array(draws.length).fill(Math.min(delay, MAX_TIMER_DELAY)));
        expect(second).toEqual(first);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('windows never decrease for the attempt-based strategies (random = 1)', () => {
    fc.assert(
      fc.property(baseCapArb, fc.integer({ min: 1, max: 80 }), ([base, cap], count) => {
        for (const make of [fullJitter, equalJitter, exponential]) {
          const delays = take(make({ base, cap, random: () => 1 }), count);
          for (let i = 1; i < delays.length; i += 1) {
            expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1] as number);
          }
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
