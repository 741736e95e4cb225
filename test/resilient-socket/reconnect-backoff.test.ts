/**
 * When the socket reconnects and how long it waits: a connection the server closes or an attempt
 * that fails is retried after the backoff policy's delay (the window grows with consecutive failures
 * up to the ceiling), the failure count resets only after `stableAfter`, and a broken policy is
 * reported and replaced by a 1 s wait.
 */
import { describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { truncatedBinaryExponential } from '../../src/backoff/truncated-binary-exponential.js';
import type { BackoffPolicyLike } from '../../src/backoff/types.js';
import { ErrorCodes } from '../../src/errors.js';
import type { WebSocketConstructorLike } from '../../src/transports/websocket-like.js';
import {
  advance,
  createSocket,
  expectMessage,
  expectRsError,
  halfTbe,
  MOCK_DELAY,
  openSocket,
  record,
  startServer,
  tbeWindow,
  uniqueUrl,
  useFakeTimersAndCleanup,
} from './helpers.js';

useFakeTimersAndCleanup();

describe('the server closes the connection', () => {
  it.each([
    [1011, 'internal error', false],
    [1012, 'restart', false],
    [1006, '', false],
    [1000, 'deploy', true],
    [1001, 'going away', false],
    [4000, 'app', false],
  ])(
    'code %i → close {willReconnect: true}, reconnecting, retry after the policy delay',
    async (code, reason, wasClean) => {
      const { server, socket, log } = await openSocket({ backoff: constant({ delay: 1000 }) });
      log.clear();
      server.closeLast(code, reason);
      await advance(MOCK_DELAY);
      // The state first (inside the close listener the socket is already reconnecting), then the close.
      expect(log.events).toEqual([
        { name: 'state', payload: { previous: 'open', current: 'reconnecting', reason: 'connection lost' } },
        { name: 'close', payload: { code, reason, wasClean, willReconnect: true } },
        { name: 'reconnecting', payload: { attempt: 2, delay: 1000 } },
      ]);
      expect(socket.state).toBe('reconnecting');
      expect(socket.attempt).toBe(2); // the attempt that follows the wait, as the event says
      expect(socket.failures).toBe(1);

      await advance(999);
      expect(socket.state).toBe('reconnecting');
      await advance(1);
      expect(socket.state).toBe('connecting');
      await advance(MOCK_DELAY);
      expect(socket.state).toBe('open');
      expect(log.of('connecting')).toEqual([{ attempt: 2, url: server.url }]);
      expect(log.of('open')).toEqual([{ attempt: 2, reconnected: true }]);
      expect(server.clients).toHaveLength(2);
      expect(log.errors()).toEqual([]);
    },
  );

  it('the reconnecting delay is what the injected policy yields', async () => {
    const { server, log } = await openSocket({ backoff: halfTbe() });
    server.closeLast(1011);
    await advance(MOCK_DELAY);
    expect(log.of('reconnecting')).toEqual([{ attempt: 2, delay: 0.5 * 19.53125 }]);
  });

  it('a server that shuts down closes every client at once (server.close)', async () => {
    const { server, socket, log } = await openSocket({ backoff: constant({ delay: 50 }) });
    server.server.close({ code: 1001, reason: 'shutdown', wasClean: true });
    expect(log.of('close')).toEqual([{ code: 1001, reason: 'shutdown', wasClean: true, willReconnect: true }]);
    expect(socket.state).toBe('reconnecting');
  });
});

describe('failed attempts', () => {
  it('a URL with no server fails with error ERR_RS_CONNECTION_FAILED then close, and retries', async () => {
    const url = uniqueUrl();
    const socket = createSocket(url, { backoff: constant({ delay: 200 }) });
    const log = record(socket);
    await advance(MOCK_DELAY);
    expect(log.names()).toEqual(['connecting', 'state', 'error', 'close', 'reconnecting']);
    const [error] = log.of('error');
    expectRsError(error, ErrorCodes.CONNECTION_FAILED);
    expectMessage(error, ErrorCodes.CONNECTION_FAILED, 'Connection attempt 1 failed');
    // mock-socket reports a refused connection as close code 1000
    expect(log.of('close')).toEqual([{ code: 1000, reason: '', wasClean: true, willReconnect: true }]);
    expect(log.states()).toEqual(['connecting→reconnecting']);
    expect(log.of('reconnecting')).toEqual([{ attempt: 2, delay: 200 }]);

    // the server comes up during the wait
    const server = startServer(url);
    await advance(200 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.of('open')).toEqual([{ attempt: 2, reconnected: false }]);
    expect(server.clients).toHaveLength(1);
  });

  it('consecutive failures grow the window: delays are 0.5 · 19.53125 · 2^(n−1), failures counts them', async () => {
    const socket = createSocket(uniqueUrl(), { backoff: halfTbe() }); // no server
    const log = record(socket);
    const attempts: number[] = [];
    const failures: number[] = [];
    socket.on('reconnecting', () => {
      attempts.push(socket.attempt);
      failures.push(socket.failures);
    });
    await advance(2000);
    const delays = log.of('reconnecting').map((r) => r.delay);
    expect(delays.length).toBeGreaterThanOrEqual(6);
    delays.forEach((delay, i) => {
      expect(delay).toBe(0.5 * 19.53125 * 2 ** i);
      expect(delay).toBe(0.5 * tbeWindow(i + 1));
    });
    expect(log.of('reconnecting').map((r) => r.attempt)).toEqual(delays.map((_, i) => i + 2));
    expect(attempts).toEqual(delays.map((_, i) => i + 2)); // socket.attempt agrees with the event
    expect(failures).toEqual(delays.map((_, i) => i + 1));
    expect(log.of('connecting').map((c) => c.attempt)).toEqual(
      Array.from({ length: log.of('connecting').length }, (_, i) => i + 1),
    );
    expect(log.errors().every((c) => c === ErrorCodes.CONNECTION_FAILED)).toBe(true);
  });

  it('the window stops doubling at the ceiling', async () => {
    const socket = createSocket(uniqueUrl(), {
      backoff: truncatedBinaryExponential({ maxDelay: 100, ceiling: 3, random: () => 0.5 }),
    });
    const log = record(socket);
    await advance(1000);
    expect(
      log
        .of('reconnecting')
        .slice(0, 6)
        .map((r) => r.delay),
    ).toEqual([12.5, 25, 50, 50, 50, 50]);
  });

  it('the retry starts exactly after the delay', async () => {
    const socket = createSocket(uniqueUrl(), { backoff: constant({ delay: 300 }) });
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    await advance(299);
    expect(socket.state).toBe('reconnecting');
    await advance(1);
    expect(socket.state).toBe('connecting');
  });

  it('a WebSocket constructor that throws fails the attempt (no close event) and retries', async () => {
    const Throwing = class {
      constructor() {
        throw new SyntaxError('bad scheme');
      }
    } as unknown as WebSocketConstructorLike;
    const socket = createSocket('ws://localhost:1', { WebSocket: Throwing, backoff: constant({ delay: 100 }) });
    const log = record(socket);
    await advance(0);
    expect(log.names()).toEqual(['connecting', 'state', 'error', 'reconnecting']);
    const error = expectRsError(log.of('error')[0], ErrorCodes.CONNECTION_FAILED);
    expect(error.cause).toBeInstanceOf(SyntaxError);
    await advance(100);
    expect(log.of('connecting')).toHaveLength(2);
  });
});

describe('stableAfter', () => {
  it('failures reset only after the connection stayed open stableAfter ms, not on open', async () => {
    const url = uniqueUrl();
    let keep = false;
    const server = startServer(url, (client) => {
      if (!keep) client.close({ code: 1011, reason: 'flap', wasClean: false });
    });
    const socket = createSocket(url, { backoff: halfTbe(), stableAfter: 1000 });
    const log = record(socket);
    let openedAt = 0;
    socket.on('open', () => {
      openedAt = Date.now();
    });
    // attempt 1 opens at 4, lost at 8; attempt 2 at ~17, lost at ~25; attempt 3 at ~44, lost at ~52
    await advance(60);
    expect(log.of('open').map((o) => o.attempt)).toEqual([1, 2, 3]);
    expect(log.of('reconnecting')).toEqual([
      { attempt: 2, delay: 9.765625 },
      { attempt: 3, delay: 19.53125 },
      { attempt: 4, delay: 39.0625 },
    ]);
    expect(log.names()).not.toContain('stable');
    expect(socket.failures).toBe(3);
    expect(socket.attempt).toBe(4); // waiting for attempt 4

    keep = true;
    await advance(40); // attempt 4 opens at ~95 ms and stays
    expect(socket.state).toBe('open');
    expect(log.of('open').map((o) => o.attempt)).toEqual([1, 2, 3, 4]);
    expect(socket.failures).toBe(3); // open alone resets nothing
    expect(socket.attempt).toBe(4);

    log.clear();
    await advance(openedAt + 999 - Date.now());
    expect(log.names()).toEqual([]);
    expect(socket.failures).toBe(3);
    await advance(1);
    expect(log.names()).toEqual(['stable']);
    expect(socket.failures).toBe(0);
    expect(socket.attempt).toBe(0);

    server.closeLast(1012);
    await advance(MOCK_DELAY);
    // fresh backoff and attempt numbering after a stable connection
    expect(log.of('reconnecting')).toEqual([{ attempt: 1, delay: 9.765625 }]);
    expect(socket.attempt).toBe(1);
    expect(socket.failures).toBe(1);
  });

  it('stable fires exactly stableAfter ms after open', async () => {
    const { socket, log } = await openSocket({ stableAfter: 500 });
    await advance(499);
    expect(log.names()).not.toContain('stable');
    await advance(1);
    expect(log.names()).toContain('stable');
    expect(socket.attempt).toBe(0);
    expect(socket.failures).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stableAfter: 0 resets the failure count on open', async () => {
    const url = uniqueUrl();
    const socket = createSocket(url, { backoff: constant({ delay: 10 }), stableAfter: 0 });
    const log = record(socket);
    await advance(MOCK_DELAY + 10 + MOCK_DELAY); // two failures
    expect(socket.failures).toBe(2);
    expect(socket.attempt).toBe(3);
    startServer(url);
    await advance(10 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(socket.failures).toBe(0);
    expect(socket.attempt).toBe(0);
    expect(log.names()).toContain('stable');
  });

  it('a connection lost before stableAfter cancels the stable timer', async () => {
    const { server, log } = await openSocket({ stableAfter: 1000, backoff: constant({ delay: 5000 }) });
    await advance(500);
    server.closeLast(1012);
    await advance(MOCK_DELAY + 1000);
    expect(log.names()).not.toContain('stable');
    expect(vi.getTimerCount()).toBe(1); // only the reconnect wait
  });
});

describe('backoff policy calls', () => {
  it('calls next() once per failure and reset() when the connection becomes stable', async () => {
    const url = uniqueUrl();
    const backoff: BackoffPolicyLike = { next: vi.fn(() => 10), reset: vi.fn() };
    const socket = createSocket(url, { backoff, stableAfter: 100 });
    await advance(MOCK_DELAY + 10 + MOCK_DELAY);
    expect(backoff.next).toHaveBeenCalledTimes(2);
    expect(backoff.reset).not.toHaveBeenCalled();
    startServer(url);
    await advance(10 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(backoff.reset).not.toHaveBeenCalled();
    await advance(100);
    expect(backoff.reset).toHaveBeenCalledTimes(1);
  });

  it('a policy returning a negative number retries at once; NaN waits 1 s (reported); a huge one is clamped', async () => {
    const delays = [-5, Number.NaN, 2 ** 40];
    const backoff: BackoffPolicyLike = { next: () => delays.shift() ?? 1, reset: () => {} };
    const socket = createSocket(uniqueUrl(), { backoff });
    socket.on('error', () => undefined);
    const log = record(socket);
    await advance(1_100);
    expect(log.of('reconnecting').map((r) => r.delay)).toEqual([0, 1_000, 2 ** 31 - 1]);
    expect(socket.state).toBe('reconnecting');
  });
});

describe('a broken user backoff policy', () => {
  it.each([
    [
      'throws',
      () => {
        throw new Error('policy bug');
      },
    ],
    ['returns NaN', () => Number.NaN],
    ['returns a string', () => '10' as unknown as number],
  ])('that %s is reported and replaced by a 1 s wait (no crash, no tight loop)', async (_name, next) => {
    const policy: BackoffPolicyLike = { next, reset: () => undefined };
    const socket = createSocket(uniqueUrl(), { backoff: policy });
    const log = record(socket);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(log.of('reconnecting')).toEqual([{ attempt: 2, delay: 1_000 }]);
    expect(log.errors()).toEqual([ErrorCodes.CONNECTION_FAILED, ErrorCodes.CALLBACK_FAILED]);
    await advance(999);
    expect(socket.state).toBe('reconnecting');
    await advance(1);
    expect(socket.state).toBe('connecting');
  });
});
