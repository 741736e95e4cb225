import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { ErrorCodes, ResilientSocketError } from '../../src/errors.js';
import { bufferPolicy, type ResilientSocket } from '../../src/node.js';
import { PRODUCTION } from '../helpers/mode.js';
import {
  advance,
  cleanup,
  createSocket,
  EVENT_NAMES,
  expectRsError,
  MOCK_DELAY,
  openSocket,
  record,
  startServer,
  uniqueUrl,
} from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  vi.restoreAllMocks(); // before cleanup(), so nothing it reports is swallowed by a spy
  await cleanup();
});

/**
 * Captures what the socket surfaces when no `error` listener hears a failure of user code: in
 * Node, a process warning (never a throw: user code must not be fatal).
 */
function captureWarnings() {
  const warnings: unknown[] = [];
  vi.spyOn(process, 'emitWarning').mockImplementation(((warning: unknown) => {
    warnings.push(warning);
  }) as typeof process.emitWarning);
  return {
    /** The original exceptions, from the surfaced errors' causes. */
    causes: () => warnings.map((w) => (w as Error).cause),
    warnings,
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
      'state',
      'close',
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

  it('a failed attempt reports state, then error, then close, then reconnecting', async () => {
    const socket = createSocket('ws://localhost:1', { backoff: constant({ delay: 100 }) }); // no server
    const log = record(socket);
    await advance(MOCK_DELAY);
    expect(log.names()).toEqual(['connecting', 'state', 'error', 'close', 'reconnecting']);
    const reason = log.of('state')[0]?.reason;
    if (PRODUCTION) expect(reason).toBe(ErrorCodes.CONNECTION_FAILED);
    else expect(reason).toMatch(/Connection attempt 1 failed/);
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
    if (PRODUCTION) expect(error.message).toBe(ErrorCodes.LISTENER_THREW);
    else expect(error.message).toContain('listener bug');
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

  // Not rethrown asynchronously either: that would be an uncaught exception, the end of a Node
  // process (user code is never fatal).
  it('without an error listener the exception becomes a process warning and the machine goes on', async () => {
    const surfaced = captureWarnings();
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
    expect(surfaced.causes()).toEqual([boom, boom]);
    for (const warning of surfaced.warnings) expectRsError(warning, ErrorCodes.LISTENER_THREW);
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
  // eventemitter3's emit; documented in docs/guide/events-and-errors.md). The socket's own consumers (async
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

  it('a throwing error listener becomes a process warning, not a loop and not a crash', async () => {
    const surfaced = captureWarnings();
    const socket = createSocket('ws://localhost:1', { maxRetries: 0 });
    const boom = new Error('error listener bug');
    socket.on('error', () => {
      throw boom;
    });
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('closed');
    expect(surfaced.causes()).toEqual([boom, boom]); // CONNECTION_FAILED, then RETRIES_EXHAUSTED
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
    expect(log.of('close')).toEqual([{ code: 1000, reason: '', wasClean: false, willReconnect: true }]);
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

// Regression, it was: the `close` event came before the
// state change: inside a `close` listener readyState read 2 after close(), 0 after a give-up, and
// 1 (OPEN) after a server close with 1008. WebSocket code expects the new state there.
describe('the documented event order (docs/guide/events-and-errors.md, ResilientSocketEvents)', () => {
  /** Records each event with the socket's state and readyState at the moment it is heard. */
  function witness(socket: ResilientSocket) {
    const seen: string[] = [];
    for (const name of EVENT_NAMES) {
      (socket.on as (event: string, fn: () => void) => unknown)(name, () => {
        seen.push(`${name}@${socket.state}/${socket.readyState}`);
      });
    }
    return seen;
  }

  it('inside the final close listener readyState is CLOSED: after close(), a give-up, a fatal close', async () => {
    const closed = await openSocket();
    const afterClose = witness(closed.socket);
    closed.socket.close();
    await advance(MOCK_DELAY);
    expect(afterClose).toEqual([
      'state@closing/2',
      'state@closed/3',
      'close@closed/3', // was close@closing/2
    ]);

    const refused = createSocket(uniqueUrl(), { maxRetries: 0 });
    const afterGiveUp = witness(refused);
    await advance(MOCK_DELAY);
    expect(afterGiveUp).toEqual([
      'connecting@connecting/0',
      'state@closed/3',
      'error@closed/3',
      'error@closed/3',
      'close@closed/3', // was close@connecting/0
      'giveup@closed/3',
    ]);

    const fatal = await openSocket();
    const afterFatal = witness(fatal.socket);
    fatal.server.closeLast(1008, 'policy');
    await advance(MOCK_DELAY);
    expect(afterFatal).toEqual([
      'state@closed/3',
      'error@closed/3',
      'close@closed/3', // was close@open/1
      'giveup@closed/3',
    ]);
  });

  it('a close followed by a retry is heard while reconnecting (readyState CONNECTING)', async () => {
    const { server, socket } = await openSocket({ backoff: constant({ delay: 100 }) });
    const seen = witness(socket);
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    expect(seen).toEqual(['state@reconnecting/0', 'close@reconnecting/0', 'reconnecting@reconnecting/0']);
  });

  it('an attempt starts: state, then connecting; it opens: state, drop (expired), open', async () => {
    const server = startServer();
    const socket = createSocket(server.url, { autoConnect: false, bufferPolicy: bufferPolicy({ ttl: 2 }) });
    const seen = witness(socket);
    socket.send('stale by the time the socket opens');
    socket.open();
    await advance(MOCK_DELAY);
    expect(seen).toEqual([
      'state@connecting/0',
      'connecting@connecting/0',
      'drop@connecting/0', // the ttl timer, before the open
      'state@open/1',
      'open@open/1',
    ]);
  });

  it('close() on an open connection: state closing, drop; later state closed, close', async () => {
    const { socket } = await openSocket();
    const seen = witness(socket);
    socket.close(); // nothing queued, so no drop
    expect(seen).toEqual(['state@closing/2']);
    await advance(MOCK_DELAY);
    expect(seen).toEqual(['state@closing/2', 'state@closed/3', 'close@closed/3']);

    const server = startServer();
    const queued = createSocket(server.url, { autoConnect: false });
    queued.send('never sent');
    const events = witness(queued);
    queued.close();
    expect(events).toEqual(['state@closed/3', 'drop@closed/3']);
  });

  it('close() while connecting with a socket: state closed, close, drop', async () => {
    const server = startServer();
    const socket = createSocket(server.url);
    socket.send('queued');
    await advance(0); // the socket exists, not open yet
    const seen = witness(socket);
    socket.close();
    expect(seen).toEqual(['state@closed/3', 'close@closed/3', 'drop@closed/3']);
  });

  it('reconnect(): state connecting, then the close of the old connection, then the new attempt', async () => {
    const { socket } = await openSocket();
    const seen = witness(socket);
    socket.reconnect();
    expect(seen).toEqual(['state@connecting/0', 'close@connecting/0']);
    await advance(MOCK_DELAY);
    expect(seen).toEqual([
      'state@connecting/0',
      'close@connecting/0',
      'connecting@connecting/0',
      'state@open/1',
      'open@open/1',
    ]);
  });
});
