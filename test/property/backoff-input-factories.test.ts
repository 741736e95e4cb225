/**
 * Arbitrary input thrown at the seven backoff factories. The only allowed outcomes are a working
 * policy with sane delays, or a TypeError / RangeError that names, in backticks, an option that
 * really was given a bad value (see the oracles below, restated from docs/guide/backoff.md "Edges"
 * section and the TSDoc of each option).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BackoffPolicy,
  type BackoffStrategyName,
  constant,
  decorrelatedJitter,
  equalJitter,
  exponential,
  fullJitter,
  MAX_TIMER_DELAY,
  phasedBinaryExponential,
  truncatedBinaryExponential,
} from '../../src/backoff/index.js';
import {
  anyNumber,
  anyValue,
  attempt,
  checkFunction,
  checkKnownKeys,
  checkNumber,
  checkWindows,
  expectNamed,
  expectOptionError,
  isOptionsObject,
  Problems,
  show,
} from './arbitraries.js';
import { NUM_RUNS, recordArb, setUpBackoffInput } from './backoff-helpers.js';

setUpBackoffInput();

/** How many delays to draw from every policy (twice: before and after reset()). */
const DRAWS = 20;
const ALMOST_ONE = 1 - Number.EPSILON;

// ─── generators ────────────────────────────────────────────────────────────────────────────

/** Positive finite numbers across the whole double range (valid `maxDelay`, `base`, `cap`). */
const positive = fc.oneof(
  fc.double({ min: 1e-3, max: 1e7, noNaN: true }),
  fc.double({ min: Number.MIN_VALUE, max: Number.MAX_VALUE, noNaN: true }),
  fc.constantFrom(Number.MIN_VALUE, 1, 100, 10_000, MAX_TIMER_DELAY, 2 ** 31, 1e300, Number.MAX_VALUE),
);
/** Valid `ceiling`s, including the absurd but legal ones. */
const ceilingArb = fc.oneof(
  fc.integer({ min: 1, max: 64 }),
  fc.constantFrom(1, 10, 1023, 1024, 5000, Number.MAX_SAFE_INTEGER, 1e300),
);
/** Valid `delay`s of constant(): finite and >= 0 (so -0 too). */
const delayArb = fc.oneof(
  fc.double({ min: 0, max: 1e7, noNaN: true }),
  fc.constantFrom(0, -0, MAX_TIMER_DELAY, 2 ** 31, Number.MAX_VALUE),
);

/** A random source returning `values` in turn (cycling). */
function cycling(values: readonly unknown[]): () => number {
  let i = 0;
  return () => values[i++ % values.length] as number;
}

/** Good random sources (draws in [0, 1]) and sources that return anything at all. */
const randomArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      Math.random,
      () => 0,
      () => ALMOST_ONE,
      () => 1,
      () => 0.5,
    ),
  },
  { weight: 3, arbitrary: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1 }).map(cycling) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), anyNumber, anyValue), { minLength: 1 })
      .map(cycling),
  },
  { weight: 1, arbitrary: fc.func(anyValue) },
  { weight: 1, arbitrary: anyValue },
);

// ─── oracles ───────────────────────────────────────────────────────────────────────────────

function baseCapProblems(o: Record<string, unknown>): Problems {
  const p = new Problems();
  checkNumber(p, 'base', o.base, { above: 0 });
  checkNumber(p, 'cap', o.cap, { above: 0 });
  checkFunction(p, 'random', o.random);
  if (!p.has('base', 'type') && !p.has('base', 'range') && !p.has('cap', 'type') && !p.has('cap', 'range')) {
    const base = o.base === undefined ? 100 : (o.base as number);
    const cap = o.cap === undefined ? 10_000 : (o.cap as number);
    // `cap` must be >= `base`; whichever of the two was given is to blame.
    if (cap < base) {
      if (o.cap !== undefined) p.add('cap', 'range');
      if (o.base !== undefined) p.add('base', 'range');
    }
  }
  return p;
}

