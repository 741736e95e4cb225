import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import type { Data } from '../../src/data.js';
import { ErrorCodes } from '../../src/errors.js';
import { PRODUCTION } from '../helpers/mode.js';
import {
  advance,
  cleanup,
  createSocket,
  MOCK_DELAY,
  openSocket,
  record,
  startServer,
  thrown,
  trackingWebSocket,
  uniqueUrl,
} from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

describe('first connection', () => {
  it('emits connecting, state connecting→open, open {attempt 1, reconnected false}, in that order', async () => {
    const url = uniqueUrl();
    startServer(url);
    const socket = createSocket(url);
    const log = record(socket);
    expect(log.events).toEqual([]); // `connecting` waits for the URL to resolve (a microtask)
    await advance(0);
    expect(log.events).toEqual([{ name: 'connecting', payload: { attempt: 1, url } }]);
    expect(socket.state).toBe('connecting');
    await advance(MOCK_DELAY - 1);
    expect(socket.state).toBe('connecting');
    await advance(1);
    expect(log.events).toEqual([
      { name: 'connecting', payload: { attempt: 1, url } },
      { name: 'state', payload: { previous: 'connecting', current: 'open', reason: 'connection opened' } },
      { name: 'open', payload: { attempt: 1, reconnected: false } },
    ]);
    expect(socket.state).toBe('open');
  });

  it('the state is already open when `open` listeners run', async () => {
    const url = uniqueUrl();
    startServer(url);
    const socket = createSocket(url);
    const seen: string[] = [];
    socket.on('open', () => seen.push(socket.state));
    socket.on('state', ({ current }) => seen.push(`state:${current}:${socket.state}`));
    await advance(MOCK_DELAY);
    expect(seen).toEqual(['state:open:open', 'open']);
  });

  it('delivers server messages in order as `message` events', async () => {
    const { server, socket, log } = await openSocket();
    server.broadcast('one');
    server.last().send('two');
    const bytes = new Uint8Array([1, 2, 3]).buffer;
    server.broadcast(bytes);
    expect(log.of('message')).toEqual(['one', 'two', bytes]);
    expect(socket.stats.messagesIn).toBe(3);
  });

  it('send() returns "sent" when open and the server receives the messages in order', async () => {
    const { server, socket, log } = await openSocket();
    expect(socket.send('a')).toBe('sent');
    expect(socket.send('b', { buffer: false })).toBe('sent');
    expect(socket.bufferedCount).toBe(0);
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['a', 'b']);
    expect(socket.stats.messagesOut).toBe(2);
    expect(log.of('drop')).toEqual([]);
  });

  it('send() validates its arguments', async () => {
    const { socket } = await openSocket();
    expect(() => socket.send(42 as unknown as string)).toThrow(TypeError);
    expect(() => socket.send({} as unknown as string)).toThrow(/`data`/);
    expect(() => socket.send('x', null as unknown as undefined)).toThrow(TypeError);
    expect(() => socket.send('x', { buffer: 'no' as unknown as boolean })).toThrow(/`buffer`/);
    expect(socket.stats.messagesOut).toBe(0);
  });
});

describe('readyState, url, protocol', () => {
  it('maps every state to a WebSocket readyState', async () => {
    const url = uniqueUrl();
    const server = startServer(url);
    const socket = createSocket(url, { autoConnect: false, backoff: constant({ delay: 1000 }) });
    const seen: [string, number][] = [[socket.state, socket.readyState]];
    socket.on('state', ({ current }) => seen.push([current, socket.readyState]));
    socket.open();
    await advance(MOCK_DELAY);
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    await advance(1000 + MOCK_DELAY);
    socket.close();
    await advance(MOCK_DELAY);
    expect(seen).toEqual([
      ['idle', 0],
      ['connecting', 0],
      ['open', 1],
      ['reconnecting', 0],
      ['connecting', 0],
      ['open', 1],
      ['closing', 2],
      ['closed', 3],
    ]);
  });

  it('url follows the provider, protocol is "" until open', async () => {
    const base = uniqueUrl();
    startServer(base);
    let n = 0;
    const socket = createSocket(() => `${base}?v=${++n}`, { protocols: 'chat' });
    expect(socket.url).toBe('');
    expect(socket.protocol).toBe('');
    await advance(0);
    expect(socket.url).toBe(`${base}?v=1`);
    expect(socket.protocol).toBe('');
    await advance(MOCK_DELAY);
    expect(socket.protocol).toBe('chat');
    socket.reconnect();
    expect(socket.protocol).toBe('');
    await advance(0);
    expect(socket.url).toBe(`${base}?v=2`);
  });
});

