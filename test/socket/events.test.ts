import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { ErrorCodes, ResilientSocketError } from '../../src/errors.js';
import {
  advance,
  cleanup,
  createSocket,
  expectRsError,
  MOCK_DELAY,
  openSocket,
  record,
  startServer,
} from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  vi.restoreAllMocks(); // before cleanup(), so nothing it rethrows is swallowed by a spy
  await cleanup();
});

/** Captures what rethrowAsync() queues, instead of letting it crash the test run. */
function captureRethrows() {
  const queued: (() => void)[] = [];
  vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((callback) => {
    queued.push(callback);
  });
  return {
    /** The errors rethrown so far (each queued callback throws one). */
    errors(): unknown[] {
      return queued.map((callback) => {
        try {
          callback();
        } catch (error) {
          return error;
        }
        return undefined;
      });
    },
  };
}

describe('event order', () => {
  it('a full cycle: connect, lose, wait, reconnect', async () => {
    const server = startServer();
    const socket = createSocket(server.url, { backoff: constant({ delay: 100 }) });
    const log = record(socket);
    await advance(MOCK_DELAY);
    server.closeLast(1012, 'restart');
    await advance(MOCK_DELAY + 100 + MOCK_DELAY);
    expect(log.names()).toEqual([
      'connecting',
      'state',
      'open',
      'close',
      'state',
      'reconnecting',
      'state',
      'connecting',
      'state',
      'open',
    ]);
    expect(log.states()).toEqual([
      'connecting→open',
      'open→reconnecting',
      'reconnecting→connecting',
      'connecting→open',
    ]);
    expect(log.of('state').map((s) => s.reason)).toEqual([
      'connection opened',
      'connection lost',
      'retry',
      'connection opened',
    ]);
  });

  it('a failed attempt reports error, then close, then state, then reconnecting', async () => {
    const socket = createSocket('ws://localhost:1', { backoff: constant({ delay: 100 }) }); // no server
    const log = record(socket);
    await advance(MOCK_DELAY);
    expect(log.names()).toEqual(['connecting', 'error', 'close', 'state', 'reconnecting']);
    expect(log.of('state')[0]?.reason).toMatch(/Connection attempt 1 failed/);
  });

  it('errors are always ResilientSocketErrors with a stable code', async () => {
    const socket = createSocket('ws://localhost:1', { maxRetries: 1, backoff: constant({ delay: 1 }) });
    const log = record(socket);
    await advance(50);
    expect(log.of('error').length).toBe(3);
    for (const error of log.of('error')) {
      expect((error as ResilientSocketError).name).toBe('ResilientSocketError');
      expect(Object.values(ErrorCodes)).toContain((error as ResilientSocketError).code);
    }
  });
});

