/**
 * `ResilientWebSocket` against the WebSocket interface, in Node, on mock-socket (the `WebSocket`
 * option) under fake timers: the constructor's and `close()`'s argument errors (the shared table of
 * ./cases.ts, whose Chromium column the browser test checks against the native WebSocket), the
 * constants, the attributes (`readyState`, `url`, `protocol`, `extensions`, `binaryType`,
 * `bufferedAmount`) and `send()`. Events and listeners: ./conformance-events.test.ts.
 *
 * Every case runs on the four classes users import: `resilient-socket/websocket` (browser and Node
 * builds) and the main entry's (browser and Node builds, every feature installed).
 */
import { Server } from 'mock-socket';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ResilientWebSocket as FullBrowser } from '../../src/index.js';
import { ResilientWebSocket as FullNode } from '../../src/node.js';
import { ResilientWebSocket as CoreBrowser } from '../../src/websocket.js';
import { ResilientWebSocket as CoreNode } from '../../src/websocket-node.js';
import { expectInputError } from '../helpers/mode.js';
import { advance, cleanup, MOCK_DELAY, trackingWebSocket, WebSocketImpl } from '../resilient-socket/helpers.js';
import { CLOSE_CASES, CONSTRUCTOR_CASES, expectedOurs, failure, inOurMode, type Outcome, outcomeOf } from './cases.js';

type Class = typeof CoreBrowser;
/** Each class users import, with the name it has: the core drop-in is `BaseWebSocket` under both its names. */
const CLASSES: [string, Class, string][] = [
  ['resilient-socket/websocket (browser build)', CoreBrowser, 'BaseWebSocket'],
  ['resilient-socket/websocket (Node build)', CoreNode, 'BaseWebSocket'],
  ['resilient-socket (browser build)', FullBrowser as unknown as Class, 'ResilientWebSocket'],
  ['resilient-socket (Node build)', FullNode as unknown as Class, 'ResilientWebSocket'],
];

const made = new Set<{ close(): void }>();
const servers = new Set<Server>();
let port = 31_000;

/** A mock server on a fresh `ws://127.0.0.1:<port>` (mock-socket keys servers by URL); returns the base. */
function mockServer(options: ConstructorParameters<typeof Server>[1] = {}): { base: string; server: Server } {
  const base = `ws://127.0.0.1:${++port}`;
  const server = new Server(`${base}/`, { mock: false, ...options });
  servers.add(server);
  return { base, server };
}

function track<T extends { close(): void }>(socket: T): T {
  made.add(socket);
  return socket;
}

/** `actual` without its URL when `expected` names none (a relative URL resolves against the page). */
function comparable(actual: Outcome, expected: Outcome): Outcome {
  return actual.ok && expected.ok && expected.url === undefined ? { ok: true } : actual;
}

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