describe('stats', () => {
  it('counts attempts, connects, reconnects and messages, and times uptime/downtime', async () => {
    const url = uniqueUrl();
    const server = startServer(url);
    const start = Date.now();
    const socket = createSocket(url, { backoff: constant({ delay: 1000 }) });
    expect(socket.stats).toMatchObject({ attempts: 1, connects: 0, reconnects: 0, uptime: 0, downtime: 0 });
    await advance(MOCK_DELAY);
    expect(socket.stats).toMatchObject({ attempts: 1, connects: 1, reconnects: 0, downtime: 0, uptime: 0 });
    await advance(100);
    expect(socket.stats.uptime).toBe(100);
    server.broadcast('in');
    socket.send('out');
    expect(socket.stats).toMatchObject({ messagesIn: 1, messagesOut: 1 });

    server.closeLast(1011);
    await advance(MOCK_DELAY);
    const lostAt = Date.now();
    expect(lostAt - start).toBe(MOCK_DELAY * 2 + 100);
    expect(socket.state).toBe('reconnecting');
    expect(socket.stats.nextRetryAt).toBe(lostAt + 1000);
    expect(socket.stats.uptime).toBe(0);
    await advance(400);
    expect(socket.stats.downtime).toBe(400);
    expect(socket.stats.nextRetryAt).toBe(lostAt + 1000);

    await advance(600);
    expect(socket.state).toBe('connecting');
    expect(socket.stats.nextRetryAt).toBeUndefined();
    expect(socket.stats.attempts).toBe(2);
    await advance(MOCK_DELAY);
    expect(socket.stats).toMatchObject({ attempts: 2, connects: 2, reconnects: 1, downtime: 0, dropped: 0 });
    expect(socket.stats.lastError).toBeUndefined();
  });

  it('returns a fresh snapshot on every read', async () => {
    const { socket } = await openSocket();
    const before = socket.stats;
    socket.send('x');
    expect(before.messagesOut).toBe(0);
    expect(socket.stats.messagesOut).toBe(1);
    expect(socket.stats).not.toBe(socket.stats);
  });

  it('keeps the last error', async () => {
    const socket = createSocket(uniqueUrl(), { backoff: constant({ delay: 1000 }) }); // no server
    await advance(MOCK_DELAY);
    expect(socket.stats.lastError?.code).toBe(ErrorCodes.CONNECTION_FAILED);
  });

  // Guards: reconnect() ends the connection, so `stats.downtime` counts from the reconnect() call,
  // not from the socket's creation or an earlier loss.
  it('downtime after reconnect() counts from the reconnect() call', async () => {
    const { socket } = await openSocket();
    await advance(10_000);
    socket.reconnect();
    await advance(2);
    expect(socket.state).toBe('connecting');
    expect(socket.stats.downtime).toBe(2);
  });
});

describe('binaryType', () => {
  it('the option is applied to every underlying socket', async () => {
    const url = uniqueUrl();
    startServer(url);
    const tracking = trackingWebSocket();
    const socket = createSocket(url, { WebSocket: tracking.WebSocket, binaryType: 'arraybuffer' });
    await advance(MOCK_DELAY);
    expect(socket.binaryType).toBe('arraybuffer');
    socket.reconnect();
    await advance(MOCK_DELAY);
    expect(tracking.instances.map((s) => s.binaryType)).toEqual(['arraybuffer', 'arraybuffer']);
  });

  it('reads the implementation default, and the setter changes the current and every future socket', async () => {
    const url = uniqueUrl();
    startServer(url);
    const tracking = trackingWebSocket();
    const socket = createSocket(url, { WebSocket: tracking.WebSocket });
    expect(socket.binaryType).toBeUndefined(); // no socket yet
    await advance(MOCK_DELAY);
    expect(socket.binaryType).toBe('blob'); // mock-socket's default, like browsers
    socket.binaryType = 'arraybuffer';
    expect(tracking.instances[0]?.binaryType).toBe('arraybuffer');
    socket.reconnect();
    await advance(MOCK_DELAY);
    expect(tracking.instances[1]?.binaryType).toBe('arraybuffer');
    expect(socket.binaryType).toBe('arraybuffer');
  });

  it('the setter rejects a non-string', async () => {
    const { socket } = await openSocket();
    expect(() => {
      socket.binaryType = 5 as unknown as string;
    }).toThrow(TypeError);
  });
});

describe('async iteration', () => {
  it('yields messages in order and ends when the socket closes', async () => {
    const { server, socket } = await openSocket();
    const baseline = { message: socket.listenerCount('message'), state: socket.listenerCount('state') };
    const seen: Data[] = [];
    let ended = false;
    const loop = (async () => {
      for await (const message of socket) seen.push(message);
      ended = true;
    })();
    server.broadcast('a');
    server.broadcast('b');
    await advance(0);
    server.broadcast('c');
    await advance(0);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(ended).toBe(false);
    socket.close();
    await advance(0);
    expect(ended).toBe(false); // closing, waiting for the server's close frame
    await advance(MOCK_DELAY);
    await loop;
    expect(ended).toBe(true);
    expect(socket.listenerCount('message')).toBe(baseline.message);
    expect(socket.listenerCount('state')).toBe(baseline.state);
  });

  it('keeps yielding across reconnections and delivers messages queued before the close', async () => {
    const { server, socket } = await openSocket({ backoff: constant({ delay: 10 }) });
    const iterator = socket[Symbol.asyncIterator]();
    server.broadcast('before');
    server.closeLast(1012);
    await advance(MOCK_DELAY + 10 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    server.broadcast('after');
    socket.close();
    await advance(MOCK_DELAY);
    expect(await iterator.next()).toEqual({ value: 'before', done: false });
    expect(await iterator.next()).toEqual({ value: 'after', done: false });
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });

  it('is done at once on a closed socket, and return() detaches', async () => {
    const { server, socket } = await openSocket();
    const baseline = socket.listenerCount('message');
    const iterator = socket[Symbol.asyncIterator]();
    // Iterators are internal consumers, not public listeners.
    expect(socket.listenerCount('message')).toBe(baseline);
    server.broadcast('queued');
    await iterator.return?.();
    server.broadcast('after return');
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    socket.close();
    await advance(MOCK_DELAY);
    expect(await socket[Symbol.asyncIterator]().next()).toEqual({ value: undefined, done: true });
  });
});

describe('open() and reconnect() after close()', () => {
  it('throw ERR_RS_CLOSED', async () => {
    const { socket } = await openSocket();
    socket.close();
    for (const method of ['open', 'reconnect'] as const) {
      const error = thrown(() => socket[method]());
      expect((error as { code?: string }).code).toBe(ErrorCodes.CLOSED);
      if (PRODUCTION) expect((error as Error).message).toBe(ErrorCodes.CLOSED);
      else expect((error as Error).message).toContain(`${method}()`);
    }
  });
});
