/**
 * After a loss (an attempt that failed, a connection that ended): the attempt is torn down, the
 * features weigh in (`lost`: a refused upgrade; `hold`: an offline network), `shouldReconnect` is
 * asked about a close the server or the network caused (it may answer later: a promise), the pure
 * `decide()` chooses, and the socket enters its next state and reports, state first.
 */
import type { ResilientSocketError } from '../errors.js';
import type { CloseInfo } from './close-codes.js';
import type { Connection } from './connection.js';
import { decide } from './decide.js';
import type { Loss } from './feature.js';
import type { Machine } from './machine.js';
import { callbackError, UNHEARD_GIVEUP } from './report.js';
import { SHOULD_RECONNECT_TIMEOUT } from './states.js';

/**
 * The one path for every ended attempt or connection. `close` is given exactly when the attempt
 * had a socket (its `close` event is then due). `how` its socket goes (see `endAttempt`): `abort`
 * says the socket cut it (a timeout, a dead link, a provider); only a close the server or the
 * network caused goes to `shouldReconnect`.
 */
export function lost(
  m: Machine,
  attempt: Connection,
  error: ResilientSocketError | undefined,
  close: CloseInfo | undefined,
  how: 'abort' | 'release' | 'retire',
): void {
  const ours = how === 'abort';
  m.failures_ = Math.min(m.failures_ + 1, Number.MAX_SAFE_INTEGER);
  m.endAttempt_(attempt, how, close?.reason);
  const { rejection, number } = attempt;
  const loss: Loss = {
    attempt: number,
    error,
    close,
    rejection,
    stop: undefined,
    minimumDelay: 0,
    immediate: false,
    notices: [],
  };
  m.run_('lost', loss);
  let verdict: unknown = true;
  if (close && !ours && !rejection) {
    try {
      verdict = m.config_.shouldReconnect(close);
    } catch (thrown) {
      loss.notices.push(callbackError('shouldReconnect', 'threw', thrown));
    }
  }
  if (typeof (verdict as PromiseLike<unknown> | undefined)?.then !== 'function') {
    act(m, loss, verdict !== false);
    return;
  }
  // Wait for the answer in `reconnecting` (the `retry` deadline bounds the wait). The errors are
  // told now; the `close` waits, since whether a retry follows is not known yet.
  m.deciding_ = loss;
  m.enter_('reconnecting', loss.error?.message ?? 'connection lost', SHOULD_RECONNECT_TIMEOUT);
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

/**
 * Acts on `decide()`: give up, wait for the network, or wait out a backoff delay (`Machine.wait_`).
 * Also the way a `SharedSocket` tab takes over the connection of a leader tab that left.
 */
export function act(m: Machine, loss: Loss, again: boolean): void {
  const { close, stop, error } = loss;
  const decision = decide({
    failures: m.failures_,
    maxRetries: m.config_.maxRetries,
    again,
    close,
    stop,
    error,
    offline: !!m.run_('hold'),
  });
  if (decision.kind === 'give-up') {
    const queued = m.takeQueued_();
    m.enter_('closed', decision.error.message);
    const changes = m.changes_;
    m.tell_(loss, decision.error);
    m.drop_('closed', queued);
    // Not when a listener called close() (the user ended it) or open()/reconnect() (it goes on).
    if (m.changes_ === changes && !m.disposed_) {
      m.emit_('giveup', { attempts: m.runAttempts_, failures: m.failures_, error: decision.error });
      if (!m.socket_.listens_('giveup') && !m.socket_.listens_('error')) {
        const { code, message } = decision.error;
        m.unheard_(UNHEARD_GIVEUP, code, `gave up (${message}) and nothing listens for \`giveup\` or \`error\``);
      }
    }
  } else if (decision.kind === 'wait-for-network') {
    // No network: draw no delay and burn no attempt; the feature that saw it go retries when it is back.
    m.enter_('reconnecting', 'offline: waiting for the network');
    m.tell_(loss);
  } else m.wait_(loss);
}