describe.each(CLASSES)('%s', (_, RWS, name) => {
  const open = async (base: string, protocols?: string | string[]) => {
    const socket = track(new RWS(base, protocols, { WebSocket: WebSocketImpl }));
    await advance(MOCK_DELAY);
    expect(socket.readyState).toBe(RWS.OPEN);
    return socket;
  };

  it.each(CONSTRUCTOR_CASES.map((c) => [c.title, c] as const))('new ResilientWebSocket(): %s', (_title, c) => {
    const base = `ws://127.0.0.1:${++port}`;
    const args = c.args(base);
    const expected = expectedOurs(c, base, 'node');
    const actual = outcomeOf(
      () =>
        args.length === 0
          ? new (RWS as unknown as new () => unknown)()
          : new RWS(args[0] as string, args[1] as string, { WebSocket: WebSocketImpl }),
      (socket) => track(socket as CoreBrowser).url,
    );
    expect(comparable(actual, expected)).toEqual(expected);
  });

  it.each(CLOSE_CASES.map((c) => [c.title, c] as const))('close(): %s', async (_title, c) => {
    const { base } = mockServer();
    const socket = await open(base);
    const expected = expectedOurs(c, base, 'node');
    expect(outcomeOf(() => socket.close(...(c.args(base) as [number, string])))).toEqual(expected);
    // A refused call changes nothing; an accepted one starts the closing handshake.
    expect(socket.readyState).toBe(expected.ok ? RWS.CLOSING : RWS.OPEN);
  });

  it('reconnect(code, reason) checks its arguments as close() does, naming itself', async () => {
    const { base } = mockServer();
    const socket = await open(base);
    const prefix = "Failed to execute 'reconnect' on 'ResilientWebSocket': ";
    expect(outcomeOf(() => socket.reconnect(1001))).toEqual(
      inOurMode(
        failure(
          'DOMException',
          'InvalidAccessError',
          'code',
          `${prefix}The close code must be either 1000, or between 3000 and 4999. 1001 is neither.`,
        ),
      ),
    );
    expect(outcomeOf(() => socket.reconnect(4000, 'é'.repeat(62)))).toEqual(
      inOurMode(
        failure(
          'DOMException',
          'SyntaxError',
          'reason',
          `${prefix}The close reason must not be greater than 123 UTF-8 bytes.`,
        ),
      ),
    );
    expect(socket.readyState).toBe(RWS.OPEN);
  });

  it('CONNECTING, OPEN, CLOSING, CLOSED: 0–3 on the class, its prototype and every instance, as on WebSocket', () => {
    const socket = track(new RWS('ws://127.0.0.1:1/', [], { WebSocket: WebSocketImpl, autoConnect: false }));
    for (const target of [RWS, RWS.prototype, socket]) {
      expect([target.CONNECTING, target.OPEN, target.CLOSING, target.CLOSED]).toEqual([0, 1, 2, 3]);
    }
    expect(RWS.name).toBe(name);
    expect(socket).toBeInstanceOf(EventTarget);
  });

  it('readyState: CONNECTING until open, OPEN, CLOSING during the closing handshake, then CLOSED', async () => {
    const { base } = mockServer();
    const socket = track(new RWS(base, [], { WebSocket: WebSocketImpl }));
    expect(socket.readyState).toBe(0);
    await advance(MOCK_DELAY);
    expect(socket.readyState).toBe(1);
    socket.close(1000);
    expect(socket.readyState).toBe(2);
    await advance(MOCK_DELAY);
    expect(socket.readyState).toBe(3);
  });

  it('readyState is CONNECTING while it waits to reconnect and while it reconnects', async () => {
    const { base, server } = mockServer();
    const socket = track(new RWS(base, [], { WebSocket: WebSocketImpl, backoff: constantBackoff(100) }));
    await advance(MOCK_DELAY);
    for (const client of server.clients()) client.close({ code: 1012, reason: 'restart', wasClean: true });
    await advance(MOCK_DELAY);
    expect([socket.state, socket.readyState]).toEqual(['reconnecting', 0]);
    await advance(100);
    expect([socket.state, socket.readyState]).toEqual(['connecting', 0]);
    await advance(MOCK_DELAY);
    expect([socket.state, socket.readyState]).toEqual(['open', 1]);
  });

  it('autoConnect: false stays CONNECTING (idle) until open()', async () => {
    const { base } = mockServer();
    const socket = track(new RWS(base, [], { WebSocket: WebSocketImpl, autoConnect: false }));
    await advance(MOCK_DELAY * 3);
    expect([socket.state, socket.readyState]).toEqual(['idle', 0]);
    socket.open();
    await advance(MOCK_DELAY);
    expect(socket.readyState).toBe(1);
  });

  it('protocol is the one the server chose, "" before it opens; extensions "" where the transport has none', async () => {
    const { base } = mockServer({ selectProtocol: (offered: string[]) => offered[1] ?? '' });
    const socket = track(new RWS(base, ['v1', 'v2'], { WebSocket: WebSocketImpl }));
    expect([socket.protocol, socket.extensions]).toEqual(['', '']);
    await advance(MOCK_DELAY);
    expect([socket.readyState, socket.protocol, socket.extensions]).toEqual([1, 'v2', '']);
  });

  it('binaryType: "blob" by default; "arraybuffer" and "blob" are taken, anything else ignored; set on every underlying socket, across reconnects', async () => {
    const { base, server } = mockServer();
    const tracking = trackingWebSocket();
    const socket = track(new RWS(base, [], { WebSocket: tracking.WebSocket, backoff: constantBackoff(10) }));
    expect(socket.binaryType).toBe('blob');
    socket.binaryType = 'arraybuffer';
    socket.binaryType = 'nodebuffer' as never; // ignored, as by WebSocket (an enumerated attribute)
    expect(socket.binaryType).toBe('arraybuffer');
    await advance(MOCK_DELAY);
    expect(tracking.instances[0]?.binaryType).toBe('arraybuffer');
    socket.binaryType = 'blob';
    expect(tracking.instances[0]?.binaryType).toBe('blob'); // the live socket follows at once
    socket.binaryType = 'arraybuffer';
    for (const client of server.clients()) client.close({ code: 1012, reason: '', wasClean: true });
    await advance(MOCK_DELAY + 10 + MOCK_DELAY);
    expect(socket.readyState).toBe(1);
    expect(tracking.instances.map((ws) => ws.binaryType)).toEqual(['arraybuffer', 'arraybuffer']);
    expect(socket.binaryType).toBe('arraybuffer');
  });

  it('url: the URL serialized, http: as ws:, the same across reconnects', async () => {
    const { base } = mockServer();
    const socket = track(new RWS(base.replace('ws:', 'http:'), [], { WebSocket: WebSocketImpl }));
    expect(socket.url).toBe(`${base}/`);
    await advance(MOCK_DELAY);
    socket.reconnect();
    await advance(MOCK_DELAY);
    expect([socket.readyState, socket.url]).toEqual([1, `${base}/`]);
  });

  it('bufferedAmount counts the bytes queued while not open (UTF-8 text, ArrayBuffer, view, Blob) and is 0 once flushed', async () => {
    const { base, server } = mockServer();
    const received: unknown[] = [];
    server.on('connection', (client) => client.on('message', (data) => received.push(data)));
    const socket = track(new RWS(base, [], { WebSocket: WebSocketImpl }));
    expect(socket.bufferedAmount).toBe(0);
    socket.send('héllo'); // 6 bytes: send() while CONNECTING queues (a WebSocket would throw)
    socket.send(new ArrayBuffer(10));
    socket.send(new Uint16Array(4)); // 8 bytes
    socket.send(new Blob(['abc']));
    expect(socket.bufferedAmount).toBe(6 + 10 + 8 + 3);
    await advance(MOCK_DELAY);
    expect(socket.bufferedAmount).toBe(0);
    await advance(MOCK_DELAY);
    expect(received).toHaveLength(4);
    expect(received[0]).toBe('héllo');
  });

  it('send(): a TypeError without an argument; anything not binary is sent as its string, as by WebSocket', async () => {
    const { base, server } = mockServer();
    const received: unknown[] = [];
    server.on('connection', (client) => client.on('message', (data) => received.push(data)));
    const socket = await open(base);
    expect(outcomeOf(() => (socket.send as () => void)())).toEqual(
      inOurMode(
        failure(
          'TypeError',
          'TypeError',
          'data',
          "Failed to execute 'send' on 'WebSocket': 1 argument required, but only 0 present.",
        ),
      ),
    );
    socket.send(42 as never);
    socket.send(null as never);
    socket.send({ toString: () => 'object' } as never);
    await advance(MOCK_DELAY);
    expect(received).toEqual(['42', 'null', 'object']);
  });
});

/** A `backoff` option that always waits `ms`. */
function constantBackoff(ms: number) {
  return { next: () => ms, reset: () => undefined };
}

describe.each(CLASSES)('%s: the codes of its TypeErrors', (_, RWS) => {
  it('no argument, or no data to send: ERR_RS_INVALID_TYPE naming `url` or `data`', async () => {
    expectInputError(
      () => new (RWS as unknown as new () => unknown)(),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'url',
      "Failed to construct 'WebSocket': 1 argument required, but only 0 present.",
    );
    const socket = track(new RWS('ws://127.0.0.1:1/', [], { WebSocket: WebSocketImpl, autoConnect: false }));
    expectInputError(
      () => (socket.send as () => void)(),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'data',
      "Failed to execute 'send' on 'WebSocket': 1 argument required, but only 0 present.",
    );
  });

  it('`protocols` among the options: ERR_RS_UNKNOWN_OPTION, it is the second argument', () => {
    expectInputError(
      () => new RWS('ws://127.0.0.1:1/', [], { WebSocket: WebSocketImpl, protocols: ['chat'] } as never),
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      'protocols',
      'Give `protocols` as the second argument of `new ResilientWebSocket(url, protocols, options)`',
    );
  });
});
