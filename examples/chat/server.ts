/**
 * The chat example's server: a `ws` chat room that broadcasts every message, with its sender's
 * name, to every connected client (the sender included), and an HTTP server for the page (with
 * the library's browser build). They listen on separate ports so the chat server can crash and
 * come back while the page stays reachable.
 *
 * Protocol (JSON text frames):
 * - connect to `ws://127.0.0.1:<wsPort>/?name=alice` (no name: `guest-<n>`);
 * - server → client on connect: `{ type: 'welcome', name, history }` (the last `history` messages);
 * - client → server: `{ type: 'say', id, text }` (`id` is the client's, echoed back as `clientId`),
 *   or any other text frame, taken as the text itself (e.g. from `npx resilient-socket <url>`);
 * - server → everyone: `{ type: 'message', id, clientId, from, text, at }` (`id` is unique per
 *   server process, `clientId` is null for plain-text senders);
 * - server → everyone on join/leave: `{ type: 'presence', online }`;
 * - `{ type: 'ping' }` → `{ type: 'pong' }` (the page's heartbeat).
 *
 * The message history lives in this process, so it survives `crash()`/`restart()` (the room's
 * store outlives the socket server, as a database would).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { WebSocket } from 'ws';
import { RestartableWsServer } from '../lib/restartable-ws.js';
import { controlRoutes, startStaticServer } from '../lib/static-server.js';

export interface ChatMessage {
  readonly type: 'message';
  /** Unique per server process. */
  readonly id: string;
  /** The id the sending client gave it (`{ type: 'say', id }`), or null. */
  readonly clientId: string | null;
  readonly from: string;
  readonly text: string;
  /** `Date.now()` when the server received it. */
  readonly at: number;
}

export interface ChatServerOptions {
  /** Port of the page server. @default 0 (a free port) */
  readonly port?: number;
  /** Port of the chat server. @default 0 (a free port) */
  readonly wsPort?: number;
  /** Messages sent to a client when it joins. @default 50 */
  readonly history?: number;
  /** Called with a line for every notable event. */
  readonly log?: (line: string) => void;
}

export interface ChatServer {
  /** The page: `http://127.0.0.1:<port>/`. */
  readonly url: string;
  /** The chat server: `ws://127.0.0.1:<wsPort>/`. */
  readonly wsUrl: string;
  /** Whether the chat server is listening. */
  readonly up: boolean;
  /** Every message received, in order, across restarts. */
  readonly messages: readonly ChatMessage[];
  /** Clients connected now. */
  readonly online: number;
  /** Cuts every client abruptly (no close frame) and stops listening. */
  crash(): Promise<void>;
  /** Listens again on the same port (crashing first if it is up). */
  restart(): Promise<void>;
  /** Stops everything. */
  stop(): Promise<void>;
}

const PAGE = fileURLToPath(new URL('./page/', import.meta.url));
const MAX_TEXT = 2_000;

/** The text of a client frame, and the client's id for it; undefined for pings and junk. */
function parse(raw: string): { text: string; clientId: string | null } | 'ping' | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { text: raw, clientId: null };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { text: raw, clientId: null };
  const frame = value as { type?: unknown; id?: unknown; text?: unknown };
  if (frame.type === 'ping') return 'ping';
  if (frame.type === 'say' && typeof frame.text === 'string') {
    return { text: frame.text, clientId: typeof frame.id === 'string' ? frame.id.slice(0, 64) : null };
  }
  return { text: raw, clientId: null };
}

export async function startChatServer(options: ChatServerOptions = {}): Promise<ChatServer> {
  const { port = 0, wsPort = 0, history = 50, log = () => {} } = options;
  const boot = randomBytes(3).toString('hex');
  const messages: ChatMessage[] = [];
  let guests = 0;

  const broadcast = (value: unknown) => {
    const frame = JSON.stringify(value);
    for (const client of room.clients) client.send(frame);
  };

  const room = new RestartableWsServer((socket: WebSocket, request) => {
    const requested = new URL(request.url ?? '/', 'ws://127.0.0.1').searchParams.get('name')?.trim();
    const name = requested ? requested.slice(0, 24) : `guest-${++guests}`;
    socket.send(JSON.stringify({ type: 'welcome', name, history: history > 0 ? messages.slice(-history) : [] }));
    broadcast({ type: 'presence', online: room.clients.size });
    log(`chat: ${name} joined (${room.clients.size} online)`);

    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const parsed = parse(String(data));
      if (parsed === 'ping') return socket.send('{"type":"pong"}');
      if (!parsed || parsed.text.length === 0) return;
      const message: ChatMessage = {
        type: 'message',
        id: `${boot}-${messages.length + 1}`,
        clientId: parsed.clientId,
        from: name,
        text: parsed.text.slice(0, MAX_TEXT),
        at: Date.now(),
      };
      messages.push(message);
      broadcast(message);
      log(`chat: ${name}: ${message.text}`);
    });
    socket.on('close', () => {
      if (!room.up) return;
      broadcast({ type: 'presence', online: room.clients.size });
      log(`chat: ${name} left (${room.clients.size} online)`);
    });
  }, wsPort);
  await room.start();

  const crash = async () => {
    if (!room.up) return;
    await room.crash();
    log('chat: server crashed (clients cut, port closed)');
  };
  const restart = async () => {
    await crash();
    await room.start();
    log(`chat: server back on ${room.url}`);
  };

  const status = () => ({ up: room.up, wsUrl: room.url, online: room.clients.size, messages: messages.length });
  const page = await startStaticServer({
    root: PAGE,
    port,
    config: () => ({ wsUrl: room.url }),
    routes: controlRoutes({ status, crash, restart }),
  });

  return {
    url: page.url,
    wsUrl: room.url,
    get up() {
      return room.up;
    },
    messages,
    get online() {
      return room.clients.size;
    },
    crash,
    restart,
    async stop() {
      await room.crash();
      await page.stop();
    },
  };
}
