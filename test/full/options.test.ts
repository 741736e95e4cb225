import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { truncatedBinaryExponential } from '../../src/backoff/truncated-binary-exponential.js';
import { type Config, resolveOptions } from '../../src/core/resolve.js';
import { checkTarget, checkUrl } from '../../src/core/target.js';
import { ErrorCodes } from '../../src/errors.js';
import { checkSubprotocols as checkProtocols } from '../../src/features/providers/protocols.js';
import { MAX_RETRY_AFTER } from '../../src/features/upgrade-rejection/upgrade-rejection.js';
import { ResilientSocket, type ResilientSocketOptions } from '../../src/node.js';
import { browserTransport } from '../../src/transports/browser.js';
import type { Transport } from '../../src/transports/transport.js';
import { expectInputError, PRODUCTION, rethrow } from '../helpers/mode.js';
import {
  advance,
  cleanup,
  createSocket,
  expectOptionError,
  expectRsError,
  MOCK_DELAY,
  record,
  startServer,
  thrown,
  trackingWebSocket,
  uniqueUrl,
  WebSocketImpl,
} from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

/** The code of a TypeError (a wrong type) or a RangeError (a bad value) about an option. */
const codeOf = (Type: ErrorConstructor): string =>
  Type === TypeError ? 'ERR_RS_INVALID_TYPE' : 'ERR_RS_INVALID_VALUE';

/** A pattern that finds `text` as it is (for a message that must contain it). */
const containing = (text: string): RegExp => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

/**
 * Asserts that `fn` throws exactly `Type` with its code about the option `name`: in development a
 * message naming `` `name` `` that is `devText` (the whole of it) or matches it (a pattern); in
 * production the short message naming `name`.
 */
function expectInvalidOption(
  fn: () => unknown,
  Type: ErrorConstructor,
  name: string,
  devText?: string | RegExp,
): Error & { code?: unknown } {
  const error = expectInputError(fn, Type, codeOf(Type), name, devText);
  expect(error.message).toContain(`\`${name}\``);
  return error;
}

/** Asserts a TypeError about the unknown option `name` (`ERR_RS_UNKNOWN_OPTION`); `devText` as in expectInvalidOption. */
function expectUnknownOption(fn: () => unknown, name: string, devText?: string | RegExp): Error & { code?: unknown } {
  const error = expectInputError(fn, TypeError, 'ERR_RS_UNKNOWN_OPTION', name, devText);
  expect(error.message).toContain(`\`${name}\``);
  return error;
}

/** `ResilientSocket`'s flat options made into the core's (its `prepare`), as the constructor does. */
const prepare = (options: unknown): unknown =>
  (ResilientSocket as unknown as { prepare(options: unknown): unknown }).prepare(options);

/** Resolves `ResilientSocket` options the way its constructor does, on a transport that prefers `preferred`. */
function resolveSocketOptions(url: unknown, options: unknown, preferred: () => unknown) {
  // One transport per preferred implementation: configs are shared only between sockets of one transport.
  const implementation = preferred();
  const transport = transports.get(implementation) ?? {
    ...browserTransport,
    preferred: preferred as Transport['preferred'],
  };
  transports.set(implementation, transport);
  return resolveOptions(url, prepare(options), transport, checkTarget);
}
const transports = new Map<unknown, Transport>();

/** The resolved options of the feature `name` in `config`. */
function featureOptions(config: Config, name: string): Record<string, unknown> | undefined {
  return (config.features.find((f) => f.name === name) as { options_?: Record<string, unknown> } | undefined)?.options_;
}

