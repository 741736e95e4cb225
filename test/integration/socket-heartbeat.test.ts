/**
 * Dead-link detection with ws protocol ping/pong against a real server that does, or does not,
 * answer pings (ws `autoPong`). The client runs on ws, pinned with the `WebSocket` option: a
 * runtime's global WebSocket cannot send pings.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { ResilientSocket } from '../../src/node.js';
import { TestWsServer } from '../faults/index.js';
import { closeAndExpectGone, SocketRecorder } from '../helpers/socket-recorder.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const INTERVAL = 200;
const TIMEOUT = 200;

function connect(server: TestWsServer) {
  const socket = cleanup.add(
    new ResilientSocket(server.url, {
      WebSocket: WsWebSocket,
      heartbeat: { interval: INTERVAL, timeout: TIMEOUT },
      maxDelay: 200,
      ceiling: 3,
      stableAfter: 200,
    }),
    (s) => s.close(),
  );
  return { socket, rec: new SocketRecorder(socket) };
}

describe('heartbeat over ws protocol ping/pong', () => {
  it('declares a link whose server never answers pings dead within interval + timeout, then reconnects', async () => {
    const server = cleanup.add(new TestWsServer({ kind: 'accept', answerPings: false }), (s) => s.stop());
    await server.start();
    const { socket, rec } = connect(server);

    await waitFor(() => rec.count('open') === 1, 2_000, 'open');
    const openedAt = rec.events('open')[0]?.at ?? 0;
    await waitFor(() => rec.count('close') >= 1, INTERVAL + TIMEOUT + 1_000, 'the dead link to be detected', {
      describe: () => rec.summary(),
    });
    const closedAt = rec.events('close')[0]?.at ?? 0;
    const detectedAfter = closedAt - openedAt;

    expect(rec.closes[0]).toEqual({ code: 1006, reason: 'heartbeat timeout', wasClean: false, willReconnect: true });
    expect(rec.errors[0]?.code).toBe('ERR_RS_DEAD_LINK');
    expect(rec.events('error')[0]?.at ?? 0).toBeLessThanOrEqual(closedAt);
    // First ping at +interval, its deadline at +interval+timeout: not before, and not much after.
    expect(detectedAfter).toBeGreaterThanOrEqual(INTERVAL + TIMEOUT - 5);
    expect(detectedAfter).toBeLessThanOrEqual(INTERVAL + TIMEOUT + 150);
    expect(server.pings).toBeGreaterThanOrEqual(1);

    // It reconnects: reconnecting → connecting → open on a new connection.
    await waitFor(() => rec.count('open') >= 2, 1_500, 'the reconnect', { describe: () => rec.summary() });
    const after = rec.states.slice(rec.states.indexOf('open') + 1);
    expect(after.slice(0, 3)).toEqual(['reconnecting', 'connecting', 'open']);
    expect(rec.reconnecting.length).toBeGreaterThanOrEqual(1);
    expect(server.connections).toBeGreaterThanOrEqual(2);
    // The server saw the dead connection go away (the client cut it).
    expect(server.disconnects.length).toBeGreaterThanOrEqual(1);

    await closeAndExpectGone(socket, server);
  });

  it('keeps a connection whose server answers pings open for more than three intervals (control)', async () => {
    const server = cleanup.add(new TestWsServer({ kind: 'accept' }), (s) => s.stop());
    await server.start();
    const { socket, rec } = connect(server);

    await waitFor(() => socket.state === 'open', 2_000, 'open');
    await sleep(INTERVAL * 3 + TIMEOUT);

    expect(socket.state).toBe('open');
    expect(rec.closes).toEqual([]);
    expect(rec.errors).toEqual([]);
    expect(rec.count('open')).toBe(1);
    expect(rec.count('stable')).toBe(1);
    expect(server.pings, 'the heartbeat really probed').toBeGreaterThanOrEqual(3);
    expect(server.connections).toBe(1);

    await closeAndExpectGone(socket, server);
    expect(rec.closes).toEqual([{ code: 1000, reason: '', wasClean: true, willReconnect: false }]);
  });
});
