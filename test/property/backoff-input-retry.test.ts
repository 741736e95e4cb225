/**
 * Arbitrary input thrown at retry(): with a succeeding fn it resolves, rejects with the abort reason,
 * or rejects naming a bad option; with a failing fn and scripted hooks it follows the documented
 * algorithm exactly; a fn that is not a function is a TypeError naming `fn`.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_DELAY, retry } from '../../src/backoff/index.js';
import {
  anyNumber,
  anything,
  anyValue,
  CLOCK_SHAPE,
  checkBoolean,
  checkFunction,
  checkKnownKeys,
  checkNumber,
  checkShape,
  expectNamed,
  expectOptionError,
  globalClock,
  isOptionsObject,
  Problems,
  SIGNAL_SHAPE,
  show,
  validBackoff,
} from './arbitraries.js';
import { NUM_RUNS, recordArb, setUpBackoffInput, tracker } from './backoff-helpers.js';

setUpBackoffInput();

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
