/**
 * The `wsOptions` checks of `new ResilientSocket()` against ws itself: for the options the checks
 * cover, construction refuses exactly what makes ws's constructor (initAsClient and the
 * `http.request` it calls synchronously) throw, except where it is deliberately stricter (listed
 * below). No network: ws gets a `createConnection` that returns an unconnected socket, and every
 * WebSocket is terminated at once.
 */
import { Socket } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebSocket as NodeWebSocket } from 'ws';
import { checkWsOptions } from '../../../src/transports/ws/options.js';

/** Whether our construction-time check refuses `wsOptions`. */
function weRefuse(wsOptions: Record<string, unknown>): boolean {
  try {
    checkWsOptions(wsOptions);
    return false;
  } catch (error) {
    expect([TypeError, RangeError]).toContain((error as Error).constructor);
    expect((error as Error).message).toContain('`wsOptions');
    return true;
  }
}

/** Whether ws's constructor throws for `wsOptions`, without touching the network. */
function wsRefuses(wsOptions: Record<string, unknown>): boolean {
  let socket: NodeWebSocket;
  try {
    socket = new NodeWebSocket('ws://example.invalid/', [], { ...wsOptions, createConnection: () => new Socket() });
  } catch {
    return true;
  }
  socket.on('error', () => undefined);
  socket.terminate();
  return false;
}

/** An agent that never hands the request a socket (so no connection is attempted). */
const idleAgent = { addRequest: () => undefined };

