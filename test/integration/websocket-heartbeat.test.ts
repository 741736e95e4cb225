/**
 * The core drop-in (`resilient-socket/websocket`'s `ResilientWebSocket`, the Node build) notices a
 * dead link once given `heartbeat()` from `resilient-socket/modular`: against a real ws server on
 * 127.0.0.1 that stops answering pings (ws `autoPong: false`), the connection is declared dead
 * within `interval + timeout` (`error` ERR_RS_DEAD_LINK, then `close` 1006 "heartbeat timeout",
 * CONNECTING in both) and replaced. The same class without the feature keeps the dead link open.
 * Both sockets run on ws, pinned with the `WebSocket` option: a runtime's global WebSocket cannot
 * send pings, and the socket without the feature is the control on the same transport.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, WebSocket as WsWebSocket } from 'ws';
import { heartbeat } from '../../src/modular-node.js';
import { ResilientWebSocket } from '../../src/websocket-node.js';
import { Cleanup, waitFor } from '../helpers/wait.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const INTERVAL = 200;
const TIMEOUT = 200;

/** A ws server whose answers to pings can be switched off; counts connections and pings. */
async function pingServer() {
  const state = { answer: true, connections: 0, pings: 0 };
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, autoPong: false });
  wss.on('connection', (ws) => {
    state.connections++;
    ws.on('ping', (data) => {
      state.pings++;
      if (state.answer) ws.pong(data);
    });
  });
  await new Promise((resolve) => wss.once('listening', resolve));
  cleanup.add(wss, (s) => {
    for (const client of s.clients) client.terminate();
    return new Promise((resolve) => s.close(resolve));
  });
  return { state, url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/` };
}

describe('the core drop-in with heartbeat() (Node build, ws protocol pings)', () => {
  it('a server that stops answering pings: found dead within interval + timeout, then a new connection', async () => {
    const { state, url } = await pingServer();
    const ws = cleanup.add(
      new ResilientWebSocket(url, [], {
        WebSocket: WsWebSocket,
        features: [heartbeat({ interval: INTERVAL, timeout: TIMEOUT })],
        backoff: { next: () => 50, reset: () => undefined },
      }),
      (s) => s.close(),
    );
    const unwatched = cleanup.add(new ResilientWebSocket(url, [], { WebSocket: WsWebSocket }), (s) => s.close());
    const seen: unknown[] = [];
    ws.onerror = (event) => seen.push(['error', event.error?.code, ws.readyState]);
    ws.onclose = (event) => seen.push(['close', event.code, event.reason, event.wasClean, ws.readyState]);
    unwatched.onclose = () => seen.push(['the unwatched socket closed']);
    await waitFor(() => ws.readyState === 1 && unwatched.readyState === 1, 2_000, 'both open');
    // Answered pings keep it open.
    await waitFor(() => state.pings >= 2, 2_000, 'two answered pings');
    expect(seen).toEqual([]);
    state.answer = false;
    const stoppedAt = performance.now();
    await waitFor(() => seen.length >= 2, INTERVAL + TIMEOUT + 1_000, 'the dead link to be found');
    const foundAfter = performance.now() - stoppedAt;
    expect(seen).toEqual([
      ['error', 'ERR_RS_DEAD_LINK', 0],
      ['close', 1006, 'heartbeat timeout', false, 0],
    ]);
    expect(foundAfter).toBeLessThanOrEqual(INTERVAL + TIMEOUT + 300);
    // Replaced by a new connection.
    await waitFor(() => ws.readyState === 1 && state.connections >= 3, 2_000, 'the reconnect');
    // Without the feature nothing watches the link: still open, nothing heard.
    expect(unwatched.readyState).toBe(1);
    expect(seen).not.toContainEqual(['the unwatched socket closed']);
  });
});
