import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { ErrorCodes } from '../../src/errors.js';
import {
  advance,
  cleanup,
  createSocket,
  expectRsError,
  MOCK_DELAY,
  openSocket,
  record,
  startServer,
  thrown,
  uniqueUrl,
} from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

describe('buffering while not open', () => {
  it('send() before open returns "buffered"; the queue is flushed in order before `open` listeners run', async () => {
    const url = uniqueUrl();
    const server = startServer(url);
    const socket = createSocket(url);
    const log = record(socket);
    expect(socket.send('a')).toBe('buffered');
    expect(socket.send('b')).toBe('buffered');
    expect(socket.bufferedCount).toBe(2);
    const countsInOpen: number[] = [];
    socket.on('open', () => {
      countsInOpen.push(socket.bufferedCount, socket.stats.messagesOut);
      expect(socket.send('from open listener')).toBe('sent');
    });
    await advance(MOCK_DELAY);
    expect(countsInOpen).toEqual([0, 2]);
    expect(socket.bufferedCount).toBe(0);
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['a', 'b', 'from open listener']);
    expect(socket.stats.messagesOut).toBe(3);
    expect(log.of('drop')).toEqual([]);
  });

  it('buffers while reconnecting and flushes on the next connection', async () => {
    const { server, socket } = await openSocket({ backoff: constant({ delay: 100 }) });
    server.closeLast(1012);
    // mock-socket's server close takes 4 ms to reach the client; meanwhile the socket is CLOSING
    expect(socket.send('during close')).toBe('buffered');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(socket.send('while reconnecting')).toBe('buffered');
    expect(socket.bufferedCount).toBe(2);
    await advance(100);
    expect(socket.state).toBe('connecting');
    expect(socket.send('while connecting')).toBe('buffered');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['during close', 'while reconnecting', 'while connecting']);
    expect(server.clients[1]).toBeDefined();
  });

  it('buffers in idle (autoConnect: false) and flushes on open()', async () => {
    const url = uniqueUrl();
    const server = startServer(url);
    const socket = createSocket(url, { autoConnect: false });
    expect(socket.send('x')).toBe('buffered');
    await advance(1000);
    expect(socket.bufferedCount).toBe(1);
    socket.open();
    await advance(MOCK_DELAY * 2);
    expect(server.received).toEqual(['x']);
  });

  it('send(data, { buffer: false }) while disconnected is dropped with reason not-connected', async () => {
    const url = uniqueUrl();
    startServer(url);
    const socket = createSocket(url);
    const log = record(socket);
    expect(socket.send('cursor', { buffer: false })).toBe('dropped');
    expect(socket.bufferedCount).toBe(0);
    expect(log.of('drop')).toEqual([{ reason: 'not-connected', messages: ['cursor'] }]);
    expect(socket.stats.dropped).toBe(1);
  });
});

describe('overflow policies', () => {
  it('drop-oldest (default) evicts the oldest and reports it', async () => {
    const socket = createSocket(uniqueUrl(), { autoConnect: false, buffer: { maxMessages: 2 } });
    const log = record(socket);
    expect(socket.send('1')).toBe('buffered');
    expect(socket.send('2')).toBe('buffered');
    expect(socket.send('3')).toBe('buffered');
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['1'] }]);
    expect(socket.bufferedCount).toBe(2);
    expect(socket.stats.dropped).toBe(1);
  });

  it('drop-oldest evicts as many as needed to fit maxBytes', async () => {
    const socket = createSocket(uniqueUrl(), { autoConnect: false, buffer: { maxBytes: 10 } });
    const log = record(socket);
    socket.send('aaa');
    socket.send('bbb');
    socket.send('ccc');
    expect(socket.send('dddddddd')).toBe('buffered'); // 8 of 10 bytes: all three 3-byte messages must go
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['aaa', 'bbb', 'ccc'] }]);
    expect(socket.bufferedCount).toBe(1);
    expect(socket.send('x'.repeat(11))).toBe('dropped'); // can never fit
    expect(log.of('drop')[1]).toEqual({ reason: 'overflow', messages: ['x'.repeat(11)] });
    expect(socket.bufferedCount).toBe(1);
    expect(socket.stats.dropped).toBe(4);
  });

  it('drop-newest returns "dropped" and reports the new message', async () => {
    const url = uniqueUrl();
    const server = startServer(url);
    const socket = createSocket(url, { buffer: { maxMessages: 2, overflow: 'drop-newest' } });
    const log = record(socket);
    socket.send('1');
    socket.send('2');
    expect(socket.send('3')).toBe('dropped');
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['3'] }]);
    await advance(MOCK_DELAY * 2);
    expect(server.received).toEqual(['1', '2']);
  });

  it('error throws ResilientSocketError ERR_RS_BUFFER_OVERFLOW and keeps the queue', async () => {
    const url = uniqueUrl();
    const server = startServer(url);
    const socket = createSocket(url, { buffer: { maxMessages: 1, overflow: 'error' } });
    const log = record(socket);
    expect(socket.send('1')).toBe('buffered');
    const error = expectRsError(
      thrown(() => socket.send('2')),
      ErrorCodes.BUFFER_OVERFLOW,
    );
    expect(error.message).toMatch(/overflow/);
    expect(socket.bufferedCount).toBe(1);
    expect(log.of('drop')).toEqual([]);
    expect(socket.stats.dropped).toBe(0);
    await advance(MOCK_DELAY * 2);
    expect(server.received).toEqual(['1']);
  });

  it('maxMessages 0 disables buffering', async () => {
    const socket = createSocket(uniqueUrl(), { autoConnect: false, buffer: { maxMessages: 0 } });
    const log = record(socket);
    expect(socket.send('x')).toBe('dropped');
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['x'] }]);
  });
});