/** Constructs without connecting, so validation is all that runs. */
function construct(url: unknown, options: Record<string, unknown> = {}): ResilientSocket {
  return new ResilientSocket(
    url as string,
    {
      WebSocket: WebSocketImpl,
      autoConnect: false,
      ...options,
    } as ResilientSocketOptions,
  );
}

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
    ['handshakeTimeout 0', { handshakeTimeout: 0 }, RangeError, 'handshakeTimeout'],
    ['heartbeat.interval 0', { heartbeat: { interval: 0 } }, RangeError, 'heartbeat.interval'],
    ['heartbeat.timeout -1', { heartbeat: { timeout: -1 } }, RangeError, 'heartbeat.timeout'],
    ['heartbeat true', { heartbeat: true }, TypeError, 'heartbeat'],
    ['heartbeat.message 5', { heartbeat: { message: 5 } }, TypeError, 'heartbeat.message'],
    ['heartbeat.isPong "x"', { heartbeat: { isPong: 'x' } }, TypeError, 'heartbeat.isPong'],
    ['buffer.overflow "x"', { buffer: { overflow: 'x' } }, RangeError, 'buffer.overflow'],
    ['buffer.overflow 1', { buffer: { overflow: 1 } }, TypeError, 'buffer.overflow'],
    ['buffer.maxMessages -1', { buffer: { maxMessages: -1 } }, RangeError, 'buffer.maxMessages'],
    ['buffer.ttl 0', { buffer: { ttl: 0 } }, RangeError, 'buffer.ttl'],
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

  it.each<[Record<string, unknown>, ErrorConstructor, string, string]>([
    [{ maxDelay: '10' }, TypeError, 'maxDelay', 'got string "10"'],
    [{ maxDelay: 0 }, RangeError, 'maxDelay', 'got 0'],
    [{ ceiling: 1.5 }, RangeError, 'ceiling', 'got 1.5'],
    [{ heartbeat: true }, TypeError, 'heartbeat', 'got boolean true'],
    [{ buffer: { overflow: 'x' } }, RangeError, 'buffer.overflow', 'got "x"'],
    [{ resume: 3 }, TypeError, 'resume', 'got number 3'],
  ])('the message also names the value received (in development): %o', (options, Type, name, received) => {
    expectInvalidOption(() => construct('ws://localhost:1', options), Type, name, containing(received));
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
        handshakeTimeout: Number.POSITIVE_INFINITY,
        heartbeat: false,
        buffer: { maxMessages: 0, maxBytes: Number.POSITIVE_INFINITY, ttl: Number.POSITIVE_INFINITY },
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

describe('autoConnect', () => {
  it('true (default): state is connecting synchronously and `connecting` is heard by listeners attached after `new`', async () => {
    const url = uniqueUrl();
    startServer(url);
    const socket = createSocket(url);
    expect(socket.state).toBe('connecting');
    const log = record(socket);
    await advance(0);
    expect(log.of('connecting')).toEqual([{ attempt: 1, url }]);
    // idle → connecting happened inside the constructor, before anyone could listen
    expect(log.states()).toEqual([]);
  });

  it('false: stays idle (no socket, no timer) until open()', async () => {
    const url = uniqueUrl();
    startServer(url);
    const tracking = trackingWebSocket();
    const socket = createSocket(url, { autoConnect: false, WebSocket: tracking.WebSocket });
    const log = record(socket);
    await advance(10_000);
    expect(socket.state).toBe('idle');
    expect(socket.readyState).toBe(0);
    expect(tracking.calls).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
    expect(log.events).toEqual([]);

    socket.open();
    expect(socket.state).toBe('connecting');
    expect(log.states()).toEqual(['idle→connecting']);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.of('open')).toEqual([{ attempt: 1, reconnected: false }]);
  });

  it('open() is a no-op while connecting or open', async () => {
    const url = uniqueUrl();
    startServer(url);
    const tracking = trackingWebSocket();
    const socket = createSocket(url, { WebSocket: tracking.WebSocket });
    socket.open();
    await advance(MOCK_DELAY);
    socket.open();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(tracking.calls).toHaveLength(1);
  });
});

describe('options reaching the WebSocket constructor', () => {
  it('passes protocols (string or provider, called per attempt) and exposes the protocol once open', async () => {
    const url = uniqueUrl();
    const server = startServer(url);
    const tracking = trackingWebSocket();
    let n = 0;
    const protocols = vi.fn(async () => [`v${++n}`]);
    const socket = createSocket(url, { WebSocket: tracking.WebSocket, protocols, backoff: constant({ delay: 0 }) });
    expect(socket.protocol).toBe('');
    await advance(MOCK_DELAY);
    expect(tracking.calls[0]).toEqual([url, ['v1']]);
    expect(socket.protocol).toBe('v1'); // mock-socket "negotiates" the first requested protocol
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    expect(socket.protocol).toBe('');
    await advance(MOCK_DELAY + 1);
    expect(tracking.calls[1]).toEqual([url, ['v2']]);
    expect(protocols).toHaveBeenCalledTimes(2);
    expect(socket.protocol).toBe('v2');
  });

  it('passes wsOptions as the third argument (protocols default to [])', async () => {
    const url = uniqueUrl();
    startServer(url);
    const tracking = trackingWebSocket();
    const wsOptions = { headers: { authorization: 'x' } };
    createSocket(url, { WebSocket: tracking.WebSocket, wsOptions });
    await advance(MOCK_DELAY);
    expect(tracking.calls[0]).toEqual([url, [], wsOptions]);
  });

  it('a protocols provider that returns junk fails the attempt with ERR_RS_PROVIDER_FAILED', async () => {
    const url = uniqueUrl();
    startServer(url);
    const socket = createSocket(url, {
      protocols: () => 42 as unknown as string,
      backoff: constant({ delay: 1000 }),
    });
    const log = record(socket);
    await advance(MOCK_DELAY);
    expect(log.errors()).toEqual([ErrorCodes.PROVIDER_FAILED]);
    expect(socket.state).toBe('reconnecting');
  });

  it('an injected clock drives every timer of the socket', async () => {
    const url = uniqueUrl();
    startServer(url);
    const pending: { fn: () => void; ms: number }[] = [];
    const clock = {
      setTimeout: (fn: () => void, ms: number) => {
        const entry = { fn, ms };
        pending.push(entry);
        return entry;
      },
      clearTimeout: (handle: unknown) => {
        const i = pending.indexOf(handle as { fn: () => void; ms: number });
        if (i >= 0) pending.splice(i, 1);
      },
      now: () => 0,
    };
    const socket = createSocket(url, { clock, stableAfter: 777, connectTimeout: 1234 });
    // The connect deadline, and resume's suspension watch while connecting (DRIFT_CHECK_INTERVAL).
    expect(pending.map((p) => p.ms)).toEqual([1234, 1000]);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(pending.map((p) => p.ms)).toEqual([777]);
    const log = record(socket);
    pending[0]?.fn();
    expect(log.names()).toEqual(['stable']);
  });

  it('also uses the default truncated binary exponential backoff with maxDelay/ceiling', async () => {
    const url = uniqueUrl(); // no server: every attempt fails
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const socket = createSocket(url, { maxDelay: 1000, ceiling: 2 });
    const log = record(socket);
    // failures at 4, 258, 762 and 1266 ms (each wait, then mock-socket's 4 ms)
    await advance(1500);
    // a = T / 2^(N-1) = 500: windows 500, 1000, 1000, …; draws of 0.5
    expect(log.of('reconnecting').map((r) => r.delay)).toEqual([250, 500, 500, 500]);
    socket.close();
    expect(truncatedBinaryExponential({ maxDelay: 1000, ceiling: 2 }).baseDelay).toBe(500);
  });
});

describe('the ERR_RS_CLOSED contract of a socket created with an aborted signal', () => {
  it('is closed from the start, never connects, drops sends and refuses open()', async () => {
    const url = uniqueUrl();
    startServer(url);
    const tracking = trackingWebSocket();
    const socket = createSocket(url, { signal: AbortSignal.abort(), WebSocket: tracking.WebSocket });
    const log = record(socket);
    expect(socket.state).toBe('closed');
    expect(socket.readyState).toBe(3);
    expect(socket.send('x')).toBe('dropped');
    expect(log.of('drop')).toEqual([{ reason: 'closed', messages: ['x'] }]);
    expectRsError(
      thrown(() => socket.open()),
      ErrorCodes.CLOSED,
    );
    expectRsError(
      thrown(() => socket.reconnect()),
      ErrorCodes.CLOSED,
    );
    await advance(1000);
    expect(tracking.calls).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('the resolved configuration', () => {
  const url = 'ws://localhost:1';
  /** Stands in for the Node entry's ws (preferred to any global WebSocket). */
  class PreferredWebSocket {}
  const resolve = (target: string, options: unknown) =>
    resolveSocketOptions(target, options, () => PreferredWebSocket as never);

  it('is shared by sockets created with equal options, and frozen', () => {
    const clock = { setTimeout, clearTimeout, now: Date.now };
    const shouldReconnect = () => true;
    const options = () => ({ heartbeat: { interval: 5_000 }, buffer: { ttl: 1_000 }, clock, shouldReconnect });
    const first = resolve(url, options()).config;
    const second = resolve('ws://localhost:2', { ...options(), wsOptions: {} }).config;
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.features)).toBe(false); // the config is frozen; its features are shared objects
    expect(featureOptions(first, 'bufferPolicy')).toMatchObject({ ttl: 1_000 });
  });

  it('keeps its own copy of a protocols array, shared by sockets given equal arrays', () => {
    const given = ['chat', 'v2'];
    const first = resolve(url, { protocols: given }).config;
    expect(first.protocols).toEqual(['chat', 'v2']);
    expect(first.protocols).not.toBe(given);
    given.push('v3'); // changing the caller's array afterwards changes nothing
    expect(first.protocols).toEqual(['chat', 'v2']);
    expect(resolve(url, { protocols: ['chat', 'v2'] }).config).toBe(first);
    expect(resolve(url, { protocols: ['v2', 'chat'] }).config).not.toBe(first);
  });

  const isPongOfPing = (data: unknown) => data === 'pong';

  it('is not shared when any value differs', () => {
    const base = resolve(url, { heartbeat: { interval: 5_000 } }).config;
    for (const options of [
      { heartbeat: { interval: 5_001 } },
      // `message` needs `isPong` (one function, so that equal options share again)
      { heartbeat: { interval: 5_000, message: 'ping', isPong: isPongOfPing } },
      { heartbeat: false },
      { stableAfter: 1 },
      { shouldReconnect: () => true },
      { buffer: { maxMessages: 1 } },
      { unref: true },
      { maxRetryAfter: 1_000 },
      { protocols: ['a'] },
      { protocols: () => 'a' },
      { WebSocket: class Other {} },
    ] as const) {
      const other = resolve(url, options).config;
      expect(other).not.toBe(base);
      expect(resolve(url, options).config, 'equal options share again').toBe(other);
    }
  });

  it('is shared by sockets created with the defaults', () => {
    const a = resolve(url, undefined).config;
    const b = resolve('ws://localhost:3', {}).config;
    expect(b).toBe(a);
    expect(featureOptions(a, 'heartbeat')).toEqual({
      interval: 30_000,
      timeout: 10_000,
      message: undefined,
      isPong: undefined,
      periodic: true,
      explicit: false,
    });
  });
});

describe('unknown options', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['a misspelt option', { maxDelays: 5_000 }, 'Unknown option `maxDelays`: did you mean `maxDelay`?'],
    ['another case', { autoconnect: false }, 'Unknown option `autoconnect`: did you mean `autoConnect`?'],
    ['two letters swapped', { stalbeAfter: 1 }, 'Unknown option `stalbeAfter`: did you mean `stableAfter`?'],
    ['the new option misspelt', { maxRetryAftr: 1 }, 'Unknown option `maxRetryAftr`: did you mean `maxRetryAfter`?'],
    [
      'a heartbeat option',
      { heartbeat: { intervall: 5_000 } },
      'Unknown option `heartbeat.intervall`: did you mean `heartbeat.interval`?',
    ],
    [
      'a buffer option',
      { buffer: { maxMessage: 5 } },
      'Unknown option `buffer.maxMessage`: did you mean `buffer.maxMessages`?',
    ],
    [
      'a resume option',
      { resume: { probeTimout: 1_000 } },
      'Unknown option `resume.probeTimout`: did you mean `resume.probeTimeout`?',
    ],
  ])('%s is a TypeError that suggests the closest one (in development)', (_label, options, message) => {
    expectUnknownOption(() => construct('ws://localhost:1', options), message.split('`')[1] as string, message);
  });

  it('without a close match, lists every option (the new maxRetryAfter included) in development', () => {
    const error = expectUnknownOption(
      () => construct('ws://localhost:1', { retries: 3 }),
      'retries',
      /^Unknown option `retries`: the options are `WebSocket`, `protocols`, /,
    );
    if (!PRODUCTION) {
      for (const name of ['maxRetries', 'maxRetryAfter', 'heartbeat', 'resume', 'clock']) {
        expect(error.message).toContain(`\`${name}\``);
      }
    }
    expectUnknownOption(
      () => construct('ws://localhost:1', { heartbeat: { every: 1 } }),
      'heartbeat.every',
      'Unknown option `heartbeat.every`: the options of `heartbeat` are `interval`, `timeout`, `message`, `isPong`',
    );
  });

  it('quotes a key that is not an identifier, and never shows the value', () => {
    const error = expectUnknownOption(
      () => construct('ws://localhost:1', { 'max delay': 'S3CR3T' }),
      '["max delay"]',
      'Unknown option `["max delay"]`: did you mean `maxDelay`?',
    );
    expect(error.message).not.toContain('S3CR3T');
    const other = expectUnknownOption(
      () => construct('ws://localhost:1', { Authorization: 'Bearer S3CR3T' }),
      'Authorization',
      /^Unknown option `Authorization`: the options are /,
    );
    expect(other.message).not.toContain('S3CR3T');
  });

  it('refuses an unknown key even when its value is undefined, before any other check', () => {
    expectUnknownOption(() => construct('ws://localhost:1', { maxDelays: undefined }), 'maxDelays');
    // both wrong: the unknown key is the likelier cause, and is reported
    expectUnknownOption(() => construct('ws://localhost:1', { ceiling: 'x', maxDelays: 1 }), 'maxDelays');
  });

  it('has no side effect: no timer, no socket', () => {
    const tracking = trackingWebSocket();
    expect(
      () => new ResilientSocket('ws://localhost:1', { WebSocket: tracking.WebSocket, maxDelays: 1 } as never),
    ).toThrow(TypeError);
    expect(vi.getTimerCount()).toBe(0);
    expect(tracking.calls).toEqual([]);
  });

  it('looks only at own enumerable string keys', () => {
    const inherited = Object.create({ maxDelays: 1 }) as Record<string, unknown>;
    expect(() => construct('ws://localhost:1', inherited)).not.toThrow();
    expect(() => construct('ws://localhost:1', { [Symbol('maxDelays')]: 1 })).not.toThrow();
    const hidden = {};
    Object.defineProperty(hidden, 'maxDelays', { value: 1, enumerable: false });
    expect(() => construct('ws://localhost:1', hidden)).not.toThrow();
  });

  it('leaves wsOptions alone: it is ws’s own options object', () => {
    const wsOptions = { perMessageDeflate: false, followRedirects: true, aFutureWsOption: 1 };
    expect(() => construct('ws://localhost:1', { wsOptions })).not.toThrow();
  });

  it('accepts every documented option at once (the compiler checks that none is missing here)', () => {
    const controller = new AbortController();
    const everything: Required<Omit<ResilientSocketOptions, 'backoff'>> = {
      WebSocket: WebSocketImpl,
      protocols: ['v1'],
      wsOptions: { headers: { 'X-Client': 'test' } },
      autoConnect: false,
      maxDelay: 1_000,
      ceiling: 3,
      stableAfter: 0,
      connectTimeout: 1_000,
      maxRetries: 1,
      maxRetryAfter: 1_000,
      shouldReconnect: () => true,
      heartbeat: { interval: 1_000, timeout: 1_000, message: 'ping', isPong: (data) => data === 'pong' },
      buffer: { maxMessages: 1, maxBytes: 10, overflow: 'error', ttl: 1 },
      highWaterMark: 1_024,
      handshake: () => undefined,
      handshakeTimeout: 1_000,
      binaryType: 'arraybuffer',
      signal: controller.signal,
      unref: true,
      resume: { probeTimeout: 1, pauseWhileOffline: false, detectSuspend: false },
      delivery: { ackTimeout: 1_000, maxAttempts: 3, window: 10, maxPending: 10 },
      clock: { setTimeout, clearTimeout, now: Date.now },
    };
    expect(() => new ResilientSocket('ws://localhost:1', everything)).not.toThrow();
    const { maxDelay: _maxDelay, ceiling: _ceiling, ...rest } = everything;
    expect(() => new ResilientSocket('ws://localhost:1', { ...rest, backoff: constant() })).not.toThrow();
  });
});

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
