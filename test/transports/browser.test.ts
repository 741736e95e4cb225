/**
 * The browser transport (src/transports/browser.ts): an `error` event before the `close` of an
 * open connection means the WebSocket failed it (a browser does so for a malformed frame, invalid
 * UTF-8, …): the socket reports it as an error (`ERR_RS_CONNECTION_FAILED`, the event as its
 * cause) before the close, as `ws` reports a protocol error in Node. How the runtimes' own
 * WebSockets report a connection they could not make (Node 22: `error` and never `close`; Node 24
 * and 26: an `error` with an empty message; Deno: close code 0) comes out the same everywhere. A
 * WebSocket of our own (an EventTarget), driven by hand; fake timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BaseSocket } from '../../src/core/socket.js';
import { ERROR_GRACE } from '../../src/core/states.js';
import { isResilientSocketError } from '../../src/errors.js';
import { ResilientWebSocket } from '../../src/websocket.js';
import { errorMessage } from '../helpers/mode.js';

/** A browser-like WebSocket whose events the test fires. */
class HandDriven extends EventTarget {
  static last: HandDriven | undefined;
  readyState = 0;
  readonly protocol = '';
  readonly extensions = '';
  binaryType = 'blob';
  /** The calls of `close()`. */
  closes = 0;
  constructor(readonly url: string) {
    super();
    HandDriven.last = this;
  }
  send(): void {}
  close(): void {
    this.closes++;
  }
  open(): void {
    this.readyState = 1;
    this.dispatchEvent(new Event('open'));
  }
  /** What a browser does when it fails the connection: `error`, then `close` (1006). */
  fail(): void {
    this.readyState = 3;
    this.dispatchEvent(new Event('error'));
    this.dispatchEvent(Object.assign(new Event('close'), { code: 1006, reason: '', wasClean: false }));
  }
  /** A connection lost without an error event: `close` (1006) alone. */
  drop(): void {
    this.readyState = 3;
    this.dispatchEvent(Object.assign(new Event('close'), { code: 1006, reason: '', wasClean: false }));
  }
  /** An `error` event as the runtimes send it: an ErrorEvent-like event carrying `error`. */
  error(error: unknown): void {
    this.dispatchEvent(Object.assign(new Event('error'), { error, message: String((error as Error).message) }));
  }
  /** A `close` event with whatever code the runtime gives. */
  closeWith(code: unknown, reason = ''): void {
    this.readyState = 3;
    this.dispatchEvent(Object.assign(new Event('close'), { code, reason, wasClean: false }));
  }
}

/** What a socket tells about its first attempt, in order. */
function recordFailures(socket: BaseSocket): unknown[] {
  const seen: unknown[] = [];
  socket.on('error', (error) => seen.push(['error', error.code, error.message]));
  socket.on('close', ({ code, reason }) => seen.push(['close', code, reason]));
  socket.on('reconnecting', ({ attempt }) => seen.push(['reconnecting', attempt]));
  return seen;
}

const closeAfter: { close(): void }[] = [];
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  for (const socket of closeAfter.splice(0)) socket.close();
  vi.useRealTimers();
});

async function opened<T extends { close(): void }>(make: () => T): Promise<[T, HandDriven]> {
  const socket = make();
  closeAfter.push(socket);
  await vi.advanceTimersByTimeAsync(0);
  const ws = HandDriven.last as HandDriven;
  ws.open();
  return [socket, ws];
}

describe('the browser transport: a connection the WebSocket failed', () => {
  it('BaseSocket: error (ERR_RS_CONNECTION_FAILED, the event as cause), then close; a plain drop has no error', async () => {
    const [socket, ws] = await opened(() => new BaseSocket('ws://example.test/', { WebSocket: HandDriven as never }));
    const seen: unknown[] = [];
    socket.on('error', (error) =>
      seen.push(['error', error.code, error.message, (error.cause as Error | undefined)?.cause]),
    );
    socket.on('close', ({ code }) => seen.push(['close', code]));
    ws.fail();
    expect(seen).toEqual([
      [
        'error',
        'ERR_RS_CONNECTION_FAILED',
        errorMessage('ERR_RS_CONNECTION_FAILED', 'The connection failed: the WebSocket reported an error'),
        expect.any(Event),
      ],
      ['close', 1006],
    ]);
    await vi.advanceTimersByTimeAsync(20_000);
    const next = HandDriven.last as HandDriven;
    next.open();
    seen.length = 0;
    next.drop();
    expect(seen).toEqual([['close', 1006]]);
  });

  it('ResilientWebSocket: open, then error (the ResilientSocketError as `error`), then close, as a WebSocket', async () => {
    const [socket, ws] = await opened(
      () => new ResilientWebSocket('ws://example.test/', [], { WebSocket: HandDriven as never }),
    );
    const seen: unknown[] = [];
    socket.onerror = (event) => {
      const { error } = event as Event & { error?: unknown };
      seen.push(['error', isResilientSocketError(error) ? error.code : error]);
    };
    socket.onclose = (event) => seen.push(['close', event.code, event.wasClean]);
    ws.fail();
    expect(seen).toEqual([
      ['error', 'ERR_RS_CONNECTION_FAILED'],
      ['close', 1006, false],
    ]);
  });
});

