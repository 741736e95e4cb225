/**
 * `wsOptions`: what ws (or Node's `http.request`, which ws calls at once) refuses, checked at
 * construction so that options certain to fail every attempt fail once, clearly, instead of in a
 * retry loop. Plain checks, no I/O. Part of the ws transport: the browser build, where
 * `wsOptions` means nothing, does not contain it (there `wsOptions` need only be an object).
 */
import {
  assertBoolean,
  assertFunction,
  assertNumber,
  characters,
  describeChar,
  describeReceived,
  describeValue,
  firstNonTokenChar,
  isAbortSignal,
  quoteKey,
  rangeError,
  typeError,
} from '../../validation.js';

/** The most of a header name an error shows (the rest may be a secret). */
const MAX_NAME_SHOWN = 32;

/** The most a Node timer waits (2^31 − 1 ms); a longer `timeout` makes Node warn and change it. */
const MAX_NODE_TIMER = 2_147_483_647; // 2^31 − 1 (a literal: `**` would count as a side effect)

/** ws reads `maxPayload` with `| 0`: beyond 2^31 − 1 it wraps (to no limit, or to a tiny one). */
const MAX_WS_PAYLOAD = 2_147_483_647; // 2^31 − 1 (a literal: `**` would count as a side effect)

/** A header value may hold tab, visible ASCII and Latin-1, nothing else (Node's `checkInvalidHeaderChar`). */
const NOT_HEADER_TEXT = /[^\t\x20-\x7e\x80-\xff]/;

/** A header name as a message shows it: never more than the part before the first bad character. */
function showHeaderName(headerName: string, bad: number): string {
  if (headerName === '') return 'an empty string';
  const shown = headerName.slice(0, Math.min(bad, MAX_NAME_SHOWN));
  return `${describeValue(`${shown}…`)} (${characters(headerName.length)}, ${describeChar(headerName, bad)} at index ${bad} is not allowed)`;
}

/**
 * A wrongly typed value that may hold a credential (a header value, `auth`): its type only
 * (`a number`, `a boolean`, `an object`, `null`), never its content.
 */
function describeKind(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

/**
 * Refuses header text Node would refuse (CR, LF, NUL and other control characters, anything
 * beyond Latin-1), without showing it: header values carry tokens. Shows its length and the
 * first offending character instead.
 */
function checkHeaderText(name: string, text: string): void {
  const bad = text.search(NOT_HEADER_TEXT);
  if (bad === -1) return;
  throw rangeError(
    name,
    `Expected \`${name}\` to contain no CR, LF or other control characters (only tab, visible ASCII and Latin-1), ` +
      `got a string of ${characters(text.length)} with ${describeChar(text, bad)} at index ${bad}`,
  );
}

function checkHeaderValue(name: string, value: unknown): void {
  if (typeof value === 'number') return;
  if (typeof value === 'string') {
    checkHeaderText(name, value);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item: unknown, index) => {
      if (typeof item !== 'string' && typeof item !== 'number') {
        throw typeError(
          `${name}[${index}]`,
          `Expected \`${name}[${index}]\` to be a string or a number, got ${describeKind(item)}`,
        );
      }
      if (typeof item === 'string') checkHeaderText(`${name}[${index}]`, item);
    });
    return;
  }
  throw typeError(
    name,
    `Expected \`${name}\` to be a string, a number or an array of them, got ${describeKind(value)}`,
  );
}

/** `wsOptions.headers`: an object of HTTP-token names to header values (see checkHeaderValue). */
function checkHeaders(headers: unknown): void {
  if (headers === undefined) return;
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    throw typeError(
      'wsOptions.headers',
      `Expected \`wsOptions.headers\` to be an object, got ${describeReceived(headers)}`,
    );
  }
  for (const [headerName, value] of Object.entries(headers)) {
    const bad = headerName === '' ? 0 : firstNonTokenChar(headerName);
    if (bad !== -1) {
      throw rangeError(
        'wsOptions.headers',
        `Expected the header names in \`wsOptions.headers\` to be HTTP tokens (RFC 7230), got ${showHeaderName(headerName, bad)}`,
      );
    }
    checkHeaderValue(`wsOptions.headers[${quoteKey(headerName)}]`, value);
  }
}

