import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { BaseSocket } from '../../src/modular-node.js';
import { ResilientSocket, ResilientWebSocket } from '../../src/node.js';
import { TestClock } from '../../src/testing/test-clock.js';
import { ResilientWebSocket as CoreResilientWebSocket } from '../../src/websocket-node.js';
import { LingeringCloseServer } from '../faults/lingering-close-server.js';
import { SocketRecorder } from '../helpers/socket-recorder.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

// A server (or a proxy in front of it) that sends its close frame and keeps the TCP connection:
// the connection is over for the socket when the frame arrives, not when the TCP connection ends
// (ws would wait 30 s for that). The clock is injected: the reconnect and the cut of the lingering
// TCP connection happen when the test advances it.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** ws, with every instance the socket makes kept for the test to inspect. */
function recordingWs() {
  const made: WsWebSocket[] = [];
  class Recording extends WsWebSocket {
    constructor(...args: ConstructorParameters<typeof WsWebSocket>) {
      super(...args);
      made.push(this);
    }
  }
  return { made, WebSocket: Recording };
}

async function setup() {
  const server = cleanup.add(new LingeringCloseServer(), (s) => s.stop());
  await server.start();
  const clock = new TestClock();
  return { server, clock, ...recordingWs() };
}

describe("the server's close frame without its TCP close", () => {
  it('ends the connection at once: leaves open, queues sends, reports 1001, backs off, reconnects', async () => {
    const { server, clock, made, WebSocket } = await setup();
    const socket = cleanup.add(
      new ResilientSocket(server.url, { WebSocket, clock, heartbeat: false, resume: false, stableAfter: 0 }),
      (s) => s.close(),
    );
    const rec = new SocketRecorder(socket);
    await waitFor(() => socket.state === 'open', 2_000, 'the first open');
    expect(server.sayGoodbye(1001, 'deploying')).toBe(1);

    await waitFor(() => socket.state !== 'open', 1_000, 'the socket to leave open on the close frame');
    expect(socket.state).toBe('reconnecting');
    expect(socket.readyState).toBe(0);
    expect(rec.closes).toEqual([{ code: 1001, reason: 'deploying', wasClean: true, willReconnect: true }]);
    expect(socket.send('while away')).toBe('buffered');
    expect(socket.bufferedCount).toBe(1);
    // The backoff starts: a drawn wait, then the next attempt.
    const delay = rec.reconnecting[0]?.delay ?? Number.NaN;
    expect(delay).toBeGreaterThanOrEqual(0);
    // The old connection is still waiting for the server to close TCP: it is not the socket's anymore.
    expect(made[0]?.readyState).toBe(WsWebSocket.CLOSING);

    await clock.advance(delay);
    await waitFor(() => socket.state === 'open', 2_000, 'the reconnect');
    expect(server.upgraded).toBe(2);
    expect(socket.bufferedCount).toBe(0);
    expect(rec.drops).toEqual([]);

    // The lingering TCP connection is cut CLOSE_TIMEOUT (3 s) after the frame; not before.
    await clock.advance(2_900);
    await sleep(20);
    expect(made[0]?.readyState).toBe(WsWebSocket.CLOSING);
    await clock.advance(200);
    await waitFor(() => made[0]?.readyState === WsWebSocket.CLOSED, 1_000, 'the lingering TCP connection to be cut');
    expect(socket.state).toBe('open');
    expect(rec.closes).toHaveLength(1);
  });

  it('asks shouldReconnect with the code the server sent (a fatal one gives up)', async () => {
    const { server, clock, made, WebSocket } = await setup();
    const socket = cleanup.add(
      new BaseSocket(server.url, { WebSocket, clock, shouldReconnect: ({ code }) => code !== 4001 }),
      (s) => s.close(),
    );
    const rec = new SocketRecorder(socket);
    await waitFor(() => socket.state === 'open', 2_000, 'the first open');
    server.sayGoodbye(4001, 'kicked');
    await waitFor(() => socket.state === 'closed', 1_000, 'the give-up');
    expect(rec.closes).toEqual([{ code: 4001, reason: 'kicked', wasClean: true, willReconnect: false }]);
    expect(rec.errors.map((e) => e.code)).toEqual(['ERR_RS_FATAL_CLOSE']);
    // Gave up for good, yet the lingering connection is still cut on time: nothing is left behind.
    await clock.advance(3_000);
    await waitFor(() => made[0]?.readyState === WsWebSocket.CLOSED, 1_000, 'the lingering TCP connection to be cut');
  });

  it('close() while the TCP close lingers cuts it at once', async () => {
    const { server, clock, made, WebSocket } = await setup();
    const socket = new BaseSocket(server.url, { WebSocket, clock });
    await waitFor(() => socket.state === 'open', 2_000, 'the first open');
    server.sayGoodbye();
    await waitFor(() => socket.state === 'reconnecting', 1_000, 'the close frame to be seen');
    socket.close();
    await waitFor(() => made[0]?.readyState === WsWebSocket.CLOSED, 1_000, 'the lingering connection to be cut');
    expect(clock.pending).toBe(0);
  });

  it.each([
    ['resilient-socket', ResilientWebSocket],
    ['resilient-socket/websocket', CoreResilientWebSocket],
  ])('the drop-in from %s dispatches the close at once, with the code and reason', async (_entry, Class) => {
    const { server, clock, WebSocket } = await setup();
    const ws = cleanup.add(new Class(server.url, [], { WebSocket, clock }), (s) => s.close());
    const closes: [number, string, boolean][] = [];
    ws.addEventListener('close', (event) => {
      const { code, reason, wasClean } = event as CloseEvent;
      closes.push([code, reason, wasClean]);
    });
    await waitFor(() => ws.readyState === 1, 2_000, 'the first open');
    server.sayGoodbye(1001, 'going away');
    await waitFor(() => closes.length === 1, 1_000, 'the close event');
    expect(closes).toEqual([[1001, 'going away', true]]);
    expect(ws.readyState).toBe(0); // reconnecting
  });
});