interface FactorySpec {
  readonly name: string;
  readonly strategy: BackoffStrategyName;
  readonly make: (options: unknown) => BackoffPolicy;
  readonly fields: Record<string, fc.Arbitrary<unknown>>;
  readonly problems: (options: Record<string, unknown>) => Problems;
  /** Whether next() draws from `random` (once per delay); constant and exponential never do. */
  readonly draws: boolean;
  /**
   * Draws once per run instead (phasedBinaryExponential: one phase, on the first next() after
   * creation or reset(); later delays reuse it).
   */
  readonly drawsOncePerRun?: true;
}

const baseCapFields = { base: positive, cap: positive, random: randomArb };

const FACTORIES: readonly FactorySpec[] = [
  {
    name: 'truncatedBinaryExponential',
    strategy: 'truncated-binary-exponential',
    make: (o) => truncatedBinaryExponential(o as never),
    fields: { maxDelay: positive, ceiling: ceilingArb, random: randomArb },
    problems: (o) => {
      const p = new Problems();
      checkWindows(p, o.maxDelay, o.ceiling);
      checkFunction(p, 'random', o.random);
      return p;
    },
    draws: true,
  },
  {
    name: 'phasedBinaryExponential',
    strategy: 'phased-binary-exponential',
    make: (o) => phasedBinaryExponential(o as never),
    fields: { maxDelay: positive, ceiling: ceilingArb, random: randomArb },
    problems: (o) => {
      const p = new Problems();
      checkWindows(p, o.maxDelay, o.ceiling);
      checkFunction(p, 'random', o.random);
      return p;
    },
    draws: true,
    drawsOncePerRun: true,
  },
  {
    name: 'fullJitter',
    strategy: 'full-jitter',
    make: (o) => fullJitter(o as never),
    fields: baseCapFields,
    problems: baseCapProblems,
    draws: true,
  },
  {
    name: 'equalJitter',
    strategy: 'equal-jitter',
    make: (o) => equalJitter(o as never),
    fields: baseCapFields,
    problems: baseCapProblems,
    draws: true,
  },
  {
    name: 'decorrelatedJitter',
    strategy: 'decorrelated-jitter',
    make: (o) => decorrelatedJitter(o as never),
    fields: baseCapFields,
    problems: baseCapProblems,
    draws: true,
  },
  {
    name: 'exponential',
    strategy: 'exponential',
    make: (o) => exponential(o as never),
    fields: baseCapFields,
    problems: baseCapProblems,
    draws: false,
  },
  {
    name: 'constant',
    strategy: 'constant',
    make: (o) => constant(o as never),
    fields: { delay: delayArb, random: randomArb },
    problems: (o) => {
      const p = new Problems();
      checkNumber(p, 'delay', o.delay, { min: 0 });
      checkFunction(p, 'random', o.random);
      return p;
    },
    draws: false,
  },
];

/** Options for one factory: usually a record of its keys (each mostly valid), sometimes anything. */
function optionsArb(spec: FactorySpec): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 12, arbitrary: recordArb(spec.fields, 4, false) },
    { weight: 2, arbitrary: recordArb(spec.fields, 4, true) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: anyValue },
  );
}

// ─── factories ─────────────────────────────────────────────────────────────────────────────