/** The client options of ws this package checks, as ws and Node's http.request read them. */
interface CheckedWsOptions {
  readonly headers?: unknown;
  readonly origin?: unknown;
  readonly protocolVersion?: unknown;
  readonly handshakeTimeout?: unknown;
  readonly maxPayload?: unknown;
  readonly auth?: unknown;
  readonly agent?: unknown;
  readonly signal?: unknown;
  readonly finishRequest?: unknown;
  readonly maxHeaderSize?: unknown;
  readonly insecureHTTPParser?: unknown;
  readonly joinDuplicateHeaders?: unknown;
}

/**
 * Refuses, at construction, `wsOptions` that would make every attempt fail: what ws's
 * `initAsClient` (ws 8) and the `http.request` it calls synchronously throw for, checked without
 * I/O. Options this does not name are passed through unchecked (TLS options, `lookup`, `family`, …).
 * @throws TypeError for a wrong type, RangeError for a bad value.
 */
export function checkWsOptions(value: Record<string, unknown>): void {
  const o = value as CheckedWsOptions;
  checkHeaders(o.headers);
  if (o.origin !== undefined) {
    // ws sends it as the Origin (or Sec-WebSocket-Origin) header.
    if (typeof o.origin !== 'string') {
      throw typeError(
        'wsOptions.origin',
        `Expected \`wsOptions.origin\` to be a string, got ${describeReceived(o.origin)}`,
      );
    }
    checkHeaderText('wsOptions.origin', o.origin);
  }
  if (o.protocolVersion !== undefined) {
    if (typeof o.protocolVersion !== 'number') {
      throw typeError(
        'wsOptions.protocolVersion',
        `Expected \`wsOptions.protocolVersion\` to be a number (8 or 13), got ${describeReceived(o.protocolVersion)}`,
      );
    }
    if (o.protocolVersion !== 8 && o.protocolVersion !== 13) {
      throw rangeError(
        'wsOptions.protocolVersion',
        `Expected \`wsOptions.protocolVersion\` to be 8 or 13, got ${describeValue(o.protocolVersion)}`,
      );
    }
  }
  // http.request's `timeout`: a finite number >= 0, else it throws.
  if (o.handshakeTimeout !== undefined) {
    assertNumber('wsOptions.handshakeTimeout', o.handshakeTimeout, { min: 0, max: MAX_NODE_TIMER });
  }
  if (o.maxPayload !== undefined) {
    assertNumber('wsOptions.maxPayload', o.maxPayload, {
      integer: true,
      min: 0,
      max: MAX_WS_PAYLOAD,
      allowInfinity: true,
    });
  }
  // http.request turns a truthy `auth` into a Basic Authorization header with Buffer.from(auth).
  if (o.auth !== undefined && typeof o.auth !== 'string') {
    throw typeError(
      'wsOptions.auth',
      `Expected \`wsOptions.auth\` to be a string ("user:password"), got ${describeKind(o.auth)}`,
    );
  }
  // http.request: an Agent-like object, or false (no agent), null or undefined (the default one).
  const { agent } = o;
  if (
    agent !== undefined &&
    agent !== null &&
    agent !== false &&
    !(typeof agent === 'object' && typeof (agent as { addRequest?: unknown }).addRequest === 'function')
  ) {
    throw typeError(
      'wsOptions.agent',
      `Expected \`wsOptions.agent\` to be an http.Agent (an object with addRequest()), false or undefined, got ${describeReceived(agent)}`,
    );
  }
  if (o.signal !== undefined && !isAbortSignal(o.signal)) {
    throw typeError(
      'wsOptions.signal',
      `Expected \`wsOptions.signal\` to be an AbortSignal, got ${describeReceived(o.signal)}`,
    );
  }
  // ws calls a truthy finishRequest in place of req.end().
  if (o.finishRequest !== undefined && o.finishRequest !== null) {
    assertFunction('wsOptions.finishRequest', o.finishRequest);
  }
  if (o.maxHeaderSize !== undefined) {
    assertNumber('wsOptions.maxHeaderSize', o.maxHeaderSize, { integer: true, min: 0, max: Number.MAX_SAFE_INTEGER });
  }
  if (o.insecureHTTPParser !== undefined) assertBoolean('wsOptions.insecureHTTPParser', o.insecureHTTPParser);
  if (o.joinDuplicateHeaders !== undefined) assertBoolean('wsOptions.joinDuplicateHeaders', o.joinDuplicateHeaders);
}
