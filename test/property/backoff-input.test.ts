/**
 * Arbitrary input thrown at the seven backoff factories and at retry(). The only allowed outcomes
 * are a working policy / result, or a TypeError / RangeError that names, in backticks, an option
 * that really was given a bad value (see the oracles below, restated from docs/guide/backoff.md "Edges"
 * section and the TSDoc of each option).
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
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
  retry,
  truncatedBinaryExponential,
} from '../../src/backoff/index.js';
import {
  anyNumber,
  anything,
  anyValue,
  attempt,
  CLOCK_SHAPE,
  checkBoolean,
  checkFunction,
  checkKnownKeys,
  checkNumber,
  checkShape,
  checkWindows,
  expectNamed,
  expectOptionError,
  globalClock,
  isOptionsObject,
  mostlyValid,
  Problems,
  SIGNAL_SHAPE,
  show,
  unhandledTracker,
  validBackoff,
} from './arbitraries.js';

const NUM_RUNS = 200;
// A failing property shrinks its counterexample, which can take longer than the default 5 s;
// a timeout would hide the counterexample (and leave the run going in the background).
vi.setConfig({ testTimeout: 60_000 });
/** How many delays to draw from every policy (twice: before and after reset()). */
const DRAWS = 20;
const ALMOST_ONE = 1 - Number.EPSILON;

const tracker = unhandledTracker();
beforeAll(() => tracker.install());
afterAll(() => tracker.uninstall());
afterEach(async () => {
  expect(await tracker.take()).toEqual([]);
});

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

/**
 * Keys an options object must not have: a known key misspelt (another case, a letter dropped,
 * doubled or swapped with the next, as typos go), or any string at all.
 */
function unknownKeyArb(known: readonly string[]): fc.Arbitrary<string> {
  const misspelt = fc
    .tuple(fc.constantFrom(...known), fc.nat(), fc.constantFrom('case', 'drop', 'double', 'swap'))
    .map(([key, at, typo]) => {
      const i = at % key.length;
      switch (typo) {
        case 'case':
          return key.toUpperCase();
        case 'drop':
          return key.slice(0, i) + key.slice(i + 1);
        case 'double':
          return key.slice(0, i) + key[i] + key.slice(i);
        default:
          return key.slice(0, i) + key.slice(i + 1, i + 2) + key.slice(i, i + 1) + key.slice(i + 2);
      }
    });
  return fc.oneof(misspelt, fc.string({ maxLength: 12 })).filter((key) => !known.includes(key));
}

/**
 * An options record: each known key absent or mostly valid; with `extra`, one or two keys that are
 * not options on top (so the unknown-option check meets the value checks).
 */
function recordArb(fields: Record<string, fc.Arbitrary<unknown>>, validWeight: number, extra: boolean) {
  const record = fc.record(
    mapValues(fields, (valid) => mostlyValid(valid, validWeight)),
    { requiredKeys: [] },
  );
  if (!extra) return record;
  const known = Object.keys(fields);
  return fc
    .tuple(record, fc.dictionary(unknownKeyArb(known), anyValue, { minKeys: 1, maxKeys: 2 }))
    .map(([options, unknown]) => ({ ...unknown, ...options }));
}

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

  // Regression (fixed in src): was src/backoff/decorrelated-jitter.ts computes the first delay from `prev = base` (not
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

// ─── retry ─────────────────────────────────────────────────────────────────────────────────

const retryFields: Record<string, fc.Arbitrary<unknown>> = {
  backoff: fc.oneof(
    validBackoff,
    fc.record({ next: fc.func(anyNumber), reset: fc.func(anything) }),
    // A factory returning something that is not a policy.
    fc.func(anyValue),
  ),
  maxAttempts: fc.oneof(
    fc.integer({ min: 1, max: 1_000_000 }),
    fc.constantFrom(1, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER),
  ),
  retryIf: fc.func(anything),
  onRetry: fc.func(anything),
  signal: fc.oneof(
    fc.constant(null).map(() => new AbortController().signal),
    anything.map((reason) => AbortSignal.abort(reason)),
    fc.record({
      aborted: fc.boolean(),
      reason: anything,
      addEventListener: fc.func(fc.constant(undefined)),
      removeEventListener: fc.func(fc.constant(undefined)),
    }),
    // Duck-typed without removeEventListener: retry() needs it, so this is a bad `signal`.
    fc.record({ aborted: fc.boolean(), addEventListener: fc.func(fc.constant(undefined)) }),
  ),
  unref: fc.boolean(),
  clock: fc.oneof(
    fc.constant(null).map(globalClock),
    fc.record({ setTimeout: fc.func(anything), clearTimeout: fc.func(anything), now: fc.func(anyNumber) }),
  ),
};

