import { WebSocket as MockWebSocket } from 'mock-socket';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { ErrorCodes } from '../../src/errors.js';
import { bufferPolicy } from '../../src/features/buffer-policy/buffer-policy.js';
import type { WebSocketConstructorLike } from '../../src/transports/websocket-like.js';
import { expectInputError, PRODUCTION } from '../helpers/mode.js';
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
    const socket = createSocket(url, {
      buffer: { maxMessages: 2 },
      bufferPolicy: bufferPolicy({ overflow: 'drop-newest' }),
    });
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
    const socket = createSocket(url, { buffer: { maxMessages: 1 }, bufferPolicy: bufferPolicy({ overflow: 'error' }) });
    const log = record(socket);
    expect(socket.send('1')).toBe('buffered');
    const error = expectRsError(
      thrown(() => socket.send('2')),
      ErrorCodes.BUFFER_OVERFLOW,
    );
    if (PRODUCTION) expect(error.message).toBe(ErrorCodes.BUFFER_OVERFLOW);
    else expect(error.message).toMatch(/overflow/);
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
    const socket = createSocket(uniqueUrl(), { autoConnect: false, bufferPolicy: bufferPolicy({ ttl: 1000 }) });
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
    const socket = createSocket(url, { autoConnect: false, bufferPolicy: bufferPolicy({ ttl: 1000 }) });
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
    const socket = createSocket(uniqueUrl(), { autoConnect: false, bufferPolicy: bufferPolicy({ ttl: 10_000 }) });
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

/** Makes `buffer` unusable here, as transferring it to a worker does. */
function detach(buffer: ArrayBufferLike): void {
  structuredClone(buffer, { transfer: [buffer as ArrayBuffer] });
}

/** The bytes of binary data; like ws and browsers, it throws for data that is detached. */
function bytesOf(data: unknown): number[] {
  if (ArrayBuffer.isView(data)) return [...new Uint8Array(data.buffer, data.byteOffset, data.byteLength)];
  if (data instanceof ArrayBuffer) return [...new Uint8Array(data)];
  throw new TypeError('not binary');
}

/**
 * mock-socket's WebSocket refusing what a real one refuses: detached binary data (mock-socket
 * never looks at it), and, to stand for any message a WebSocket cannot take, the text 'poison'.
 */
class StrictWebSocket extends MockWebSocket {
  override send(data: string | ArrayBufferLike | Blob | ArrayBufferView): void {
    if (typeof data !== 'string') bytesOf(data);
    else if (data === 'poison') throw new TypeError('this WebSocket cannot send "poison"');
    super.send(data as Parameters<MockWebSocket['send']>[0]);
  }
}
const Strict = StrictWebSocket as unknown as WebSocketConstructorLike;