describe('listener exceptions', () => {
  it('a throwing open listener does not break the machine; it is reported as ERR_RS_LISTENER_THREW', async () => {
    const server = startServer();
    const socket = createSocket(server.url, { backoff: constant({ delay: 10 }) });
    const log = record(socket);
    const boom = new Error('listener bug');
    socket.on('open', () => {
      throw boom;
    });
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    const error = expectRsError(log.of('error')[0], ErrorCodes.LISTENER_THREW);
    expect(error.cause).toBe(boom);
    expect(error.message).toContain('listener bug');
    expect(socket.stats.lastError).toBeUndefined(); // listener errors are not connection errors

    // and it keeps working: messages, sends, reconnects
    server.broadcast('hi');
    expect(log.of('message')).toEqual(['hi']);
    expect(socket.send('x')).toBe('sent');
    server.closeLast(1011);
    await advance(MOCK_DELAY + 10 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.of('open')).toHaveLength(2);
    expect(log.errors()).toEqual([ErrorCodes.LISTENER_THREW, ErrorCodes.LISTENER_THREW]);
  });

  it('without an error listener the exception is rethrown asynchronously and the machine goes on', async () => {
    const rethrows = captureRethrows();
    const server = startServer();
    const socket = createSocket(server.url, { backoff: constant({ delay: 10 }) });
    const opens: number[] = [];
    const boom = new Error('no error listener');
    socket.on('open', ({ attempt }) => {
      opens.push(attempt);
      throw boom;
    });
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    server.closeLast(1011);
    await advance(MOCK_DELAY + 10 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(opens).toEqual([1, 2]);
    expect(rethrows.errors()).toEqual([boom, boom]);
  });

  it('a throwing state listener does not stop the state change', async () => {
    const server = startServer();
    const socket = createSocket(server.url);
    const log = record(socket, ['error', 'open']);
    socket.on('state', () => {
      throw new Error('state listener bug');
    });
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.names()).toEqual(['error', 'open']);
  });

  it('a ResilientSocketError thrown by a listener is reported as is', async () => {
    const { server, socket, log } = await openSocket();
    const own = new ResilientSocketError(ErrorCodes.CLOSED, 'mine');
    socket.on('message', () => {
      throw own;
    });
    server.broadcast('x');
    expect(log.of('error')).toEqual([own]);
    expect(log.of('error')[0]).toBe(own);
    expect(socket.state).toBe('open');
  });

  // A throwing listener ends that one dispatch (EventEmitter semantics, as in Node's and
  // eventemitter3's emit; documented in the README). The socket's own consumers (async
  // iterators) are fed before the listeners, so they never miss a message.
  it('a throwing message listener does not hide the message from the async iterator', async () => {
    const { server, socket } = await openSocket();
    socket.on('error', () => undefined);
    const iterator = socket[Symbol.asyncIterator]();
    socket.on('message', () => {
      throw new Error('first listener bug');
    });
    const later: unknown[] = [];
    socket.on('message', (data) => later.push(data));
    server.broadcast('hi');
    expect(later).toEqual([]);
    expect(socket.state).toBe('open');
    socket.close();
    await advance(MOCK_DELAY);
    expect(await iterator.next()).toEqual({ value: 'hi', done: false });
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });

  it('a throwing error listener is rethrown asynchronously, not in a loop', async () => {
    const rethrows = captureRethrows();
    const socket = createSocket('ws://localhost:1', { maxRetries: 0 });
    const boom = new Error('error listener bug');
    socket.on('error', () => {
      throw boom;
    });
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('closed');
    expect(rethrows.errors()).toEqual([boom, boom]); // CONNECTION_FAILED, then RETRIES_EXHAUSTED
  });
});

describe('listeners that drive the socket', () => {
  it('reconnect() from an error listener takes over: one new attempt, no scheduled retry', async () => {
    const server = startServer();
    server.stop();
    const socket = createSocket(server.url, { backoff: constant({ delay: 60_000 }) });
    const log = record(socket);
    let calls = 0;
    socket.on('error', () => {
      if (calls++ === 0) socket.reconnect();
    });
    await advance(MOCK_DELAY);
    expect(log.of('connecting').map((c) => c.attempt)).toEqual([1, 1]);
    expect(log.names()).not.toContain('reconnecting');
    await advance(MOCK_DELAY);
    expect(log.of('reconnecting')).toEqual([{ attempt: 2, delay: 60_000 }]);
  });

  it('reconnect() from an open listener: the old connection is dropped and a new one opens', async () => {
    const server = startServer();
    const socket = createSocket(server.url);
    const log = record(socket);
    socket.once('open', () => socket.reconnect());
    await advance(MOCK_DELAY * 2);
    expect(socket.state).toBe('open');
    expect(log.of('open')).toEqual([
      { attempt: 1, reconnected: false },
      { attempt: 1, reconnected: true },
    ]);
    expect(log.of('close')).toEqual([
      { code: 1000, reason: 'reconnect() called', wasClean: false, willReconnect: true },
    ]);
    expect(vi.getTimerCount()).toBe(1); // only the new connection's stable timer
  });

  it('send() from a reconnecting listener is buffered and flushed on the next connection', async () => {
    const { server, socket } = await openSocket({ backoff: constant({ delay: 10 }) });
    socket.once('reconnecting', () => {
      expect(socket.send('resubscribe')).toBe('buffered');
    });
    server.closeLast(1012);
    await advance(MOCK_DELAY + 10 + MOCK_DELAY * 2);
    expect(server.received).toEqual(['resubscribe']);
  });
});
