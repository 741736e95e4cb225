/**
 * `ResilientWebSocket` of `resilient-socket/websocket` (the Node build: the ws transport) against
 * a real ws server on 127.0.0.1: the argument table of test/websocket/cases.ts on real
 * connections, text and binary messages per `binaryType`, the subprotocol and the extensions the
 * server chose, `bufferedAmount` across an outage, close codes as both ends see them, and a server
 * restart on the same port. These run on whatever WebSocket the runtime gives, except the server
 * restart, pinned to ws with the `WebSocket` option: it expects the cut connection to end with a
 * `close` alone, as a ws socket's does (a runtime's global WebSocket dispatches `error` first).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { ResilientWebSocket } from '../../src/websocket-node.js';
import { Cleanup, waitFor } from '../helpers/wait.js';
import { CLOSE_CASES, CONSTRUCTOR_CASES, expectedOurs, type Outcome, outcomeOf } from '../websocket/cases.js';
import { EchoServer, type EchoServerOptions } from '../websocket/echo-server.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function server(options?: EchoServerOptions): Promise<EchoServer> {
  return cleanup.add(await new EchoServer(options).start(), (s) => s.stop());
}

/** A socket whose events are recorded with the readyState at that moment. */
function socket(url: string, protocols?: string | string[], options = {}) {
  const ws = cleanup.add(
    new ResilientWebSocket(url, protocols, { backoff: { next: () => 50, reset() {} }, ...options }),
    (s) => s.close(),
  );
  const events: {
    type: string;
    readyState: number;
    data?: unknown;
    code?: number;
    reason?: string;
    wasClean?: boolean;
  }[] = [];
  for (const type of ['open', 'message', 'close', 'error']) {
    ws.addEventListener(type, (event) => {
      const { data } = event as MessageEvent;
      const { code, reason, wasClean } = event as CloseEvent;
      events.push(
        type === 'message'
          ? { type, readyState: ws.readyState, data }
          : type === 'close'
            ? { type, readyState: ws.readyState, code, reason, wasClean }
            : { type, readyState: ws.readyState },
      );
    });
  }
  const count = (type: string) => events.filter((e) => e.type === type).length;
  return { ws, events, count, messages: () => events.filter((e) => e.type === 'message').map((e) => e.data) };
}

const comparable = (actual: Outcome, expected: Outcome): Outcome =>
  actual.ok && expected.ok && expected.url === undefined ? { ok: true } : actual;

describe('the argument table on real connections', () => {
  it.each(CONSTRUCTOR_CASES.map((c) => [c.title, c] as const))('new ResilientWebSocket(): %s', async (_title, c) => {
    const s = await server({ choose: (offered) => [...offered][0] ?? false });
    const { base } = s;
    const args = c.args(base);
    const expected = expectedOurs(c, base, 'node');
    let made: ResilientWebSocket | undefined;
    const actual = outcomeOf(
      () => new (ResilientWebSocket as new (...a: unknown[]) => ResilientWebSocket)(...args),
      (value) => {
        made = cleanup.add(value as ResilientWebSocket, (ws) => ws.close());
        return made.url;
      },
    );
    expect(comparable(actual, expected)).toEqual(expected);
    // Accepted arguments make a working connection, on the subprotocol the server took (the first offered).
    if (made?.url.startsWith(`${base}/`)) {
      const ws = made;
      await waitFor(() => ws.readyState === 1, 2_000, 'open');
      expect(ws.protocol).toBe(s.offered[0]?.[0] ?? '');
    }
  });

  it.each(CLOSE_CASES.map((c) => [c.title, c] as const))('close(): %s', async (_title, c) => {
    const s = await server();
    const { ws, events } = socket(s.base);
    await waitFor(() => ws.readyState === 1, 2_000, 'open');
    const expected = expectedOurs(c, s.base, 'node');
    expect(outcomeOf(() => ws.close(...(c.args(s.base) as [number, string])))).toEqual(expected);
    if (expected.ok) {
      await waitFor(() => s.closes.length === 1 && ws.readyState === 3, 2_000, 'the closing handshake');
      expect(events.at(-1)).toMatchObject({ type: 'close', wasClean: true, code: s.closes[0]?.code });
    } else {
      expect(ws.readyState).toBe(1); // a refused call changes nothing
    }
  });
});

