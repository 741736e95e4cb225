/**
 * The package's error type: one class with a stable `code`, so callers branch on data rather than
 * on message text. A brand property makes {@link isResilientSocketError} work even when two copies
 * of the package are installed (where `instanceof` would fail).
 */
import { redactUrls } from './redact.js';

/** Every code a {@link ResilientSocketError} can carry. Stable across minor versions. */
export const ErrorCodes = /* @__PURE__ */ Object.freeze({
  /** No WebSocket implementation: not passed, no global, and `ws` not installed (Node). */
  NO_WEBSOCKET: 'ERR_RS_NO_WEBSOCKET',
  /** `SharedSocket` found no Web Locks API or no BroadcastChannel (an insecure context, an old browser) and none was passed. */
  NO_SHARING: 'ERR_RS_NO_SHARING',
  /**
   * An attempt did not open within `connectTimeout`, or (`resume()`) had been connecting for over
   * a second when the page or the network came back, and was abandoned for a fresh one.
   */
  CONNECT_TIMEOUT: 'ERR_RS_CONNECT_TIMEOUT',
  /** The transport failed to connect, or the connection failed (the `error` event of the socket). */
  CONNECTION_FAILED: 'ERR_RS_CONNECTION_FAILED',
  /** The `url` or `protocols` provider threw, rejected, or returned something unusable. */
  PROVIDER_FAILED: 'ERR_RS_PROVIDER_FAILED',
  /** The server refused the WebSocket upgrade with an HTTP status (`status`, `retryAfter`). */
  UPGRADE_REJECTED: 'ERR_RS_UPGRADE_REJECTED',
  /** The server refused the upgrade with 401/403 twice in a row: reconnecting stopped. */
  UNAUTHORIZED: 'ERR_RS_UNAUTHORIZED',
  /** The `handshake` hook threw or rejected. */
  HANDSHAKE_FAILED: 'ERR_RS_HANDSHAKE_FAILED',
  /** The `handshake` hook did not settle within its `timeout` (`handshake(hook, { timeout })`). */
  HANDSHAKE_TIMEOUT: 'ERR_RS_HANDSHAKE_TIMEOUT',
  /** The heartbeat found the link dead (no pong or no traffic in time). */
  DEAD_LINK: 'ERR_RS_DEAD_LINK',
  /** The server closed with a code that `shouldReconnect` rejects: reconnecting stopped. */
  FATAL_CLOSE: 'ERR_RS_FATAL_CLOSE',
  /** `maxRetries` consecutive failures: reconnecting stopped. */
  RETRIES_EXHAUSTED: 'ERR_RS_RETRIES_EXHAUSTED',
  /** `send()` found the outbound buffer full and the overflow policy is `'error'`. */
  BUFFER_OVERFLOW: 'ERR_RS_BUFFER_OVERFLOW',
  /** The socket was closed for good by `close()` or its `signal`. */
  CLOSED: 'ERR_RS_CLOSED',
  /** An event listener threw; the error is the `cause`. */
  LISTENER_THREW: 'ERR_RS_LISTENER_THREW',
  /**
   * A callback given in the options (`shouldReconnect`, the backoff policy, `heartbeat.isPong`,
   * `heartbeat.message`) threw, rejected, timed out or returned something unusable; the message
   * names it and `cause` holds what it threw. The socket carries on as each option documents.
   */
  CALLBACK_FAILED: 'ERR_RS_CALLBACK_FAILED',
  /**
   * The WebSocket refused a message while its connection stayed open (binary data that was
   * detached, a type it cannot send): the message can never be written, so it was dropped (a
   * `drop` with reason `'unsendable'` follows) and the messages after it go on. `cause` holds the
   * WebSocket's error.
   */
  UNSENDABLE: 'ERR_RS_UNSENDABLE',
  /**
   * On a `TypeError` (never a `ResilientSocketError`): an option, or a method's argument, of the
   * wrong type. The message names it.
   */
  INVALID_TYPE: 'ERR_RS_INVALID_TYPE',
  /** On a `RangeError`: an option or argument of the right type whose value is refused. The message names it. */
  INVALID_VALUE: 'ERR_RS_INVALID_VALUE',
  /** On a `TypeError`: an option this socket or factory does not know. The message names it. */
  UNKNOWN_OPTION: 'ERR_RS_UNKNOWN_OPTION',
  /**
   * On a `TypeError`: an option or member that needs a feature the socket does not have (import
   * its factory from `resilient-socket/modular` and add it to `features`). The message names it.
   */
  NEEDS_FEATURE: 'ERR_RS_NEEDS_FEATURE',
  /**
   * A reliable message (`sendReliable`, the `delivery()` feature) was sent `maxAttempts` times without an
   * acknowledgement: its promise rejects with this, and a `drop` (reason `'unacknowledged'`) reports it.
   */
  NOT_ACKNOWLEDGED: 'ERR_RS_NOT_ACKNOWLEDGED',
  /**
   * `close()` or a give-up ended the socket while reliable messages waited for their acknowledgement, and
   * the store keeps nothing across sessions (the in-memory one): their promises reject with this, and a
   * `drop` (reason `'closed'`) reports them.
   */
  DELIVERY_STOPPED: 'ERR_RS_DELIVERY_STOPPED',
  /**
   * `close()` or a give-up ended the socket while reliable messages waited, and a persistent store
   * (`indexedDbStore`) keeps them: their promises reject with this; the next socket on that store sends them.
   */
  DELIVERY_DEFERRED: 'ERR_RS_DELIVERY_DEFERRED',
  /** The `delivery()` feature's store failed to load or save; delivery goes on in memory. `cause` holds the store's error. */
  STORE_FAILED: 'ERR_RS_STORE_FAILED',
  /**
   * The peer broke the delivery protocol (an id or session id longer than the protocol allows, a
   * second hello on one connection): the frame is refused and the connection closed with 1008. The
   * message says which rule.
   */
  PROTOCOL_VIOLATION: 'ERR_RS_PROTOCOL_VIOLATION',
});

