import { assertClock, type Clock, systemClock, type TimerHandle, unrefTimer } from '../clock.js';
import {
  assertBoolean,
  assertFunction,
  assertKnownKeys,
  assertNumber,
  assertOptionsObject,
  describeReceived,
  expectedText,
  isAbortSignal,
  typeError,
  withDefault,
} from '../validation.js';
import { assertBackoffPolicy, clampDelay } from './policy.js';
import { truncatedBinaryExponential } from './truncated-binary-exponential.js';
import type { BackoffPolicyLike } from './types.js';

/** What `onRetry` is told before each wait. */
export interface RetryInfo {
  /** The attempt that just failed, counting from 1. */
  readonly attempt: number;
  /** How long `retry()` will now wait before the next attempt, in milliseconds. */
  readonly delay: number;
  /** What that attempt threw or rejected with. */
  readonly error: unknown;
}

/** Passed to the operation as its second argument. */
export interface RetryContext {
  /** This attempt's number, counting from 1 (the same as the first argument). */
  readonly attempt: number;
  /** The caller's `signal`, so the operation can cancel its own work (e.g. pass it to `fetch`). */
  readonly signal: AbortSignal | undefined;
}

/** Options of {@link retry}. */
export interface RetryOptions {
  /**
   * The backoff between attempts: a policy object (reset at the start of each `retry()` call) or a
   * factory returning a fresh one per call. Use a factory when one configuration serves
   * concurrent `retry()` calls, so they do not share a failure count.
   * @default () => truncatedBinaryExponential() (T = 10 s, N = 10)
   * @example
   * ```ts
   * retry(fetchConfig, { backoff: () => fullJitter({ base: 200, cap: 5_000 }) })
   * ```
   */
  backoff?: BackoffPolicyLike | (() => BackoffPolicyLike);
  /**
   * The most attempts to make, the first included. An integer >= 1, or `Infinity`.
   * @default 10
   * @example
   * ```ts
   * retry(fetchConfig, { maxAttempts: 3 }) // one call and two retries
   * ```
   */
  maxAttempts?: number;
  /**
   * Decides whether a failure is worth another attempt; may be async. Return `false` to reject at
   * once with that error. Not called when no attempts remain. If it throws, `retry()` rejects
   * with what it threw.
   * @default () => true
   * @example
   * ```ts
   * retry(callApi, { retryIf: (error) => error instanceof HttpError && error.status >= 500 })
   * ```
   */
  retryIf?: (error: unknown, attempt: number) => boolean | PromiseLike<boolean>;
  /**
   * Called after a failed attempt that will be retried, before the wait; may be async (it is
   * awaited). If it throws, `retry()` rejects with what it threw.
   * @default undefined (nothing is called)
   * @example
   * ```ts
   * retry(callApi, { onRetry: ({ attempt, delay, error }) => log.warn({ attempt, delay, error }) })
   * ```
   */
  onRetry?: (info: RetryInfo) => void | PromiseLike<void>;
  /**
   * Aborting it — before the first call, during a call or during a wait — rejects at once with
   * `signal.reason` and clears the pending timer and the abort listener.
   * @default undefined (never aborted)
   * @example
   * ```ts
   * retry(callApi, { signal: AbortSignal.timeout(30_000) }) // give up after 30 s in all
   * ```
   */
  signal?: AbortSignal;
  /**
   * In Node, keep a pending wait from holding the process open (the timer is `unref`ed).
   * The process may then exit before the retry fires.
   * @default false
   * @example
   * ```ts
   * retry(flushMetrics, { unref: true }) // a pending retry does not delay process exit
   * ```
   */
  unref?: boolean;
  /**
   * Where timers come from. Inject a manual clock to drive waits in tests.
   * @default the global setTimeout / clearTimeout and Date.now
   * @example
   * ```ts
   * const clock = new TestClock(); // from resilient-socket/testing
   * const result = retry(flaky, { clock });
   * await clock.advance(1_000);
   * ```
   */
  clock?: Clock;
}

interface ResolvedRetryOptions {
  readonly backoff: BackoffPolicyLike;
  readonly maxAttempts: number;
  readonly retryIf: ((error: unknown, attempt: number) => boolean | PromiseLike<boolean>) | undefined;
  readonly onRetry: ((info: RetryInfo) => void | PromiseLike<void>) | undefined;
  readonly signal: AbortSignal | undefined;
  readonly unref: boolean;
  readonly clock: Clock;
}

/** The options of {@link retry}, as a record so that the compiler reports one missing or extra. */
const RETRY_OPTION_NAMES: Readonly<Record<keyof RetryOptions, true>> = {
  backoff: true,
  maxAttempts: true,
  retryIf: true,
  onRetry: true,
  signal: true,
  unref: true,
  clock: true,
};