describe('ttl', () => {
  it('expires queued messages by timer and reports them', async () => {
    const socket = createSocket(uniqueUrl(), { autoConnect: false, buffer: { ttl: 1000 } });
    const log = record(socket);
    socket.send('a');
    await advance(400);
    socket.send('b');
    expect(vi.getTimerCount()).toBe(1);
    await advance(599);
    expect(log.of('drop')).toEqual([]);
    await advance(1);
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['a'] }]);
    expect(socket.bufferedCount).toBe(1);
    await advance(400);
    expect(log.of('drop')).toEqual([
      { reason: 'expired', messages: ['a'] },
      { reason: 'expired', messages: ['b'] },
    ]);
    expect(socket.bufferedCount).toBe(0);
    expect(socket.stats.dropped).toBe(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends what is still fresh on open and disarms the ttl timer', async () => {
    const url = uniqueUrl();
    const server = startServer(url);
    const socket = createSocket(url, { autoConnect: false, buffer: { ttl: 1000 } });
    const log = record(socket);
    socket.send('old');
    await advance(500);
    socket.send('fresh');
    await advance(500);
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['old'] }]);
    socket.open();
    await advance(MOCK_DELAY);
    expect(socket.bufferedCount).toBe(0);
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['fresh']);
    await advance(5000);
    expect(log.of('drop')).toHaveLength(1);
  });
});

describe('after close()', () => {
  it('send() returns "dropped" with reason closed', async () => {
    const { socket, log } = await openSocket();
    socket.close();
    expect(socket.send('late')).toBe('dropped');
    expect(log.of('drop')).toEqual([{ reason: 'closed', messages: ['late'] }]);
    await advance(MOCK_DELAY);
    expect(socket.send('later')).toBe('dropped');
    expect(socket.stats.dropped).toBe(2);
  });

  it('close() with queued messages drops them in order with reason closed', async () => {
    const socket = createSocket(uniqueUrl(), { autoConnect: false, buffer: { ttl: 10_000 } });
    const log = record(socket);
    socket.send('1');
    socket.send('2');
    socket.send('3');
    socket.close();
    expect(log.of('drop')).toEqual([{ reason: 'closed', messages: ['1', '2', '3'] }]);
    expect(socket.bufferedCount).toBe(0);
    expect(socket.stats.dropped).toBe(3);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a give-up drops the queue with reason closed, and send() afterwards is dropped', async () => {
    const socket = createSocket(uniqueUrl(), { maxRetries: 0 }); // no server
    const log = record(socket);
    socket.send('queued');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('closed');
    expect(log.of('drop')).toEqual([{ reason: 'closed', messages: ['queued'] }]);
    expect(socket.send('after')).toBe('dropped');
    expect(log.of('drop')[1]).toEqual({ reason: 'closed', messages: ['after'] });
  });

  it('send() while closing is dropped, not buffered', async () => {
    const { server, socket, log } = await openSocket();
    socket.close(1000, 'bye');
    expect(socket.state).toBe('closing');
    expect(socket.send('x')).toBe('dropped');
    expect(log.of('drop')).toEqual([{ reason: 'closed', messages: ['x'] }]);
    await advance(MOCK_DELAY);
    expect(server.received).toEqual([]);
  });
});
