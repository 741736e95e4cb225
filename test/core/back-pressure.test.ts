/**
 * Back-pressure in the core (`src/core/record.ts`: `buffered_`, `pressure_`; `src/core/socket.ts`:
 * `bufferedAmount`, `writable`): the bytes waiting (queued here plus the WebSocket's own
 * `bufferedAmount`), the `highWaterMark` option, one `drain` per crossing, and the watch that
 * polls the WebSocket only while above the mark. On a hand-made WebSocket whose `bufferedAmount`
 * the test sets, under fake timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DropInfo } from '../../src/core/events.js';
import { BaseSocket } from '../../src/core/socket.js';
import { byteLengthOf, type Data } from '../../src/data.js';
import { ResilientSocket } from '../../src/resilient-socket/resilient-socket.js';
import type { WebSocketConstructorLike } from '../../src/transports/websocket-like.js';
import { BaseWebSocket } from '../../src/websocket/resilient-websocket.js';
import { expectInputError } from '../helpers/mode.js';

/** A browser-dialect WebSocket that opens and closes when the test says; `send()` adds to `bufferedAmount` and nothing takes it off but the test. */
class HeldSocket extends EventTarget {
  static made: HeldSocket[] = [];
  readyState = 0;
  protocol = '';
  binaryType = 'blob';
  bufferedAmount = 0;
  readonly sent: Data[] = [];

  constructor(readonly url: string) {
    super();
    HeldSocket.made.push(this);
  }

  send(data: Data): void {
    if (this.readyState !== 1) throw new Error('not open');
    this.sent.push(data);
    this.bufferedAmount += byteLengthOf(data);
  }

  close(code = 1005, reason = ''): void {
    if (this.readyState > 1) return;
    this.readyState = 2;
    queueMicrotask(() => this.lose(code, reason));
  }

  /** The handshake completed. */
  open(): void {
    this.readyState = 1;
    this.dispatchEvent(new Event('open'));
  }

  /** The connection ended (the server or the network, or the end of our own close). */
  lose(code = 1006, reason = ''): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.dispatchEvent(Object.assign(new Event('close'), { code, reason, wasClean: code !== 1006 }));
  }
}

/** How often the socket reads `bufferedAmount` while above the mark (`pressure_` in src/core/record.ts). */
const PRESSURE_POLL = 20;

const WebSocket = HeldSocket as unknown as WebSocketConstructorLike;
const URL = 'ws://127.0.0.1:9/feed';
const KiB = 1024;
const sockets: { close(): void }[] = [];
/**
 * What the sockets dropped. A {@link HeldSocket} never writes, so what it still holds when its
 * connection ends (lost, or closed after the test) is reported (`'unflushed'`, in bytes): heard
 * here, as an app would hear it.
 */
const dropped: DropInfo[] = [];

/** Closes `socket` after the test, and listens for its drops. */
function track<T extends BaseSocket | BaseWebSocket>(socket: T): T {
  sockets.push(socket);
  if (socket instanceof BaseWebSocket) socket.addEventListener('drop', (event) => dropped.push(event.detail));
  else socket.on('drop', (info) => dropped.push(info));
  return socket;
}

/** A core socket on {@link HeldSocket} (`stableAfter: 0`: no timer of its own while open), closed after the test. */
function make(options: ConstructorParameters<typeof BaseSocket>[1] = {}): BaseSocket {
  return track(new BaseSocket(URL, { WebSocket, stableAfter: 0, ...options }));
}

/** The latest WebSocket made. */
const last = (): HeldSocket => HeldSocket.made[HeldSocket.made.length - 1] as HeldSocket;

/** Lets the attempt make its WebSocket (asynchronously, even for a plain URL), then opens it. */
async function opened(socket: BaseSocket): Promise<HeldSocket> {
  await vi.advanceTimersByTimeAsync(0);
  const ws = last();
  ws.open();
  expect(socket.state).toBe('open');
  return ws;
}

/** Counts `drain` events. */
function drains(socket: BaseSocket): { count: number } {
  const seen = { count: 0 };
  socket.on('drain', () => {
    seen.count++;
  });
  return seen;
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  HeldSocket.made = [];
  dropped.length = 0;
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  await vi.advanceTimersByTimeAsync(0);
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
});

