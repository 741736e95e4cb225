/**
 * `ResilientWebSocket.close()` on a connection that is not open yet, and `protocol`/`extensions`
 * after a connection closed, against what a browser `WebSocket` does (WHATWG HTML, "close()":
 * while CONNECTING it fails the connection): readyState CLOSING at once, then, after `close()`
 * returned, `error` and `close` with 1006 (whatever code was given) and nothing more; the
 * negotiated subprotocol stays readable inside `onclose` and after `close()`. Node, mock-socket,
 * fake timers.
 */
import { Server } from 'mock-socket';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ResilientWebSocket as Full } from '../../src/node.js';
import { ResilientWebSocket } from '../../src/websocket-node.js';
import { advance, cleanup, MOCK_DELAY, WebSocketImpl } from '../resilient-socket/helpers.js';

const servers = new Set<Server>();
const made = new Set<{ close(): void }>();
let port = 33_000;

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

function mockServer(options: ConstructorParameters<typeof Server>[1] = {}) {
  const url = `ws://127.0.0.1:${++port}/`;
  const server = new Server(url, { mock: false, ...options });
  servers.add(server);
  let connections = 0;
  server.on('connection', () => connections++);
  return { url, server, connections: () => connections };
}

describe.each([
  ['resilient-socket/websocket', ResilientWebSocket],
  ['resilient-socket', Full],
])('%s: close() before the connection opened', (_name, Class) => {
  it.each([
    [undefined, undefined],
    [1000, undefined],
    [4000, 'bye'],
  ])(
    'close(%s, %s): CLOSING now; error, then close 1006 (CLOSED inside both) once close() returned; nothing after',
    async (code, reason) => {
      const { url, connections } = mockServer();
      const socket = new Class(url, [], { WebSocket: WebSocketImpl, maxDelay: 10 });
      made.add(socket);
      expect(socket.readyState).toBe(socket.CONNECTING);
      const seen: string[] = [];
      socket.close(code, reason);
      expect(socket.readyState).toBe(socket.CLOSING);
      // Listeners added after close() still hear its events (as with a WebSocket).
      socket.onerror = (event) => seen.push(`error:${event.constructor.name}:${socket.readyState}`);
      socket.onclose = (event) =>
        seen.push(`close:${event.code}:${event.reason}:${event.wasClean}:${socket.readyState}`);
      socket.onopen = () => seen.push('open');
      expect(seen).toEqual([]);
      await Promise.resolve();
      expect(seen).toEqual(['error:Event:3', 'close:1006::false:3']);
      expect(socket.readyState).toBe(socket.CLOSED);
      await advance(MOCK_DELAY + 1_000);
      expect(seen).toEqual(['error:Event:3', 'close:1006::false:3']);
      expect(socket.state).toBe('closed');
      // The attempt was cut before the server accepted it, and nothing reconnected.
      expect(connections()).toBe(0);
    },
  );

  it('close() during a retry wait (no socket): CLOSED at once, no event (the last connection already closed)', async () => {
    const { url, server } = mockServer();
    const socket = new Class(url, [], { WebSocket: WebSocketImpl, maxDelay: 10_000, ceiling: 1 });
    made.add(socket);
    await advance(MOCK_DELAY);
    const seen: string[] = [];
    socket.addEventListener('close', (event) => seen.push(`close:${(event as CloseEvent).code}`));
    socket.addEventListener('error', () => seen.push('error'));
    server.clients()[0]?.close({ code: 4001, reason: 'later', wasClean: true });
    await advance(MOCK_DELAY);
    expect(seen).toEqual(['close:4001']);
    expect(socket.readyState).toBe(socket.CONNECTING);
    socket.close();
    expect(socket.readyState).toBe(socket.CLOSED);
    await advance(20_000);
    expect(seen).toEqual(['close:4001']);
  });
});

describe('protocol and extensions after the connection closed', () => {
  it('keeps the negotiated subprotocol inside onclose and after close(), until the next connection opens', async () => {
    let choice = 'chat.v2';
    const { url, server } = mockServer({ selectProtocol: () => choice });
    const socket = new ResilientWebSocket(url, ['chat.v1', 'chat.v2'], {
      WebSocket: WebSocketImpl,
      maxDelay: 10,
      ceiling: 1,
    });
    made.add(socket);
    expect(socket.protocol).toBe('');
    await advance(MOCK_DELAY);
    expect(socket.protocol).toBe('chat.v2');
    const inClose: string[] = [];
    socket.onclose = () => inClose.push(socket.protocol);
    choice = 'chat.v1';
    server.clients()[0]?.close({ code: 4000, reason: 'again', wasClean: true });
    await advance(MOCK_DELAY);
    expect(inClose).toEqual(['chat.v2']);
    // Reconnecting: still the last connection's, until the next one opens with its own.
    await vi.waitFor(async () => {
      await advance(20);
      expect(socket.readyState).toBe(socket.OPEN);
    });
    expect(socket.protocol).toBe('chat.v1');
    socket.close(1000);
    await advance(MOCK_DELAY);
    expect(inClose).toEqual(['chat.v2', 'chat.v1']);
    expect(socket.readyState).toBe(socket.CLOSED);
    expect(socket.protocol).toBe('chat.v1');
    expect(socket.extensions).toBe('');
  });
});
