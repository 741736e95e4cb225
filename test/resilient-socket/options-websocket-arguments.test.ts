/**
 * The checks on what the socket hands to the WebSocket constructor besides the URL: `protocols`
 * (distinct RFC 7230 tokens, also when a provider returns them) and `wsOptions` (what ws would refuse
 * on every attempt is refused at construction, without showing a header's value); what passes them
 * reaches the constructor untouched.
 */
import { describe, expect, it } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { ErrorCodes } from '../../src/errors.js';
import { checkSubprotocols as checkProtocols } from '../../src/features/providers/protocols.js';
import { PRODUCTION, rethrow } from '../helpers/mode.js';
import {
  advance,
  construct,
  containing,
  createSocket,
  expectInvalidOption,
  expectOptionError,
  expectRsError,
  MOCK_DELAY,
  record,
  startServer,
  thrown,
  trackingWebSocket,
  uniqueUrl,
  useFakeTimersAndCleanup,
} from './helpers.js';

useFakeTimersAndCleanup();

describe('protocols (RFC 6455 §4.1: distinct RFC 7230 tokens)', () => {
  it.each<[unknown, string]>([
    ['a b', '"a b" (a space is not allowed)'],
    ['', 'an empty string'],
    [[''], 'an empty string at index 0'],
    [['x', 'x'], '"x" at index 0 and 1'],
    [['v1', 'v1, v2'], '"v1, v2" ("," is not allowed) at index 1'],
    [['a/b'], '"a/b" ("/" is not allowed)'],
    [['a\nb'], '"a\\nb" (LF is not allowed)'],
    [['caf\u00e9'], 'U+00E9 is not allowed'],
    [['chat', 'chat'], 'each subprotocol once'],
  ])('%j is a RangeError naming `protocols` and (in development) the offending value', (protocols, shown) => {
    expectInvalidOption(() => construct('ws://localhost:1', { protocols }), RangeError, 'protocols', containing(shown));
  });

  it('a non-string entry is a TypeError naming its index (in development)', () => {
    expectInvalidOption(
      () => construct('ws://localhost:1', { protocols: ['v1', null] }),
      TypeError,
      'protocols',
      containing('got null at index 1'),
    );
    // A wrong type anywhere is the TypeError, even after an entry with a bad value.
    expect(() => construct('ws://localhost:1', { protocols: ['', 5] })).toThrow(TypeError);
  });

  it('a long invalid name (maybe a credential sent as a subprotocol) is shown by its start and length only', () => {
    const token = `base64url.bearer.authorization.k8s.io.${'S3CR3T/'.repeat(6)}`;
    const error = expectInvalidOption(
      () => construct('ws://localhost:1', { protocols: [token] }),
      RangeError,
      'protocols',
      containing(`"base64ur…" (${token.length} characters, "/" is not allowed)`),
    );
    expect(error.message).not.toContain('S3CR3T');
  });

  it('accepts every tchar, [] and undefined (no subprotocol), and passes them on', async () => {
    const url = uniqueUrl();
    startServer(url);
    const all = "!#$%&'*+-.^_`|~0123456789azAZ";
    for (const protocols of [all, [all, 'v2.json'], [], undefined]) {
      const tracking = trackingWebSocket();
      createSocket(url, { WebSocket: tracking.WebSocket, ...(protocols === undefined ? {} : { protocols }) });
      await advance(MOCK_DELAY);
      expect(tracking.calls[0]?.[1]).toEqual(protocols);
    }
  });

  it('checks a provider’s result by the same rules, naming `protocols()`', () => {
    expectInvalidOption(
      () => checkProtocols('protocols()', ['x', 'x']),
      RangeError,
      'protocols()',
      'Expected `protocols()` to name each subprotocol once, got "x" at index 0 and 1',
    );
    expectInvalidOption(
      () => checkProtocols('protocols()', ''),
      RangeError,
      'protocols()',
      /`protocols\(\)`.*return \[\] or undefined/,
    );
    expect(() => checkProtocols('protocols()', 5)).toThrow(TypeError);
    expect(checkProtocols('protocols()', ['a', 'b'])).toEqual(['a', 'b']);
    expect(checkProtocols('protocols()', undefined)).toBeUndefined();
  });

  it('a provider returning a duplicate fails the attempt with ERR_RS_PROVIDER_FAILED naming `protocols()`', async () => {
    const url = uniqueUrl();
    const server = startServer(url);
    const socket = createSocket(url, { protocols: () => ['x', 'x'], backoff: constant({ delay: 1000 }) });
    const log = record(socket);
    await advance(MOCK_DELAY);
    const error = expectRsError(log.of('error')[0], ErrorCodes.PROVIDER_FAILED);
    if (PRODUCTION) expect(error.message).toBe(ErrorCodes.PROVIDER_FAILED);
    else expect(error.message).toContain('`protocols()`');
    // The cause names `protocols()` in both builds.
    expectInvalidOption(rethrow(error.cause), RangeError, 'protocols()');
    expect(server.clients).toEqual([]);
  });
});