// Regression, it was: the underlying send() throws for a
// message that can never be written (binary data detached after send() queued it); the message
// went back to the head of the queue, every later send() on the open connection said 'buffered',
// nothing reached the server, nothing said why, and every flush stopped at the same message.
describe('binary data that is or becomes detached, and messages the WebSocket refuses', () => {
  it('binary data queued before open is copied: transferring it after send() changes nothing', async () => {
    const server = startServer();
    const socket = createSocket(server.url, { WebSocket: Strict });
    const log = record(socket);
    const view = new Uint8Array([1, 2, 3]);
    const raw = new Uint8Array([4, 5]).buffer;
    expect(socket.send(view)).toBe('buffered');
    expect(socket.send(raw)).toBe('buffered');
    detach(view.buffer); // e.g. postMessage(view.buffer, [view.buffer]) to a worker
    detach(raw);
    await advance(MOCK_DELAY * 2);
    expect(socket.state).toBe('open');
    expect(server.received.map(bytesOf)).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(server.received[0]).toBeInstanceOf(Uint8Array); // the copy keeps its type
    expect(server.received[1]).toBeInstanceOf(ArrayBuffer);
    expect(socket.send('after')).toBe('sent');
    expect(log.of('drop')).toEqual([]);
    expect(log.errors()).toEqual([]);
  });

  it('a queued copy is independent of later writes to the caller’s buffer', async () => {
    const server = startServer();
    const socket = createSocket(server.url, { WebSocket: Strict });
    const bytes = new Uint8Array([1, 2, 3]);
    expect(socket.send(bytes)).toBe('buffered');
    bytes[0] = 99; // reused by the caller as soon as send() returned
    await advance(MOCK_DELAY * 2);
    expect(server.received.map(bytesOf)).toEqual([[1, 2, 3]]);
  });

  it.each([
    ['an ArrayBuffer', () => new ArrayBuffer(4), (d: ArrayBufferLike) => detach(d)],
    ['a typed array', () => new Uint16Array(2), (d: Uint16Array) => detach(d.buffer)],
    ['a DataView', () => new DataView(new ArrayBuffer(4)), (d: DataView) => detach(d.buffer)],
  ] as const)(
    'send() of %s that is detached, while open: dropped and reported; the next send goes out',
    async (_name, make, kill) => {
      const { server, socket, log } = await openSocket({ WebSocket: Strict });
      const data = make();
      (kill as (d: unknown) => void)(data);
      expect(socket.send(data)).toBe('dropped');
      const error = expectRsError(log.of('error')[0], ErrorCodes.UNSENDABLE);
      expect(error.cause).toBeInstanceOf(TypeError);
      // (toEqual cannot read detached data: compare identities)
      expect(log.of('drop').map((d) => [d.reason, d.messages.length, d.messages[0] === data])).toEqual([
        ['unsendable', 1, true],
      ]);
      expect(log.names().slice(-2)).toEqual(['error', 'drop']);
      expect(socket.send('next')).toBe('sent');
      await advance(MOCK_DELAY);
      expect(server.received).toEqual(['next']);
      expect(socket.stats.dropped).toBe(1);
      expect(socket.bufferedCount).toBe(0);
    },
  );

  it('send() of detached data while not open: dropped at once (it could never be sent)', async () => {
    const socket = createSocket(uniqueUrl(), { autoConnect: false });
    const log = record(socket);
    const data = new Uint8Array(8);
    detach(data.buffer);
    expect(socket.send(data)).toBe('dropped');
    expectRsError(log.of('error')[0], ErrorCodes.UNSENDABLE);
    expect(log.of('drop').map((d) => [d.reason, d.messages.length, d.messages[0] === data])).toEqual([
      ['unsendable', 1, true],
    ]);
    expect(socket.bufferedCount).toBe(0);
  });

  it('a queued message the WebSocket refuses while open is dropped from the flush; the rest flows, in order', async () => {
    const server = startServer();
    const socket = createSocket(server.url, { WebSocket: Strict, backoff: constant({ delay: 10 }) });
    const log = record(socket);
    for (const message of ['a', 'poison', 'b']) expect(socket.send(message)).toBe('buffered');
    await advance(MOCK_DELAY * 2);
    expect(socket.state).toBe('open');
    expect(server.received).toEqual(['a', 'b']);
    expect(log.names()).toEqual(['connecting', 'state', 'error', 'drop', 'open']);
    expectRsError(log.of('error')[0], ErrorCodes.UNSENDABLE);
    expect(log.of('drop')).toEqual([{ reason: 'unsendable', messages: ['poison'] }]);
    expect(socket.bufferedCount).toBe(0);
    expect(socket.send('c')).toBe('sent');

    // Nothing is stuck for the next connection either.
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    expect(socket.send('d')).toBe('buffered');
    await advance(10 + MOCK_DELAY * 2);
    expect(server.received).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a message refused because the socket is going down stays queued for the next connection', async () => {
    class Closing extends MockWebSocket {
      override send(data: string): void {
        if (data === 'late') {
          // What a browser does when the connection drops under us: not open any more.
          Object.defineProperty(this, 'readyState', { value: 2, configurable: true });
          throw new Error('InvalidStateError');
        }
        super.send(data);
      }
    }
    const { server, socket, log } = await openSocket({
      WebSocket: Closing as unknown as WebSocketConstructorLike,
    });
    expect(socket.send('late')).toBe('buffered');
    expect(log.of('drop')).toEqual([]);
    expect(socket.bufferedCount).toBe(1);
    expect(server.received).toEqual([]);
  });
});

describe('send() options', () => {
  // Regression: a misspelt option was silently ignored.
  it('an unknown option is a TypeError with a did-you-mean, and nothing is sent', async () => {
    const { server, socket } = await openSocket();
    expectInputError(
      () => socket.send('x', { bufer: false } as never),
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      'bufer',
      'Unknown option `bufer`: did you mean `buffer`?',
    );
    await advance(MOCK_DELAY);
    expect(server.received).toEqual([]);
  });
});