describe('bufferedAmount', () => {
  it('counts the queued bytes (UTF-8 for text, byteLength, Blob size) plus the WebSocket’s own', async () => {
    const socket = make();
    expect(socket.bufferedAmount).toBe(0);
    socket.send('héllo'); // 6 UTF-8 bytes
    socket.send(new ArrayBuffer(10));
    socket.send(new Uint16Array(4)); // 8 bytes
    socket.send(new Blob(['abc']));
    expect(socket.bufferedAmount).toBe(6 + 10 + 8 + 3);
    const ws = await opened(socket);
    // Flushed: now the WebSocket holds them.
    expect(ws.sent).toHaveLength(4);
    expect(socket.bufferedCount).toBe(0);
    expect(socket.bufferedAmount).toBe(ws.bufferedAmount);
    expect(socket.bufferedAmount).toBe(27);
    ws.bufferedAmount = 5; // the WebSocket wrote most of it
    expect(socket.bufferedAmount).toBe(5);
    socket.send('€'); // 3 UTF-8 bytes, sent at once
    expect(socket.bufferedAmount).toBe(8);
  });

  it('reads as the drop-in’s (the same bytes, the same WebSocket)', async () => {
    const socket = make();
    const dropIn = track(new BaseWebSocket(URL, [], { WebSocket, stableAfter: 0 }));
    for (const data of ['a€', new Uint8Array(7), new Blob(['xy'])] as Data[]) {
      socket.send(data);
      dropIn.send(data as string);
    }
    expect(socket.bufferedAmount).toBe(dropIn.bufferedAmount);
    await vi.advanceTimersByTimeAsync(0);
    for (const ws of HeldSocket.made) ws.open();
    expect(socket.bufferedAmount).toBe(4 + 7 + 2);
    expect(dropIn.bufferedAmount).toBe(4 + 7 + 2);
  });
});

