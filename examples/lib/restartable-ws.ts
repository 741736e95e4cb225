/**
 * A `ws` server on 127.0.0.1 that can crash and come back on the same port, as a real server
 * process would after a restart: `crash()` cuts every client without a close frame (the browser
 * sees code 1006) and stops listening, so new attempts are refused until `start()`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export type ConnectionHandler = (socket: WebSocket, request: IncomingMessage) => void;

/** Told about every upgrade request that reaches the server (before it is accepted). */
export type UpgradeHandler = (request: IncomingMessage) => void;

export class RestartableWsServer {
  readonly #onConnection: ConnectionHandler;
  readonly #onUpgrade: UpgradeHandler | undefined;
  #port: number;
  #http: Server | undefined;
  #wss: WebSocketServer | undefined;
  readonly #sockets = new Set<Socket>();

  /** `port` 0 picks a free port on the first `start()`; later starts reuse it. */
  constructor(onConnection: ConnectionHandler, port = 0, onUpgrade?: UpgradeHandler) {
    this.#onConnection = onConnection;
    this.#onUpgrade = onUpgrade;
    this.#port = port;
  }

  get up(): boolean {
    return this.#http?.listening === true;
  }

  get port(): number {
    return this.#port;
  }

  /** `ws://127.0.0.1:<port>/` (the port is known after the first `start()`, unless given). */
  get url(): string {
    return `ws://127.0.0.1:${this.#port}/`;
  }

  /** The connected clients (empty while down). */
  get clients(): ReadonlySet<WebSocket> {
    return this.#wss?.clients ?? new Set();
  }

  /** Listens (again); a no-op when already up. */
  async start(): Promise<void> {
    if (this.#http) return;
    const http = createServer((_request, response) => {
      response.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket only');
    });
    const wss = new WebSocketServer({ server: http });
    const onUpgrade = this.#onUpgrade;
    if (onUpgrade) http.on('upgrade', (request: IncomingMessage) => onUpgrade(request));
    wss.on('connection', (socket, request) => this.#onConnection(socket, request));
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

  /** Cuts every client abruptly (no close frame) and stops listening; a no-op when down. */
  async crash(): Promise<void> {
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
  }
}
