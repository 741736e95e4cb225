/**
 * A real ws server on 127.0.0.1 that stops reading (its TCP socket paused): the client's buffers
 * fill, and a producer that waits for `drain` whenever `writable` is false keeps `bufferedAmount`
 * within one message of the high-water mark, stalls, and finishes once the server reads again.
 * The client runs on ws, pinned with the `WebSocket` option: the bound relies on ws's
 * `bufferedAmount`, which counts the bytes still queued on its TCP socket.
 */
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { ResilientSocket } from '../../src/node.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const KiB = 1024;
const MiB = 1024 * KiB;

describe('back-pressure against a server that stops reading', () => {
  it('a producer that respects the mark keeps bufferedAmount bounded, waits, and finishes once the server reads again', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    cleanup.add(server, (s) => s.close());
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    let received = 0;
    let serverSide: Socket | undefined;
    server.on('connection', (ws: WebSocket) => {
      serverSide = (ws as unknown as { _socket: Socket })._socket;
      serverSide.pause(); // reads nothing until the test says
      ws.on('message', (data: Buffer) => {
        received += data.length;
      });
    });

    const highWaterMark = 64 * KiB;
    const socket = new ResilientSocket(`ws://127.0.0.1:${port}/`, { WebSocket, highWaterMark, heartbeat: false });
    cleanup.add(socket, (s) => s.close());
    let drains = 0;
    socket.on('drain', () => {
      drains++;
    });
    await waitFor(() => socket.state === 'open' && serverSide !== undefined, 2_000, 'open');

    // More than the kernel's buffers on both ends of a loopback connection hold.
    const chunk = Buffer.alloc(16 * KiB, 7);
    const total = 64 * MiB;
    let sent = 0;
    let highest = 0;
    let waits = 0;
    const producer = (async () => {
      while (sent < total) {
        if (!socket.writable) {
          waits++;
          await new Promise<void>((resolve) => socket.once('drain', resolve));
        }
        expect(socket.send(chunk)).toBe('sent');
        sent += chunk.length;
        highest = Math.max(highest, socket.bufferedAmount);
      }
    })();

    // The producer stalls: the server reads nothing, so nothing drains.
    await waitFor(() => !socket.writable, 10_000, 'the producer to reach the mark', {
      describe: () => ({ sent, buffered: socket.bufferedAmount }),
    });
    let before = sent;
    for (let i = 0; i < 20 && before < total; i++) {
      await sleep(50);
      if (sent === before) break;
      before = sent;
    }
    await sleep(200);
    expect(sent, 'no progress while the server reads nothing').toBe(before);
    expect(sent).toBeLessThan(total);
    expect(socket.writable).toBe(false);

    serverSide?.resume();
    await producer;
    await waitFor(() => received === total, 15_000, 'the server to read every byte', {
      describe: () => ({ received, total, buffered: socket.bufferedAmount }),
    });
    await waitFor(() => socket.writable, 1_000, 'the last drain');

    // Each send happened at or under the mark: at most one chunk (and its frame header) above it.
    expect(highest).toBeGreaterThan(highWaterMark);
    expect(highest).toBeLessThanOrEqual(highWaterMark + chunk.length + 64);
    expect(waits).toBeGreaterThan(0);
    expect(drains).toBeGreaterThanOrEqual(waits);
    expect(socket.bufferedAmount).toBeLessThanOrEqual(highWaterMark);
  }, 40_000);
});
