/**
 * A WebSocket server on 127.0.0.1 that says goodbye and then lingers: `sayGoodbye(code, reason)`
 * sends a close frame on every open connection and keeps the TCP connection open, reading and
 * ignoring whatever the client sends (its close frame included). This is what a proxy or a server
 * in the middle of a deploy does when it announces 1001 Going Away and is slow to hang up.
 *
 * It speaks just enough RFC 6455 by hand (the upgrade, one unmasked close frame) that no library
 * can close the TCP connection behind the test's back. `stop()` destroys every connection.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';

/** The GUID of RFC 6455 §1.3, for `Sec-WebSocket-Accept`. */
const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export class LingeringCloseServer {
  /** Connections upgraded over the server's life. */
  upgraded = 0;
  readonly #sockets = new Set<Socket>();
  /** The upgraded connections still open. */
  readonly #open = new Set<Socket>();
  #server: Server | undefined;
  #port = 0;

  /** Each upgraded connection's first TCP `close`, in order: how long it took after the goodbye. */
  readonly tcpClosedAfter: number[] = [];
  #goodbyeAt = 0;

  get port(): number {
    return this.#port;
  }

  /** The URL to connect to. */
  get url(): string {
    return `ws://127.0.0.1:${this.#port}/`;
  }

  async start(): Promise<void> {
    // allowHalfOpen: the client's FIN (after its close frame) must not end our side for us.
    const server = createServer({ allowHalfOpen: true }, (socket) => this.#accept(socket));
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#port = (server.address() as { port: number }).port;
  }

  /** Sends a close frame with `code` and `reason` on every open connection; keeps them open. */
  sayGoodbye(code = 1001, reason = 'going away'): number {
    const body = Buffer.concat([Buffer.from([code >> 8, code & 0xff]), Buffer.from(reason, 'utf8')]);
    if (body.length > 125) throw new RangeError('a close frame body has at most 125 bytes');
    const frame = Buffer.concat([Buffer.from([0x88, body.length]), body]);
    this.#goodbyeAt = performance.now();
    for (const socket of this.#open) socket.write(frame);
    return this.#open.size;
  }

  /** Destroys every connection and stops listening. */
  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    this.#open.clear();
    const server = this.#server;
    this.#server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #accept(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.#sockets.delete(socket);
      if (this.#open.delete(socket) && this.#goodbyeAt) {
        this.tcpClosedAfter.push(performance.now() - this.#goodbyeAt);
      }
    });
    let head = '';
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const key = /^sec-websocket-key:\s*(.+)$/im.exec(head.slice(0, end))?.[1]?.trim();
      if (!key) {
        socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
        return;
      }
      const accept = createHash('sha1')
        .update(key + WS_GUID)
        .digest('base64');
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
      );
      this.upgraded++;
      this.#open.add(socket);
      // Whatever the client sends from now on (data, its close frame) is read and ignored.
      socket.on('data', () => undefined);
    };
    socket.on('data', onData);
  }
}
