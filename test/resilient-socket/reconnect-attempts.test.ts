/**
 * What each connection attempt runs before it opens: the URL provider (called per attempt, its
 * failures reported as ERR_RS_PROVIDER_FAILED and retried), a protocols provider's result, the
 * `connectTimeout` that abandons an attempt, and URLs redacted in every error and event.
 */
import { describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { ErrorCodes } from '../../src/errors.js';
import type { WebSocketConstructorLike } from '../../src/transports/websocket-like.js';
import {
  advance,
  createSocket,
  expectMessage,
  expectRsError,
  MOCK_DELAY,
  record,
  SilentWebSocket,
  startServer,
  uniqueUrl,
  useFakeTimersAndCleanup,
} from './helpers.js';

useFakeTimersAndCleanup();

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

// Regression: a protocols provider returning what no
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

// Regression: URL userinfo and query values (tokens)
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