describe('wsOptions that ws would refuse on every attempt', () => {
  it.each<[string, Record<string, unknown>, ErrorConstructor, string]>([
    ['headers null', { headers: null }, TypeError, 'wsOptions.headers'],
    ['headers a string', { headers: 'Authorization: x' }, TypeError, 'wsOptions.headers'],
    ['headers an array', { headers: [['a', 'b']] }, TypeError, 'wsOptions.headers'],
    ['a header name with a space', { headers: { 'X Token': 'a' } }, RangeError, 'wsOptions.headers'],
    ['an empty header name', { headers: { '': 'a' } }, RangeError, 'wsOptions.headers'],
    ['a header value with LF', { headers: { 'X-Token': 'a\nb' } }, RangeError, 'wsOptions.headers["X-Token"]'],
    ['a header value with CR', { headers: { 'X-Token': 'a\rb' } }, RangeError, 'wsOptions.headers["X-Token"]'],
    ['a header value with NUL', { headers: { 'X-Token': 'a\0b' } }, RangeError, 'wsOptions.headers["X-Token"]'],
    ['a header value with DEL', { headers: { 'X-Token': 'a\x7fb' } }, RangeError, 'wsOptions.headers["X-Token"]'],
    ['a header value beyond Latin-1', { headers: { 'X-Token': '\u2603' } }, RangeError, 'wsOptions.headers["X-Token"]'],
    [
      'a bad item in a header array',
      { headers: { 'X-A': ['ok', 'b\r\n'] } },
      RangeError,
      'wsOptions.headers["X-A"][1]',
    ],
    ['an undefined header value', { headers: { 'X-Token': undefined } }, TypeError, 'wsOptions.headers["X-Token"]'],
    ['a boolean header value', { headers: { 'X-Token': true } }, TypeError, 'wsOptions.headers["X-Token"]'],
    ['an object header value', { headers: { 'X-Token': {} } }, TypeError, 'wsOptions.headers["X-Token"]'],
    ['an object in a header array', { headers: { 'X-A': [{}] } }, TypeError, 'wsOptions.headers["X-A"][0]'],
    ['origin with CRLF', { origin: 'https://a.test\r\nX: y' }, RangeError, 'wsOptions.origin'],
    ['origin a number', { origin: 5 }, TypeError, 'wsOptions.origin'],
    ['protocolVersion "13"', { protocolVersion: '13' }, TypeError, 'wsOptions.protocolVersion'],
    ['protocolVersion 12', { protocolVersion: 12 }, RangeError, 'wsOptions.protocolVersion'],
    ['handshakeTimeout "5"', { handshakeTimeout: '5' }, TypeError, 'wsOptions.handshakeTimeout'],
    ['handshakeTimeout -1', { handshakeTimeout: -1 }, RangeError, 'wsOptions.handshakeTimeout'],
    ['handshakeTimeout NaN', { handshakeTimeout: Number.NaN }, RangeError, 'wsOptions.handshakeTimeout'],
    [
      'handshakeTimeout Infinity',
      { handshakeTimeout: Number.POSITIVE_INFINITY },
      RangeError,
      'wsOptions.handshakeTimeout',
    ],
    ['handshakeTimeout 2^31', { handshakeTimeout: 2 ** 31 }, RangeError, 'wsOptions.handshakeTimeout'],
    ['maxPayload "1e6"', { maxPayload: '1e6' }, TypeError, 'wsOptions.maxPayload'],
    ['maxPayload 2^32 (read as 0 by ws)', { maxPayload: 2 ** 32 }, RangeError, 'wsOptions.maxPayload'],
    ['maxPayload 1.5', { maxPayload: 1.5 }, RangeError, 'wsOptions.maxPayload'],
    ['auth a number', { auth: 1234 }, TypeError, 'wsOptions.auth'],
    ['agent {}', { agent: {} }, TypeError, 'wsOptions.agent'],
    ['agent true', { agent: true }, TypeError, 'wsOptions.agent'],
    ['signal {}', { signal: {} }, TypeError, 'wsOptions.signal'],
    ['finishRequest "x"', { finishRequest: 'x' }, TypeError, 'wsOptions.finishRequest'],
    ['maxHeaderSize -1', { maxHeaderSize: -1 }, RangeError, 'wsOptions.maxHeaderSize'],
    ['maxHeaderSize "8k"', { maxHeaderSize: '8k' }, TypeError, 'wsOptions.maxHeaderSize'],
    ['insecureHTTPParser "yes"', { insecureHTTPParser: 'yes' }, TypeError, 'wsOptions.insecureHTTPParser'],
    ['joinDuplicateHeaders 1', { joinDuplicateHeaders: 1 }, TypeError, 'wsOptions.joinDuplicateHeaders'],
  ])('%s → %o naming the option, at construction', (_label, wsOptions, Type, name) => {
    const tracking = trackingWebSocket();
    expectOptionError(() => construct('ws://localhost:1', { wsOptions, WebSocket: tracking.WebSocket }), Type, name);
    expect(tracking.calls).toEqual([]);
  });

  it('never shows a header value, only its length and the offending character', () => {
    const error = expectOptionError(
      () => construct('ws://localhost:1', { wsOptions: { headers: { Authorization: 'Bearer S3CR3T\r\nX-Evil: 1' } } }),
      RangeError,
      'wsOptions.headers["Authorization"]',
    );
    expect(error.message).toBe(
      'Expected `wsOptions.headers["Authorization"]` to contain no CR, LF or other control characters ' +
        '(only tab, visible ASCII and Latin-1), got a string of 24 characters with CR at index 13',
    );
    const typed = thrown(() => construct('ws://localhost:1', { wsOptions: { auth: 12345678 } })) as Error;
    expect(typed.message).toBe('Expected `wsOptions.auth` to be a string ("user:password"), got a number');
    const bigint = thrown(() =>
      construct('ws://localhost:1', { wsOptions: { headers: { 'X-Pin': 12345678n } } }),
    ) as Error;
    expect(bigint.message).not.toContain('12345678');
  });

  it('shows a bad header name only up to its first bad character (a whole header line pasted as a name)', () => {
    const error = expectOptionError(
      () => construct('ws://localhost:1', { wsOptions: { headers: { 'Authorization: Bearer S3CR3T': '' } } }),
      RangeError,
      'wsOptions.headers',
    );
    expect(error.message).toContain('got "Authorization…" (28 characters, ":" at index 13 is not allowed)');
    expect(error.message).not.toContain('S3CR3T');
  });

  it('accepts what ws accepts, and passes the object on untouched', async () => {
    const url = uniqueUrl();
    startServer(url);
    const wsOptions = {
      headers: {
        'X-Number': 5,
        'X-List': ['a', 'b'],
        'X-Latin1': 'caf\u00e9',
        'X-Tab': 'a\tb',
        'X-Empty': [],
        "!#$%&'*+-.^_`|~": '',
      },
      origin: 'https://app.example',
      protocolVersion: 8,
      handshakeTimeout: 0,
      maxPayload: Number.POSITIVE_INFINITY,
      agent: false,
      finishRequest: null,
      auth: 'user:pass',
      signal: new AbortController().signal,
      maxHeaderSize: 16_384,
      insecureHTTPParser: false,
      joinDuplicateHeaders: true,
      perMessageDeflate: false,
    };
    const tracking = trackingWebSocket();
    createSocket(url, { WebSocket: tracking.WebSocket, wsOptions });
    await advance(MOCK_DELAY);
    expect(tracking.calls[0]?.[2]).toBe(wsOptions);
    for (const ok of [{ protocolVersion: 13 }, { handshakeTimeout: 2 ** 31 - 1 }, { maxPayload: 0 }, { agent: null }]) {
      expect(() => construct('ws://localhost:1', { wsOptions: ok })).not.toThrow();
    }
  });
});