/** The union of the values of {@link ErrorCodes}. */
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** Extra facts some errors carry. */
export interface ErrorDetails {
  /** The underlying error, if any. */
  cause?: unknown;
  /** HTTP status of a refused upgrade. */
  status?: number;
  /** `Retry-After` of a refused upgrade, in milliseconds. */
  retryAfter?: number;
  /** The close code of a fatal close. */
  closeCode?: number;
}

const BRAND = /* @__PURE__ */ Symbol.for('resilient-socket.error');

/**
 * `cause` without secrets from URLs: an error whose message or stack shows a URL with userinfo or
 * query values is replaced by a plain `Error` with the same name, code and redacted text (the
 * original cannot be changed: it belongs to whoever threw it).
 */
function redactCause(cause: unknown): unknown {
  if (!(cause instanceof Error)) return cause;
  const { name, message, stack, code } = cause as Error & { code?: unknown };
  const safe = redactUrls(message);
  const safeStack = stack && redactUrls(stack);
  if (safe === message && safeStack === stack) return cause;
  return Object.assign(new Error(safe), { name, stack: safeStack }, code === undefined ? {} : { code });
}

/**
 * An error raised or reported by resilient-socket, with a stable machine-readable `code`. Its
 * message and `cause` never show a URL's userinfo or query values (they often carry tokens): every
 * URL in them is redacted to `wss://***@host/path?token=***`.
 */
export class ResilientSocketError extends Error {
  /** Stable code, one of {@link ErrorCodes}. */
  declare readonly code: ErrorCode;
  /** HTTP status for `ERR_RS_UPGRADE_REJECTED` / `ERR_RS_UNAUTHORIZED`. */
  declare readonly status: number | undefined;
  /** `Retry-After` in ms for a refused upgrade that sent one. */
  declare readonly retryAfter: number | undefined;
  /** The close code for `ERR_RS_FATAL_CLOSE`. */
  declare readonly closeCode: number | undefined;

  /**
   * @param message what happened, in development builds and Node; production builds pass `''`
   *   and the message is the code alone (`cause` and the fields still tell the rest).
   */
  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(redactUrls(message || code), details.cause === undefined ? undefined : { cause: redactCause(details.cause) });
    this.code = code;
    this.status = details.status;
    this.retryAfter = details.retryAfter;
    this.closeCode = details.closeCode;
    this.name = 'ResilientSocketError';
    // The brand {@link isResilientSocketError} checks; set here rather than as a class field with a
    // computed key, which bundlers would keep alive as a possible side effect.
    (this as unknown as Record<symbol, boolean>)[BRAND] = true;
  }
}

/** True for any {@link ResilientSocketError}, even one created by another copy of the package. */
export function isResilientSocketError(value: unknown): value is ResilientSocketError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}
