/**
 * After a loss (an attempt that failed, a connection that ended), the socket retries after a
 * delay, waits for the network, or gives up. That choice is this pure function of the facts,
 * tested as a table without any socket (the idea of xstate's `transition`); the socket draws the
 * delay and does the rest.
 */
import { MAX_TIMER_DELAY } from '../backoff/policy.js';
import { ResilientSocketError } from '../errors.js';
import type { CloseInfo } from './close-codes.js';

/** What the loss itself says (the machine's `Loss` has these). */
export interface LossFacts {
  /** How the connection closed, when it had one. */
  readonly close: CloseInfo | undefined;
  /** A reason to stop that a feature already found (a 401/403 twice in a row). */
  readonly stop: ResilientSocketError | undefined;
  /** What failed, if anything (the cause of a give-up for `maxRetries`). */
  readonly error: ResilientSocketError | undefined;
}

/** What to do after a loss: retry, wait for the network, or give up with the error that says why. */
export type Decision = 'retry' | 'wait-for-network' | ResilientSocketError;

/**
 * Give up when a feature said so, when `shouldReconnect` said no to a close, or after more than
 * `maxRetries` consecutive failures; otherwise wait for the network if it is down, else retry.
 * @param failures consecutive failures, this loss included
 * @param maxRetries the `maxRetries` option
 * @param again `shouldReconnect`'s answer; `true` where it is not asked (a failure we caused, a refused upgrade)
 * @param offline retries wait: the network is down, or the page hidden (`resume`)
 */
export function decide(
  loss: LossFacts,
  failures: number,
  maxRetries: number,
  again: boolean,
  offline: boolean,
): Decision {
  const { close } = loss;
  let stop = loss.stop;
  if (!stop && !again && close) {
    const { code, reason } = close;
    stop = new ResilientSocketError(
      'ERR_RS_FATAL_CLOSE',
      process.env.NODE_ENV !== 'production'
        ? `The server closed the connection with code ${code}${reason ? ` (${reason})` : ''}; not reconnecting`
        : '',
      { closeCode: code },
    );
  }
  if (!stop && failures > maxRetries) {
    stop = new ResilientSocketError(
      'ERR_RS_RETRIES_EXHAUSTED',
      process.env.NODE_ENV !== 'production'
        ? `Gave up after ${failures} consecutive failures (maxRetries ${maxRetries})`
        : '',
      { cause: loss.error },
    );
  }
  return stop ?? (offline ? 'wait-for-network' : 'retry');
}

/**
 * The wait before the retry: the backoff's draw (a number, clamped to [0, 2^31 − 1] by the
 * policy reader), at least `minimum` (a server's Retry-After), or 0 when a feature asks to retry
 * at once (a first 401/403: a fresh token may fix it).
 */
export function retryDelay(drawn: number, minimum: number, immediate: boolean): number {
  return immediate ? 0 : Math.min(Math.max(drawn, minimum), MAX_TIMER_DELAY);
}