describe('highWaterMark, writable and drain', () => {
  it('is 64 KiB by default: writable until the buffered bytes go above it; send() still says sent', async () => {
    const socket = make();
    const ws = await opened(socket);
    expect(socket.send('x'.repeat(64 * KiB))).toBe('sent');
    expect(socket.writable).toBe(true); // at the mark is not above it
    expect(socket.send('y')).toBe('sent'); // the result does not change: the mark is a hint
    expect(socket.writable).toBe(false);
    expect(ws.bufferedAmount).toBe(64 * KiB + 1);
  });

  it('emits drain once the WebSocket is back at or under the mark, once per crossing', async () => {
    const socket = make({ highWaterMark: 100 });
    const seen = drains(socket);
    const ws = await opened(socket);
    socket.send('x'.repeat(150));
    expect(socket.writable).toBe(false);
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL * 3);
    expect(seen.count).toBe(0); // still above: watched, no drain
    ws.bufferedAmount = 101;
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL);
    expect(seen.count).toBe(0);
    ws.bufferedAmount = 100;
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL);
    expect(seen.count).toBe(1);
    expect(socket.writable).toBe(true);
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL * 10);
    expect(seen.count).toBe(1); // once per crossing
    socket.send('y'.repeat(50)); // 150 again: a second crossing
    expect(socket.writable).toBe(false);
    ws.bufferedAmount = 0;
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL);
    expect(seen.count).toBe(2);
  });

  it('sends made inside a drain listener count at once (the loop can refill in the listener)', async () => {
    const socket = make({ highWaterMark: 10 });
    const ws = await opened(socket);
    let refills = 0;
    socket.on('drain', () => {
      while (socket.writable && refills < 100) {
        socket.send('abcd');
        refills++;
      }
    });
    socket.send('x'.repeat(20));
    ws.bufferedAmount = 0;
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL);
    expect(refills).toBe(3); // 4, 8, 12: the third goes above 10
    expect(socket.writable).toBe(false);
  });

  it('a drain listener that throws is reported (ERR_RS_LISTENER_THREW), and the socket goes on', async () => {
    const socket = make({ highWaterMark: 10 });
    const errors: { code: string }[] = [];
    socket.on('error', (error) => errors.push(error));
    socket.on('drain', () => {
      throw new Error('boom');
    });
    const ws = await opened(socket);
    socket.send('x'.repeat(20));
    ws.bufferedAmount = 0;
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL);
    expect(errors.map((error) => error.code)).toEqual(['ERR_RS_LISTENER_THREW']);
    expect([socket.state, socket.writable, vi.getTimerCount()]).toEqual(['open', true, 0]);
    expect(socket.send('y')).toBe('sent');
  });

  it('polls the WebSocket only while above the mark: no timer at all under it', async () => {
    const socket = make({ highWaterMark: 100 });
    const ws = await opened(socket);
    expect(vi.getTimerCount()).toBe(0);
    for (let i = 0; i < 10; i++) socket.send('0123456789'); // 100 bytes: at the mark
    expect(vi.getTimerCount()).toBe(0);
    const read = vi.fn(() => 100);
    Object.defineProperty(ws, 'bufferedAmount', { get: read, set: () => undefined, configurable: true });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(read).not.toHaveBeenCalled();
    read.mockReturnValue(101);
    socket.send('z');
    expect(vi.getTimerCount()).toBe(1); // the watch
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL * 5);
    const reads = read.mock.calls.length;
    expect(reads).toBeGreaterThanOrEqual(5);
    expect(reads).toBeLessThanOrEqual(7); // one read per poll (and the send's)
    read.mockReturnValue(0);
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL);
    expect(vi.getTimerCount()).toBe(0);
    const after = read.mock.calls.length;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(read.mock.calls.length).toBe(after);
  });

  it('counts the queue while not connected, with no timer; the open that flushes it drains it', async () => {
    const socket = make({ highWaterMark: 10 });
    const seen = drains(socket);
    const timers = vi.getTimerCount(); // the connect deadline
    socket.send('0123456789');
    expect(socket.writable).toBe(true);
    socket.send('!');
    expect(socket.writable).toBe(false);
    expect(vi.getTimerCount()).toBe(timers); // nothing to watch: only send() and an open change the queue now
    await vi.advanceTimersByTimeAsync(0);
    const ws = last();
    // This WebSocket writes what it is given at once.
    ws.send = (data: Data) => void ws.sent.push(data);
    const heard: string[] = [];
    socket.on('open', () => heard.push('open'));
    socket.on('drain', () => heard.push(`drain ${socket.state}`));
    ws.open();
    expect(ws.sent).toEqual(['0123456789', '!']);
    expect(seen.count).toBe(1);
    expect(heard).toEqual(['open', 'drain open']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an open whose flush leaves the WebSocket above the mark watches it until it drains', async () => {
    const socket = make({ highWaterMark: 10 });
    const seen = drains(socket);
    socket.send('x'.repeat(30));
    const ws = await opened(socket);
    expect(socket.bufferedAmount).toBe(30);
    expect(vi.getTimerCount()).toBe(1);
    ws.bufferedAmount = 10;
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL);
    expect(seen.count).toBe(1);
  });

  it('close() while above the mark stops the watch: no timer left, no drain, not writable', async () => {
    const socket = make({ highWaterMark: 10 });
    const seen = drains(socket);
    const ws = await opened(socket);
    socket.send('x'.repeat(30));
    expect(vi.getTimerCount()).toBe(1);
    socket.close();
    ws.bufferedAmount = 0;
    await vi.advanceTimersByTimeAsync(0); // its close handshake ends
    expect(socket.state).toBe('closed');
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL * 10);
    expect(seen.count).toBe(0);
    expect(socket.writable).toBe(false);
  });

  it('a lost connection takes its WebSocket’s bytes with it: drain while reconnecting; the next WebSocket’s bytes count', async () => {
    const socket = make({ highWaterMark: 10, maxDelay: 1_000, ceiling: 1 });
    const seen = drains(socket);
    const first = await opened(socket);
    socket.send('x'.repeat(30));
    first.lose(1006);
    expect(socket.state).toBe('reconnecting');
    expect(socket.bufferedAmount).toBe(0); // what the lost WebSocket held is gone with it
    expect(dropped).toEqual([{ reason: 'unflushed', messages: [], bytes: 30 }]); // and reported
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL);
    expect(seen.count).toBe(1);
    expect(socket.writable).toBe(true);
    socket.send('y'.repeat(12)); // queued while reconnecting: above again
    expect(socket.writable).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    const second = last();
    expect(second).not.toBe(first);
    second.open();
    expect(socket.bufferedAmount).toBe(12); // the new WebSocket's
    second.bufferedAmount = 3;
    expect(socket.bufferedAmount).toBe(3);
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL);
    expect(seen.count).toBe(2);
  });

  it('reconnect() while above: the old WebSocket no longer counts; drain follows', async () => {
    const socket = make({ highWaterMark: 10 });
    const seen = drains(socket);
    const first = await opened(socket);
    socket.send('x'.repeat(30));
    socket.reconnect();
    expect(first.readyState).toBe(2);
    expect(socket.bufferedAmount).toBe(0);
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL);
    expect(seen.count).toBe(1);
  });

  it('a give-up while above the mark ends it without a drain', async () => {
    const socket = make({ highWaterMark: 10, maxRetries: 0 });
    socket.on('error', () => undefined);
    const seen = drains(socket);
    const ws = await opened(socket);
    socket.send('x'.repeat(30));
    ws.lose(1006);
    expect(socket.state).toBe('closed');
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL * 5);
    expect(seen.count).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('Infinity turns it off: always writable, never a timer; 0 waits until everything is on the wire', async () => {
    const off = make({ highWaterMark: Infinity });
    const ws = await opened(off);
    off.send('x'.repeat(1_000_000));
    expect(off.writable).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    off.close();
    await vi.advanceTimersByTimeAsync(0);

    const strict = make({ highWaterMark: 0 });
    const seen = drains(strict);
    const held = await opened(strict);
    strict.send('a');
    expect(strict.writable).toBe(false);
    held.bufferedAmount = 0;
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL);
    expect(seen.count).toBe(1);
    expect(ws).not.toBe(held);
  });

  it('the drop-in dispatches drain too, as an event of its own', async () => {
    const dropIn = track(new BaseWebSocket(URL, [], { WebSocket, stableAfter: 0, highWaterMark: 4 }));
    const heard: (Event & { detail?: unknown })[] = [];
    dropIn.addEventListener('drain', (event) => heard.push(event));
    await vi.advanceTimersByTimeAsync(0);
    last().open();
    dropIn.send('hello');
    expect(dropIn.bufferedAmount).toBe(5);
    last().bufferedAmount = 0;
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL);
    expect(heard.map((event) => [event.type, event.detail])).toEqual([['drain', null]]);
  });

  it('ResilientSocket takes it too, with its features installed', async () => {
    const socket = track(new ResilientSocket(URL, { WebSocket, stableAfter: 0, heartbeat: false, highWaterMark: 4 }));
    const seen = drains(socket);
    const ws = await opened(socket);
    socket.send('hello');
    expect([socket.bufferedAmount, socket.writable]).toEqual([5, false]);
    ws.bufferedAmount = 0;
    await vi.advanceTimersByTimeAsync(PRESSURE_POLL);
    expect(seen.count).toBe(1);
  });
});

