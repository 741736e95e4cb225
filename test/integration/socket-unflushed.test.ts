/**
 * Nothing lost silently at the end of a connection: what `send()` handed to the WebSocket (each
 * reported `'sent'`) but the WebSocket still held when the connection ended never left, and is
 * reported, in bytes (`drop`, reason `'unflushed'`), since which messages they were cannot be
 * told apart. Against a real ws server on 127.0.0.1 that stops reading (its TCP socket paused),
 * with ws pinned as the client's WebSocket (its `bufferedAmount` counts what Node still holds); the
 * socket's deadlines on an injected clock. What the server reads once it reads again, plus what was
 * reported, is what was sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket as ServerSide, WebSocketServer, WebSocket as WsWebSocket } from 'ws';
import type { DropInfo } from '../../src/core/events.js';
import { ResilientSocket } from '../../src/node.js';
import { TestClock } from '../../src/testing/test-clock.js';
import { Cleanup, waitFor } from '../helpers/wait.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const MESSAGE = 64 * 1024;
const COUNT = 160; // 10 MiB in all

/** A ws server whose connections read nothing until `resume()`; it counts the payload bytes it reads. */
async function pausedServer(paused = true) {
  const wss = cleanup.add(new WebSocketServer({ host: '127.0.0.1', port: 0 }), (s) => {
    for (const client of s.clients) client.terminate();
    s.close();
  });
  await new Promise((resolve) => wss.once('listening', resolve));
  const sockets: ServerSide[] = [];
  let received = 0;
  let ended = false;
  wss.on('connection', (ws) => {
    sockets.push(ws);
    if (paused) (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    ws.on('message', (data: Buffer) => {
      received += data.length;
    });
    ws.on('close', () => {
      ended = true;
    });
  });
  return {
    url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}`,
    resume: () => {
      for (const ws of sockets) (ws as unknown as { _socket: { resume(): void } })._socket.resume();
    },
    received: () => received,
    ended: () => ended,
  };
}

describe('bytes a connection still held when it ended are reported', () => {
  it('close() against a server that reads nothing: after its 3 s, what never left is a drop in bytes', async () => {
    const server = await pausedServer();
    const clock = new TestClock();
    const socket = cleanup.add(new ResilientSocket(server.url, { WebSocket: WsWebSocket, clock }), (s) => s.close());
    const drops: DropInfo[] = [];
    socket.on('drop', (info) => drops.push(info));
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    const payload = new Uint8Array(MESSAGE).fill(7);
    const results = Array.from({ length: COUNT }, () => socket.send(payload));
    expect(new Set(results)).toEqual(new Set(['sent']));
    const held = socket.bufferedAmount;
    expect(held).toBeGreaterThan(MESSAGE); // far more than the kernel takes in
    socket.close();
    expect(drops).toEqual([]);
    await clock.advance(3_000); // the closing handshake's deadline: the connection is cut
    expect(socket.state).toBe('closed');
    expect(drops).toHaveLength(1);
    const [drop] = drops;
    expect(drop?.reason).toBe('unflushed');
    expect(drop?.messages).toEqual([]);
    const bytes = drop?.bytes ?? 0;
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(held + 8); // and the close frame (code 1005: 6 bytes)
    // What did leave reaches the server once it reads: the two add up to what was sent (give or
    // take the frames' headers, which bufferedAmount counts for what Node holds).
    server.resume();
    await waitFor(() => server.ended(), 5_000, 'the server sees the connection end');
    const total = COUNT * MESSAGE;
    expect(server.received() + bytes).toBeGreaterThanOrEqual(total);
    expect(server.received() + bytes).toBeLessThanOrEqual(total + COUNT * 14);
    expect(server.received() % MESSAGE).toBe(0);
  });

  it('a connection that flushed everything reports nothing', async () => {
    const server = await pausedServer(false);
    const socket = cleanup.add(new ResilientSocket(server.url, { WebSocket: WsWebSocket }), (s) => s.close());
    const drops: DropInfo[] = [];
    socket.on('drop', (info) => drops.push(info));
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    socket.send('hello');
    await waitFor(() => server.received() === 5, 2_000, 'the server reads it');
    socket.close();
    await waitFor(() => socket.state === 'closed', 4_000, 'closed');
    expect(drops).toEqual([]);
  });
});
