/**
 * The server side of the reconnect-storm benchmark (bench/storm.ts), run in a child process so that
 * it does not share an event loop with the K clients. Talks to the parent over the fork IPC channel.
 *
 * An http.Server with a ws WebSocketServer attached. Every accepted TCP connection (the http
 * server's `connection` event) is timestamped, up or down. `down` switches the server into
 * "a plain listener that counts and drops": every open connection is destroyed at once (no close
 * frame: what the peers see when the server process dies) and every new TCP connection is
 * destroyed as soon as it is accepted; `downMs` later the server accepts upgrades again, on the
 * same listening socket (no listener swap, so no window where attempts go uncounted).
 *
 * Timestamps: `process.hrtime` (CLOCK_MONOTONIC on Linux), which the parent shares.
 */
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { monotonicMs } from './storm-stats.js';

export type ToServer =
  | { readonly id: number; readonly type: 'status' }
  | { readonly id: number; readonly type: 'take-attempts' }
  | { readonly id: number; readonly type: 'down'; readonly downMs: number }
  | { readonly id: number; readonly type: 'stop' };

export type FromServer =
  | { readonly type: 'ready'; readonly port: number }
  | {
      readonly id: number;
      readonly type: 'status';
      readonly open: number;
      readonly sockets: number;
      readonly mode: Mode;
    }
  | { readonly id: number; readonly type: 'take-attempts'; readonly attempts: number[] }
  | {
      readonly id: number;
      readonly type: 'down';
      /** When the server went down (mode switched, before the kill loop). */
      readonly at: number;
      /** Connections destroyed by the kill. */
      readonly killed: number;
      /** How long the kill loop took, ms. */
      readonly killMs: number;
    }
  /** Sent (without an id) when the outage ends. */
  | { readonly type: 'up'; readonly at: number; readonly lateMs: number }
  | { readonly id: number; readonly type: 'stopped' };

type Mode = 'up' | 'down';

function main(): void {
  const send = (message: FromServer) => process.send?.(message);
  let mode: Mode = 'up';
  let attempts: number[] = [];
  const sockets = new Set<Socket>();

  const http = createServer((_request, response) => {
    response.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket only');
  });
  http.on('connection', (socket: Socket) => {
    attempts.push(monotonicMs());
    socket.on('error', () => undefined);
    if (mode === 'down') {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (ws) => ws.on('error', () => undefined));
  wss.on('error', () => undefined);

  process.on('message', (message: ToServer) => {
    switch (message.type) {
      case 'status':
        send({ id: message.id, type: 'status', open: wss.clients.size, sockets: sockets.size, mode });
        break;
      case 'take-attempts': {
        const taken = attempts;
        attempts = [];
        send({ id: message.id, type: 'take-attempts', attempts: taken });
        break;
      }
      case 'down': {
        mode = 'down';
        const at = monotonicMs();
        let killed = 0;
        for (const ws of wss.clients) ws.terminate();
        for (const socket of sockets) {
          socket.destroy();
          killed++;
        }
        sockets.clear();
        const killMs = monotonicMs() - at;
        setTimeout(() => {
          mode = 'up';
          const upAt = monotonicMs();
          send({ type: 'up', at: upAt, lateMs: upAt - at - message.downMs });
        }, message.downMs - killMs);
        send({ id: message.id, type: 'down', at, killed, killMs });
        break;
      }
      case 'stop':
        for (const ws of wss.clients) ws.terminate();
        for (const socket of sockets) socket.destroy();
        wss.close();
        http.close(() => {
          send({ id: message.id, type: 'stopped' });
          process.disconnect?.();
        });
        break;
    }
  });
  // The parent went away (crash, Ctrl-C): never outlive it.
  process.on('disconnect', () => process.exit(0));

  http.listen(0, '127.0.0.1', () => {
    const address = http.address();
    if (address === null || typeof address === 'string') throw new Error('unexpected server address');
    send({ type: 'ready', port: address.port });
  });
}

// Started by bench/storm.ts with STORM_SERVER=1 and an IPC channel; importing this file does nothing.
if (process.env.STORM_SERVER === '1' && process.send !== undefined) main();
