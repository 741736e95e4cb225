import { WebSocket as MockWebSocket } from 'mock-socket';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { truncatedBinaryExponential } from '../../src/backoff/truncated-binary-exponential.js';
import type { BackoffPolicyLike } from '../../src/backoff/types.js';
import type { CloseInfo } from '../../src/core/close-codes.js';
import { ErrorCodes, type ResilientSocketError } from '../../src/errors.js';
import { CLOSE_TIMEOUT, SHOULD_RECONNECT_TIMEOUT } from '../../src/node.js';
import type { WebSocketConstructorLike } from '../../src/transports/websocket-like.js';
import { errorMessage, PRODUCTION } from '../helpers/mode.js';
import {
  advance,
  cleanup,
  createSocket,
  expectRsError,
  MOCK_DELAY,
  openSocket,
  record,
  SilentWebSocket,
  startServer,
  tbeWindow,
  uniqueUrl,
} from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

/**
 * The message of a ResilientSocketError with `code`: in development it contains `text`; in
 * production it is the code alone.
 */
function expectMessage(error: { message: string } | undefined, code: string, text: string): void {
  if (PRODUCTION) expect(error?.message).toBe(code);
  else expect(error?.message).toContain(text);
}

/** TBE with T = 10 s, N = 10 and every draw 0.5: the n-th delay is 0.5 · 19.53125 · 2^(n−1). */
function halfTbe() {
  return truncatedBinaryExponential({ maxDelay: 10_000, ceiling: 10, random: () => 0.5 });
}

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

