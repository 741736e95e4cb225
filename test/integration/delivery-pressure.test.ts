/**
 * Acknowledged delivery under back-pressure, against a real ws server on 127.0.0.1 that stops
 * reading (its TCP socket paused), with ws pinned as the client's WebSocket: `sendReliable()`'s
 * writes count in `bufferedAmount`, `writable` and `drain` as `send()`'s do, and nothing is
 * written again while earlier writes are still in the WebSocket's buffer (a peer that reads
 * nothing is not sent the outbox over and over). The socket's timers on an injected clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket as ServerSide, WebSocketServer, WebSocket as WsWebSocket } from 'ws';
import { delivery, ResilientSocket } from '../../src/node.js';
import { TestClock } from '../../src/testing/test-clock.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('reliable traffic and back-pressure', () => {
  it('a paused server: writable goes false, resends wait for the buffer, drain once it reads again', async () => {
    const wss = cleanup.add(new WebSocketServer({ host: '127.0.0.1', port: 0 }), (s) => {
      for (const client of s.clients) client.terminate();
      s.close();
    });
    await new Promise((resolve) => wss.once('listening', resolve));
    const peers: ServerSide[] = [];
    let frames = 0;
    wss.on('connection', (ws) => {
      peers.push(ws);
      (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      ws.on('message', (data) => {
        if (String(data).startsWith('{"rs":"msg"')) frames++; // never acknowledged: every one stays pending
      });
    });
    const clock = new TestClock();
    const socket = cleanup.add(
      new ResilientSocket(`ws://127.0.0.1:${(wss.address() as { port: number }).port}`, {
        WebSocket: WsWebSocket,
        clock,
        delivery: delivery({ ackTimeout: 1_000 }),
      }),
      (s) => s.close(),
    );
    let drains = 0;
    socket.on('drain', () => drains++);
    socket.on('drop', () => undefined); // the 200 never acknowledged are dropped by the cleanup's close()
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    const payload = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 200; i++) void socket.sendReliable(payload).catch(() => undefined);
    // 200 × 64 KiB written to a socket whose peer reads nothing: above the mark, not writable.
    expect(socket.bufferedAmount).toBeGreaterThan(1024 * 1024);
    expect(socket.writable).toBe(false);
    const held = socket.bufferedAmount;
    for (let i = 0; i < 5; i++) {
      await clock.advance(1_000); // ackTimeout after ackTimeout: every message is overdue
      await sleep(20);
    }
    expect(socket.stats.delivery?.resent).toBe(0);
    expect(socket.bufferedAmount).toBeLessThanOrEqual(held); // no second copy of anything
    // The server reads again: the first copies go out, drain comes (through the 20 ms watch).
    for (const peer of peers) (peer as unknown as { _socket: { resume(): void } })._socket.resume();
    await waitFor(() => frames === 200, 5_000, 'the server reads the 200 frames', {
      describe: () => [frames, socket.state, socket.bufferedAmount, peers.length],
    });
    for (let i = 0; i < 20 && drains === 0; i++) {
      await clock.advance(20);
      await sleep(5);
    }
    expect(drains).toBe(1);
    expect(socket.writable).toBe(true);
    // Now the overdue ones go again, once each.
    await clock.advance(1_000);
    await waitFor(() => frames === 400, 5_000, 'the resends');
    expect(socket.stats.delivery?.resent).toBe(200);
  });
});
