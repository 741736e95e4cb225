/**
 * The backoff draw of one socket: how long to wait before its next attempt.
 *
 * @internal
 */
import { clampDelay } from '../backoff/policy.js';
import { truncatedWindow } from '../backoff/truncated-binary-exponential.js';
import { ResilientSocketError } from '../errors.js';
import { describeReceived } from '../validation.js';
import type { Machine } from './machine.js';
import { callbackError } from './report.js';

/**
 * The wait before the next retry of `m`, in ms, clamped to [0, 2^31 − 1]. The default backoff is the
 * truncated binary exponential window `a·2^(min(n, N) − 1)` with `a = T / 2^(N − 1)`, `T =
 * maxDelay`, `N = ceiling` (the pure step of `../backoff/truncated-binary-exponential.ts`), times
 * a fresh `Math.random()`: a formula, no policy object per socket (the memory budget). A `backoff`
 * policy that throws or returns something other than a number is reported
 * (`ERR_RS_CALLBACK_FAILED`, added to `notices`) and replaced by a 1 s wait, so a broken policy
 * can neither crash the socket nor spin it in a loop.
 */
export function nextDelay(m: Machine, notices: ResilientSocketError[]): number {
  const { maxDelay, ceiling } = m.config_;
  const policy = m.backoff_;
  if (!policy) return clampDelay(Math.random() * truncatedWindow(maxDelay as number, ceiling as number, ++m.draws_));
  let raw: unknown;
  try {
    raw = policy.next();
    if (typeof raw === 'number' && !Number.isNaN(raw)) return clampDelay(raw);
    const problem = new TypeError(`Expected \`backoff.next()\` to return a number, got ${describeReceived(raw)}`);
    notices.push(
      new ResilientSocketError('ERR_RS_CALLBACK_FAILED', `${problem.message}; waiting 1000 ms`, { cause: problem }),
    );
  } catch (thrown) {
    notices.push(callbackError('backoff.next()', 'threw', thrown));
  }
  return 1_000;
}
