/**
 * After a loss (an attempt that failed, a connection that ended): the features' say,
 * `shouldReconnect`, the decision (`./decide.ts`, a pure function) and what follows it: give up,
 * wait for the network, or draw a backoff delay and wait it out. Every ended attempt or connection
 * of the machine (`./machine.ts`) comes through {@link lose}; these are functions over the machine,
 * not methods, as the hooks' helpers in `./feature.ts` are.
 *
 * @internal
 */
import { clampDelay } from '../backoff/policy.js';
import { truncatedWindow } from '../backoff/truncated-binary-exponential.js';
import { ResilientSocketError } from '../errors.js';
import { describeReceived } from '../validation.js';
import type { CloseInfo } from './close-codes.js';
import type { Connection } from './connection.js';
import { decide, retryDelay } from './decide.js';
import type { Loss } from './feature.js';
import type { Machine } from './machine.js';
import { callbackError, UNHEARD_GIVEUP, unheard } from './report.js';
import { SHOULD_RECONNECT_TIMEOUT } from './states.js';

/**
 * The one path for every ended attempt or connection. `close` is given exactly when the attempt
 * had a socket (its `close` event is then due); `how` its socket goes (`abort`: the socket cut
 * it, and only a close the server or the network caused goes to `shouldReconnect`).
 */
export function lose(
  machine: Machine,
  attempt: Connection,
  error: ResilientSocketError | undefined,
  close: CloseInfo | undefined,
  how: 'abort' | 'release' | 'retire',
): void {
  machine.failures_ = Math.min(machine.failures_ + 1, Number.MAX_SAFE_INTEGER);
  machine.endAttempt_(attempt, how, close?.reason);
  const { rejection_: rejection, number } = attempt;
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
  machine.run_('lost', loss);
  let verdict: unknown = true;
  if (close && how !== 'abort' && !rejection) {
    try {
      verdict = machine.config_.shouldReconnect(close);
    } catch (thrown) {
      loss.notices.push(callbackError(process.env.NODE_ENV !== 'production' ? '`shouldReconnect` threw' : '', thrown));
    }
  }
  if (typeof (verdict as PromiseLike<unknown> | undefined)?.then !== 'function') {
    act(machine, loss, verdict !== false);
    return;
  }
  // Waits for the answer in `reconnecting` (the `retry` deadline bounds it). The errors are told
  // now; the `close` waits, since whether a retry follows is not known yet.
  machine.deciding_ = loss;
  machine.enter_('reconnecting', error?.message ?? 'connection lost', SHOULD_RECONNECT_TIMEOUT);
  tellLoss(machine, { error, notices: loss.notices, close: undefined });
  loss.error = undefined;
  loss.notices = [];
  Promise.resolve(verdict).then(
    (again) => decided(machine, loss, again !== false),
    (thrown: unknown) => {
      loss.notices.push(
        callbackError(process.env.NODE_ENV !== 'production' ? '`shouldReconnect` rejected' : '', thrown),
      );
      decided(machine, loss, true);
    },
  );
}

/** An async `shouldReconnect` settled (or timed out); nothing to do if close() or reconnect() took over. */
export function decided(machine: Machine, loss: Loss, again: boolean): void {
  if (machine.deciding_ !== loss) return;
  machine.deciding_ = undefined;
  act(machine, loss, again);
}

/**
 * Acts on `decide()`: give up, wait for the network, or wait out a backoff delay. Also how a
 * `SharedSocket` tab takes over the connection of a leader tab that left (`./tab-replica.ts`).
 */
export function act(machine: Machine, loss: Loss, again: boolean): void {
  const held = machine.run_<string | true>('hold');
  const decision = decide(loss, machine.failures_, machine.config_.maxRetries, again, !!held);
  if (typeof decision === 'object') {
    // Give up, with `decision` as the reason.
    const queued = machine.takeQueued_();
    machine.enter_('closed', decision.message);
    const changes = machine.changes_;
    tellLoss(machine, loss, decision);
    machine.drop_('closed', queued);
    // Not when a listener called close() (the user ended it) or open()/reconnect() (it goes on).
    if (machine.changes_ === changes && !machine.disposed_) {
      machine.emit_('giveup', { attempts: machine.runAttempts_, failures: machine.failures_, error: decision });
      if (
        process.env.NODE_ENV !== 'production' &&
        !machine.socket_.listens_('giveup') &&
        !machine.socket_.listens_('error')
      ) {
        const { code, message } = decision;
        unheard(machine, UNHEARD_GIVEUP, code, `gave up (${message}) and nothing listens for \`giveup\` or \`error\``);
      }
    }
  } else if (decision === 'wait-for-network') {
    // No network (or a hidden page): no delay drawn, no attempt burnt; the holder retries later.
    machine.enter_('reconnecting', held === true ? 'offline: waiting for the network' : (held as string));
    tellLoss(machine, loss);
  } else waitOut(machine, loss);
}

