/**
 * The errors `ReliableServer` rejects `send()` promises with and reports on `error`. Session ids
 * are left out of every message: a session id is what lets a connection take a session over.
 */
import { ResilientSocketError } from '../errors.js';
import { describeThrown, typeError } from '../validation.js';

/** Why a session is forgotten, with what is still pending for it. */
export type Ending = 'expired' | 'evicted' | 'closed';

/** `ERR_RS_DELIVERY_STOPPED` for the messages of a session that ended before they were acknowledged. */
export function stopped(why: Ending, bound: number): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_DELIVERY_STOPPED',
    process.env.NODE_ENV !== 'production'
      ? `${
          why === 'expired'
            ? `The session expired (no connection for \`sessionTtl\`, ${bound} ms)`
            : why === 'evicted'
              ? `The session was forgotten to make room for a new one (\`maxSessions\`, ${bound})`
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

/** `ERR_RS_BUFFER_OVERFLOW` for a new session when `maxSessions` sessions are all connected. */
export function tooManySessions(maxSessions: number, what: string): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_BUFFER_OVERFLOW',
    process.env.NODE_ENV !== 'production'
      ? `All \`maxSessions\` (${maxSessions}) sessions are connected: no room for a new one (${what})`
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
