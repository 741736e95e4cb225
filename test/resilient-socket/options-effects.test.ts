/**
 * What valid options do: `autoConnect`, what reaches the WebSocket constructor (protocols, wsOptions,
 * an injected clock, the default backoff's maxDelay/ceiling), a socket created with an already
 * aborted signal, and the resolved configuration (frozen, shared by sockets with equal options).
 */
import { describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { truncatedBinaryExponential } from '../../src/backoff/truncated-binary-exponential.js';
import { ErrorCodes } from '../../src/errors.js';
import { bufferPolicy } from '../../src/features/buffer-policy/buffer-policy.js';
import {
  advance,
  createSocket,
  expectRsError,
  featureOptions,
  MOCK_DELAY,
  record,
  resolveSocketOptions,
  startServer,
  thrown,
  trackingWebSocket,
  uniqueUrl,
  useFakeTimersAndCleanup,
} from './helpers.js';

useFakeTimersAndCleanup();

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
    const options = () => ({
      heartbeat: { interval: 5_000 },
      bufferPolicy: bufferPolicy({ ttl: 1_000 }),
      clock,
      shouldReconnect,
    });
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
