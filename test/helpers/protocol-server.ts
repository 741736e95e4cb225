/**
 * A small server of the acknowledged-delivery protocol, written from the protocol alone (the
 * package's own server helper is not used), on `ws` at 127.0.0.1: hello, msg and ack as JSON text
 * frames; per session a sequence, an outbox resent in order after every hello, and a bounded window
 * of the ids it has processed (a duplicate is acked again, not processed again). Sessions outlive
 * connections and restarts (as a server with its own session storage would keep them), so that a
 * test can flap it: `restart()` cuts every connection and listens again on a fresh port (clients
 * follow with a URL provider). It can lose a share of the acks it sends (`ackLoss`).
 */
import { WebSocket, WebSocketServer } from 'ws';

/** One client session, as the server keeps it. */
export interface ServerSession {
  readonly id: string;
  /** The data of the client's reliable messages, processed once each, in the order processed. */
  readonly processed: unknown[];
  /** Ids seen again (acked again, not processed). */
  duplicates: number;
  /** The connection that said this session's latest hello, while it is open. */
  socket: WebSocket | undefined;
  /** The last sequence number given to a message to this client. */
  seq: number;
  /** Messages to the client not yet acked, in id order. */
  readonly outbox: Map<string, { data: unknown; acked: () => void }>;
  /** The latest processed ids, oldest first (at most `window`). */
  readonly seen: Set<string>;
}

export interface ProtocolServerOptions {
  /** The share (0 to 1) of the acks it sends that are lost on the way. */
  ackLoss?: number;
  /** How many processed ids each session remembers. */
  window?: number;
  /** Random numbers in [0, 1) (for the ack loss). */
  random?: () => number;
}

export class ProtocolServer {
  readonly sessions = new Map<string, ServerSession>();
  /** Plain frames (not of the protocol), in order. */
  readonly plain: unknown[] = [];
  /** Acks it lost on purpose. */
  acksLost = 0;
  restarts = 0;
  #wss: WebSocketServer | undefined;
  #url = '';
  readonly #ackLoss: number;
  readonly #window: number;
  readonly #random: () => number;

  constructor({ ackLoss = 0, window = 10_000, random = Math.random }: ProtocolServerOptions = {}) {
    this.#ackLoss = ackLoss;
    this.#window = window;
    this.#random = random;
  }

  /** The URL it listens on now ('' while down). */
  get url(): string {
    return this.#url;
  }

  /** Starts listening on a fresh port of 127.0.0.1. */
  async start(): Promise<string> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve, reject) => {
      wss.once('listening', resolve);
      wss.once('error', reject);
    });
    wss.on('connection', (ws) => this.#accept(ws));
    this.#wss = wss;
    const { port } = wss.address() as { port: number };
    this.#url = `ws://127.0.0.1:${port}`;
    return this.#url;
  }

  /** Cuts every connection and stops listening (sessions are kept). */
  async stop(): Promise<void> {
    const wss = this.#wss;
    this.#wss = undefined;
    this.#url = '';
    if (!wss) return;
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }

  /** A crash and a restart: every connection cut, then a fresh port after `downMs`. */
  async restart(downMs = 0): Promise<void> {
    await this.stop();
    if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
    await this.start();
    this.restarts++;
  }

  /** Sends `data` reliably to `session`: now if it is connected, else after its next hello; resolved once acked. */
  send(session: string, data: unknown): Promise<void> {
    const s = this.#session(session);
    const id = String(++s.seq);
    return new Promise<void>((acked) => {
      s.outbox.set(id, { data, acked });
      this.#write(s.socket, { rs: 'msg', id, data });
    });
  }

  #session(id: string): ServerSession {
    let s = this.sessions.get(id);
    if (!s) {
      s = { id, processed: [], duplicates: 0, socket: undefined, seq: 0, outbox: new Map(), seen: new Set() };
      this.sessions.set(id, s);
    }
    return s;
  }

  #write(ws: WebSocket | undefined, frame: object): void {
    if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
  }

  #accept(ws: WebSocket): void {
    let session: ServerSession | undefined;
    ws.on('close', () => {
      if (session?.socket === ws) session.socket = undefined;
    });
    ws.on('message', (raw, binary) => {
      const frame = binary ? undefined : parseFrame(raw.toString());
      if (!frame) {
        this.plain.push(binary ? raw : raw.toString());
        return;
      }
      if (frame.rs === 'hello') {
        session = this.#session(frame.session);
        session.socket = ws;
        // Every message not yet acked, in order.
        for (const [id, { data }] of session.outbox) this.#write(ws, { rs: 'msg', id, data });
      } else if (!session) {
        this.plain.push(raw.toString()); // before a hello, nothing is the protocol's
      } else if (frame.rs === 'ack') {
        const pending = session.outbox.get(frame.id);
        session.outbox.delete(frame.id);
        pending?.acked();
      } else {
        if (session.seen.has(frame.id)) session.duplicates++;
        else {
          session.processed.push(frame.data);
          session.seen.add(frame.id);
          if (session.seen.size > this.#window) session.seen.delete(session.seen.values().next().value as string);
        }
        if (this.#random() < this.#ackLoss) this.acksLost++;
        else this.#write(ws, { rs: 'ack', id: frame.id });
      }
    });
  }
}

type Frame = { rs: 'hello'; session: string } | { rs: 'msg'; id: string; data: unknown } | { rs: 'ack'; id: string };

/** A frame of the protocol, or undefined for anything else. */
export function parseFrame(text: string): Frame | undefined {
  try {
    const f = JSON.parse(text) as Record<string, unknown> | null;
    if (f?.rs === 'hello' && typeof f.session === 'string') return f as Frame;
    if ((f?.rs === 'ack' || (f?.rs === 'msg' && 'data' in f)) && typeof f.id === 'string') return f as Frame;
  } catch {
    // not JSON
  }
  return undefined;
}
