import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import type { Data } from '../../src/data.js';
import { ErrorCodes } from '../../src/errors.js';
import type { HandshakeConnection } from '../../src/socket/options.js';
import {
  advance,
  cleanup,
  createSocket,
  expectRsError,
  MOCK_DELAY,
  record,
  startServer,
  uniqueUrl,
} from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

/** A server that says 'hello' on connect and answers 'auth' with 'ack'. */
function authServer(url = uniqueUrl()) {
  return startServer(url, (client) => {
    client.on('message', (data) => {
      if (data === 'auth') client.send('ack');
    });
    client.send('hello');
  });
}

describe('handshake hook', () => {
  it('runs before the flush and before `open`; its send goes out first; its ack is consumed', async () => {
    const server = authServer();
    const order: string[] = [];
    const handshake = vi.fn(async (connection: HandshakeConnection) => {
      order.push(`handshake:${connection.attempt}`);
      connection.send('auth');
      const ack = await connection.nextMessage((data) => data === 'ack');
      order.push(`ack:${String(ack)}`);
    });
    const socket = createSocket(server.url, { handshake, backoff: constant({ delay: 10 }) });
    const log = record(socket);
    socket.on('open', () => {
      order.push('open');
      socket.send('from open listener');
    });
    socket.on('message', (data) => order.push(`message:${String(data)}`));
    socket.send('queued-1');
    socket.send('queued-2');

    await advance(MOCK_DELAY);
    expect(handshake).toHaveBeenCalledTimes(1);
    expect(socket.state).toBe('connecting'); // the hook awaits the ack
    expect(socket.bufferedCount).toBe(2);
    expect(log.names()).toEqual(['connecting']);

    await advance(MOCK_DELAY); // the server receives 'auth' and answers
    expect(socket.state).toBe('open');
    expect(order).toEqual(['handshake:1', 'ack:ack', 'open', 'message:hello']);
    expect(log.of('message')).toEqual(['hello']); // 'ack' was consumed by nextMessage
    expect(log.names()).toEqual(['connecting', 'state', 'open', 'message']);

    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['auth', 'queued-1', 'queued-2', 'from open listener']);
    expect(socket.stats.messagesOut).toBe(4);
    expect(socket.stats.messagesIn).toBe(2);
  });

  it('receives url, protocol, attempt and a live signal', async () => {
    const server = authServer();
    const seen: HandshakeConnection[] = [];
    const socket = createSocket(server.url, {
      protocols: ['v1'],
      handshake: (connection) => {
        seen.push(connection);
      },
    });
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ url: server.url, protocol: 'v1', attempt: 1 });
    // the handshake succeeded: its signal is not aborted, but the connection object refuses use
    expect(seen[0]?.signal.aborted).toBe(false);
    expect(() => seen[0]?.send('late')).toThrow(expect.objectContaining({ code: ErrorCodes.CLOSED }));
    await expect(seen[0]?.nextMessage()).rejects.toMatchObject({ code: ErrorCodes.CLOSED });
  });

  it('runs again on every open, with the attempt number', async () => {
    const server = authServer();
    const attempts: number[] = [];
    const socket = createSocket(server.url, {
      handshake: async (connection) => {
        attempts.push(connection.attempt);
        connection.send('auth');
        await connection.nextMessage((data) => data === 'ack');
      },
      backoff: constant({ delay: 10 }),
    });
    const log = record(socket);
    await advance(MOCK_DELAY * 2);
    server.closeLast(1012);
    await advance(MOCK_DELAY + 10 + MOCK_DELAY * 2);
    expect(socket.state).toBe('open');
    expect(attempts).toEqual([1, 2]);
    expect(log.of('open')).toEqual([
      { attempt: 1, reconnected: false },
      { attempt: 2, reconnected: true },
    ]);
    expect(log.of('message')).toEqual(['hello', 'hello']);
  });

  it('nextMessage() without a predicate takes the oldest unconsumed message, already received or not', async () => {
    const url = uniqueUrl();
    startServer(url, (client) => {
      client.send('first');
      client.send('second');
      client.on('message', (data) => client.send(`re:${String(data)}`));
    });
    const got: Data[] = [];
    const socket = createSocket(url, {
      handshake: async (connection) => {
        got.push(await connection.nextMessage());
        connection.send('x');
        got.push(await connection.nextMessage((d) => String(d).startsWith('re:')));
      },
    });
    const log = record(socket);
    await advance(MOCK_DELAY * 2);
    expect(got).toEqual(['first', 're:x']);
    expect(socket.state).toBe('open');
    expect(log.of('message')).toEqual(['second']);
  });

  it('sends from the app during the handshake are buffered until it succeeds', async () => {
    const server = authServer();
    const socket = createSocket(server.url, {
      handshake: async (connection) => {
        connection.send('auth');
        await connection.nextMessage((d) => d === 'ack');
      },
    });
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('connecting');
    expect(socket.send('app')).toBe('buffered');
    await advance(MOCK_DELAY * 2);
    expect(server.received).toEqual(['auth', 'app']);
  });
});

