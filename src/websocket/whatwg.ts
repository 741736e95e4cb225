/**
 * The WebSocket constructor's and `close()`'s argument rules (WHATWG HTML, "The WebSocket
 * interface", and the WebIDL conversions it names), with the error types browsers throw and the
 * messages Chromium gives, so that code written for `WebSocket` sees the same failures. One
 * difference: a URL, a fragment or a subprotocol shown in a message is redacted (secrets travel in
 * them; see `../redact.ts`). Those messages are development builds'; production bundles keep the
 * error types and names, with a message naming the argument (`` `url`: SyntaxError ``).
 */
import { utf8Length } from '../data.js';
import { redactUrl, redactUrls } from '../redact.js';
import { isToken } from '../validation.js';

/**
 * A `DOMException` named `name` (or, where there is none, an Error with that `name`) about the
 * argument `argument`. `text` is the development message; `''` (a production build) gives
 * `` `argument`: name (development builds say more) ``.
 */
export function domException(name: string, argument: string, text: string): Error {
  // No URL's secret in it (production builds give no text: nothing to redact).
  const message =
    (process.env.NODE_ENV !== 'production' ? redactUrls(text) : text) ||
    `\`${argument}\`: ${name} (development builds say more)`;
  const DOMError = (globalThis as { DOMException?: new (message: string, name: string) => Error }).DOMException;
  return DOMError ? new DOMError(message, name) : Object.assign(new Error(message), { name });
}

const CONSTRUCT = "Failed to construct 'WebSocket': ";

/** Schemes whose URLs have no `//` and may hold an `@` (`mailto:a@b`): named as schemes, never taken for userinfo. */
const OPAQUE = ['mailto', 'about', 'data', 'javascript', 'blob', 'tel', 'urn', 'news', 'sms'];

/** The WebSocket interface's constants: the `readyState` values by name. */
const READY_STATES = ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED'] as const;

/**
 * Gives `Class` and its prototype the WebSocket constants (`CONNECTING` 0, `OPEN` 1, `CLOSING` 2,
 * `CLOSED` 3) as WebIDL defines constants, and as browsers' and ws's `WebSocket` have them: own
 * data properties, enumerable, neither writable nor configurable. Called by a static initializer
 * marked pure in each drop-in class (class syntax can only declare writable fields), so that a
 * bundle that does not use the class still drops it. Returns `true`.
 */
export function defineReadyStates(Class: abstract new (...args: never[]) => unknown): true {
  for (const target of [Class, Class.prototype]) {
    READY_STATES.forEach((name, value) => {
      Object.defineProperty(target, name, { value, enumerable: true, writable: false, configurable: false });
    });
  }
  return true;
}

/**
 * `url` as the constructor takes it: any value converted to a string (a `URL` too), resolved
 * against the page's base URL where there is a page, `http:`/`https:` turned into `ws:`/`wss:`.
 * Returns the URL's serialization (what `socket.url` gives).
 * @throws DOMException `SyntaxError`, as browsers throw it.
 */
export function webSocketUrl(url: unknown): string {
  const text = String(url);
  const base = (globalThis as { location?: { href?: unknown } }).location?.href;
  let parsed: URL;
  try {
    parsed = new URL(text, typeof base === 'string' ? base : undefined);
  } catch {
    throw domException(
      'SyntaxError',
      'url',
      process.env.NODE_ENV !== 'production' ? `${CONSTRUCT}The URL '${redactUrl(text)}' is invalid.` : '',
    );
  }
  const scheme = parsed.protocol.slice(0, -1);
  if (scheme === 'http' || scheme === 'https') parsed.protocol = scheme === 'http' ? 'ws:' : 'wss:';
  else if (scheme !== 'ws' && scheme !== 'wss') {
    throw domException(
      'SyntaxError',
      'url',
      process.env.NODE_ENV !== 'production'
        ? `${CONSTRUCT}The URL's scheme must be either 'http', 'https', 'ws', or 'wss'. '${
            // What parses as the scheme of `alice:pw@host` is a user name: with an `@` in the URL, the
            // URL is shown redacted instead, unless `scheme://` or a scheme without `//` says it is one.
            !text.includes('@') || /^\s*[a-z][a-z0-9+.-]*:\/\//i.test(text) || OPAQUE.includes(scheme)
              ? scheme
              : redactUrl(text)
          }' is not allowed.`
        : '',
    );
  }
  if (parsed.hash || text.includes('#')) {
    // Chromium shows the fragment; it may carry a secret, so a non-empty one is redacted.
    throw domException(
      'SyntaxError',
      'url',
      process.env.NODE_ENV !== 'production'
        ? `${CONSTRUCT}The URL contains a fragment identifier ('${parsed.hash ? '***' : ''}'). Fragment identifiers are not allowed in WebSocket URLs.`
        : '',
    );
  }
  return parsed.href;
}