describe('backoff factories under arbitrary options', () => {
  it.each(FACTORIES.map((spec) => [spec.name, spec] as const))(
    '%s: a policy with sane delays, or a TypeError/RangeError naming a bad option',
    (_name, spec) => {
      fc.assert(
        fc.property(optionsArb(spec), (options) => {
          let problems: Problems;
          if (options === undefined || isOptionsObject(options)) {
            problems = spec.problems(options ?? {});
            checkKnownKeys(problems, '', options ?? {}, Object.keys(spec.fields));
          } else {
            problems = new Problems();
            problems.add(`${spec.name} options`, 'type');
          }
          // (A huge decorrelated base once gave NaN here; now covered, see the regression test below.)

          // Watch the user's random source: every call, and whether it returned a bad draw.
          let calls = 0;
          let badDraw = false;
          let passed = options;
          if (isOptionsObject(options) && typeof options.random === 'function') {
            const user = options.random as () => unknown;
            passed = {
              ...options,
              random: () => {
                calls += 1;
                const r = user();
                if (!(typeof r === 'number' && r >= 0 && r <= 1)) badDraw = true;
                return r;
              },
            };
          }

          const made = attempt(() => spec.make(passed));
          if (!made.ok) {
            expect(problems.size, `threw ${show(made.error)} for options the oracle accepts`).toBeGreaterThan(0);
            expectOptionError(made.error, problems);
            return;
          }
          expect(problems.size, `accepted options with problems: ${problems}`).toBe(0);
          const policy = made.value;
          expect(policy.name).toBe(spec.strategy);
          expect(Object.isFrozen(policy)).toBe(true);

          const drawAll = (): void => {
            for (let i = 0; i < DRAWS; i++) {
              calls = 0;
              badDraw = false;
              const next = attempt(() => policy.next());
              if (spec.draws && typeof (passed as { random?: unknown } | undefined)?.random === 'function') {
                // A once-per-run strategy draws on the first delay of the run only (a bad draw throws
                // there and ends this run, so every later delay reuses a good phase).
                if (spec.drawsOncePerRun) expect(calls, 'random is called once per run').toBe(i === 0 ? 1 : 0);
                else expect(calls, 'random is called once per delay').toBe(1);
              }
              if (!spec.draws) expect(calls, `${spec.name} never calls random`).toBe(0);
              if (!next.ok) {
                // Only a bad draw may make next() throw, and then with a RangeError naming `random`.
                expect(badDraw, `next() threw ${show(next.error)} although every draw was valid`).toBe(true);
                expectNamed(next.error, RangeError, 'random');
                return;
              }
              expect(badDraw, `next() returned ${next.value} after a bad draw`).toBe(false);
              const delay = next.value;
              expect(typeof delay).toBe('number');
              expect(Number.isFinite(delay), `delay ${delay}`).toBe(true);
              expect(delay).toBeGreaterThanOrEqual(0);
              expect(delay).toBeLessThanOrEqual(MAX_TIMER_DELAY);
              expect(Object.is(delay, -0), 'never -0').toBe(false);
              expect(policy.attempt).toBe(i + 1);
            }
          };
          drawAll();
          policy.reset();
          expect(policy.attempt).toBe(0);
          drawAll();
        }),
        { numRuns: NUM_RUNS },
      );
    },
  );

  // Regression: was src/backoff/decorrelated-jitter.ts computes the first delay from `prev = base` (not
  // clamped) as `base + draw()·(prev·3 − base)`. For base > Number.MAX_VALUE / 3 (≈ 5.99e307; legal,
  // since `base` need only be finite and > 0, and `cap` >= base), `prev·3` is Infinity, and a draw of
  // exactly 0 (a valid draw; the docs suggest `() => 0` to pin a delay to a window's edge) gives
  // 0·Infinity = NaN. clampDelay then throws `RangeError: Backoff produced NaN; this is a bug in the
  // strategy` from next(), instead of returning base clamped to 2^31 − 1. Only the first delay after
  // creation/reset() is affected (later `prev`s are clamped).
  it('decorrelatedJitter with a huge base and a draw of 0 gives a sane first delay', () => {
    fc.assert(
      fc.property(
        fc.double({ min: Number.MAX_VALUE / 2, max: Number.MAX_VALUE, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (base, fraction) => {
          const cap = base + (Number.MAX_VALUE - base) * fraction;
          const policy = decorrelatedJitter({ base, cap, random: () => 0 });
          expect(policy.next()).toBe(MAX_TIMER_DELAY);
        },
      ),
      { numRuns: 20 },
    );
  });
});
