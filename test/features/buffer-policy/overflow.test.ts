/**
 * The `overflow` policies of `bufferPolicy()` when a message does not fit the queue's limits:
 * 'drop-newest' drops the new message, 'error' throws ERR_RS_BUFFER_OVERFLOW and changes nothing,
 * by count and by bytes; and each policy on a queue already over its limits. The queue itself
 * (FIFO, bytes, eviction of the oldest, expire) is tested in test/core/queue-*.test.ts; the basics of
 * buffering through a socket in test/resilient-socket/send-buffer.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Host } from '../../../src/core/feature.js';
import { Queue } from '../../../src/core/queue.js';
import type { Data } from '../../../src/data.js';
import type { ResilientSocketError } from '../../../src/errors.js';
import { bufferPolicy } from '../../../src/features/buffer-policy/buffer-policy.js';
import { advance, createSocket, MOCK_DELAY, record, startServer, thrown } from '../../resilient-socket/helpers.js';
import { expectOverflow, idleSocket, overflowMessage, setUpBufferPolicy } from './helpers.js';

setUpBufferPolicy();

describe("overflow 'drop-newest'", () => {
  it('drops the new message by count and keeps the queue; once there is room, messages are queued again', async () => {
    const server = startServer();
    const socket = createSocket(server.url, {
      autoConnect: false,
      buffer: { maxMessages: 2 },
      bufferPolicy: bufferPolicy({ overflow: 'drop-newest', ttl: 100 }),
    });
    const log = record(socket, ['drop']);
    socket.send('a');
    await advance(50);
    socket.send('b');
    await advance(10);
    expect(socket.send('c')).toBe('dropped');
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['c'] }]);
    expect(socket.bufferedCount).toBe(2);
    expect(socket.stats.dropped).toBe(1);
    await advance(40); // 'a' waited its ttl: room for one
    expect(log.of('drop')[1]).toEqual({ reason: 'expired', messages: ['a'] });
    expect(socket.send('d')).toBe('buffered');
    expect(socket.bufferedCount).toBe(2);
    socket.open();
    await advance(MOCK_DELAY * 2);
    expect(server.received).toEqual(['b', 'd']);
  });

  it('drops by bytes (multibyte, Uint8Array, ArrayBuffer), reporting the message itself', async () => {
    const server = startServer();
    const socket = createSocket(server.url, {
      autoConnect: false,
      buffer: { maxBytes: 10 },
      bufferPolicy: bufferPolicy({ overflow: 'drop-newest' }),
    });
    const log = record(socket, ['drop']);
    expect(socket.send('😀€')).toBe('buffered'); // 7
    expect(socket.send('😀')).toBe('dropped'); // 7 + 4 > 10
    const bytes = new Uint8Array(4);
    const raw = new ArrayBuffer(4);
    expect(socket.send(bytes)).toBe('dropped');
    expect(socket.send(raw)).toBe('dropped');
    expect(log.of('drop').map((d) => d.reason)).toEqual(['overflow', 'overflow', 'overflow']);
    expect(log.of('drop').map((d) => d.messages.length)).toEqual([1, 1, 1]);
    expect(log.of('drop')[0]?.messages[0]).toBe('😀');
    expect(log.of('drop')[1]?.messages[0]).toBe(bytes);
    expect(log.of('drop')[2]?.messages[0]).toBe(raw);
    expect(socket.send('€')).toBe('buffered'); // 7 + 3 = 10 exactly
    expect(socket.send('')).toBe('buffered'); // 0 bytes still fit
    expect(socket.send('x')).toBe('dropped'); // full: 10 bytes
    expect(socket.bufferedCount).toBe(3);
    expect(socket.stats.dropped).toBe(4);
    socket.open();
    await advance(MOCK_DELAY * 2);
    expect(server.received).toEqual(['😀€', '€', '']);
  });

  it('drops a message bigger than maxBytes, and everything with maxMessages 0', () => {
    const small = idleSocket({ maxBytes: 3, overflow: 'drop-newest' });
    const log = record(small, ['drop']);
    expect(small.send('abcd')).toBe('dropped');
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['abcd'] }]);
    expect(small.bufferedCount).toBe(0);

    const none = idleSocket({ maxMessages: 0, overflow: 'drop-newest' });
    const noneLog = record(none, ['drop']);
    expect(none.send('')).toBe('dropped');
    expect(noneLog.of('drop')).toEqual([{ reason: 'overflow', messages: [''] }]);
    expect(none.bufferedCount).toBe(0);
  });
});

describe("overflow 'error'", () => {
  it('throws ERR_RS_BUFFER_OVERFLOW by count and leaves the queue unchanged', async () => {
    const server = startServer();
    const socket = createSocket(server.url, {
      autoConnect: false,
      buffer: { maxMessages: 2 },
      bufferPolicy: bufferPolicy({ overflow: 'error' }),
    });
    const log = record(socket, ['drop']);
    socket.send('a');
    socket.send('bc');
    const message = overflowMessage(
      'Outbound buffer overflow: the buffer holds 2 messages of 2 and 3 bytes of 1048576; ' +
        'a message of 1 byte does not fit (`buffer.overflow` is "error")',
    );
    expect(expectOverflow(socket, 'd').message).toBe(message);
    expect(expectOverflow(socket, 'd').message).toBe(message); // the same queue, the same bytes
    expect(log.of('drop')).toEqual([]);
    socket.open();
    await advance(MOCK_DELAY * 2);
    expect(server.received).toEqual(['a', 'bc']);
  });

  it('throws by bytes (multibyte, Uint8Array, ArrayBuffer)', () => {
    const socket = idleSocket({ maxBytes: 8, overflow: 'error' });
    socket.send('€€'); // 6
    expect(expectOverflow(socket, 'é€').message).toContain(overflowMessage('holds 1 message of 1000 and 6 bytes of 8'));
    expect(expectOverflow(socket, new Uint8Array(3)).message).toContain(
      overflowMessage('a message of 3 bytes does not fit'),
    );
    expectOverflow(socket, new ArrayBuffer(3));
    expect(socket.send('é')).toBe('buffered'); // exactly 8
    expect(socket.send('')).toBe('buffered'); // 0 bytes still fit
    expect(expectOverflow(socket, 'x').message).toBe(
      overflowMessage(
        'Outbound buffer overflow: the buffer holds 3 messages of 1000 and 8 bytes of 8; ' +
          'a message of 1 byte does not fit (`buffer.overflow` is "error")',
      ),
    );
  });

  it('throws for a message bigger than maxBytes, and for any message with maxMessages 0', () => {
    const big = idleSocket({ maxBytes: 4, overflow: 'error' });
    expect(expectOverflow(big, '€€').message).toBe(
      overflowMessage(
        'Outbound buffer overflow: the buffer holds 0 messages of 1000 and 0 bytes of 4; ' +
          'a message of 6 bytes is larger than `buffer.maxBytes` (`buffer.overflow` is "error")',
      ),
    );
    const none = idleSocket({ maxMessages: 0, overflow: 'error' });
    expect(expectOverflow(none, '').message).toBe(
      overflowMessage(
        'Outbound buffer overflow: the buffer holds 0 messages of 0 and 0 bytes of 1048576; ' +
          'buffering is disabled (`buffer.maxMessages` is 0) (`buffer.overflow` is "error")',
      ),
    );
  });

  it('messages that waited their ttl are dropped first, making room', () => {
    const socket = idleSocket({ maxMessages: 1, overflow: 'error', ttl: 100 });
    const log = record(socket, ['drop']);
    socket.send('old');
    vi.setSystemTime(Date.now() + 100); // the wall clock moves on, the ttl timer has not fired yet
    expect(socket.send('new')).toBe('buffered');
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['old'] }]);
    expect(socket.bufferedCount).toBe(1);
  });
});

describe('the policies on a queue over its limits (a message put back by an interrupted flush)', () => {
  /** Just enough of a socket for `admit`: limits of 1 message, and `queue`. */
  function socketOver(queue: Queue) {
    const drops: unknown[] = [];
    const socket = {
      config_: { maxMessages: 1, maxBytes: 1_048_576, clock: { now: () => 0 }, slotBase: [2] },
      queue_: queue,
      drop_: (reason: string, messages: Data[]) => {
        if (messages.length > 0) drops.push({ reason, messages });
      },
      timerPending_: () => false,
      arm_: () => undefined,
      disarm_: () => undefined,
    } as unknown as Host;
    return { socket, drops };
  }

  it("'drop-newest' refuses every message until the queue is shifted down; 'error' throws; 'drop-oldest' lets it evict", () => {
    const queue = new Queue(1, 1_048_576);
    queue.push('a', 0);
    queue.unshift({ data: 'z', bytes: 1, at: 0 });
    const { socket, drops } = socketOver(queue);
    const dropNewest = bufferPolicy({ overflow: 'drop-newest' });
    expect(dropNewest.admit?.(socket, 0, 1)).toBe('dropped');
    expect(dropNewest.admit?.(socket, 0, 0)).toBe('dropped');
    expect(queue.length).toBe(2);
    const error = thrown(() => bufferPolicy({ overflow: 'error' }).admit?.(socket, 0, 1)) as ResilientSocketError;
    expect(error.code).toBe('ERR_RS_BUFFER_OVERFLOW');
    expect(error.message).toContain(overflowMessage('holds 2 messages of 1 and 2 bytes of 1048576'));
    expect(bufferPolicy().admit?.(socket, 0, 1)).toBeUndefined(); // the core's push evicts
    expect(queue.length).toBe(2);
    queue.shift();
    expect(dropNewest.admit?.(socket, 0, 1)).toBe('dropped'); // still full
    queue.shift();
    expect(dropNewest.admit?.(socket, 0, 1)).toBeUndefined();
    expect(drops).toEqual([]);
  });
});
