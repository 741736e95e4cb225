/**
 * After a loss (an attempt that failed, a connection that ended): the attempt is torn down, the
 * features weigh in (`lost`: a refused upgrade, an offline network), `shouldReconnect` is asked
 * about a close the server or the network caused (it may answer later: a promise), the pure
 * `decide()` chooses, and the socket enters its next state and reports, state first.
 */
import { clampDelay } from '../backoff/policy.js';
import { truncatedBinaryExponential } from '../backoff/truncated-binary-exponential.js';
import { ResilientSocketError } from '../errors.js';
import { describeReceived } from '../validation.js';
import type { CloseInfo } from './close-codes.js';
import type { Connection } from './connection.js';
import { decide, retryDelay } from './decide.js';
import type { Loss } from './feature.js';
import { SHOULD_RECONNECT_TIMEOUT } from './funnel.js';
import { HOST } from './host.js';
import type { Machine } from './machine.js';
import { callbackError, drop, takeQueued } from './report.js';
import { STATES } from './states.js';

/** The wait used when a user backoff policy throws or returns something other than a number. */
const FALLBACK_DELAY = 1_000;

/**
 * The one path for every ended attempt or connection. `close` is given exactly when the attempt
 * had a socket (its `close` event is then due); `ours` says the socket cut it (a timeout, a dead
 * link, a provider): only a close the server or the network caused goes to `shouldReconnect`.
 */
export function lost(
  m: Machine,
  attempt: Connection,
  error: ResilientSocketError | undefined,
  close: CloseInfo | undefined,
  ours: boolean,
): void {
  m.failures_ = Math.min(m.failures_ + 1, Number.MAX_SAFE_INTEGER);
  m.endAttempt_(attempt, ours ? 'abort' : 'detach', close?.reason);
  const loss: Loss = {
    error,
    close,
    rejection: attempt.rejection,
    ask: close !== undefined && !ours && !attempt.rejection,
    stop: undefined,
    minimumDelay: 0,
    immediate: false,
    offline: false,
    notices: [],
  };
  m.config_.features.forEach((f, me) => f.lost?.(HOST, m, me, loss));
  let verdict: unknown = true;
  if (loss.ask && close) {
    try {
      verdict = m.config_.shouldReconnect(close);
    } catch (thrown) {
      loss.notices.push(callbackError('shouldReconnect', 'threw', thrown));
    }
  }
  if (!isThenable(verdict)) {
    act(m, loss, verdict !== false);
    return;
  }
  // Wait for the answer in `reconnecting` (the `retry` deadline bounds the wait). The errors are
  // told now; the `close` waits, since whether a retry follows is not known yet.
  m.deciding_ = loss;
  m.enter_('reconnecting', loss.error ? loss.error.message : 'connection lost', SHOULD_RECONNECT_TIMEOUT);
  const { error: failure, notices } = loss;
  loss.error = undefined;
  loss.notices = [];
  if (failure) m.report_(failure);
  for (const notice of notices) m.reportUserError_(notice);
  Promise.resolve(verdict).then(
    (again) => decided(m, loss, again !== false),
    (thrown: unknown) => {
      loss.notices.push(callbackError('shouldReconnect', 'rejected', thrown));
      decided(m, loss, true);
    },
  );
}

/** An async `shouldReconnect` settled (or timed out); nothing to do if close() or reconnect() took over. */
export function decided(m: Machine, loss: Loss, again: boolean): void {
  if (m.deciding_ !== loss) return;
  m.deciding_ = undefined;
  act(m, loss, again);
}

/** Acts on `decide()`: give up, wait for the network, or draw the delay and wait. */
function act(m: Machine, loss: Loss, again: boolean): void {
  const decision = decide({
    failures: m.failures_,
    maxRetries: m.config_.maxRetries,
    again,
    close: loss.close,
    stop: loss.stop,
    error: loss.error,
    offline: loss.offline,
  });
  if (decision.kind === 'give-up') {
    const queued = takeQueued(m);
    m.enter_('closed', decision.error.message);
    const changes = m.changes_;
    tell(m, loss, decision.error);
    drop(m, 'closed', queued);
    // Not when a listener called close() (the user ended it) or open()/reconnect() (it goes on).
    if (m.changes_ === changes && !m.disposed_) {
      m.emit_('giveup', { attempts: m.runAttempts_, failures: m.failures_, error: decision.error });
    }
    return;
  }
  if (decision.kind === 'wait-for-network') {
    // No network: draw no delay and burn no attempt; the feature that saw it go retries when it is back.
    m.enter_('reconnecting', 'offline: waiting for the network');
    tell(m, loss);
    return;
  }
  // A refusal retried at once still counts for the backoff: the delay is drawn either way.
  const delay = retryDelay(nextDelay(m, loss.notices), loss.minimumDelay, loss.immediate);
  const next = m.runAttempts_ + 1;
  m.nextRetryAt_ = m.config_.clock.now() + delay;
  m.enter_('reconnecting', loss.error ? loss.error.message : 'connection lost', delay);
  const changes = m.changes_;
  tell(m, loss);
  // A listener that closed or replaced the socket took over: this wait no longer holds.
  if (m.changes_ === changes && !m.disposed_) m.emit_('reconnecting', { attempt: next, delay });
}

/** Reports a loss once the socket is in its next state: what failed, failed callbacks, why it gives up, the close. */
function tell(m: Machine, loss: Loss, stop?: ResilientSocketError): void {
  if (loss.error) m.report_(loss.error);
  for (const notice of loss.notices) m.reportUserError_(notice);
  if (stop) m.report_(stop);
  if (loss.close) emitClose(m, loss.close);
}

/** The `close` of a connection that ended; `willReconnect` says what the socket does now. */
export function emitClose(m: Machine, close: CloseInfo): void {
  m.emit_('close', { ...close, willReconnect: !m.disposed_ && !STATES[m.state_].terminal });
}

/**
 * The backoff's next delay, clamped to [0, 2^31 − 1]. A user policy that throws or returns
 * something other than a number is reported (`ERR_RS_CALLBACK_FAILED`, added to `notices`) and
 * replaced by a 1 s wait, so a broken policy can neither crash the socket nor spin it in a loop.
 */
function nextDelay(m: Machine, notices: ResilientSocketError[]): number {
  const { maxDelay, ceiling } = m.config_;
  let raw: unknown;
  try {
    // The default policy exists only during a run of failures (see resetRun_): the memory budget.
    m.backoff_ ??= truncatedBinaryExponential({ maxDelay, ceiling });
    raw = m.backoff_.next();
  } catch (thrown) {
    notices.push(callbackError('backoff.next()', 'threw', thrown));
    return FALLBACK_DELAY;
  }
  if (typeof raw !== 'number' || Number.isNaN(raw)) {
    const problem = new TypeError(`Expected \`backoff.next()\` to return a number, got ${describeReceived(raw)}`);
    notices.push(
      new ResilientSocketError('ERR_RS_CALLBACK_FAILED', `${problem.message}; waiting ${FALLBACK_DELAY} ms`, {
        cause: problem,
      }),
    );
    return FALLBACK_DELAY;
  }
  return clampDelay(raw);
}

/** Whether `value` has a `then` method (a promise or any thenable). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
