/**
 * A y-websocket server on 127.0.0.1 (`@y/websocket-server`'s `setupWSConnection` behind a `ws`
 * `WebSocketServer`) that can go down and come back on the same port, as a server process does
 * when it restarts, and that counts what each client did, so that a test or the example can say
 * how many connections a provider holds and whether anything is still knocking.
 *
 * Clients are told apart by a `client` query parameter (y-websocket's `params: { client: 'a' }`
 * adds it). `stop()` cuts every client without a close frame (the client sees 1006), stops
 * listening (new attempts are refused) and forgets the documents it served, as a restarted
 * process without persistence would: @y/websocket-server keeps them in a module-level map, so
 * they are taken out of it (and destroyed). After `start()` the documents are rebuilt from what
 * the clients send.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { docs, setupWSConnection, type WSSharedDoc } from '@y/websocket-server/utils';
import { WebSocketServer } from 'ws';

/** What the server saw of one client (one `client` query parameter), over every start. */
export interface ClientCounts {
  /** Upgrade requests (connection attempts that reached the server). */
  upgrades: number;
  /** WebSocket connections accepted. */
  connections: number;
  /** Those connections that have ended. */
  closes: number;
}

/** The room and the `client` parameter of a request (`/<room>?client=<id>`). */
function parse(request: IncomingMessage): { room: string; client: string } {
  const url = new URL(request.url ?? '/', 'http://localhost');
  return { room: decodeURIComponent(url.pathname.slice(1)), client: url.searchParams.get('client') ?? '' };
}

export class YWebsocketServer {
  #port: number;
  #http: Server | undefined;
  #wss: WebSocketServer | undefined;
  readonly #sockets = new Set<Socket>();
  readonly #counts = new Map<string, ClientCounts>();
  /** The rooms this server has served (their documents are forgotten by `stop()`). */
  readonly #rooms = new Set<string>();

  /** `port` 0 picks a free port on the first `start()`; later starts reuse it. */
  constructor(port = 0) {
    this.#port = port;
  }

  /** Makes a server and starts it. */
  static async listen(port = 0): Promise<YWebsocketServer> {
    const server = new YWebsocketServer(port);
    await server.start();
    return server;
  }

  get up(): boolean {
    return this.#http?.listening === true;
  }

  get port(): number {
    return this.#port;
  }

  /** `ws://127.0.0.1:<port>`: y-websocket's `serverUrl` (it appends `/<room>`). */
  get url(): string {
    return `ws://127.0.0.1:${this.#port}`;
  }

  /** The WebSocket connections open now (0 while down). */
  get connections(): number {
    return this.#wss?.clients.size ?? 0;
  }

  /** What the server saw of `client` so far (zeros for one it never saw). */
  counts(client: string): Readonly<ClientCounts> {
    return { ...(this.#counts.get(client) ?? { upgrades: 0, connections: 0, closes: 0 }) };
  }

  /** The server's copy of `room` (undefined when no client has opened it since the last start). */
  doc(room: string): WSSharedDoc | undefined {
    return this.#rooms.has(room) ? docs.get(room) : undefined;
  }

  /** Listens (again, on the same port); a no-op when up. */
  async start(): Promise<void> {
    if (this.#http) return;
    const http = createServer((_request, response) => {
      response.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket only');
    });
    const wss = new WebSocketServer({ server: http });
    http.on('upgrade', (request: IncomingMessage) => {
      this.#count(parse(request).client).upgrades++;
    });
    wss.on('connection', (conn, request) => {
      const { room, client } = parse(request);
      const counts = this.#count(client);
      counts.connections++;
      conn.on('close', () => counts.closes++);
      this.#rooms.add(room);
      setupWSConnection(conn, request, { docName: room });
    });
    http.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
    this.#http = http;
    this.#wss = wss;
    try {
      await new Promise<void>((resolve, reject) => {
        http.once('error', reject);
        http.listen(this.#port, '127.0.0.1', () => {
          http.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      this.#http = undefined;
      this.#wss = undefined;
      throw error;
    }
    this.#port = (http.address() as AddressInfo).port;
  }

  /**
   * Goes down: cuts every client abruptly (no close frame), stops listening, and forgets the
   * documents it served. A no-op when down.
   */
  async stop(): Promise<void> {
    const http = this.#http;
    const wss = this.#wss;
    if (!http || !wss) return;
    this.#http = undefined;
    this.#wss = undefined;
    for (const client of wss.clients) client.terminate();
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    await new Promise<void>((resolve) => http.close(() => resolve()));
    for (const room of this.#rooms) {
      docs.get(room)?.destroy();
      docs.delete(room);
    }
    this.#rooms.clear();
  }

  #count(client: string): ClientCounts {
    let counts = this.#counts.get(client);
    if (!counts) {
      counts = { upgrades: 0, connections: 0, closes: 0 };
      this.#counts.set(client, counts);
    }
    return counts;
  }
}