describe('wsOptions: refused at construction exactly when ws refuses them', () => {
  it.each<[string, Record<string, unknown>]>([
    ['nothing', {}],
    [
      'valid headers',
      { headers: { Authorization: 'Bearer x', 'X-N': 5, 'X-L': ['a', 1], 'X-Tab': 'a\tb', 'X-E': [] } },
    ],
    ['Latin-1 in a header value', { headers: { 'X-T': 'caf\u00e9 \u00ff' } }],
    ['LF in a header value', { headers: { 'X-T': 'a\nb' } }],
    ['CR in a header value', { headers: { 'X-T': 'a\rb' } }],
    ['NUL in a header value', { headers: { 'X-T': '\0' } }],
    ['DEL in a header value', { headers: { 'X-T': '\x7f' } }],
    ['U+0100 in a header value', { headers: { 'X-T': '\u0100' } }],
    ['CRLF in an array item', { headers: { 'X-T': ['ok', 'b\r\n'] } }],
    ['an undefined header value', { headers: { 'X-T': undefined } }],
    ['a space in a header name', { headers: { 'X T': 'a' } }],
    ['a colon in a header name', { headers: { 'Authorization: Bearer x': 'a' } }],
    ['an empty header name', { headers: { '': 'a' } }],
    ['every tchar in a header name', { headers: { "!#$%&'*+-.^_`|~09azAZ": 'a' } }],
    ['origin', { origin: 'https://app.example' }],
    ['origin with CRLF', { origin: 'https://a\r\nb' }],
    ['protocolVersion 8', { protocolVersion: 8 }],
    ['protocolVersion 13', { protocolVersion: 13 }],
    ['protocolVersion 12', { protocolVersion: 12 }],
    ['protocolVersion "13"', { protocolVersion: '13' }],
    ['handshakeTimeout 0', { handshakeTimeout: 0 }],
    ['handshakeTimeout 0.5', { handshakeTimeout: 0.5 }],
    ['handshakeTimeout 2^31 − 1', { handshakeTimeout: 2 ** 31 - 1 }],
    ['handshakeTimeout -1', { handshakeTimeout: -1 }],
    ['handshakeTimeout NaN', { handshakeTimeout: Number.NaN }],
    ['handshakeTimeout Infinity', { handshakeTimeout: Number.POSITIVE_INFINITY }],
    ['handshakeTimeout "5"', { handshakeTimeout: '5' }],
    ['auth "user:pass"', { auth: 'user:pass' }],
    ['auth 5', { auth: 5 }],
    ['auth {}', { auth: {} }],
    ['an Agent-like agent', { agent: idleAgent }],
    ['agent {}', { agent: {} }],
    ['agent "x"', { agent: 'x' }],
    ['agent true', { agent: true }],
    ['an AbortSignal', { signal: new AbortController().signal }],
    ['signal {}', { signal: {} }],
    ['finishRequest null', { finishRequest: null }],
    ['finishRequest "x"', { finishRequest: 'x' }],
    ['maxHeaderSize 16384', { maxHeaderSize: 16_384 }],
    ['maxHeaderSize -1', { maxHeaderSize: -1 }],
    ['maxHeaderSize "8k"', { maxHeaderSize: '8k' }],
    ['insecureHTTPParser false', { insecureHTTPParser: false }],
    ['insecureHTTPParser "x"', { insecureHTTPParser: 'x' }],
    ['joinDuplicateHeaders true', { joinDuplicateHeaders: true }],
    ['joinDuplicateHeaders "x"', { joinDuplicateHeaders: 'x' }],
    ['maxPayload 0', { maxPayload: 0 }],
    ['perMessageDeflate false', { perMessageDeflate: false }],
    ['ws options this does not check', { followRedirects: true, maxRedirects: 3, skipUTF8Validation: true }],
  ])('%s', (_label, wsOptions) => {
    expect(weRefuse(wsOptions)).toBe(wsRefuses(wsOptions));
  });

  // Deliberately stricter than ws, which accepts these but then misbehaves or sends nonsense.
  it.each<[string, Record<string, unknown>, string]>([
    ['maxPayload 2^32', { maxPayload: 2 ** 32 }, 'ws reads it as `| 0`: 0, no limit at all'],
    ['maxPayload 2^32 + 5', { maxPayload: 2 ** 32 + 5 }, 'read as 5 bytes'],
    ['maxPayload "1e6"', { maxPayload: '1e6' }, 'read as 1e6 | 0'],
    ['headers null', { headers: null }, 'spread as no headers'],
    ['headers a string', { headers: 'Authorization: x' }, 'spread as headers "0", "1", …'],
    ['a boolean header value', { headers: { 'X-T': true } }, 'sent as "true"'],
    ['an object header value', { headers: { 'X-T': {} } }, 'sent as "[object Object]"'],
    ['origin a number', { origin: 5 }, 'sent as "5"'],
  ])('stricter than ws: %s (%s)', (_label, wsOptions) => {
    expect(wsRefuses(wsOptions)).toBe(false);
    expect(weRefuse(wsOptions)).toBe(true);
  });

  it('stricter than ws: a handshakeTimeout above 2^31 − 1, which Node accepts with a TimeoutOverflowWarning and changes', () => {
    // (not given to ws here: the warning would be printed to the test output)
    expect(weRefuse({ handshakeTimeout: 2 ** 31 })).toBe(true);
  });

  it('random headers: refused exactly when ws refuses them (property)', () => {
    // Header text of any code unit, biased towards the edges of what HTTP allows.
    const char = fc.oneof(
      fc.constantFrom('\t', ' ', '~', '\x7f', '\x80', '\xff', '\u0100', '\r', '\n', '\0', ':', '"', '(', ',', '/'),
      fc.integer({ min: 0, max: 0x2ff }).map((code) => String.fromCharCode(code)),
      fc.constantFrom('a', 'Z', '0', '-', '_', '.', '!', '`'),
    );
    const text = (maxLength: number) => fc.array(char, { maxLength }).map((chars) => chars.join(''));
    const value = fc.oneof(
      text(8),
      fc.oneof(fc.integer(), fc.double()),
      fc.array(fc.oneof(text(6), fc.integer()), { maxLength: 3 }),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.oneof(text(6), fc.constantFrom('X-Token', 'Authorization')), value, { maxKeys: 3 }),
        (headers) => {
          expect(weRefuse({ headers })).toBe(wsRefuses({ headers }));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the codes of the wsOptions errors', () => {
  it.each<[string, Record<string, unknown>, TypeErrorConstructor | RangeErrorConstructor, string]>([
    ['a header value of a wrong type', { headers: { 'X-Token': {} } }, TypeError, 'ERR_RS_INVALID_TYPE'],
    ['a header value with a control character', { headers: { 'X-Token': 'a\nb' } }, RangeError, 'ERR_RS_INVALID_VALUE'],
    ['a header name that is no token', { headers: { 'X Token': 'a' } }, RangeError, 'ERR_RS_INVALID_VALUE'],
    ['headers that are no object', { headers: 'X-Token: a' }, TypeError, 'ERR_RS_INVALID_TYPE'],
    ['an origin of a wrong type', { origin: 1 }, TypeError, 'ERR_RS_INVALID_TYPE'],
    ['a protocol version other than 8 or 13', { protocolVersion: 7 }, RangeError, 'ERR_RS_INVALID_VALUE'],
    ['an auth of a wrong type', { auth: 1 }, TypeError, 'ERR_RS_INVALID_TYPE'],
    ['an agent of a wrong type', { agent: 'x' }, TypeError, 'ERR_RS_INVALID_TYPE'],
    ['a signal of a wrong type', { signal: {} }, TypeError, 'ERR_RS_INVALID_TYPE'],
  ])('%s: the class and the code', (_what, options, Kind, code) => {
    let thrown: unknown;
    try {
      checkWsOptions(options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Kind);
    expect((thrown as { code?: unknown }).code).toBe(code);
  });
});