/**
 * Waits out a backoff delay: draws it (at least a server's Retry-After, none for an immediate
 * retry), enters `reconnecting` with that deadline, tells what happened, then `reconnecting`. A
 * refusal retried at once still counts for the backoff: the delay is drawn either way.
 */
function waitOut(machine: Machine, loss: Loss): void {
  const delay = retryDelay(draw(machine, loss.notices), loss.minimumDelay, loss.immediate);
  machine.nextRetryAt_ = machine.config_.clock.now() + delay;
  machine.enter_('reconnecting', loss.error?.message ?? 'connection lost', delay);
  const changes = machine.changes_;
  tellLoss(machine, loss);
  // A listener that closed or replaced the socket took over: this wait no longer holds.
  if (machine.changes_ === changes && !machine.disposed_) {
    machine.emit_('reconnecting', { attempt: machine.runAttempts_ + 1, delay });
  }
}

/**
 * The next backoff delay, clamped to [0, 2^31 − 1]: the default is the truncated binary
 * exponential window `T·2^(min(n, N) − N)` times a fresh `Math.random()` (a formula, no policy
 * object per socket: the memory budget). A `backoff` policy that throws or returns no number is
 * reported (`ERR_RS_CALLBACK_FAILED`, in `notices`) and replaced by a 1 s wait: a broken policy
 * can neither crash the socket nor spin it in a loop.
 */
function draw(machine: Machine, notices: ResilientSocketError[]): number {
  const policy = machine.backoff_;
  const { maxDelay, ceiling } = machine.config_;
  if (!policy)
    return clampDelay(Math.random() * truncatedWindow(maxDelay as number, ceiling as number, ++machine.draws_));
  try {
    const raw: unknown = policy.next();
    if (typeof raw === 'number' && !Number.isNaN(raw)) return clampDelay(raw);
    throw new TypeError(
      process.env.NODE_ENV !== 'production'
        ? `Expected \`backoff.next()\` to return a number, got ${describeReceived(raw)}`
        : '',
    );
  } catch (thrown) {
    // Thrown by the policy, or the TypeError above.
    notices.push(
      callbackError(process.env.NODE_ENV !== 'production' ? '`backoff.next()` failed (waiting 1000 ms)' : '', thrown),
    );
  }
  return 1_000;
}

/** Reports a loss once the socket is in its next state: what failed, failed callbacks, why it gives up, the close. */
function tellLoss(
  machine: Machine,
  { error, notices, close }: Pick<Loss, 'error' | 'notices' | 'close'>,
  stop?: ResilientSocketError,
): void {
  if (error) machine.report_(error);
  for (const notice of notices) machine.reportUserError_(notice);
  if (stop) machine.report_(stop);
  if (close) machine.emitClose_(close);
}

/** What failed when a connection closed: an attempt that never opened, or a transport fault; none for a plain close. */
export function lossError(attempt: Connection, info: CloseInfo, fault?: Error): ResilientSocketError | undefined {
  const cause = attempt.opened_ ? fault : attempt.error_;
  if (attempt.opened_ && !fault) return undefined;
  return new ResilientSocketError(
    'ERR_RS_CONNECTION_FAILED',
    process.env.NODE_ENV !== 'production' ? lossText(attempt, info, fault) : '',
    { cause },
  );
}

/** What a lost connection's error says (development builds). */
function lossText(attempt: Connection, info: CloseInfo, fault?: Error): string {
  if (attempt.opened_) return `The connection failed: ${fault?.message}`;
  // What the WebSocket said, if anything (Node 24's error events say nothing).
  const { error_: cause, rejection_: rejection } = attempt;
  const detail = rejection
    ? `the server refused the upgrade with HTTP ${rejection.status}`
    : (cause as { message?: unknown } | undefined)?.message || info.reason;
  const why = typeof detail === 'string' && detail ? `: ${detail}` : '';
  return `Connection attempt ${attempt.number} failed (close code ${info.code})${why}`;
}
