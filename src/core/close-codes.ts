import { utf8Length } from '../data.js';
import { assertThat, rangeError } from '../validation.js';

/**
 * Close codes as data (RFC 6455 §7.4). One place decides which closes are worth reconnecting
 * after; users override it with the `shouldReconnect` option.
 */

/** What the `close` event and `shouldReconnect` are told about a connection that ended. */
export interface CloseInfo {
  /** The close code; 1006 when the connection dropped without a close frame. */
  readonly code: number;
  /** The close reason sent by the peer, or one of ours for closes we caused. */
  readonly reason: string;
  /** Whether the closing handshake completed. */
  readonly wasClean: boolean;
}

/** Well-known codes used by the package. */
export const CloseCodes = /* @__PURE__ */ Object.freeze({
  /** 1000: the purpose of the connection was fulfilled (what `close()` sends by default). */
  NORMAL: 1000,
  /** 1001: the endpoint is going away (a server shutting down, a page navigating away). */
  GOING_AWAY: 1001,
  /** 1002: a protocol error. Fatal: not reconnected by default. */
  PROTOCOL_ERROR: 1002,
  /** 1003: a data type the endpoint cannot accept. Fatal by default. */
  UNSUPPORTED_DATA: 1003,
  /** 1005: no status code was present in the close frame (never sent, only reported). */
  NO_STATUS: 1005,
  /** 1006: the connection dropped without a close frame (never sent, only reported). */
  ABNORMAL: 1006,
  /** 1007: a message's data did not match its type (e.g. invalid UTF-8). Fatal by default. */
  INVALID_PAYLOAD: 1007,
  /** 1008: the message violated the endpoint's policy. Fatal by default. */
  POLICY_VIOLATION: 1008,
  /** 1009: a message was too big to process. Fatal by default. */
  MESSAGE_TOO_BIG: 1009,
  /** 1010: the client expected an extension the server did not negotiate. Fatal by default. */
  MANDATORY_EXTENSION: 1010,
  /** 1011: the server hit an unexpected condition. */
  INTERNAL_ERROR: 1011,
  /** 1012: the server is restarting; reconnect. */
  SERVICE_RESTART: 1012,
  /** 1013: the server is overloaded; try again later (with backoff). */
  TRY_AGAIN_LATER: 1013,
});

/**
 * Codes that say "reconnecting will not help": the server judged what we send or how we speak
 * to be wrong, so the same client would be refused again.
 */
export const FATAL_CLOSE_CODES: ReadonlySet<number> = /* @__PURE__ */ new Set([1002, 1003, 1007, 1008, 1009, 1010]);

/**
 * The default `shouldReconnect`: stop on the protocol and policy codes (1002, 1003, 1007, 1008,
 * 1009, 1010); reconnect after everything else, including a 1000 or 1001 the *server* sent (a
 * deploy or restart), 1006 (network), 1011–1014 and all application codes 3000–4999.
 */
export function defaultShouldReconnect(close: CloseInfo): boolean {
  return !FATAL_CLOSE_CODES.has(close.code);
}

/**
 * Validates the arguments of `close(code, reason)` the way browsers and ws do: the code must be
 * 1000 or in 3000–4999 (the others are reserved for the protocol), the reason at most 123 UTF-8
 * bytes (a close frame's payload is at most 125 bytes, two of which hold the code).
 *
 * @throws TypeError for a code that is not a number or a reason that is not a string; RangeError
 *   for a code outside those ranges or a reason that is too long.
 */
export function assertCloseArgs(code: unknown, reason: unknown): void {
  if (code !== undefined) {
    assertThat(typeof code === 'number', 'code', process.env.NODE_ENV !== 'production' ? 'a number' : '', code);
    if (!(code === 1000 || (Number.isInteger(code) && (code as number) >= 3000 && (code as number) <= 4999))) {
      throw rangeError(
        'code',
        process.env.NODE_ENV !== 'production'
          ? `Expected \`code\` to be 1000 or an integer in 3000–4999, got ${code}`
          : '',
      );
    }
  }
  if (reason !== undefined) {
    assertThat(typeof reason === 'string', 'reason', process.env.NODE_ENV !== 'production' ? 'a string' : '', reason);
    const bytes = utf8Length(reason as string);
    if (bytes > 123) {
      throw rangeError(
        'reason',
        process.env.NODE_ENV !== 'production'
          ? `Expected \`reason\` to be at most 123 UTF-8 bytes, got ${bytes} bytes`
          : '',
      );
    }
  }
}
