/**
 * The browser transport (src/transports/browser.ts): an `error` event before the `close` of an
 * open connection means the WebSocket failed it (a browser does so for a malformed frame, invalid
 * UTF-8, …): the socket reports it as an error (`ERR_RS_CONNECTION_FAILED`, the event as its
 * cause) before the close, as `ws` reports a protocol error in Node. A WebSocket of our own
 * (an EventTarget), driven by hand; fake timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BaseSocket } from '../../src/core/socket.js';
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
  constructor(readonly url: string) {
    super();
    HandDriven.last = this;
  }
  send(): void {}
  close(): void {}
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
