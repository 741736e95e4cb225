/**
 * How the socket asks an underlying WebSocket to close: without a code when it has none (an empty
 * close frame), never `close(undefined, …)`, which Chromium refuses (it converts the `undefined`
 * to 0 and throws InvalidAccessError: no close frame, the connection cut after `CLOSE_TIMEOUT`).
 * The WebSocket here is mock-socket's with Chromium's argument conversion. Node, fake timers.
 */
import { WebSocket as MockWebSocket, Server } from 'mock-socket';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocketConstructorLike } from '../../src/index.js';
import { ResilientWebSocket as Full } from '../../src/node.js';
import { ResilientWebSocket } from '../../src/websocket-node.js';
import { advance, cleanup, MOCK_DELAY } from '../resilient-socket/helpers.js';

const servers = new Set<Server>();
const made = new Set<{ close(): void }>();
let port = 34_000;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  for (const socket of made) socket.close();
  made.clear();
  for (const server of servers) server.stop();
  servers.clear();
  await cleanup();
});

/** mock-socket's WebSocket, recording how `close` was called and converting an explicit `undefined` code as Chromium does. */
function chromiumLike() {
  const calls: unknown[][] = [];
  class Strict extends MockWebSocket {
    override close(...args: unknown[]): void {
      calls.push(args);
      if (args.length > 0 && args[0] === undefined) {
        throw new DOMException(
          "Failed to execute 'close' on 'WebSocket': The close code must be either 1000, or between 3000 and 4999. 0 is neither.",
          'InvalidAccessError',
        );
      }
      super.close(...(args as [number?, string?]));
    }
  }
  return { WebSocket: Strict as unknown as WebSocketConstructorLike, calls };
}

describe.each([
  ['resilient-socket/websocket', ResilientWebSocket],
  ['resilient-socket', Full],
])('%s: the close frame', (_name, Class) => {
  async function open() {
    const url = `ws://127.0.0.1:${++port}/`;
    const server = new Server(url, { mock: false });
    servers.add(server);
    const { WebSocket, calls } = chromiumLike();
    const socket = new Class(url, [], { WebSocket, maxDelay: 10 });
    made.add(socket);
    const closes: [number, string, number][] = [];
    socket.onclose = (event) => closes.push([event.code, event.reason, socket.readyState]);
    await advance(MOCK_DELAY);
    expect(socket.readyState).toBe(socket.OPEN);
    return { socket, calls, closes };
  }

  it.each([
    ['close()', [], []],
    ['close(undefined)', [undefined], []],
    ['close(undefined, reason): the reason goes only with a code', [undefined, 'bye'], []],
    ['close(1000)', [1000], [1000, '']],
    ['close(4000, reason)', [4000, 'bye'], [4000, 'bye']],
  ] as const)(
    '%s: the WebSocket is closed with what was given, and the close comes at once',
    async (_t, args, sent) => {
      const { socket, calls, closes } = await open();
      socket.close(...(args as unknown as [number?, string?]));
      expect(calls).toEqual([sent]);
      await advance(MOCK_DELAY);
      // Within mock-socket's delay, not CLOSE_TIMEOUT: mock-socket reports no code as 1005, and reflects a code it was given.
      expect(closes).toEqual([[sent[0] ?? 1005, sent[1] ?? '', socket.CLOSED]]);
    },
  );

  it('reconnect() without a code: the old connection gets an empty close frame, the new one opens', async () => {
    const { socket, calls } = await open();
    socket.reconnect();
    expect(calls).toEqual([[]]);
    await advance(MOCK_DELAY);
    expect(socket.readyState).toBe(socket.OPEN);
    socket.reconnect(4001, 'again');
    expect(calls).toEqual([[], [4001, 'again']]);
  });
});