describe('highWaterMark is validated like the other options', () => {
  const cases: [value: unknown, Kind: TypeErrorConstructor | RangeErrorConstructor, code: string][] = [
    ['64k', TypeError, 'ERR_RS_INVALID_TYPE'],
    [null, TypeError, 'ERR_RS_INVALID_TYPE'],
    [-1, RangeError, 'ERR_RS_INVALID_VALUE'],
    [1.5, RangeError, 'ERR_RS_INVALID_VALUE'],
    [Number.NaN, RangeError, 'ERR_RS_INVALID_VALUE'],
    [-Infinity, RangeError, 'ERR_RS_INVALID_VALUE'],
  ];
  it.each(cases)('refuses %s', (value, Kind, code) => {
    const construct = () => new BaseSocket(URL, { WebSocket, autoConnect: false, highWaterMark: value as number });
    expectInputError(construct, Kind, code, 'highWaterMark', /^Expected `highWaterMark` to be /);
    const full = () => new ResilientSocket(URL, { WebSocket, autoConnect: false, highWaterMark: value as number });
    expectInputError(full, Kind, code, 'highWaterMark', /^Expected `highWaterMark` to be /);
  });

  it('accepts 0, any integer and Infinity', () => {
    for (const highWaterMark of [0, 1, 16 * KiB, Infinity]) {
      const socket = new BaseSocket(URL, { WebSocket, autoConnect: false, highWaterMark });
      socket.close();
    }
  });
});