function resolveRetryOptions(options: RetryOptions | undefined): ResolvedRetryOptions {
  assertOptionsObject('retry options', options);
  assertKnownKeys('', options, Object.keys(RETRY_OPTION_NAMES), 'retry()');
  const maxAttempts = withDefault(options?.maxAttempts, 10);
  assertNumber('maxAttempts', maxAttempts, { integer: true, min: 1, allowInfinity: true });
  const { retryIf, onRetry, signal } = options ?? {};
  if (retryIf !== undefined) assertFunction('retryIf', retryIf);
  if (onRetry !== undefined) assertFunction('onRetry', onRetry);
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw typeError(
      'signal',
      process.env.NODE_ENV !== 'production' ? expectedText('signal', 'an AbortSignal', signal) : '',
    );
  }
  const unref = withDefault(options?.unref, false);
  assertBoolean('unref', unref);
  const clock = withDefault(options?.clock, systemClock);
  assertClock('clock', clock);

  let backoff: unknown = options?.backoff;
  if (backoff === undefined) {
    backoff = truncatedBinaryExponential();
  } else if (typeof backoff === 'function') {
    backoff = (backoff as () => unknown)();
    assertBackoffPolicy('backoff()', backoff);
  } else {
    assertBackoffPolicy('backoff', backoff);
    backoff.reset();
  }
  return { backoff: backoff as BackoffPolicyLike, maxAttempts, retryIf, onRetry, signal, unref, clock };
}

/** The signal's reason, or a standard AbortError for runtimes that predate `reason`. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Calls `fn` until it succeeds, waiting between attempts as the backoff policy says.
 *
 * Resolves with the first success. Rejects with the last error when `maxAttempts` run out or
 * `retryIf` says no, and with `signal.reason` as soon as the signal aborts. Bad options (an
 * unknown one included) reject with a TypeError or RangeError naming the option, before `fn` is
 * first called.
 *
 * **Only retry what is safe to repeat.** An attempt that "failed" may have reached the server
 * (the reply was lost, or the timeout fired late): retrying a non-idempotent operation such as a
 * payment or an insert can perform it twice. Use an idempotency key, or `retryIf` to retry only
 * errors that prove nothing happened.
 *
 * @example
 * ```ts
 * const user = await retry((attempt, { signal }) => fetchJson(`/users/1`, { signal }), {
 *   maxAttempts: 5,
 *   retryIf: (error) => error instanceof NetworkError,
 *   signal: AbortSignal.timeout(30_000),
 * });
 * ```
 */
export async function retry<T>(
  fn: (attempt: number, context: RetryContext) => T | PromiseLike<T>,
  options?: RetryOptions,
): Promise<T> {
  assertFunction('fn', fn);
  const { backoff, maxAttempts, retryIf, onRetry, signal, unref, clock } = resolveRetryOptions(options);
  if (signal?.aborted) throw abortReason(signal);

  let timer: TimerHandle | undefined;
  let onAbort: (() => void) | undefined;
  // One promise that rejects when the signal aborts; every await below races against it, so an
  // abort wins immediately whether we are inside fn, a hook, or a wait.
  const aborted =
    signal &&
    new Promise<never>((_resolve, reject) => {
      onAbort = () => {
        if (timer !== undefined) clock.clearTimeout(timer);
        timer = undefined;
        reject(abortReason(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  // Never let the abort promise surface as an unhandled rejection when nothing is racing it.
  aborted?.catch(() => undefined);
  const race = <V>(value: V | PromiseLike<V>): Promise<V> =>
    aborted ? Promise.race([Promise.resolve(value), aborted]) : Promise.resolve(value);

  const sleep = (ms: number): Promise<void> =>
    new Promise<void>((resolve) => {
      timer = clock.setTimeout(() => {
        timer = undefined;
        resolve();
      }, ms);
      if (unref) unrefTimer(timer);
    });

  try {
    for (let attempt = 1; ; attempt++) {
      let error: unknown;
      try {
        // new Promise turns a synchronous throw from fn into a rejection.
        return await race(new Promise<T>((resolve) => resolve(fn(attempt, { attempt, signal }))));
      } catch (caught) {
        if (signal?.aborted) throw abortReason(signal);
        error = caught;
      }
      if (attempt >= maxAttempts) throw error;
      if (retryIf && !(await race(retryIf(error, attempt)))) throw error;
      const raw = backoff.next();
      if (typeof raw !== 'number' || Number.isNaN(raw)) {
        throw typeError(
          'backoff.next()',
          process.env.NODE_ENV !== 'production'
            ? `Expected \`backoff.next()\` to return a number, got ${describeReceived(raw)}`
            : '',
        );
      }
      const delay = clampDelay(raw);
      if (onRetry) await race(onRetry({ attempt, delay, error }));
      await race(sleep(delay));
    }
  } finally {
    if (timer !== undefined) clock.clearTimeout(timer);
    if (signal && onAbort) signal.removeEventListener('abort', onAbort);
  }
}