describe('ResilientWebSocket on a real ws server', () => {
  it('text arrives as a string; binary as a Blob by default, as an ArrayBuffer with binaryType "arraybuffer"', async () => {
    const s = await server();
    const { ws, messages } = socket(s.base);
    await waitFor(() => ws.readyState === 1, 2_000, 'open');
    expect(ws.binaryType).toBe('blob');
    ws.send('héllo');
    ws.send(new Uint8Array([1, 2, 3]));
    await waitFor(() => messages().length === 2, 2_000, 'two echoes');
    ws.binaryType = 'arraybuffer';
    ws.send(new Uint8Array([4, 5]).buffer);
    await waitFor(() => messages().length === 3, 2_000, 'the third echo');
    const [text, blob, buffer] = messages();
    expect(text).toBe('héllo');
    expect(blob).toBeInstanceOf(Blob);
    expect([...new Uint8Array(await (blob as Blob).arrayBuffer())]).toEqual([1, 2, 3]);
    expect(buffer).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(buffer as ArrayBuffer)]).toEqual([4, 5]);
    expect(s.received).toEqual(['héllo', Buffer.from([1, 2, 3]), Buffer.from([4, 5])]);
  });

  it('protocol is the subprotocol the server chose; extensions what it negotiated (permessage-deflate)', async () => {
    const s = await server({ choose: (offered) => (offered.has('v2') ? 'v2' : false), deflate: true });
    const { ws } = socket(s.base, ['v1', 'v2']);
    expect([ws.protocol, ws.extensions]).toEqual(['', '']);
    await waitFor(() => ws.readyState === 1, 2_000, 'open');
    expect(s.offered).toEqual([['v1', 'v2']]);
    expect(ws.protocol).toBe('v2');
    expect(ws.extensions).toBe('permessage-deflate');
    const plain = await server();
    const other = socket(plain.base).ws;
    await waitFor(() => other.readyState === 1, 2_000, 'open');
    expect([other.protocol, other.extensions]).toEqual(['', '']);
  });

  it('close(code, reason) from the client, from the server, and a cut: codes, reasons and wasClean on both ends', async () => {
    const s = await server();
    const client = socket(s.base);
    await waitFor(() => client.ws.readyState === 1, 2_000, 'open');
    client.ws.close(4001, 'bye');
    await waitFor(() => client.count('close') === 1, 2_000, 'close');
    expect(s.closes).toEqual([{ code: 4001, reason: 'bye' }]);
    expect(client.events.at(-1)).toEqual({ type: 'close', readyState: 3, code: 4001, reason: 'bye', wasClean: true });

    const other = socket(s.base);
    await waitFor(() => other.ws.readyState === 1, 2_000, 'open');
    s.clients[1]?.close(4002, 'server bye');
    await waitFor(() => other.count('close') === 1, 2_000, 'close');
    // Not CLOSED: it reconnects (CONNECTING) by itself.
    expect(other.events.at(-1)).toEqual({
      type: 'close',
      readyState: 0,
      code: 4002,
      reason: 'server bye',
      wasClean: true,
    });
    await waitFor(() => other.count('open') === 2, 2_000, 'the reconnect');
    s.clients[2]?.terminate();
    await waitFor(() => other.count('close') === 2, 2_000, 'the cut');
    expect(other.events.at(-1)).toEqual({ type: 'close', readyState: 0, code: 1006, reason: '', wasClean: false });

    other.ws.onclose = null;
    await waitFor(() => other.ws.readyState === 1, 2_000, 'open again');
    other.ws.close(); // no code: the server sees none (1005), as from a WebSocket
    await waitFor(() => other.ws.readyState === 3, 2_000, 'closed');
    expect(s.closes.at(-1)).toEqual({ code: 1005, reason: '' });
    expect(other.events.at(-1)).toMatchObject({ code: 1005, reason: '', wasClean: true });
  });

  it('a message that arrives after close() (readyState CLOSING) is not delivered', async () => {
    const s = await server();
    const { ws, events } = socket(s.base);
    await waitFor(() => ws.readyState === 1, 2_000, 'open');
    ws.send('reply-then-close'); // the server answers before it reads our close frame
    ws.close(1000);
    await waitFor(() => ws.readyState === 3, 2_000, 'closed');
    expect(s.received).toEqual(['reply-then-close']);
    expect(events.map((e) => e.type)).toEqual(['open', 'close']);
  });

  it('bufferedAmount counts what waits for the next connection and is 0 once it is flushed', async () => {
    const s = await server();
    const { ws, messages, count } = socket(s.base);
    await waitFor(() => ws.readyState === 1, 2_000, 'open');
    expect(ws.bufferedAmount).toBe(0);
    await s.stop();
    await waitFor(() => ws.readyState === 0, 2_000, 'the drop to be noticed');
    ws.send('héllo'); // 6 bytes
    ws.send(new ArrayBuffer(10));
    ws.send(new Blob(['abc']));
    expect(ws.bufferedAmount).toBe(19);
    // Failed attempts against the closed port keep them queued.
    await waitFor(() => count('error') >= 2, 2_000, 'two failed attempts');
    expect([ws.readyState, ws.bufferedAmount]).toEqual([0, 19]);
    await s.start();
    await waitFor(() => s.received.length === 3, 3_000, 'the queued messages to arrive');
    expect(ws.bufferedAmount).toBe(0);
    expect(s.received).toEqual(['héllo', Buffer.alloc(10), Buffer.from('abc')]);
    await waitFor(() => messages().length === 3, 2_000, 'the echoes');
    expect(messages()[0]).toBe('héllo');
  });

  it('a server restart on the same port: open and close per connection (failed attempts: error, close), CONNECTING in between, binaryType kept', async () => {
    const s = await server();
    const { ws, events, count, messages } = socket(s.base, [], { WebSocket: WsWebSocket, binaryType: 'arraybuffer' });
    await waitFor(() => count('open') === 1, 2_000, 'open');
    await s.stop();
    await waitFor(() => count('close') === 1, 2_000, 'the close');
    await waitFor(() => count('close') >= 3, 2_000, 'two failed attempts');
    await s.start();
    await waitFor(() => count('open') === 2, 3_000, 'the reconnect');
    ws.send(new Uint8Array([7]));
    await waitFor(() => messages().length === 1, 2_000, 'the echo');
    expect(messages()[0]).toBeInstanceOf(ArrayBuffer);
    expect(ws.binaryType).toBe('arraybuffer');
    ws.close(1000);
    await waitFor(() => ws.readyState === 3, 2_000, 'the final close');

    const reopened = events.findIndex((e, i) => i > 0 && e.type === 'open');
    expect(events.slice(0, 2)).toEqual([
      { type: 'open', readyState: 1 },
      { type: 'close', readyState: 0, code: 1006, reason: '', wasClean: false },
    ]);
    // Every attempt against the closed port fails as a WebSocket does: error, then close (1006).
    const failed = events.slice(2, reopened);
    expect(failed.length).toBeGreaterThanOrEqual(4);
    failed.forEach((e, i) => {
      expect(e).toEqual(
        i % 2 === 0
          ? { type: 'error', readyState: 0 }
          : { type: 'close', readyState: 0, code: 1006, reason: '', wasClean: false },
      );
    });
    expect(events.slice(reopened).map((e) => [e.type, e.readyState])).toEqual([
      ['open', 1],
      ['message', 1],
      ['close', 3],
    ]);
    expect(events.at(-1)).toMatchObject({ code: 1000, wasClean: true });
  });
});
