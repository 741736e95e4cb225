/**
 * A real `ws` server on 127.0.0.1 (port 0) with a ReliableServer on it, and raw `ws` clients that
 * speak the delivery protocol by hand (hello, msg, ack as JSON text), so the server is tested
 * against the protocol, not against the client feature. Time is a TestClock: timers move only
 * when a test advances it; the network runs in real time, every wait bounded.
 */
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { ReliableServer, type ReliableServerOptions } from '../../src/server/index.js';
import { TestClock } from '../../src/testing/test-clock.js';
import { type Cleanup, waitFor } from '../helpers/wait.js';

/** One raw client: everything it received, in order (text as strings, binary as Buffers). */
export interface RawClient {
  readonly ws: WebSocket;
  readonly received: (string | Buffer)[];
  /** The received text frames parsed as JSON (the others left out). */
  frames(): { rs?: string; id?: string; data?: unknown; session?: string }[];
  /** Sends a frame as JSON text (or a raw string / Buffer as it is). */
  send(frame: object | string | Buffer): void;
  hello(session: string): void;
  msg(id: string, data: unknown): void;
  ack(id: string): void;
  /** Waits (real time, bounded) until `count` frames matching `where` arrived. */
  waitFrames(where: (f: ReturnType<RawClient['frames']>[number]) => boolean, count?: number): Promise<void>;
  /** Closes and waits until the server side saw it closed. */
  close(): Promise<void>;
}

export interface Harness {
  readonly wss: WebSocketServer;
  readonly server: ReliableServer<WebSocket>;
  readonly clock: TestClock;
  readonly url: string;
  /** Connects a raw client and waits until it is open. */
  connect(): Promise<RawClient>;
}

/** Starts a ws server on 127.0.0.1:0 and a ReliableServer over it (with a TestClock), cleaned up after the test. */
export async function start(cleanup: Cleanup, options: ReliableServerOptions = {}): Promise<Harness> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  });
  cleanup.add(wss, (w) => {
    for (const client of w.clients) client.terminate();
    return new Promise<void>((resolve) => w.close(() => resolve()));
  });
  const clock = new TestClock();
  const server = new ReliableServer(wss, { clock, ...options });
  cleanup.add(server, (s) => s.close());
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  return {
    wss,
    server,
    clock,
    url,
    connect: async () => {
      const before = wss.clients.size;
      const ws = cleanup.add(new WebSocket(url), (w) => w.terminate());
      const received: (string | Buffer)[] = [];
      ws.on('message', (data, isBinary) => received.push(isBinary ? (data as Buffer) : String(data)));
      await new Promise<void>((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      // The server side follows the connection once wss emitted `connection` for it.
      await waitFor(() => wss.clients.size > before, 2_000, 'the server to accept the connection');
      const frames = () =>
        received.flatMap((r) => {
          if (typeof r !== 'string') return [];
          try {
            return [JSON.parse(r)];
          } catch {
            return [];
          }
        });
      const client: RawClient = {
        ws,
        received,
        frames,
        send: (frame) => ws.send(typeof frame === 'string' || Buffer.isBuffer(frame) ? frame : JSON.stringify(frame)),
        hello: (session) => client.send({ rs: 'hello', session }),
        msg: (id, data) => client.send({ rs: 'msg', id, data }),
        ack: (id) => client.send({ rs: 'ack', id }),
        waitFrames: async (where, count = 1) => {
          await waitFor(() => frames().filter(where).length >= count, 2_000, `${count} frame(s)`, {
            describe: () => received,
          });
        },
        close: async () => {
          const open = wss.clients.size;
          ws.close();
          await waitFor(() => wss.clients.size < open, 2_000, 'the server to see the client close');
          // ws emits the server side's `close` after it removed the client from `wss.clients`: let it run.
          await new Promise((resolve) => setImmediate(resolve));
        },
      };
      return client;
    },
  };
}

/**
 * Waits until the server handled everything `client` sent so far: a ws ping goes after it on the
 * same ordered connection, and the server's ws answers it once it read what came before.
 */
export async function settle(client: RawClient): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('settle: no pong within 2 s')), 2_000);
    client.ws.once('pong', () => {
      clearTimeout(timer);
      // The server's listeners ran, and wrote their replies, before the pong went: they arrived first.
      resolve();
    });
    client.ws.ping();
  });
}
