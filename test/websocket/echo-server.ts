/**
 * The real ws server of the WebSocket conformance tests (integration and browser): on 127.0.0.1,
 * a free port the first time and the same port after a restart. It echoes every message (text as
 * text, binary as binary) except:
 * - `reply-then-close`, answered with `reply`: sent before it reads a close frame that follows, so
 *   the answer reaches a client that is already CLOSING;
 * - `Goodbye`, echoed, then a close frame without a code (web-platform-tests' echo handler closes
 *   on it too);
 * - `raw:<hex>`, answered by those bytes written as they are to the TCP socket (a malformed frame:
 *   what web-platform-tests' `echo_raw` handler does).
 * The path `/slow` answers the opening handshake only after {@link SLOW_HANDSHAKE} ms (a
 * connection that stays CONNECTING). It records what it received, the subprotocols each client
 * offered, and how each connection closed.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket as ServerSocket, WebSocketServer } from 'ws';

export interface EchoServerOptions {
  /** Picks the subprotocol (ws `handleProtocols`); without it ws picks the first one offered. */
  readonly choose?: (offered: Set<string>) => string | false;
  /** Negotiates permessage-deflate. @default false */
  readonly deflate?: boolean;
}

/** How long the path `/slow` holds the opening handshake, in ms. */
export const SLOW_HANDSHAKE = 2_000;

export class EchoServer {
  readonly received: (string | Buffer)[] = [];
  readonly closes: { code: number; reason: string }[] = [];
  readonly offered: string[][] = [];
  readonly clients: ServerSocket[] = [];
  port = 0;
  #http: HttpServer | undefined;
  /** The handshakes `/slow` holds: their timers and sockets. */
  readonly #held: [ReturnType<typeof setTimeout>, { destroy(): void }][] = [];

  constructor(readonly options: EchoServerOptions = {}) {}

  /** `ws://127.0.0.1:<port>` (no trailing slash). */
  get base(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** Listens (again, on the same port after a stop). */
  async start(): Promise<this> {
    const http = createServer();
    const wss = new WebSocketServer({
      server: http,
      perMessageDeflate: this.options.deflate ?? false,
      ...(this.options.choose ? { handleProtocols: this.options.choose } : {}),
      verifyClient: (info, done) => {
        if (!info.req.url?.startsWith('/slow')) done(true);
        else this.#held.push([setTimeout(() => done(true), SLOW_HANDSHAKE), info.req.socket]);
      },
    });
    wss.on('connection', (ws, request) => {
      this.clients.push(ws);
      const offered = String(request.headers['sec-websocket-protocol'] ?? '');
      this.offered.push(offered ? offered.split(',').map((p) => p.trim()) : []);
      ws.on('message', (data, isBinary) => {
        const value = isBinary ? (data as Buffer) : String(data);
        this.received.push(value);
        if (value === 'reply-then-close') ws.send('reply');
        else if (value === 'Goodbye') {
          ws.send(value);
          ws.close();
        } else if (typeof value === 'string' && value.startsWith('raw:')) {
          (ws as unknown as { _socket: { write(bytes: Buffer): void } })._socket.write(
            Buffer.from(value.slice(4), 'hex'),
          );
        } else ws.send(value, { binary: isBinary });
      });
      ws.on('close', (code, reason) => this.closes.push({ code, reason: String(reason) }));
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(this.port, '127.0.0.1', resolve);
    });
    this.port = (http.address() as AddressInfo).port;
    this.#http = http;
    return this;
  }

  /** Cuts every client (no close frame) and stops listening. */
  async stop(): Promise<void> {
    for (const [timer, socket] of this.#held.splice(0)) {
      clearTimeout(timer);
      socket.destroy();
    }
    for (const ws of this.clients) ws.terminate();
    const http = this.#http;
    this.#http = undefined;
    if (http) await new Promise<void>((resolve) => http.close(() => resolve()));
  }
}
