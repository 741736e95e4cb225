/**
 * The `ttl` of `bufferPolicy()`: a timer, and every send() and flush, drop the messages that waited
 * at least ttl (reason 'expired'), in order and on time whatever the clock does, never sending them;
 * and no ttl timer is left once the queue is flushed, dropped or closed.
 */
import { describe, expect, it, vi } from 'vitest';
import { constant } from '../../../src/backoff/constant.js';
import { bufferPolicy } from '../../../src/features/buffer-policy/buffer-policy.js';
import { TestClock } from '../../../src/testing/test-clock.js';
import {
  advance,
  createSocket,
  MOCK_DELAY,
  openSocket,
  record,
  startServer,
  uniqueUrl,
} from '../../resilient-socket/helpers.js';
import { type BufferAndPolicy, bufferOptions, idleSocket, setUpBufferPolicy } from './helpers.js';

setUpBufferPolicy();

describe('ttl', () => {
  it('a timer expires, in order, every message that waited at least ttl', async () => {
    const socket = idleSocket({ ttl: 100 });
    const log = record(socket, ['drop']);
    socket.send('a');
    await advance(50);
    socket.send('b');
    await advance(50);
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['a'] }]); // waited exactly 100
    socket.send('c'); // at 100
    expect(socket.bufferedCount).toBe(2);
    await advance(49);
    expect(log.of('drop')).toHaveLength(1);
    await advance(1); // 150
    expect(log.of('drop')[1]).toEqual({ reason: 'expired', messages: ['b'] });
    expect(socket.bufferedCount).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    await advance(49);
    expect(log.of('drop')).toHaveLength(2);
    await advance(1); // 200
    expect(log.of('drop')[2]).toEqual({ reason: 'expired', messages: ['c'] });
    expect(socket.bufferedCount).toBe(0);
    expect(socket.stats.dropped).toBe(3);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('the next send drops what waited at least ttl, before the message is queued', () => {
    const socket = idleSocket({ ttl: 100 });
    const log = record(socket, ['drop']);
    socket.send('a');
    vi.setSystemTime(Date.now() + 50);
    socket.send('b');
    vi.setSystemTime(Date.now() + 49); // the timer is due in 1 ms: only send() can see the time
    socket.send('c');
    expect(log.of('drop')).toEqual([]);
    vi.setSystemTime(Date.now() + 1);
    const seen: number[] = [];
    socket.on('drop', () => seen.push(socket.bufferedCount));
    expect(socket.send('d')).toBe('buffered');
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['a'] }]);
    expect(seen).toEqual([2]); // reported before 'd' joined the queue
    expect(socket.bufferedCount).toBe(3);
  });

  it('drops what waited at least ttl before the flush: never sent, reported before `open`', async () => {
    const server = startServer();
    const socket = createSocket(server.url, { autoConnect: false, bufferPolicy: bufferPolicy({ ttl: 100 }) });
    const log = record(socket, ['drop', 'open', 'state']);
    socket.send('stale');
    vi.setSystemTime(Date.now() + 60);
    socket.send('fresh');
    vi.setSystemTime(Date.now() + 40); // 'stale' waited 100; its timer has not fired
    expect(log.of('drop')).toEqual([]);
    socket.open();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['stale'] }]);
    expect(log.names().slice(-3)).toEqual(['state', 'drop', 'open']);
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['fresh']);
    expect(socket.stats.dropped).toBe(1);
  });

  it('never expires with ttl Infinity (the default)', async () => {
    const socket = idleSocket({ ttl: Number.POSITIVE_INFINITY });
    const log = record(socket, ['drop']);
    socket.send('a');
    expect(vi.getTimerCount()).toBe(0);
    vi.setSystemTime(Number.MAX_SAFE_INTEGER / 2);
    socket.send('b');
    await advance(1e9);
    expect(log.of('drop')).toEqual([]);
    expect(socket.bufferedCount).toBe(2);
  });

  it('handles a fractional ttl', async () => {
    const clock = new TestClock(1);
    const socket = createSocket(uniqueUrl(), { autoConnect: false, clock, bufferPolicy: bufferPolicy({ ttl: 0.5 }) });
    const log = record(socket, ['drop']);
    socket.send('a'); // at 1: expires at 1.5
    expect(clock.nextAt).toBe(1.5);
    clock.jump(0.375);
    socket.send('b'); // at 1.375
    expect(log.of('drop')).toEqual([]);
    clock.jump(0.125); // 1.5, the timer not fired
    socket.send('c');
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['a'] }]);
    expect(clock.nextAt).toBe(1.875); // 'b' next
    await clock.advance(0.25);
    expect(log.of('drop')).toHaveLength(1);
    await clock.advance(0.125);
    expect(log.of('drop')[1]).toEqual({ reason: 'expired', messages: ['b'] });
    expect(socket.bufferedCount).toBe(1);
  });

  it('expires every stale message, each on time, even when the clock went backwards between sends', async () => {
    const socket = idleSocket({ ttl: 100 });
    const log = record(socket, ['drop']);
    vi.setSystemTime(500);
    socket.send('a'); // expires at 600
    vi.setSystemTime(0); // the wall clock stepped back
    socket.send('b'); // expires at 100, before 'a'
    await advance(99);
    expect(log.of('drop')).toEqual([]);
    await advance(1); // 100
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['b'] }]);
    expect(socket.bufferedCount).toBe(1);
    await advance(450);
    socket.send('c'); // at 550: expires at 650
    await advance(49);
    expect(log.of('drop')).toHaveLength(1);
    await advance(1); // 600
    expect(log.of('drop')[1]).toEqual({ reason: 'expired', messages: ['a'] });
    await advance(50); // 650
    expect(log.of('drop')[2]).toEqual({ reason: 'expired', messages: ['c'] });
    expect(socket.bufferedCount).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a timer drops them while reconnecting; they are never sent', async () => {
    const { server, socket, log } = await openSocket({
      backoff: constant({ delay: 1000 }),
      bufferPolicy: bufferPolicy({ ttl: 100 }),
    });
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(socket.send('late')).toBe('buffered');
    await advance(99);
    expect(log.of('drop')).toEqual([]);
    await advance(1);
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['late'] }]);
    expect(socket.state).toBe('reconnecting');
    await advance(1000 + MOCK_DELAY * 2);
    expect(socket.state).toBe('open');
    expect(server.received).toEqual([]);
    expect(log.of('drop')).toHaveLength(1);
  });

  // close() with a ttl and messages queued: test/resilient-socket/send-buffer.test.ts ('close() with queued messages …').
  it('nothing is left running after a give-up (the queue is dropped)', async () => {
    const socket = createSocket(uniqueUrl(), { maxRetries: 0, bufferPolicy: bufferPolicy({ ttl: 10_000 }) }); // no server
    const log = record(socket, ['drop', 'giveup']);
    socket.send('queued');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('closed');
    expect(log.of('giveup').map((info) => info.error.code)).toEqual(['ERR_RS_RETRIES_EXHAUSTED']);
    expect(log.of('drop')).toEqual([{ reason: 'closed', messages: ['queued'] }]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('once the queue is flushed, no ttl timer is left', async () => {
    // The socket's own timers run on a TestClock each (mock-socket's on the fake timers), so
    // that a socket with a ttl can be compared with the same socket without.
    const opened = async (buffer: BufferAndPolicy) => {
      const server = startServer();
      const clock = new TestClock();
      const socket = createSocket(server.url, { autoConnect: false, clock, ...bufferOptions(buffer) });
      socket.send('a');
      await clock.advance(10);
      socket.send('b');
      socket.open();
      await advance(MOCK_DELAY * 2);
      expect(socket.state).toBe('open');
      expect(server.received).toEqual(['a', 'b']);
      return clock.pending;
    };
    const withTtl = await opened({ ttl: 1000 });
    expect(withTtl).toBe(await opened({}));
  });

  it('a drop listener that closes the socket while send() expires messages leaves nothing running', () => {
    const socket = idleSocket({ ttl: 100 });
    const log = record(socket, ['drop']);
    socket.send('a');
    socket.send('b');
    socket.on('drop', ({ reason }) => {
      if (reason === 'expired') socket.close();
    });
    vi.setSystemTime(Date.now() + 100);
    expect(socket.send('c')).toBe('dropped');
    expect(log.of('drop')).toEqual([
      { reason: 'expired', messages: ['a', 'b'] },
      { reason: 'closed', messages: ['c'] },
    ]);
    expect(socket.state).toBe('closed');
    expect(vi.getTimerCount()).toBe(0);
  });
});