/**
 * A subprotocol as messages show it: whole when short, else its start (it may be a credential);
 * as Chromium shows it, a character outside U+0020–U+007E as `\uXXXX` and a backslash doubled.
 */
const shown = (protocol: string): string => {
  const long = protocol.length > 32;
  const escaped = (long ? protocol.slice(0, 8) : protocol).replace(/[^\x20-\x5b\x5d-\x7e]/g, (c) =>
    c === '\\' ? '\\\\' : `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
  );
  return long ? `${escaped}…` : escaped;
};

/**
 * `protocols` as the constructor takes them: none, one string, or a sequence of strings (any
 * iterable), each an HTTP token, none twice. Anything else is converted to a string, as the WebIDL
 * union `(DOMString or sequence<DOMString>)` does (`{}` is the subprotocol '[object Object]').
 * @throws DOMException `SyntaxError`, as browsers throw it.
 */
export function webSocketProtocols(protocols: unknown): string[] {
  if (protocols === undefined) return [];
  let list: string[];
  if (
    typeof protocols === 'string' ||
    typeof (protocols as Iterable<unknown> | null)?.[Symbol.iterator] !== 'function'
  ) {
    list = [String(protocols)];
  } else {
    list = Array.from(protocols as Iterable<unknown>, String);
  }
  list.forEach((protocol, index) => {
    const invalid = !isToken(protocol);
    if (invalid || list.indexOf(protocol) !== index) {
      throw domException(
        'SyntaxError',
        'protocols',
        process.env.NODE_ENV !== 'production'
          ? `${CONSTRUCT}The subprotocol '${shown(protocol)}' is ${invalid ? 'invalid' : 'duplicated'}.`
          : '',
      );
    }
  });
  return list;
}

/** How a message about `method`'s arguments begins (as Chromium's for `close`). */
const failedToExecute = (method: string): string =>
  method === 'close'
    ? "Failed to execute 'close' on 'WebSocket': "
    : `Failed to execute '${method}' on 'ResilientWebSocket': `;

/**
 * `close(code, reason)`'s arguments: `code` converted as a WebIDL `[Clamp] unsigned short` and
 * then 1000 or 3000–4999; `reason` converted to a string of at most 123 UTF-8 bytes.
 * @returns the code (`undefined` when none was given: no code is sent) and the reason ('' without a
 *   code: a close frame carries a reason only after a code, so none is sent, as by Firefox and undici).
 * @throws DOMException `InvalidAccessError` for the code, `SyntaxError` for the reason, as browsers throw them.
 */
export function closeArgs(code: unknown, reason: unknown, method = 'close'): [number | undefined, string] {
  let number: number | undefined;
  if (code !== undefined) {
    const n = Number(code);
    // [Clamp]: NaN is 0; clamped to [0, 65535]; rounded to the nearest integer, ties to even.
    const clamped = Number.isNaN(n) ? 0 : Math.min(Math.max(n, 0), 65_535);
    const floor = Math.floor(clamped);
    number = clamped - floor === 0.5 ? (floor % 2 === 0 ? floor : floor + 1) : Math.round(clamped);
    if (number !== 1000 && (number < 3000 || number > 4999)) {
      throw domException(
        'InvalidAccessError',
        'code',
        process.env.NODE_ENV !== 'production'
          ? `${failedToExecute(method)}The close code must be either 1000, or between 3000 and 4999. ${number} is neither.`
          : '',
      );
    }
  }
  // A USVString: a lone surrogate is sent as U+FFFD, which takes the 3 bytes utf8Length counts for it.
  const text = reason === undefined ? '' : String(reason);
  if (utf8Length(text) > 123) {
    throw domException(
      'SyntaxError',
      'reason',
      process.env.NODE_ENV !== 'production'
        ? `${failedToExecute(method)}The close reason must not be greater than 123 UTF-8 bytes.`
        : '',
    );
  }
  return [number, number === undefined ? '' : text];
}
