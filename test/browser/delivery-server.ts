/**
 * A server of the acknowledged-delivery protocol for tests, written from the protocol alone (three
 * JSON frames: `hello`, `msg`, `ack`), not with the package's server helper: a `ws` server on
 * 127.0.0.1, port 0.
 *
 * Per session (the id of the connection's `hello`), it remembers the ids it delivered: a `msg`
 * whose id it saw is acknowledged again and counted as a duplicate, not delivered again. Each
 * delivery is recorded (`delivered`, in order); every frame received too (`frames`). While
 * `acking` is false it delivers but acknowledges nothing (a server whose acks are lost), so the
 * client keeps its messages as unacknowledged.
 */
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/** A message the server delivered to its app, once. */
export interface Delivered {
  readonly session: string;
  readonly id: string;
  readonly data: unknown;
}

/** A frame the server received, on its connection (numbered from 1 in accept order). */
export interface Received {
  readonly connection: number;
  readonly frame: unknown;
}

export interface ProtocolServer {
  /** `ws://127.0.0.1:<port>` */
  readonly url: string;
  /** Whether a `msg` is acknowledged (after it was delivered). */
  acking: boolean;
  readonly delivered: Delivered[];
  readonly frames: Received[];
  /** Ids received again in a session, in order. */
  readonly duplicates: string[];
  /** The session of each `hello`, in order. */
  readonly hellos: string[];
  /** Cuts every client (no close frame) and closes the listener. */
  stop(): Promise<void>;
}

const parse = (text: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};

export async function startProtocolServer(): Promise<ProtocolServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  });
  const seen = new Map<string, Set<string>>();
  const sockets = new Set<WebSocket>();
  let accepted = 0;
  const server: ProtocolServer = {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    acking: true,
    delivered: [],
    frames: [],
    duplicates: [],
    hellos: [],
    stop: async () => {
      for (const socket of sockets) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
  wss.on('connection', (socket) => {
    const connection = ++accepted;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let session: Set<string> | undefined;
    let sessionId = '';
    socket.on('message', (raw, binary) => {
      const frame = binary ? undefined : parse(raw.toString());
      server.frames.push({ connection, frame: frame ?? raw.toString() });
      if (frame?.rs === 'hello' && typeof frame.session === 'string' && !session) {
        sessionId = frame.session;
        server.hellos.push(sessionId);
        session = seen.get(sessionId) ?? new Set();
        seen.set(sessionId, session);
      } else if (frame?.rs === 'msg' && typeof frame.id === 'string' && session) {
        if (session.has(frame.id)) server.duplicates.push(frame.id);
        else {
          session.add(frame.id);
          server.delivered.push({ session: sessionId, id: frame.id, data: frame.data });
        }
        if (server.acking) socket.send(JSON.stringify({ rs: 'ack', id: frame.id }));
      }
    });
  });
  return server;
}
