import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { truncatedBinaryExponential } from '../../src/backoff/truncated-binary-exponential.js';
import { ErrorCodes } from '../../src/errors.js';
import { type ResilientSocketOptions, resolveSocketOptions } from '../../src/socket/options.js';
import { ResilientSocket } from '../../src/socket/resilient-socket.js';
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
  it.each<[string, Record<string, unknown>, ErrorConstructor, string]>([
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
    ['backoff + maxDelay', { backoff: constant({ delay: 1 }), maxDelay: 1000 }, TypeError, 'maxDelay'],
    ['backoff + ceiling', { backoff: constant({ delay: 1 }), ceiling: 3 }, TypeError, 'ceiling'],
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
  ])('%s → %o naming the option', (_label, options, Type, name) => {
    const { __options, ...rest } = options;
    const fn =
      '__options' in options
        ? () => new ResilientSocket('ws://localhost:1', __options as ResilientSocketOptions)
        : () => construct('ws://localhost:1', rest);
    expectOptionError(fn, Type, name);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ maxDelay: '10' }, 'got string "10"'],
    [{ maxDelay: 0 }, 'got 0'],
    [{ ceiling: 1.5 }, 'got 1.5'],
    [{ heartbeat: true }, 'got boolean true'],
    [{ buffer: { overflow: 'x' } }, 'got "x"'],
    [{ resume: 3 }, 'got number 3'],
  ])('the message also names the value received: %o', (options, received) => {
    const error = thrown(() => construct('ws://localhost:1', options)) as Error;
    expect(error.message).toContain(received);
  });

  it('says that maxDelay/ceiling cannot be combined with backoff', () => {
    const error = thrown(() => construct('ws://localhost:1', { backoff: constant(), maxDelay: 1000 })) as Error;
    expect(error.message).toMatch(/cannot be combined with `backoff`/);
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
    expect(pending.map((p) => p.ms)).toEqual([1234]);
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
  /** No global WebSocket in Node 20: the fallback stands in for the Node entry's ws. */
  class FallbackWebSocket {}
  const resolve = (target: string, options: unknown) =>
    resolveSocketOptions(target, options, () => FallbackWebSocket as never);

  it('is shared by sockets created with equal options, and frozen', () => {
    const clock = { setTimeout, clearTimeout, now: Date.now };
    const shouldReconnect = () => true;
    const options = () => ({ heartbeat: { interval: 5_000 }, buffer: { ttl: 1_000 }, clock, shouldReconnect });
    const first = resolve(url, options()).config;
    const second = resolve('ws://localhost:2', { ...options(), wsOptions: {} }).config;
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.buffer)).toBe(true);
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

  it('is not shared when any value differs', () => {
    const base = resolve(url, { heartbeat: { interval: 5_000 } }).config;
    for (const options of [
      { heartbeat: { interval: 5_001 } },
      { heartbeat: { interval: 5_000, message: 'ping' } },
      { heartbeat: false },
      { stableAfter: 1 },
      { shouldReconnect: () => true },
      { buffer: { maxMessages: 1 } },
      { unref: true },
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
    expect(a.heartbeat).toEqual({
      interval: 30_000,
      timeout: 10_000,
      message: undefined,
      isPong: undefined,
      explicit: false,
    });
  });
});
