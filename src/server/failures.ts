/**
 * The errors `ReliableServer` rejects `send()` promises with and reports on `error`. Session ids
 * are left out of every message: a session id is what lets a connection take a session over.
 */
import { ResilientSocketError } from '../errors.js';
import { describeThrown, rangeError, typeError } from '../validation.js';
import type { BudgetName } from './budget.js';

/** Why a session is forgotten, with what is still pending for it. */
export type Ending = 'expired' | 'closed';

/** `ERR_RS_DELIVERY_STOPPED` for the messages of a session that ended before they were acknowledged. */
export function stopped(why: Ending, bound: number): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_DELIVERY_STOPPED',
    process.env.NODE_ENV !== 'production'
      ? `${
          why === 'expired'
            ? `The session expired (no connection for \`sessionTtl\`, ${bound} ms)`
            : 'The ReliableServer was closed'
        } before the client acknowledged the message`
      : '',
  );
}

/** `ERR_RS_NOT_ACKNOWLEDGED` for a message sent `maxAttempts` times. */
export function unacknowledged(attempts: number): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_NOT_ACKNOWLEDGED',
    process.env.NODE_ENV !== 'production'
      ? `The message was sent ${attempts === 1 ? 'once' : `${attempts} times`} (\`maxAttempts\`) and never acknowledged`
      : '',
  );
}

/** `ERR_RS_BUFFER_OVERFLOW` for a session that has `maxPending` messages waiting. */
export function tooManyPending(maxPending: number): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_BUFFER_OVERFLOW',
    process.env.NODE_ENV !== 'production'
      ? `The session has \`maxPending\` (${maxPending}) messages waiting for their acknowledgement: this one was not queued`
      : '',
  );
}

/** `ERR_RS_BUFFER_OVERFLOW` for a new session when `maxSessions` sessions are kept. */
export function tooManySessions(maxSessions: number, what: string): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_BUFFER_OVERFLOW',
    process.env.NODE_ENV !== 'production'
      ? `The server keeps \`maxSessions\` (${maxSessions}) sessions: no room for a new one (${what})`
      : '',
  );
}

/** `ERR_RS_BUFFER_OVERFLOW` for what would pass a byte budget: a message, or a new session (`maxBytes`). */
export function tooManyBytes(budget: BudgetName, bound: number, what: string): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_BUFFER_OVERFLOW',
    process.env.NODE_ENV !== 'production'
      ? `${
          budget === 'maxBytes' ? 'The sessions' : 'The session'
        } would keep more than \`${budget}\` (${bound} bytes): ${what}`
      : '',
  );
}

/**
 * `ERR_RS_PROTOCOL_VIOLATION` for a client that broke a rule of the protocol (`rule`: which one;
 * never the id or session id it sent).
 */
export function protocolViolation(rule: string): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_PROTOCOL_VIOLATION',
    process.env.NODE_ENV !== 'production'
      ? `A client broke the delivery protocol (${rule}): the frame was not read, and its connection was closed with 1008`
      : '',
  );
}

/** `ERR_RS_CALLBACK_FAILED` for a clock whose `now()` gave something that is not a time. */
export function clockFailed(value: unknown): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_CALLBACK_FAILED',
    process.env.NODE_ENV !== 'production'
      ? `\`clock.now()\` returned ${
          typeof value === 'number' ? String(value) : typeof value
        }, not a finite number: the server's time stands still at the last good reading until it returns one`
      : '',
  );
}

/** `ERR_RS_CLOSED` for a `send()` after `close()`. */
export function closedError(): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_CLOSED',
    process.env.NODE_ENV !== 'production' ? 'The ReliableServer is closed: send() sends nothing' : '',
  );
}

/** `ERR_RS_CALLBACK_FAILED` for a codec that threw or returned something unusable. */
export function codecFailed(method: 'encode' | 'decode', what: string, cause: unknown): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_CALLBACK_FAILED',
    process.env.NODE_ENV !== 'production' ? `\`codec.${method}\` ${what}: ${describeThrown(cause)}` : '',
    { cause },
  );
}

/** The TypeError (`ERR_RS_INVALID_TYPE`) of a `send()` whose data the codec cannot encode; `cause` is what it threw. */
export function unencodable(thrown: unknown): TypeError {
  const error = typeError(
    'data',
    process.env.NODE_ENV !== 'production'
      ? `Expected \`data\` to be a value the codec can encode (JSON, by default): ${describeThrown(thrown)}`
      : '',
  );
  Object.defineProperty(error, 'cause', { value: thrown, configurable: true, writable: true });
  return error;
}

/** The RangeError (`ERR_RS_INVALID_VALUE`) of a `send()` to a session id no client can say hello for. */
export function sessionTooLong(length: number, max: number): RangeError {
  return rangeError(
    'session',
    process.env.NODE_ENV !== 'production'
      ? `Expected \`session\` to be an id of at most ${max} characters (the protocol's longest), got one of ${length}`
      : '',
  );
}

/** `ERR_RS_STORE_FAILED` for what Redis failed to do (`what`, `redisStore()`), its error as the cause. */
export function storeFailed(what: string, cause: unknown): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_STORE_FAILED',
    process.env.NODE_ENV !== 'production' ? `Redis failed (${what}): ${describeThrown(cause)}` : '',
    { cause },
  );
}

/**
 * A message stored on Redis is gone while its session is there again: Redis lost what it held (a
 * restart without persistence, an eviction) and the session was made anew.
 */
export function lostInStore(): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_STORE_FAILED',
    process.env.NODE_ENV !== 'production'
      ? 'Redis lost the message: its session was made anew (a restart without persistence, or an eviction?)'
      : '',
  );
}
