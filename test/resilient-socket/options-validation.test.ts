/**
 * What `new ResilientSocket(url, options)` refuses, before anything else runs: a bad url or option
 * is a TypeError (wrong type) or a RangeError (bad value) with its code, naming the option (in
 * development also the value received, but never a secret from a URL); the documented extremes and
 * the rules of `maxRetryAfter` and of a heartbeat's `message`/`isPong` pair.
 */
import { describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { checkUrl } from '../../src/core/target.js';
import { MAX_RETRY_AFTER } from '../../src/features/upgrade-rejection/upgrade-rejection.js';
import { bufferPolicy, delivery, handshake, ResilientSocket, type ResilientSocketOptions } from '../../src/node.js';
import { PRODUCTION } from '../helpers/mode.js';
import {
  construct,
  containing,
  expectInvalidOption,
  expectOptionError,
  featureOptions,
  resolveSocketOptions,
  thrown,
  trackingWebSocket,
  useFakeTimersAndCleanup,
  WebSocketImpl,
} from './helpers.js';

useFakeTimersAndCleanup();

describe('url validation', () => {
  it.each([
    ['ftp://x', RangeError],
    ['not a url', RangeError],
    ['/relative/path', RangeError],
    ['ws://host/path#fragment', RangeError],
    [42, TypeError],
    [null, TypeError],
    [undefined, TypeError],
    [{ href: 'ws://x' }, TypeError],
  ] as const)('rejects %o with a %o naming `url`', (url, Type) => {
    expectOptionError(() => construct(url), Type, 'url');
  });

  it.each(['ws://localhost:1', 'wss://example.test/feed?x=1', 'http://localhost:2', 'https://example.test'])(
    'accepts %s',
    (url) => {
      expect(construct(url).url).toBe(url);
    },
  );

  it('accepts a URL object and reports it as a string', () => {
    const socket = construct(new URL('ws://localhost:3/feed'));
    expect(socket.url).toBe('ws://localhost:3/feed');
  });

  it('does not call a URL provider at construction; url is "" until the first attempt', () => {
    const provider = vi.fn(() => 'ws://localhost:4');
    const socket = construct(provider);
    expect(provider).not.toHaveBeenCalled();
    expect(socket.url).toBe('');
  });
});

describe('option validation', () => {
  // The last column: the option a production message names, where it is not the one development's
  // text is about (a combination is refused by the option it is combined with).
  it.each<[string, Record<string, unknown>, ErrorConstructor, string, string?]>([
    ['options null', { __options: null }, TypeError, 'options'],
    ['maxDelay as string', { maxDelay: '10' }, TypeError, 'maxDelay'],
    ['maxDelay 0', { maxDelay: 0 }, RangeError, 'maxDelay'],
    ['maxDelay Infinity', { maxDelay: Number.POSITIVE_INFINITY }, RangeError, 'maxDelay'],
    ['ceiling 0', { ceiling: 0 }, RangeError, 'ceiling'],
    ['ceiling 1.5', { ceiling: 1.5 }, RangeError, 'ceiling'],
    ['ceiling as string', { ceiling: '10' }, TypeError, 'ceiling'],
    ['stableAfter -1', { stableAfter: -1 }, RangeError, 'stableAfter'],
    ['stableAfter NaN', { stableAfter: Number.NaN }, RangeError, 'stableAfter'],
    ['stableAfter as string', { stableAfter: '5' }, TypeError, 'stableAfter'],
    ['connectTimeout 0', { connectTimeout: 0 }, RangeError, 'connectTimeout'],
    ['connectTimeout -5', { connectTimeout: -5 }, RangeError, 'connectTimeout'],
    ['connectTimeout null', { connectTimeout: null }, TypeError, 'connectTimeout'],
    ['maxRetries -1', { maxRetries: -1 }, RangeError, 'maxRetries'],
    ['maxRetries 1.5', { maxRetries: 1.5 }, RangeError, 'maxRetries'],
    ['maxRetries as string', { maxRetries: '3' }, TypeError, 'maxRetries'],
    ['heartbeat.interval 0', { heartbeat: { interval: 0 } }, RangeError, 'heartbeat.interval'],
    ['heartbeat.timeout -1', { heartbeat: { timeout: -1 } }, RangeError, 'heartbeat.timeout'],
    ['heartbeat true', { heartbeat: true }, TypeError, 'heartbeat'],
    ['heartbeat.message 5', { heartbeat: { message: 5 } }, TypeError, 'heartbeat.message'],
    ['heartbeat.isPong "x"', { heartbeat: { isPong: 'x' } }, TypeError, 'heartbeat.isPong'],
    ['buffer.maxMessages -1', { buffer: { maxMessages: -1 } }, RangeError, 'buffer.maxMessages'],
    ['buffer null', { buffer: null }, TypeError, 'buffer'],
    ['backoff + maxDelay', { backoff: constant({ delay: 1 }), maxDelay: 1000 }, TypeError, 'maxDelay', 'backoff'],
    ['backoff + ceiling', { backoff: constant({ delay: 1 }), ceiling: 3 }, TypeError, 'ceiling', 'backoff'],
    ['backoff without next()', { backoff: { reset() {} } }, TypeError, 'backoff'],
    ['backoff factory returning junk', { backoff: () => 5 }, TypeError, 'backoff()'],
    ['WebSocket 5', { WebSocket: 5 }, TypeError, 'WebSocket'],
    ['WebSocket arrow function', { WebSocket: () => undefined }, TypeError, 'WebSocket'],
    ['signal {}', { signal: {} }, TypeError, 'signal'],
    ['handshake "x"', { handshake: 'x' }, TypeError, 'handshake'],
    ['shouldReconnect true', { shouldReconnect: true }, TypeError, 'shouldReconnect'],
    ['autoConnect "yes"', { autoConnect: 'yes' }, TypeError, 'autoConnect'],
    ['binaryType 1', { binaryType: 1 }, TypeError, 'binaryType'],
    ['protocols 5', { protocols: 5 }, TypeError, 'protocols'],
    ['protocols [1]', { protocols: [1] }, TypeError, 'protocols'],
    ['wsOptions "x"', { wsOptions: 'x' }, TypeError, 'wsOptions'],
    ['unref 1', { unref: 1 }, TypeError, 'unref'],
    ['clock {}', { clock: {} }, TypeError, 'clock'],
  ])('%s → %o naming the option', (_label, options, Type, name, short = name) => {
    const { __options, ...rest } = options;
    const fn =
      '__options' in options
        ? () => new ResilientSocket('ws://localhost:1', __options as ResilientSocketOptions)
        : () => construct('ws://localhost:1', rest);
    expectInvalidOption(fn, Type, PRODUCTION ? short : name);
  });

  // The options of the features a program opts into, checked by their factories (`handshake(…)`,
  // `delivery(…)`, `bufferPolicy(…)`) when the options object is built.
  it.each<[string, () => Record<string, unknown>, ErrorConstructor, string]>([
    [
      'bufferPolicy({ overflow: "x" })',
      () => ({ bufferPolicy: bufferPolicy({ overflow: 'x' as never }) }),
      RangeError,
      'buffer.overflow',
    ],
    [
      'bufferPolicy({ overflow: 1 })',
      () => ({ bufferPolicy: bufferPolicy({ overflow: 1 as never }) }),
      TypeError,
      'buffer.overflow',
    ],
    ['bufferPolicy({ ttl: 0 })', () => ({ bufferPolicy: bufferPolicy({ ttl: 0 }) }), RangeError, 'buffer.ttl'],
    [
      'handshake(hook, { timeout: 0 })',
      () => ({ handshake: handshake(() => undefined, { timeout: 0 }) }),
      RangeError,
      'handshake.timeout',
    ],
    [
      'delivery({ ackTimeout: 0 })',
      () => ({ delivery: delivery({ ackTimeout: 0 }) }),
      RangeError,
      'delivery.ackTimeout',
    ],
  ])('%s → %o naming the option', (_label, options, Type, name) => {
    expectInvalidOption(() => construct('ws://localhost:1', options()), Type, name);
  });

  // A thunk builds its options inside the check (a feature's factory validates as it is called).
  it.each<[Record<string, unknown> | (() => Record<string, unknown>), ErrorConstructor, string, string]>([
    [{ maxDelay: '10' }, TypeError, 'maxDelay', 'got string "10"'],
    [{ maxDelay: 0 }, RangeError, 'maxDelay', 'got 0'],
    [{ ceiling: 1.5 }, RangeError, 'ceiling', 'got 1.5'],
    [{ heartbeat: true }, TypeError, 'heartbeat', 'got boolean true'],
    [() => ({ bufferPolicy: bufferPolicy({ overflow: 'x' as never }) }), RangeError, 'buffer.overflow', 'got "x"'],
    [{ resume: 3 }, TypeError, 'resume', 'got number 3'],
  ])('the message also names the value received (in development): %o', (options, Type, name, received) => {
    expectInvalidOption(
      () => construct('ws://localhost:1', typeof options === 'function' ? options() : options),
      Type,
      name,
      containing(received),
    );
  });

  it('says that maxDelay/ceiling cannot be combined with backoff', () => {
    expectInvalidOption(
      () => construct('ws://localhost:1', { backoff: constant(), maxDelay: 1000 }),
      TypeError,
      'backoff',
      /cannot be combined with `backoff`/,
    );
  });

  it('validation failures have no side effect: no timer, no socket created', () => {
    const tracking = trackingWebSocket();
    expect(() => new ResilientSocket('ws://localhost:1', { WebSocket: tracking.WebSocket, stableAfter: -1 })).toThrow(
      RangeError,
    );
    expect(vi.getTimerCount()).toBe(0);
    expect(tracking.calls).toEqual([]);
  });

  it('accepts the documented extremes', () => {
    expect(() =>
      construct('ws://localhost:1', {
        stableAfter: 0,
        connectTimeout: Number.POSITIVE_INFINITY,
        maxRetries: 0,
        handshake: handshake(() => undefined, { timeout: Number.POSITIVE_INFINITY }),
        heartbeat: false,
        buffer: { maxMessages: 0, maxBytes: Number.POSITIVE_INFINITY },
        bufferPolicy: bufferPolicy({ ttl: Number.POSITIVE_INFINITY }),
        maxDelay: 1,
        ceiling: 1,
      }),
    ).not.toThrow();
    expect(() => construct('ws://localhost:1', { maxRetries: Number.POSITIVE_INFINITY })).not.toThrow();
  });

  it('calls a backoff factory once, at construction', () => {
    const factory = vi.fn(() => constant({ delay: 5 }));
    construct('ws://localhost:1', { backoff: factory });
    expect(factory).toHaveBeenCalledTimes(1);
  });
});

describe('maxRetryAfter', () => {
  const resolve = (options: Record<string, unknown>) =>
    resolveSocketOptions('ws://localhost:1', { WebSocket: WebSocketImpl, ...options }, () => undefined).config;

  it('defaults to 5 minutes', () => {
    expect(MAX_RETRY_AFTER).toBe(300_000);
    expect(featureOptions(resolve({}), 'upgradeRejection')?.cap).toBe(300_000);
  });

  it.each([0, 1, 60_000, 2 ** 31, Number.POSITIVE_INFINITY])('accepts %d', (value) => {
    expect(featureOptions(resolve({ maxRetryAfter: value }), 'upgradeRejection')?.cap).toBe(value);
  });

  it.each<[unknown, ErrorConstructor, string]>([
    [-1, RangeError, 'got -1'],
    [Number.NaN, RangeError, 'got NaN'],
    [Number.NEGATIVE_INFINITY, RangeError, 'got -Infinity'],
    ['300000', TypeError, 'got string "300000"'],
    [null, TypeError, 'got null'],
  ])('refuses %o with a %o naming `maxRetryAfter`', (value, Type, received) => {
    expectInvalidOption(
      () => construct('ws://localhost:1', { maxRetryAfter: value }),
      Type,
      'maxRetryAfter',
      containing(received),
    );
  });
});

describe('heartbeat: a heartbeat that sends pings must recognise their answers', () => {
  const RULE =
    'Expected `heartbeat.isPong` to be a function when `heartbeat.message` is set (a heartbeat that sends pings ' +
    'must recognise their answers; leave out `message` for silence detection), got ';

  it.each<[string, Record<string, unknown>, string]>([
    ['message without isPong', { message: 'ping' }, 'undefined'],
    ['a message function without isPong', { message: () => 'ping' }, 'undefined'],
    ['binary message without isPong', { message: new Uint8Array([1]) }, 'undefined'],
    ['isPong null', { message: 'ping', isPong: null }, 'null'],
    ['isPong a string', { message: 'ping', isPong: 'pong' }, 'string "pong"'],
  ])('%s is a TypeError at construction', (_label, heartbeat, received) => {
    expectInvalidOption(
      () => construct('ws://localhost:1', { heartbeat }),
      TypeError,
      'heartbeat.isPong',
      RULE + received,
    );
  });

  it('accepts message with isPong, isPong alone, and silence detection (neither)', () => {
    const isPong = (data: unknown) => data === 'pong';
    const resolve = (heartbeat: unknown) =>
      featureOptions(
        resolveSocketOptions('ws://localhost:1', { WebSocket: WebSocketImpl, heartbeat }, () => undefined).config,
        'heartbeat',
      );
    expect(resolve({ message: 'ping', isPong })).toMatchObject({ message: 'ping', isPong, explicit: true });
    expect(resolve({ isPong })).toMatchObject({ message: undefined, isPong });
    expect(resolve({ interval: 1_000 })).toMatchObject({ message: undefined, isPong: undefined, explicit: true });
  });
});

describe('no secret from a URL in an error', () => {
  const SECRETS = ['S3CR3T', 'T0K3N', 'frag'];
  /** A RangeError or TypeError naming `url` (in development: `devText`, see expectInvalidOption) and no secret. */
  const expectRedacted = (url: unknown, Type: ErrorConstructor, devText?: string | RegExp) => {
    const error = expectInvalidOption(() => construct(url), Type, 'url', devText);
    for (const secret of SECRETS) expect(error.message).not.toContain(secret);
    return error;
  };

  it('a URL with a fragment', () => {
    expectRedacted(
      'ws://user:S3CR3T@127.0.0.1:1/x?token=T0K3N#frag',
      RangeError,
      'Expected `url` to have no #hash (a WebSocket URL cannot carry one), got "ws://***@127.0.0.1:1/x?token=***#***"',
    );
  });

  it('an unparsable URL', () => {
    expectRedacted('wss://u:S3CR3T@/?token=T0K3N bad', RangeError, containing('got "wss://***@/?token=***"'));
  });

  it('a bad scheme', () => {
    expectRedacted(
      'ftp://u:S3CR3T@files.example/?token=T0K3N&x=1',
      RangeError,
      'Expected `url` to use ws:, wss:, http: or https:, got "ftp://***@files.example/?token=***&x=***"',
    );
  });

  it('a URL object', () => {
    expectRedacted(new URL('wss://user:S3CR3T@example.test/feed?token=T0K3N#frag'), RangeError);
  });

  it.each([
    'user:S3CR3T@example.test/feed?token=T0K3N',
    '//user:S3CR3T@example.test/?token=T0K3N',
    'ftp:/u:S3CR3T@h?T0K3N',
  ])('userinfo without `scheme://` (%s)', (url) => {
    expectRedacted(url, RangeError, containing('***@'));
  });

  it('a URL provider’s result (checkUrl with `url()`)', () => {
    const error = thrown(() => checkUrl('url()', 'ws://u:S3CR3T@h/?token=T0K3N#frag')) as Error;
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toContain('`url()`');
    for (const secret of SECRETS) expect(error.message).not.toContain(secret);
  });

  it('keeps host and path, which say where and not who (in development)', () => {
    expectInvalidOption(
      () => construct('ftp://files.example:21/pub/feed?x=1'),
      RangeError,
      'url',
      containing('"ftp://files.example:21/pub/feed?x=***"'),
    );
  });
});
