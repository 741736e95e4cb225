/**
 * `toRetryWait(policy)`: a backoff policy as the wait function of a client that reconnects by
 * itself, e.g. graphql-ws's `retryWait` (`(retries) => Promise<void>`). graphql-ws abandons a
 * socket after its close event without closing it, so a reconnecting WebSocket under it would
 * leave the abandoned one reconnecting too; give it a plain WebSocket and this wait instead, and
 * it reconnects with jittered truncated binary exponential backoff.
 */
import { assertClock, type Clock, systemClock, unrefTimer } from '../clock.js';
import {
  assertBoolean,
  assertKnownKeys,
  assertOptionsObject,
  describeReceived,
  typeError,
  withDefault,
} from '../validation.js';
import { assertBackoffPolicy, clampDelay } from './policy.js';
import type { BackoffPolicyLike } from './types.js';

/** Options of {@link toRetryWait}. */
export interface RetryWaitOptions {
  /**
   * The clock that times the waits (inject one in tests).
   * @default global timers
   * @example
   * ```ts
   * toRetryWait(truncatedBinaryExponential(), { clock: new TestClock() })
   * ```
   */
  clock?: Clock;
  /**
   * Keep a wait from holding a Node process open.
   * @default false
   * @example
   * ```ts
   * toRetryWait(truncatedBinaryExponential(), { unref: true })
   * ```
   */
  unref?: boolean;
}

/**
 * A wait function of graphql-ws's `retryWait` shape: `wait(retries)` resolves after the policy's
 * next delay; `retries === 0` (a new run of failures) starts the policy over first. A factory is
 * called once, here. What the policy throws, or a `next()` that returns no number, rejects the
 * wait (never a synchronous throw). A wait cannot be cancelled: pass `unref: true` so that one
 * pending when the client is disposed does not hold a Node process open.
 * @param policy any backoff policy (`truncatedBinaryExponential()`, `fullJitter()`, your own
 *   `{ next, reset }`), or a factory of one.
 * @throws TypeError naming the argument or option.
 * @example
 * ```ts
 * import { createClient } from 'graphql-ws';
 * import { toRetryWait, truncatedBinaryExponential } from 'resilient-socket/backoff';
 * const client = createClient({
 *   url: 'wss://example.test/graphql',
 *   retryWait: toRetryWait(truncatedBinaryExponential({ maxDelay: 10_000 })),
 *   shouldRetry: () => true,
 * });
 * ```
 */
export function toRetryWait(
  policy: BackoffPolicyLike | (() => BackoffPolicyLike),
  options?: RetryWaitOptions,
): (retries: number) => Promise<void> {
  const made = typeof policy === 'function' ? policy() : policy;
  assertBackoffPolicy(typeof policy === 'function' ? 'policy()' : 'policy', made);
  assertOptionsObject('toRetryWait options', options);
  assertKnownKeys('', options, ['clock', 'unref'], 'toRetryWait()');
  const clock = withDefault(options?.clock, systemClock);
  assertClock('clock', clock);
  const unref = withDefault(options?.unref, false);
  assertBoolean('unref', unref);
  // Always a promise: what the policy throws (a bad `random`, say) rejects the wait, as a result
  // that is not a number does, so that `wait(n).catch(…)` sees every failure.
  return (retries) =>
    new Promise((resolve) => {
      if (retries === 0) made.reset();
      const raw = made.next();
      if (typeof raw !== 'number' || Number.isNaN(raw)) {
        throw typeError(
          'policy.next()',
          process.env.NODE_ENV !== 'production'
            ? `Expected \`policy.next()\` to return a number, got ${describeReceived(raw)}`
            : '',
        );
      }
      const handle = clock.setTimeout(resolve, clampDelay(raw));
      if (unref) unrefTimer(handle);
    });
}
