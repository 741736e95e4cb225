import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../../src/backoff/constant.js';
import type { Data } from '../../../src/data.js';
import { ErrorCodes } from '../../../src/errors.js';
import { type HandshakeConnection, handshake } from '../../../src/node.js';
import { expectInputError, inMode, rethrow } from '../../helpers/mode.js';
import {
  advance,
  cleanup,
  createSocket,
  expectRsError,
  MOCK_DELAY,
  record,
  startServer,
  uniqueUrl,
} from '../../resilient-socket/helpers.js';

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
    const hook = vi.fn(async (connection: HandshakeConnection) => {
      order.push(`handshake:${connection.attempt}`);
      connection.send('auth');
      const ack = await connection.nextMessage((data) => data === 'ack');
      order.push(`ack:${String(ack)}`);
    });
    const socket = createSocket(server.url, { handshake: handshake(hook), backoff: constant({ delay: 10 }) });
    const log = record(socket);
    socket.on('open', () => {
      order.push('open');
      socket.send('from open listener');
    });
    socket.on('message', (data) => order.push(`message:${String(data)}`));
    socket.send('queued-1');
    socket.send('queued-2');

    await advance(MOCK_DELAY);
    expect(hook).toHaveBeenCalledTimes(1);
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
      handshake: handshake((connection) => {
        seen.push(connection);
      }),
    });
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ url: server.url, protocol: 'v1', attempt: 1 });
    // the handshake succeeded: its signal is not aborted, but the connection object refuses use
    expect(seen[0]?.signal.aborted).toBe(false);
    expect(() => seen[0]?.send('late')).toThrow(
      expect.objectContaining({
        code: ErrorCodes.CLOSED,
        message: inMode('The handshake is over; use socket.send()', ErrorCodes.CLOSED),
      }),
    );
    await expect(seen[0]?.nextMessage()).rejects.toMatchObject({
      code: ErrorCodes.CLOSED,
      message: inMode('The handshake is over', ErrorCodes.CLOSED),
    });
  });

  it('runs again on every open, with the attempt number', async () => {
    const server = authServer();
    const attempts: number[] = [];
    const socket = createSocket(server.url, {
      handshake: handshake(async (connection) => {
        attempts.push(connection.attempt);
        connection.send('auth');
        await connection.nextMessage((data) => data === 'ack');
      }),
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
      handshake: handshake(async (connection) => {
        got.push(await connection.nextMessage());
        connection.send('x');
        got.push(await connection.nextMessage((d) => String(d).startsWith('re:')));
      }),
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
      handshake: handshake(async (connection) => {
        connection.send('auth');
        await connection.nextMessage((d) => d === 'ack');
      }),
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
      handshake: handshake(() => {
        calls++;
        if (calls === 1) throw cause;
      }),
      backoff: constant({ delay: 100 }),
    });
    const log = record(socket);
    socket.send('queued');
    await advance(MOCK_DELAY);
    expect(log.names()).toEqual(['connecting', 'state', 'error', 'close', 'reconnecting']);
    const error = expectRsError(log.of('error')[0], ErrorCodes.HANDSHAKE_FAILED);
    expect(error.cause).toBe(cause);
    expect(error.message).toBe(inMode('The handshake failed: denied', ErrorCodes.HANDSHAKE_FAILED));
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
      handshake: handshake(async () => {
        throw 'nope';
      }),
      backoff: constant({ delay: 100 }),
    });
    const log = record(socket);
    await advance(MOCK_DELAY);
    const error = expectRsError(log.of('error')[0], ErrorCodes.HANDSHAKE_FAILED);
    expect(error.message).toBe(inMode('The handshake failed: nope', ErrorCodes.HANDSHAKE_FAILED));
    expect(socket.state).toBe('reconnecting');
  });

  it('handshake(hook, { timeout }): ERR_RS_HANDSHAKE_TIMEOUT, the signal aborts and nextMessage rejects', async () => {
    const url = uniqueUrl();
    startServer(url);
    let connection: HandshakeConnection | undefined;
    let waiting: Promise<Data> | undefined;
    const socket = createSocket(url, {
      backoff: constant({ delay: 100 }),
      handshake: handshake(
        async (c) => {
          connection = c;
          waiting = c.nextMessage();
          await waiting;
        },
        { timeout: 1000 },
      ),
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
    expect((log.of('error')[0] as Error).message).toBe(
      inMode('The handshake did not finish within 1000 ms', ErrorCodes.HANDSHAKE_TIMEOUT),
    );
    expect(log.of('close')).toEqual([
      { code: 1006, reason: 'handshake timeout', wasClean: false, willReconnect: true },
    ]);
    expect(socket.state).toBe('reconnecting');
    expect(connection?.signal.aborted).toBe(true);
    const abandoned = expectRsError(await settled, ErrorCodes.CLOSED);
    expect(abandoned.message).toBe(inMode('The handshake was abandoned', ErrorCodes.CLOSED));
    expect(log.names()).not.toContain('open');
  });

  it('the handshake timeout counts from the open, not from the start of the attempt', async () => {
    const url = uniqueUrl();
    startServer(url);
    const socket = createSocket(url, {
      handshake: handshake(() => new Promise<void>(() => {}), { timeout: 50 }),
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
      handshake: handshake(() => {
        throw new Error('no');
      }),
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

  it('close() during the handshake abandons it politely: a close frame, no open, closed, no timers', async () => {
    const server = authServer();
    let connection: HandshakeConnection | undefined;
    const socket = createSocket(server.url, {
      handshake: handshake(async (c) => {
        connection = c;
        await c.nextMessage((d) => d === 'never');
      }),
    });
    const log = record(socket);
    await advance(MOCK_DELAY);
    const seenByServer: number[] = [];
    server.last().addEventListener('close', ((event: { code: number }) => seenByServer.push(event.code)) as never);
    socket.close(4000, 'bye');
    // The socket is open (only our handshake hook was running): it closes with a close frame.
    expect(socket.state).toBe('closing');
    expect(connection?.signal.aborted).toBe(true);
    server.last().send('late'); // arrives while closing: never delivered (the connection never opened)
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('closed');
    expect(seenByServer).toEqual([4000]);
    expect(log.names()).not.toContain('open');
    expect(log.names()).not.toContain('message');
    expect(log.states()).toEqual(['connecting→closing', 'closing→closed']);
    expect(log.of('close')).toEqual([{ code: 4000, reason: 'bye', wasClean: false, willReconnect: false }]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

// Regression, it was: a `nextMessage(predicate)` whose
// predicate throws (the resubscribe recipe of docs/guide/reconnection.md parses JSON) threw inside the transport's
// receive path (with ws: an uncaught exception that ends the process, error listener or not).
describe('a nextMessage() predicate that throws', () => {
  const parses = (data: unknown) => JSON.parse(String(data)).type === 'subscribed';

  it('on a message that arrives while it waits: that nextMessage() rejects; the handshake fails and is retried', async () => {
    let calls = 0;
    const server = startServer(uniqueUrl(), (client) => {
      calls++;
      // The first connection greets with text that is not JSON, the second answers properly.
      client.on('message', () => client.send(calls === 1 ? 'welcome!' : '{"type":"subscribed"}'));
    });
    const reasons: unknown[] = [];
    const socket = createSocket(server.url, {
      handshake: handshake(async (connection) => {
        connection.send('subscribe');
        await connection.nextMessage(parses).catch((reason: unknown) => {
          reasons.push(reason);
          throw reason;
        });
      }),
      backoff: constant({ delay: 10 }),
    });
    const log = record(socket);
    await advance(MOCK_DELAY * 3);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(SyntaxError);
    const error = expectRsError(log.of('error')[0], ErrorCodes.HANDSHAKE_FAILED);
    expect(error.cause).toBe(reasons[0]);
    await advance(10 + MOCK_DELAY * 3);
    expect(socket.state).toBe('open');
    expect(log.of('open')).toHaveLength(1);
  });

  it('on a message already waiting in the inbox: nextMessage() returns a rejected promise, it does not throw', async () => {
    const server = startServer(uniqueUrl(), (client) => client.send('not json'));
    let outcome: unknown;
    createSocket(server.url, {
      handshake: handshake(
        async (connection) => {
          await new Promise((resolve) => setTimeout(resolve, 10)); // 'not json' is in the inbox by now
          let promise: Promise<unknown> | undefined;
          try {
            promise = connection.nextMessage(parses);
          } catch (thrownSync) {
            outcome = ['threw synchronously', thrownSync];
            return;
          }
          outcome = await promise.then(
            () => 'resolved',
            (reason: unknown) => ['rejected', reason],
          );
        },
        { timeout: 1_000 },
      ),
    });
    await advance(MOCK_DELAY + 10);
    expect(outcome).toEqual(['rejected', expect.any(SyntaxError)]);
  });

  it('a predicate that is not a function is rejected with a TypeError', async () => {
    const server = startServer();
    let outcome: unknown;
    createSocket(server.url, {
      handshake: handshake(async (connection) => {
        outcome = await (connection.nextMessage as (p: unknown) => Promise<unknown>)('subscribed').then(
          () => 'resolved',
          (reason: unknown) => reason,
        );
      }),
    });
    await advance(MOCK_DELAY);
    expectInputError(
      rethrow(outcome),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'predicate',
      'Expected `predicate` to be a function, got string "subscribed"',
    );
  });
});