function isPolicy(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { next?: unknown }).next === 'function' &&
    typeof (value as { reset?: unknown }).reset === 'function'
  );
}

function retryProblems(options: unknown): Problems {
  const p = new Problems();
  if (options !== undefined && !isOptionsObject(options)) {
    p.add('retry options', 'type');
    return p;
  }
  const o = options ?? {};
  checkKnownKeys(p, '', o, Object.keys(retryFields));
  checkNumber(p, 'maxAttempts', o.maxAttempts, { integer: true, min: 1, infinity: true });
  checkFunction(p, 'retryIf', o.retryIf);
  checkFunction(p, 'onRetry', o.onRetry);
  checkShape(p, 'signal', o.signal, ...SIGNAL_SHAPE);
  checkBoolean(p, 'unref', o.unref);
  checkShape(p, 'clock', o.clock, ...CLOCK_SHAPE);
  const backoff = o.backoff;
  if (typeof backoff === 'function') {
    // The generated factories are pure or return fresh policies, so calling one here is harmless.
    if (!isPolicy((backoff as () => unknown)())) p.add('backoff', 'type');
  } else if (backoff !== undefined && !isPolicy(backoff)) {
    p.add('backoff', 'type');
  }
  return p;
}

/** Lets a promise chain run (no timers) and reports whether `done()` became true. */
async function drainMicrotasks(done: () => boolean): Promise<boolean> {
  for (let i = 0; i < 100 && !done(); i++) await Promise.resolve();
  return done();
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

function observe(promise: Promise<unknown>): { readonly outcome: Outcome | undefined } {
  const box: { outcome: Outcome | undefined } = { outcome: undefined };
  promise.then(
    (value) => {
      box.outcome = { ok: true, value };
    },
    (error: unknown) => {
      box.outcome = { ok: false, error };
    },
  );
  return box;
}

describe('retry() under arbitrary input', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.clearAllTimers();
    vi.useRealTimers();
  });

  it('with a succeeding fn: resolves, rejects with the abort reason, or rejects naming a bad option', async () => {
    const optionsArb = fc.oneof(
      { weight: 12, arbitrary: recordArb(retryFields, 6, false) },
      { weight: 2, arbitrary: recordArb(retryFields, 6, true) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: anyValue },
    );
    await fc.assert(
      fc.asyncProperty(optionsArb, anything, async (options, value) => {
        const problems = retryProblems(options);
        const fn = vi.fn((_attempt: number) => value);
        const run = observe(retry(fn, options as never));
        expect(await drainMicrotasks(() => run.outcome !== undefined), 'retry() settled without timers').toBe(true);
        const outcome = run.outcome as Outcome;

        if (problems.size > 0) {
          expect(outcome.ok, `resolved despite ${problems}`).toBe(false);
          if (!outcome.ok) expectOptionError(outcome.error, problems);
          expect(fn, 'bad options reject before fn is called').not.toHaveBeenCalled();
        } else {
          const signal = (options as { signal?: { aborted: boolean; reason?: unknown } } | undefined)?.signal;
          if (signal?.aborted) {
            expect(outcome.ok).toBe(false);
            const reason = signal.reason;
            if (!outcome.ok) {
              if (reason !== undefined && reason !== null) expect(Object.is(outcome.error, reason)).toBe(true);
              else expect((outcome.error as DOMException).name).toBe('AbortError');
            }
            expect(fn).not.toHaveBeenCalled();
          } else {
            expect(outcome, show(outcome.ok ? outcome.value : outcome.error)).toEqual({ ok: true, value });
            expect(fn).toHaveBeenCalledTimes(1);
            expect(fn.mock.calls[0]?.[0]).toBe(1);
          }
        }
        expect(vi.getTimerCount()).toBe(0);
        expect(await tracker.take()).toEqual([]);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('with a failing fn and scripted hooks: follows the documented algorithm exactly', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 4 }),
        fc.oneof(fc.integer({ min: 1, max: 6 }), fc.constant(Number.POSITIVE_INFINITY)),
        fc.array(fc.oneof({ weight: 3, arbitrary: anyNumber }, { weight: 1, arbitrary: anyValue }), {
          minLength: 5,
          maxLength: 5,
        }),
        fc.option(fc.array(anything, { minLength: 5, maxLength: 5 }), { nil: undefined }),
        fc.option(fc.array(anything, { minLength: 5, maxLength: 5 }), { nil: undefined }),
        async (failures, maxAttempts, nexts, retryIfs, onRetryReturns) => {
          const errors = Array.from({ length: failures }, (_, i) => new Error(`failure ${i + 1}`));
          const fn = vi.fn((n: number) => {
            if (n <= failures) throw errors[n - 1];
            return 'done';
          });
          let nextIndex = 0;
          const backoff = { next: vi.fn(() => nexts[nextIndex++] as number), reset: vi.fn() };
          const retryIf = retryIfs && vi.fn((_error: unknown, n: number) => retryIfs[n - 1] as boolean);
          // Returns arbitrary values (awaited by retry, otherwise ignored), hence the cast to the declared type.
          const onRetry =
            onRetryReturns &&
            vi.fn((info: { attempt: number }) => onRetryReturns[info.attempt - 1] as void | PromiseLike<void>);

          // The model: docs/guide/backoff.md "retry(fn, options)".
          const expectedInfos: { attempt: number; delay: number; error: unknown }[] = [];
          let expected: Outcome | undefined;
          for (let n = 1; expected === undefined; n++) {
            if (n > failures) {
              expected = { ok: true, value: 'done' };
              break;
            }
            const error = errors[n - 1];
            if (n >= maxAttempts || (retryIfs && !retryIfs[n - 1])) {
              expected = { ok: false, error };
              break;
            }
            const raw = nexts[n - 1];
            if (typeof raw !== 'number' || Number.isNaN(raw)) {
              expected = { ok: false, error: 'TypeError naming `backoff.next()`' };
              break;
            }
            expectedInfos.push({ attempt: n, delay: Math.min(MAX_TIMER_DELAY, Math.max(0, raw)), error });
          }

          const options = {
            backoff,
            maxAttempts,
            ...(retryIf ? { retryIf } : {}),
            ...(onRetry ? { onRetry } : {}),
          };
          const run = observe(retry(fn, options));
          for (let i = 0; i < 20 && run.outcome === undefined; i++) {
            await vi.advanceTimersByTimeAsync(MAX_TIMER_DELAY);
          }
          const outcome = run.outcome;
          expect(outcome, 'retry() settled').toBeDefined();
          if (expected.ok) {
            expect(outcome).toEqual(expected);
          } else if (typeof expected.error === 'string') {
            expect(outcome?.ok).toBe(false);
            if (outcome && !outcome.ok) expectNamed(outcome.error, TypeError, 'backoff.next');
          } else {
            expect(outcome?.ok).toBe(false);
            if (outcome && !outcome.ok) expect(outcome.error).toBe(expected.error);
          }
          expect(backoff.reset).toHaveBeenCalledTimes(1);
          if (onRetry) {
            expect(onRetry.mock.calls.map(([info]) => info)).toEqual(expectedInfos);
          }
          expect(vi.getTimerCount()).toBe(0);
          expect(await tracker.take()).toEqual([]);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('a non-function fn rejects with a TypeError naming `fn`', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyValue.filter((v) => typeof v !== 'function'),
        async (fn) => {
          const run = observe(retry(fn as never));
          expect(await drainMicrotasks(() => run.outcome !== undefined)).toBe(true);
          expect(run.outcome?.ok).toBe(false);
          if (run.outcome && !run.outcome.ok) expectNamed(run.outcome.error, TypeError, 'fn');
          expect(vi.getTimerCount()).toBe(0);
        },
      ),
      { numRuns: 50 },
    );
  });
});

function mapValues<V, W>(record: Record<string, V>, f: (value: V) => W): Record<string, W> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]));
}