describe('maxRetries', () => {
  it('with maxRetries 2 the third consecutive failure gives up: error, giveup, closed', async () => {
    const url = uniqueUrl();
    const socket = createSocket(url, { maxRetries: 2, backoff: constant({ delay: 100 }) });
    const log = record(socket);
    await advance(MOCK_DELAY + 100 + MOCK_DELAY + 100 + MOCK_DELAY - 1);
    expect(socket.state).toBe('connecting');
    expect(log.of('reconnecting').map((r) => r.attempt)).toEqual([2, 3]);
    log.clear();
    await advance(1);
    expect(log.names()).toEqual(['state', 'error', 'error', 'close', 'giveup']);
    expect(log.errors()).toEqual([ErrorCodes.CONNECTION_FAILED, ErrorCodes.RETRIES_EXHAUSTED]);
    expect(log.of('close')).toEqual([{ code: 1000, reason: '', wasClean: true, willReconnect: false }]);
    const exhausted = log.of('error')[1] as ResilientSocketError;
    expect(exhausted.cause).toBe(log.of('error')[0]);
    expectMessage(exhausted, ErrorCodes.RETRIES_EXHAUSTED, 'maxRetries 2');
    expect(log.of('giveup')).toEqual([{ attempts: 3, failures: 3, error: exhausted }]);
    expect(log.states()).toEqual(['connecting→closed']);
    expect(socket.state).toBe('closed');
    expect(socket.readyState).toBe(3);
    expect(socket.stats.lastError).toBe(exhausted);
    await advance(MOCK_DELAY);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('open() after a give-up starts afresh with attempt 1 and a fresh backoff', async () => {
    const url = uniqueUrl();
    const socket = createSocket(url, { maxRetries: 1, backoff: halfTbe() });
    const log = record(socket);
    await advance(100);
    expect(socket.state).toBe('closed');
    expect(log.of('giveup')).toHaveLength(1);
    expect(socket.attempt).toBe(2);
    expect(socket.failures).toBe(2);

    log.clear();
    socket.open(); // still no server: fails again
    expect(socket.state).toBe('connecting');
    expect(socket.attempt).toBe(1);
    expect(socket.failures).toBe(0);
    await advance(MOCK_DELAY);
    expect(log.of('connecting')).toEqual([{ attempt: 1, url }]);
    expect(log.of('reconnecting')).toEqual([{ attempt: 2, delay: 9.765625 }]);

    startServer(url);
    await advance(9 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.of('open')).toEqual([{ attempt: 2, reconnected: false }]);
  });

  it('maxRetries counts an accepted-then-dropped connection as a failure (not stable yet)', async () => {
    const url = uniqueUrl();
    startServer(url, (client) => client.close({ code: 1011, reason: '', wasClean: false }));
    const socket = createSocket(url, { maxRetries: 1, backoff: constant({ delay: 10 }) });
    const log = record(socket);
    await advance(100);
    expect(log.of('open')).toHaveLength(2);
    expect(log.errors()).toEqual([ErrorCodes.RETRIES_EXHAUSTED]);
    expect(log.of('giveup')).toEqual([{ attempts: 2, failures: 2, error: log.of('error')[0] }]);
    expect(socket.state).toBe('closed');
  });

  it('maxRetries 0 gives up on the first failure', async () => {
    const socket = createSocket(uniqueUrl(), { maxRetries: 0 });
    const log = record(socket);
    await advance(MOCK_DELAY);
    expect(log.of('giveup')).toHaveLength(1);
    expect(log.of('giveup')[0]?.attempts).toBe(1);
    expect(log.names()).not.toContain('reconnecting');
  });
});

describe('connectTimeout', () => {
  it('a URL provider that never resolves times out with ERR_RS_CONNECT_TIMEOUT, then reconnects', async () => {
    const provider = vi.fn(() => new Promise<string>(() => {}));
    const socket = createSocket(provider, { connectTimeout: 1000, backoff: constant({ delay: 500 }) });
    const log = record(socket);
    await advance(999);
    expect(socket.state).toBe('connecting');
    expect(log.events).toEqual([]);
    await advance(1);
    expect(log.names()).toEqual(['state', 'error', 'reconnecting']); // no socket, so no close event
    const error = expectRsError(log.of('error')[0], ErrorCodes.CONNECT_TIMEOUT);
    expectMessage(error, ErrorCodes.CONNECT_TIMEOUT, '1000 ms');
    expect(log.of('reconnecting')).toEqual([{ attempt: 2, delay: 500 }]);
    expect(provider).toHaveBeenCalledTimes(1);
    await advance(500);
    expect(provider).toHaveBeenCalledTimes(2);
    expect(socket.state).toBe('connecting');
  });

  it('a socket that never opens is aborted after connectTimeout with close 1006 "connect timeout"', async () => {
    SilentWebSocket.instances.length = 0;
    const socket = createSocket('ws://localhost:9', {
      WebSocket: SilentWebSocket as unknown as WebSocketConstructorLike,
      connectTimeout: 2000,
      backoff: constant({ delay: 100 }),
    });
    const log = record(socket);
    await advance(2000);
    expect(log.names()).toEqual(['connecting', 'state', 'error', 'close', 'reconnecting']);
    expectRsError(log.of('error')[0], ErrorCodes.CONNECT_TIMEOUT);
    expect(log.of('close')).toEqual([{ code: 1006, reason: 'connect timeout', wasClean: false, willReconnect: true }]);
    expect(SilentWebSocket.instances[0]?.closeCalls).toHaveLength(1);
    await advance(100);
    expect(SilentWebSocket.instances).toHaveLength(2);
  });

  it('the provider resolving after the timeout is ignored', async () => {
    const url = uniqueUrl();
    startServer(url);
    let resolveFirst: (value: string) => void = () => {};
    const provider = vi
      .fn<() => Promise<string>>()
      .mockImplementationOnce(() => new Promise<string>((resolve) => (resolveFirst = resolve)))
      .mockImplementation(async () => url);
    const socket = createSocket(provider, { connectTimeout: 100, backoff: constant({ delay: 1000 }) });
    const log = record(socket);
    await advance(100);
    expect(socket.state).toBe('reconnecting');
    resolveFirst(url);
    await advance(MOCK_DELAY * 2);
    expect(socket.state).toBe('reconnecting');
    expect(log.of('connecting')).toEqual([]);
  });
});

describe('URL provider', () => {
  it('is called before every attempt and its value is used for that attempt', async () => {
    const base = uniqueUrl();
    const server = startServer(base);
    let n = 0;
    const provider = vi.fn(async () => `${base}?token=${++n}`);
    const socket = createSocket(provider, { backoff: constant({ delay: 10 }) });
    const log = record(socket);
    await advance(MOCK_DELAY);
    server.closeLast(1012);
    await advance(MOCK_DELAY + 10 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(provider).toHaveBeenCalledTimes(2);
    // The event shows the URL redacted (a token in the query is a secret); socket.url has it whole.
    expect(log.of('connecting')).toEqual([
      { attempt: 1, url: `${base}?token=***` },
      { attempt: 2, url: `${base}?token=***` },
    ]);
    expect(socket.url).toBe(`${base}?token=2`);
  });

  it('throwing or rejecting gives ERR_RS_PROVIDER_FAILED (no unhandled rejection) and a retry', async () => {
    const url = uniqueUrl();
    startServer(url);
    const thrownError = new Error('no token');
    const provider = vi
      .fn<() => string | Promise<string>>()
      .mockImplementationOnce(() => {
        throw thrownError;
      })
      .mockImplementationOnce(() => Promise.reject(new Error('token service down')))
      .mockImplementation(() => url);
    const socket = createSocket(provider, { backoff: constant({ delay: 100 }) });
    const log = record(socket);
    await advance(0);
    expect(log.names()).toEqual(['state', 'error', 'reconnecting']);
    const first = expectRsError(log.of('error')[0], ErrorCodes.PROVIDER_FAILED);
    expect(first.cause).toBe(thrownError);
    expectMessage(first, ErrorCodes.PROVIDER_FAILED, 'no token');
    await advance(100);
    const second = expectRsError(log.of('error')[1], ErrorCodes.PROVIDER_FAILED);
    expectMessage(second, ErrorCodes.PROVIDER_FAILED, 'token service down');
    expect(log.of('reconnecting').map((r) => r.attempt)).toEqual([2, 3]);
    await advance(100 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.of('open')).toEqual([{ attempt: 3, reconnected: false }]);
    expect(provider).toHaveBeenCalledTimes(3);
  });

  it('a provider returning an invalid URL fails the attempt with ERR_RS_PROVIDER_FAILED', async () => {
    const socket = createSocket(() => 'ftp://nope', { backoff: constant({ delay: 100 }) });
    const log = record(socket);
    await advance(0);
    const error = expectRsError(log.of('error')[0], ErrorCodes.PROVIDER_FAILED);
    expect(error.cause).toBeInstanceOf(RangeError);
    expect(socket.state).toBe('reconnecting');
  });
});

describe('close-code policy', () => {
  it('a server close with 1008 does not reconnect: ERR_RS_FATAL_CLOSE, giveup, closed', async () => {
    const { server, socket, log } = await openSocket({ backoff: constant({ delay: 10 }) });
    socket.send('x'); // sent
    log.clear();
    server.closeLast(1008, 'policy');
    await advance(MOCK_DELAY);
    expect(log.names()).toEqual(['state', 'error', 'close', 'giveup']);
    expect(log.of('close')).toEqual([{ code: 1008, reason: 'policy', wasClean: false, willReconnect: false }]);
    const error = expectRsError(log.of('error')[0], ErrorCodes.FATAL_CLOSE);
    expect(error.closeCode).toBe(1008);
    expectMessage(error, ErrorCodes.FATAL_CLOSE, '1008');
    expect(log.of('giveup')).toEqual([{ attempts: 1, failures: 1, error }]);
    expect(socket.state).toBe('closed');
    await advance(1000);
    expect(server.clients).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it.each([1002, 1003, 1007, 1009, 1010])('gives up after %i too', async (code) => {
    const { server, socket, log } = await openSocket();
    server.closeLast(code);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('closed');
    expect(log.errors()).toEqual([ErrorCodes.FATAL_CLOSE]);
  });

  it('a custom shouldReconnect decides: false for 4000–4999, true otherwise (even 1008)', async () => {
    const shouldReconnect = vi.fn((close: CloseInfo) => !(close.code >= 4000 && close.code <= 4999));
    const options = { shouldReconnect, backoff: constant({ delay: 10 }) };

    const a = await openSocket(options);
    a.server.closeLast(1008, 'policy');
    await advance(MOCK_DELAY);
    expect(shouldReconnect).toHaveBeenLastCalledWith({ code: 1008, reason: 'policy', wasClean: false });
    expect(a.socket.state).toBe('reconnecting');
    expect(a.log.of('close')[0]?.willReconnect).toBe(true);

    const b = await openSocket(options);
    b.server.closeLast(4001, 'banned');
    await advance(MOCK_DELAY);
    expect(shouldReconnect).toHaveBeenLastCalledWith({ code: 4001, reason: 'banned', wasClean: false });
    expect(b.socket.state).toBe('closed');
    expect(b.log.of('close')[0]?.willReconnect).toBe(false);
    expect(b.log.of('giveup')).toHaveLength(1);
    expectRsError(b.log.of('giveup')[0]?.error, ErrorCodes.FATAL_CLOSE);

    const c = await openSocket(options);
    c.server.closeLast(3999);
    await advance(MOCK_DELAY);
    expect(c.socket.state).toBe('reconnecting');
  });

  it('a throwing shouldReconnect is reported and the socket reconnects', async () => {
    const { server, socket, log } = await openSocket({
      shouldReconnect: () => {
        throw new Error('oops');
      },
      backoff: constant({ delay: 10 }),
    });
    server.closeLast(1011);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(log.errors()).toEqual([ErrorCodes.CALLBACK_FAILED]);
    expect(log.of('error')[0]?.message).toBe(errorMessage(ErrorCodes.CALLBACK_FAILED, '`shouldReconnect` threw: oops'));
  });
});

describe('reconnect()', () => {
  it('drops the current connection (close willReconnect: true) and connects at once with attempt 1', async () => {
    const { server, socket, log } = await openSocket({ backoff: constant({ delay: 5000 }) });
    log.clear();
    socket.reconnect();
    expect(log.events).toEqual([
      { name: 'state', payload: { previous: 'open', current: 'connecting', reason: 'reconnect() called' } },
      { name: 'close', payload: { code: 1000, reason: '', wasClean: false, willReconnect: true } },
    ]);
    expect(socket.state).toBe('connecting');
    await advance(0);
    expect(log.of('connecting')).toEqual([{ attempt: 1, url: server.url }]);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.of('open')).toEqual([{ attempt: 1, reconnected: true }]);
    expect(server.clients).toHaveLength(2);
    expect(server.clients[0]?.readyState).toBe(3); // the old connection was closed
    expect(log.names()).not.toContain('reconnecting');
  });

  it('skips a pending wait and resets the failure count and backoff', async () => {
    const backoff: BackoffPolicyLike = { next: vi.fn(() => 60_000), reset: vi.fn() };
    const socket = createSocket(uniqueUrl(), { backoff }); // no server
    const log = record(socket);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(socket.failures).toBe(1);
    socket.reconnect();
    expect(backoff.reset).toHaveBeenCalledTimes(1);
    expect(socket.failures).toBe(0);
    expect(socket.attempt).toBe(1);
    expect(socket.state).toBe('connecting');
    expect(socket.stats.nextRetryAt).toBeUndefined();
    await advance(0);
    expect(log.of('connecting').map((c) => c.attempt)).toEqual([1, 1]);
    expect(vi.getTimerCount()).toBeGreaterThan(0);
  });

  it('works from idle and after a give-up', async () => {
    const url = uniqueUrl();
    startServer(url);
    const idle = createSocket(url, { autoConnect: false });
    idle.reconnect();
    await advance(MOCK_DELAY);
    expect(idle.state).toBe('open');

    const lonely = createSocket(uniqueUrl(), { maxRetries: 0 });
    const giveups = record(lonely, ['giveup']); // heard, as an app would
    await advance(MOCK_DELAY);
    expect(lonely.state).toBe('closed');
    expect(giveups.of('giveup').map((info) => info.error.code)).toEqual(['ERR_RS_RETRIES_EXHAUSTED']);
    lonely.reconnect();
    expect(lonely.state).toBe('connecting');
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

// Regression (issue "every promise holds", defect 5), it was: reconnect() cut the connection (the
// server saw 1006, no close frame) while the client's own close event said 1000, and took no code
// or reason.
describe('reconnect(code?, reason?) closes politely', () => {
  it('sends a close frame with the code and reason; the close event reports them', async () => {
    const { server, socket, log } = await openSocket();
    const seenByServer: [number, string][] = [];
    server
      .last()
      .addEventListener('close', ((event: { code: number; reason: string }) =>
        seenByServer.push([event.code, event.reason])) as never);
    log.clear();
    socket.reconnect(4001, 'switching shard');
    expect(log.of('close')).toEqual([{ code: 4001, reason: 'switching shard', wasClean: false, willReconnect: true }]);
    await advance(MOCK_DELAY);
    expect(seenByServer).toEqual([[4001, 'switching shard']]);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(server.clients).toHaveLength(2);
  });

  it.each<[string, unknown[], ErrorConstructor]>([
    ['reconnect(999)', [999], RangeError],
    ['reconnect(1006)', [1006], RangeError],
    ["reconnect(1000, 'x'.repeat(124))", [1000, 'x'.repeat(124)], RangeError],
    ["reconnect('a')", ['a'], TypeError],
    ['reconnect(1000, 5)', [1000, 5], TypeError],
  ])('%s throws %o and changes nothing', async (_, args, Type) => {
    const { socket, log } = await openSocket();
    log.clear();
    expect(() => (socket.reconnect as (...a: unknown[]) => void)(...args)).toThrow(Type);
    expect(socket.state).toBe('open');
    expect(log.events).toEqual([]);
  });

  /** A WebSocket whose close frame gets no answer (a server gone quiet); `terminate()` as in ws. */
  function stubbornWebSocket() {
    const instances: (MockWebSocket & { terminated: boolean })[] = [];
    class Stubborn extends MockWebSocket {
      terminated = false;
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols);
        instances.push(this);
      }
      override close(): void {}
      terminate(): void {
        this.terminated = true;
      }
    }
    return { WebSocket: Stubborn as unknown as WebSocketConstructorLike, instances };
  }

  it('the old connection’s late messages never reach anyone; its closing handshake is cut after CLOSE_TIMEOUT', async () => {
    const stubborn = stubbornWebSocket();
    const server = startServer();
    const socket = createSocket(server.url, { WebSocket: stubborn.WebSocket, stableAfter: 60_000 });
    const log = record(socket);
    await advance(MOCK_DELAY);
    const old = server.last();
    socket.reconnect();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    old.send('late, from the old connection');
    server.last().send('fresh');
    expect(log.of('message')).toEqual(['fresh']);
    await advance(CLOSE_TIMEOUT - MOCK_DELAY - 1);
    expect(stubborn.instances[0]?.terminated).toBe(false); // still waiting for the server's answer
    await advance(1);
    expect(stubborn.instances[0]?.terminated).toBe(true); // cut
    expect(stubborn.instances[1]?.terminated).toBe(false);
    expect(log.of('close')).toHaveLength(1); // the one reconnect() reported
    expect(vi.getTimerCount()).toBe(1); // the new connection's stable timer only
  });

  it('close() while the old connection still closes cuts it too: nothing is left', async () => {
    const stubborn = stubbornWebSocket();
    const server = startServer();
    const socket = createSocket(server.url, { WebSocket: stubborn.WebSocket });
    await advance(MOCK_DELAY);
    socket.reconnect();
    expect(stubborn.instances[0]?.terminated).toBe(false);
    socket.close();
    expect(socket.state).toBe('closed');
    expect(stubborn.instances[0]?.terminated).toBe(true);
    await advance(MOCK_DELAY);
    expect(vi.getTimerCount()).toBe(0);
  });
});

// Regression (issue "every promise holds", defect 6), it was: a shouldReconnect returning a
// Promise counted as true, so `() => Promise.resolve(false)` reconnected for ever.
describe('an async shouldReconnect', () => {
  /** A shouldReconnect whose promise the test settles, with `decide(again)`. */
  function pendingDecision() {
    let decide: (again: boolean) => void = () => undefined;
    const shouldReconnect = () =>
      new Promise<boolean>((resolve) => {
        decide = resolve;
      });
    return { shouldReconnect, decide: (again: boolean) => decide(again) };
  }

  it('resolving false gives up: the close waits for the decision and says willReconnect: false', async () => {
    const { server, socket, log } = await openSocket({
      shouldReconnect: async () => false,
      backoff: constant({ delay: 10 }),
    });
    log.clear();
    server.closeLast(4000, 'kicked');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('closed');
    expect(log.names()).toEqual(['state', 'state', 'error', 'close', 'giveup']);
    expect(log.states()).toEqual(['open→reconnecting', 'reconnecting→closed']);
    expect(log.of('close')).toEqual([{ code: 4000, reason: 'kicked', wasClean: false, willReconnect: false }]);
    expectRsError(log.of('error')[0], ErrorCodes.FATAL_CLOSE);
    await advance(1_000);
    expect(server.clients).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('resolving true reconnects with the usual delay; the socket waits in reconnecting meanwhile', async () => {
    const { shouldReconnect, decide } = pendingDecision();
    const { server, socket, log } = await openSocket({
      shouldReconnect,
      backoff: constant({ delay: 100 }),
    });
    log.clear();
    server.closeLast(1012);
    await advance(MOCK_DELAY + 1_000);
    expect(socket.state).toBe('reconnecting');
    expect(socket.stats.nextRetryAt).toBeUndefined();
    expect(log.names()).toEqual(['state']); // no close yet: whether a retry follows is not known
    decide(true);
    await advance(0);
    expect(log.names()).toEqual(['state', 'close', 'reconnecting']);
    expect(log.of('close')[0]?.willReconnect).toBe(true);
    await advance(100 + MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it(`a promise that never settles is cut off after ${SHOULD_RECONNECT_TIMEOUT} ms: reported, and the socket reconnects`, async () => {
    const { server, socket, log } = await openSocket({
      shouldReconnect: () => new Promise<boolean>(() => undefined),
      backoff: constant({ delay: 10 }),
    });
    server.closeLast(1012);
    await advance(MOCK_DELAY + SHOULD_RECONNECT_TIMEOUT - 1);
    expect(socket.state).toBe('reconnecting');
    expect(log.errors()).toEqual([]);
    await advance(1);
    const error = expectRsError(log.of('error')[0], ErrorCodes.CALLBACK_FAILED);
    expectMessage(error, ErrorCodes.CALLBACK_FAILED, '`shouldReconnect` timed out');
    await advance(10 + MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('a promise that rejects is reported and counts as true', async () => {
    const { server, socket, log } = await openSocket({
      shouldReconnect: () => Promise.reject(new Error('auth service down')),
      backoff: constant({ delay: 10 }),
    });
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    const error = expectRsError(log.of('error')[0], ErrorCodes.CALLBACK_FAILED);
    expect(error.message).toBe(
      errorMessage(ErrorCodes.CALLBACK_FAILED, '`shouldReconnect` rejected: auth service down'),
    );
    expect(socket.state).toBe('reconnecting');
    await advance(10 + MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('close() during the wait: closed at once, the pending close is told, the late answer is ignored', async () => {
    const { shouldReconnect, decide } = pendingDecision();
    const { server, socket, log } = await openSocket({
      shouldReconnect,
    });
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    log.clear();
    socket.close();
    expect(log.names()).toEqual(['state', 'close']);
    expect(log.of('close')).toEqual([{ code: 1012, reason: '', wasClean: false, willReconnect: false }]);
    expect(vi.getTimerCount()).toBe(0);
    decide(true);
    await advance(1_000);
    expect(log.names()).toEqual(['state', 'close']);
    expect(socket.state).toBe('closed');
  });

  it('reconnect() during the wait: a new attempt at once; the late answer is ignored', async () => {
    const { shouldReconnect, decide } = pendingDecision();
    const { server, socket, log } = await openSocket({
      shouldReconnect,
    });
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    socket.reconnect();
    expect(log.of('close').at(-1)?.willReconnect).toBe(true);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    decide(false);
    await advance(1_000);
    expect(socket.state).toBe('open');
    expect(log.names()).not.toContain('giveup');
  });
});

// Regression (issue "every promise holds", defect 7): a protocols provider returning what no
// WebSocket accepts was reported as ERR_RS_CONNECTION_FAILED.
describe('a protocols provider returning invalid subprotocols', () => {
  it.each([['a b'], [['x', 'x']], [['']]])(
    '%j → ERR_RS_PROVIDER_FAILED (RangeError cause), retried',
    async (protocols) => {
      const server = startServer();
      const socket = createSocket(server.url, { protocols: () => protocols, backoff: constant({ delay: 50 }) });
      const log = record(socket);
      await advance(0);
      const error = expectRsError(log.of('error')[0], ErrorCodes.PROVIDER_FAILED);
      expect(error.cause).toBeInstanceOf(RangeError);
      expectMessage(error, ErrorCodes.PROVIDER_FAILED, 'protocols()');
      expect(socket.state).toBe('reconnecting');
      expect(server.clients).toEqual([]);
    },
  );
});

// Regression (issue "every promise holds", defect 9): URL userinfo and query values (tokens)
// appeared in errors and events.
describe('no secret from a URL in an error or an event', () => {
  const SECRETS = ['S3CR3T', 'T0K3N'];
  /** Everything a logger could print of an error: message, stack, cause, JSON. */
  const printed = (error: unknown): string => {
    const e = error as Error & { cause?: Error };
    return [String(e), e.stack, e.cause && String(e.cause), e.cause?.stack, JSON.stringify(e)].join('\n');
  };

  it('a WebSocket constructor whose error shows the URL: the reported error and its cause are redacted', async () => {
    const Throwing = class {
      constructor(url: string) {
        throw new SyntaxError(`Failed to construct 'WebSocket': The URL '${url}' is invalid.`);
      }
    } as unknown as WebSocketConstructorLike;
    const socket = createSocket('wss://alice:S3CR3T@feed.test/x?token=T0K3N', {
      WebSocket: Throwing,
      backoff: constant({ delay: 100 }),
    });
    const log = record(socket);
    await advance(0);
    const [error] = log.of('error');
    expectRsError(error, ErrorCodes.CONNECTION_FAILED);
    expectMessage(error, ErrorCodes.CONNECTION_FAILED, "'wss://***@feed.test/x?token=***'");
    for (const secret of SECRETS) expect(printed(error)).not.toContain(secret);
    expect(log.of('connecting')).toEqual([{ attempt: 1, url: 'wss://***@feed.test/x?token=***' }]);
    expect(
      log
        .of('state')
        .map((s) => s.reason)
        .join(' '),
    ).not.toMatch(/S3CR3T|T0K3N/);
    expect(socket.url).toBe('wss://alice:S3CR3T@feed.test/x?token=T0K3N'); // whoever passed it can read it
  });

  it('a URL provider returning a bad URL: ERR_RS_PROVIDER_FAILED without its secrets', async () => {
    const socket = createSocket(() => 'ftp://alice:S3CR3T@feed.test/?token=T0K3N', {
      backoff: constant({ delay: 100 }),
    });
    const log = record(socket);
    await advance(0);
    const [error] = log.of('error');
    expectRsError(error, ErrorCodes.PROVIDER_FAILED);
    for (const secret of SECRETS) expect(printed(error)).not.toContain(secret);
  });
});