describe('handshake failures', () => {
  it('a throwing hook fails the attempt with ERR_RS_HANDSHAKE_FAILED and reconnects', async () => {
    const server = authServer();
    const cause = new Error('denied');
    let calls = 0;
    const socket = createSocket(server.url, {
      handshake: () => {
        calls++;
        if (calls === 1) throw cause;
      },
      backoff: constant({ delay: 100 }),
    });
    const log = record(socket);
    socket.send('queued');
    await advance(MOCK_DELAY);
    expect(log.names()).toEqual(['connecting', 'error', 'close', 'state', 'reconnecting']);
    const error = expectRsError(log.of('error')[0], ErrorCodes.HANDSHAKE_FAILED);
    expect(error.cause).toBe(cause);
    expect(error.message).toContain('denied');
    expect(log.of('close')).toEqual([{ code: 1006, reason: 'handshake failed', wasClean: false, willReconnect: true }]);
    expect(log.of('reconnecting')).toEqual([{ attempt: 2, delay: 100 }]);
    expect(socket.bufferedCount).toBe(1); // nothing was flushed to the rejected connection
    expect(log.names()).not.toContain('message'); // 'hello' received during the failed handshake is discarded

    await advance(100 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['queued']);
  });

  it('a rejecting hook fails the same way', async () => {
    const server = authServer();
    const socket = createSocket(server.url, {
      handshake: async () => {
        throw 'nope';
      },
      backoff: constant({ delay: 100 }),
    });
    const log = record(socket);
    await advance(MOCK_DELAY);
    const error = expectRsError(log.of('error')[0], ErrorCodes.HANDSHAKE_FAILED);
    expect(error.message).toContain('nope');
    expect(socket.state).toBe('reconnecting');
  });

  it('handshakeTimeout: ERR_RS_HANDSHAKE_TIMEOUT, the signal aborts and nextMessage rejects', async () => {
    const url = uniqueUrl();
    startServer(url);
    let connection: HandshakeConnection | undefined;
    let waiting: Promise<Data> | undefined;
    const socket = createSocket(url, {
      handshakeTimeout: 1000,
      backoff: constant({ delay: 100 }),
      handshake: async (c) => {
        connection = c;
        waiting = c.nextMessage();
        await waiting;
      },
    });
    const log = record(socket);
    await advance(MOCK_DELAY + 999);
    expect(socket.state).toBe('connecting');
    expect(connection?.signal.aborted).toBe(false);
    const settled = waiting?.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await advance(1);
    expect(log.errors()).toEqual([ErrorCodes.HANDSHAKE_TIMEOUT]);
    expect(log.of('close')).toEqual([
      { code: 1006, reason: 'handshake timeout', wasClean: false, willReconnect: true },
    ]);
    expect(socket.state).toBe('reconnecting');
    expect(connection?.signal.aborted).toBe(true);
    expectRsError(await settled, ErrorCodes.CLOSED);
    expect(log.names()).not.toContain('open');
  });

  it('handshakeTimeout counts from the open, not from the start of the attempt', async () => {
    const url = uniqueUrl();
    startServer(url);
    const socket = createSocket(url, {
      handshakeTimeout: 50,
      handshake: () => new Promise<void>(() => {}),
      backoff: constant({ delay: 1000 }),
    });
    await advance(MOCK_DELAY + 49);
    expect(socket.state).toBe('connecting');
    await advance(1);
    expect(socket.state).toBe('reconnecting');
  });

  it('a failed handshake counts as a failure for maxRetries', async () => {
    const server = authServer();
    const socket = createSocket(server.url, {
      handshake: () => {
        throw new Error('no');
      },
      maxRetries: 1,
      backoff: constant({ delay: 10 }),
    });
    const log = record(socket);
    await advance(100);
    expect(log.errors()).toEqual([
      ErrorCodes.HANDSHAKE_FAILED,
      ErrorCodes.HANDSHAKE_FAILED,
      ErrorCodes.RETRIES_EXHAUSTED,
    ]);
    expect(socket.state).toBe('closed');
    expect(log.names()).not.toContain('open');
  });

  it('close() during the handshake abandons it: no open, closed, no timers', async () => {
    const server = authServer();
    let connection: HandshakeConnection | undefined;
    const socket = createSocket(server.url, {
      handshake: async (c) => {
        connection = c;
        await c.nextMessage((d) => d === 'never');
      },
    });
    const log = record(socket);
    await advance(MOCK_DELAY);
    socket.close();
    expect(socket.state).toBe('closed');
    expect(connection?.signal.aborted).toBe(true);
    await advance(MOCK_DELAY);
    expect(log.names()).not.toContain('open');
    expect(log.of('close')).toEqual([{ code: 1000, reason: '', wasClean: false, willReconnect: false }]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
