/**
 * The queue's defaults, as a ResilientSocket shows them (1000 messages, 1 MiB, drop-oldest, no ttl),
 * and the limits and policies given in their place taking effect.
 */
import { describe, expect, it, vi } from 'vitest';
import { advance, record } from '../../resilient-socket/helpers.js';
import { expectOverflow, idleSocket, overflowMessage, setUpBufferPolicy } from './helpers.js';

setUpBufferPolicy();

describe('the defaults, as observed: 1000 messages, 1 MiB, drop-oldest, no ttl', () => {
  it('the overflow error shows the default limits', () => {
    const socket = idleSocket({ overflow: 'error' });
    for (let i = 0; i < 1000; i++) socket.send('x');
    expect(expectOverflow(socket, 'y').message).toBe(
      overflowMessage(
        'Outbound buffer overflow: the buffer holds 1000 messages of 1000 and 1000 bytes of 1048576; ' +
          'a message of 1 byte does not fit (`buffer.overflow` is "error")',
      ),
    );
  });

  it('the 1001st message evicts the first, and nothing ever expires', async () => {
    const socket = idleSocket();
    const log = record(socket, ['drop']);
    for (let i = 0; i < 1000; i++) expect(socket.send(String(i))).toBe('buffered');
    expect(log.of('drop')).toEqual([]);
    expect(socket.send('1000')).toBe('buffered');
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['0'] }]);
    expect(socket.bufferedCount).toBe(1000);
    expect(vi.getTimerCount()).toBe(0); // no ttl timer
    await advance(365 * 24 * 3_600_000);
    expect(socket.send('later')).toBe('buffered');
    expect(log.of('drop')).toEqual([
      { reason: 'overflow', messages: ['0'] },
      { reason: 'overflow', messages: ['1'] },
    ]);
    expect(socket.bufferedCount).toBe(1000);
  });

  it('a message of exactly 1 MiB is queued (evicting the rest); one byte more can never be', () => {
    const socket = idleSocket();
    const log = record(socket, ['drop']);
    socket.send('a');
    socket.send('b');
    expect(socket.send(new Uint8Array(1_048_576))).toBe('buffered');
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['a', 'b'] }]);
    const big = new Uint8Array(1_048_577);
    expect(socket.send(big)).toBe('dropped');
    expect(log.of('drop')[1]?.reason).toBe('overflow');
    expect(log.of('drop')[1]?.messages[0]).toBe(big);
    expect(socket.bufferedCount).toBe(1);
  });

  it('the values given take effect: maxMessages 0 with error, maxBytes 0 with drop-newest and a ttl', async () => {
    const none = idleSocket({ maxMessages: 0, maxBytes: Number.POSITIVE_INFINITY, overflow: 'error', ttl: 0.5 });
    expect(expectOverflow(none, '').message).toContain(
      overflowMessage('buffering is disabled (`buffer.maxMessages` is 0)'),
    );

    const empty = idleSocket({ maxBytes: 0, overflow: 'drop-newest', ttl: 30_000 });
    const log = record(empty, ['drop']);
    expect(empty.send('')).toBe('buffered');
    expect(empty.send('x')).toBe('dropped');
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['x'] }]);
    await advance(29_999);
    expect(empty.bufferedCount).toBe(1);
    await advance(1);
    expect(log.of('drop')[1]).toEqual({ reason: 'expired', messages: [''] });
    expect(empty.bufferedCount).toBe(0);
  });

  it('maxBytes Infinity limits by count only', () => {
    const socket = idleSocket({ maxBytes: Number.POSITIVE_INFINITY, maxMessages: 2 });
    const log = record(socket, ['drop']);
    expect(socket.send(new ArrayBuffer(5_000_000))).toBe('buffered');
    expect(socket.send(new ArrayBuffer(5_000_000))).toBe('buffered');
    expect(log.of('drop')).toEqual([]);
    expect(socket.send('x')).toBe('buffered');
    expect(log.of('drop')).toHaveLength(1);
    expect(socket.bufferedCount).toBe(2);
  });
});
