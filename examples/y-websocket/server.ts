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
import type { IncomingMessage } from 'node:http';
import { docs, setupWSConnection, type WSSharedDoc } from '@y/websocket-server/utils';
import { RestartableWsServer } from '../lib/restartable-ws.js';

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
  readonly #server: RestartableWsServer;
  readonly #counts = new Map<string, ClientCounts>();
  /** The rooms this server has served (their documents are forgotten by `stop()`). */
  readonly #rooms = new Set<string>();

  /** `port` 0 picks a free port on the first `start()`; later starts reuse it. */
  constructor(port = 0) {
    this.#server = new RestartableWsServer(
      (conn, request) => {
        const { room, client } = parse(request);
        const counts = this.#count(client);
        counts.connections++;
        conn.on('close', () => counts.closes++);
        this.#rooms.add(room);
        setupWSConnection(conn, request, { docName: room });
      },
      port,
      (request) => {
        this.#count(parse(request).client).upgrades++;
      },
    );
  }

  /** Makes a server and starts it. */
  static async listen(port = 0): Promise<YWebsocketServer> {
    const server = new YWebsocketServer(port);
    await server.start();
    return server;
  }

  get up(): boolean {
    return this.#server.up;
  }

  get port(): number {
    return this.#server.port;
  }

  /** `ws://127.0.0.1:<port>`: y-websocket's `serverUrl` (it appends `/<room>`). */
  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** The WebSocket connections open now (0 while down). */
  get connections(): number {
    return this.#server.clients.size;
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
  start(): Promise<void> {
    return this.#server.start();
  }

  /**
   * Goes down: cuts every client abruptly (no close frame), stops listening, and forgets the
   * documents it served. A no-op when down.
   */
  async stop(): Promise<void> {
    if (!this.#server.up) return;
    await this.#server.crash();
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