describe('an attempt the runtime could not make, the same on every runtime', () => {
  const NODE_22 = 'Received network error or non-101 status code.';

  async function connecting(options: Record<string, unknown> = {}): Promise<[BaseSocket, HandDriven, unknown[]]> {
    const socket = new BaseSocket('ws://example.test/', { WebSocket: HandDriven as never, ...options });
    closeAfter.push(socket);
    const seen = recordFailures(socket);
    await vi.advanceTimersByTimeAsync(0);
    return [socket, HandDriven.last as HandDriven, seen];
  }

  it("an `error` and no `close` (Node 22's WebSocket): the attempt ends after the grace, not at connectTimeout", async () => {
    const [socket, ws, seen] = await connecting();
    ws.error(new Error(NODE_22)); // readyState stays CONNECTING, and no close follows
    await vi.advanceTimersByTimeAsync(ERROR_GRACE - 1);
    expect(seen).toEqual([]);
    expect(socket.state).toBe('connecting');
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toEqual([
      [
        'error',
        'ERR_RS_CONNECTION_FAILED',
        errorMessage('ERR_RS_CONNECTION_FAILED', `Connection attempt 1 failed (close code 1006): ${NODE_22}`),
      ],
      ['close', 1006, ''],
      ['reconnecting', 2],
    ]);
    expect(socket.state).toBe('reconnecting');
    expect(ws.closes).toBe(1); // the socket that never said it closed is closed, not left connecting
    // The next attempt comes on the backoff (the first window is 19.5 ms), and opens.
    await vi.advanceTimersByTimeAsync(20);
    const next = HandDriven.last as HandDriven;
    expect(next).not.toBe(ws);
    next.open();
    expect(socket.state).toBe('open');
  });

  it('goes to shouldReconnect as the close (1006) that never came', async () => {
    const closes: unknown[] = [];
    const [socket, ws] = await connecting({
      shouldReconnect: (close: unknown) => {
        closes.push(close);
        return false;
      },
    });
    ws.error(new Error(NODE_22));
    await vi.advanceTimersByTimeAsync(ERROR_GRACE);
    expect(closes).toEqual([{ code: 1006, reason: '', wasClean: false }]);
    expect(socket.state).toBe('closed');
  });

  it('an `error` then its `close` within the grace: one failure, with the close as the runtime gave it', async () => {
    const [socket, ws, seen] = await connecting();
    ws.error(new Error('Failed to connect'));
    await vi.advanceTimersByTimeAsync(ERROR_GRACE - 1);
    ws.closeWith(1006);
    expect(socket.state).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(ERROR_GRACE); // the grace was the attempt's deadline: gone with it
    expect(HandDriven.last).not.toBe(ws);
    expect(seen).toEqual([
      [
        'error',
        'ERR_RS_CONNECTION_FAILED',
        errorMessage('ERR_RS_CONNECTION_FAILED', 'Connection attempt 1 failed (close code 1006): Failed to connect'),
      ],
      ['close', 1006, ''],
      ['reconnecting', 2],
    ]);
    expect(socket.state).toBe('connecting');
  });

  it('an `error` after the connection opened leaves it to its `close` (no grace: the close always follows)', async () => {
    const [socket, ws, seen] = await connecting();
    ws.open();
    ws.error(new Error('boom'));
    await vi.advanceTimersByTimeAsync(ERROR_GRACE * 10);
    expect(seen).toEqual([]);
    expect(socket.state).toBe('open');
  });

  it('an empty error message (Node 24 and 26) ends the message at the close code, not at a colon', async () => {
    const [, ws, seen] = await connecting();
    ws.error(new TypeError(''));
    ws.closeWith(1006);
    expect(seen[0]).toEqual([
      'error',
      'ERR_RS_CONNECTION_FAILED',
      errorMessage('ERR_RS_CONNECTION_FAILED', 'Connection attempt 1 failed (close code 1006)'),
    ]);
  });

  it('close code 0 (Deno), and any code outside 1000–4999, is reported as 1006', async () => {
    const [, ws, seen] = await connecting();
    ws.error(new DOMException('failed to connect to WebSocket: tcp connect error', 'NetworkError'));
    ws.closeWith(0);
    expect(seen.slice(0, 2)).toEqual([
      [
        'error',
        'ERR_RS_CONNECTION_FAILED',
        errorMessage(
          'ERR_RS_CONNECTION_FAILED',
          'Connection attempt 1 failed (close code 1006): failed to connect to WebSocket: tcp connect error',
        ),
      ],
      ['close', 1006, ''],
    ]);
    for (const code of [0, 999, 5000, 65_535, 1000.5, Number.NaN, '1000', undefined]) {
      seen.length = 0;
      await vi.advanceTimersToNextTimerAsync(); // the backoff wait
      await vi.advanceTimersByTimeAsync(0);
      const next = HandDriven.last as HandDriven;
      next.open();
      next.closeWith(code, 'gone');
      expect(seen[0], String(code)).toEqual(['close', 1006, 'gone']);
    }
  });

  it("the drop-in reports Deno's close code 0 as 1006 too", async () => {
    const socket = new ResilientWebSocket('ws://example.test/', [], { WebSocket: HandDriven as never });
    closeAfter.push(socket);
    const codes: number[] = [];
    socket.onclose = (event) => codes.push(event.code);
    await vi.advanceTimersByTimeAsync(0);
    (HandDriven.last as HandDriven).closeWith(0);
    expect(codes).toEqual([1006]);
  });
});
