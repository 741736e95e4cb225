/**
 * The shared-tabs example's server: a `ws` server that counts the connections it accepts and
 * tells every client how many are open (so a page opened in several tabs can show that they share
 * ONE connection), broadcasts every line it receives, and an HTTP server for the page (with the
 * library's browser build). They listen on separate ports so the ws server can crash and come back
 * while the page stays reachable.
 *
 * Protocol (JSON text frames):
 * - server → the new client on connect: `{ type: 'welcome', connection }` (its number, from 1);
 * - server → everyone on connect/close: `{ type: 'connections', open, accepted }`;
 * - client → server: `{ type: 'count' }`, answered by sending everyone the `connections` frame;
 * - client → server: `{ type: 'say', tab, text }` (`tab` names the browser tab that typed it: the
 *   server cannot tell tabs apart, they all use the one connection), or any other text frame, taken
 *   as the text itself;
 * - server → everyone: `{ type: 'message', n, connection, tab, text, at }`.
 *
 * Everything listens on 127.0.0.1 only.
 */
import { fileURLToPath } from 'node:url';
import type { WebSocket } from 'ws';
import { RestartableWsServer } from '../lib/restartable-ws.js';
import { controlRoutes, startStaticServer } from '../lib/static-server.js';

export interface SharedTabsServerOptions {
  /** Port of the page server. @default 0 (a free port) */
  readonly port?: number;
  /** Port of the ws server. @default 0 (a free port) */
  readonly wsPort?: number;
  /** Called with a line for every notable event. */
  readonly log?: (line: string) => void;
}

/** A line the server received. */
export interface Said {
  readonly n: number;
  /** The connection it came on (numbered from 1, across restarts). */
  readonly connection: number;
  /** The tab that typed it, as the page said (null for plain text). */
  readonly tab: string | null;
  readonly text: string;
}

export interface SharedTabsServer {
  /** The page: `http://127.0.0.1:<port>/`. */
  readonly url: string;
  /** The ws server: `ws://127.0.0.1:<wsPort>/`. */
  readonly wsUrl: string;
  /** Whether the ws server is listening. */
  readonly up: boolean;
  /** Connections accepted since the start, across restarts. */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  /** Every line received, in order. */
  readonly said: readonly Said[];
  /** Cuts every client abruptly (no close frame) and stops listening. */
  crash(): Promise<void>;
  /** Listens again on the same port (crashing first if it is up). */
  restart(): Promise<void>;
  /** Stops everything. */
  stop(): Promise<void>;
}

const PAGE = fileURLToPath(new URL('./page/', import.meta.url));
const MAX_TEXT = 2_000;

/** The tab and text of a client frame, or 'count'. */
function parse(raw: string): { tab: string | null; text: string } | 'count' {
  try {
    const frame = JSON.parse(raw) as { type?: unknown; tab?: unknown; text?: unknown } | null;
    if (frame?.type === 'count') return 'count';
    if (frame?.type === 'say' && typeof frame.text === 'string') {
      return { tab: typeof frame.tab === 'string' ? frame.tab.slice(0, 32) : null, text: frame.text };
    }
  } catch {
    // plain text
  }
  return { tab: null, text: raw };
}

export async function startSharedTabsServer(options: SharedTabsServerOptions = {}): Promise<SharedTabsServer> {
  const { port = 0, wsPort = 0, log = () => {} } = options;
  const said: Said[] = [];
  let accepted = 0;

  const broadcast = (value: unknown) => {
    const frame = JSON.stringify(value);
    for (const client of ws.clients) client.send(frame);
  };
  const counts = () => ({ type: 'connections', open: ws.clients.size, accepted });

  const ws = new RestartableWsServer((socket: WebSocket) => {
    const connection = ++accepted;
    socket.send(JSON.stringify({ type: 'welcome', connection }));
    broadcast(counts());
    log(`shared: connection #${connection} opened (${ws.clients.size} open, ${accepted} accepted)`);

    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const parsed = parse(String(data));
      if (parsed === 'count') return broadcast(counts());
      const { tab, text } = parsed;
      if (text.length === 0) return;
      const line: Said = { n: said.length + 1, connection, tab, text: text.slice(0, MAX_TEXT) };
      said.push(line);
      broadcast({ type: 'message', ...line, at: Date.now() });
      log(`shared: #${connection} tab ${tab ?? '-'}: ${line.text}`);
    });
    socket.on('close', (code) => {
      if (!ws.up) return;
      broadcast(counts());
      log(`shared: connection #${connection} closed (${code}; ${ws.clients.size} open)`);
    });
  }, wsPort);
  await ws.start();

  const crash = async () => {
    if (!ws.up) return;
    await ws.crash();
    log('shared: server crashed (clients cut, port closed)');
  };
  const restart = async () => {
    await crash();
    await ws.start();
    log(`shared: server back on ${ws.url}`);
  };

  const status = () => ({ up: ws.up, wsUrl: ws.url, open: ws.clients.size, accepted, said: said.length });
  const page = await startStaticServer({
    root: PAGE,
    port,
    config: () => ({ wsUrl: ws.url }),
    routes: controlRoutes({ status, crash, restart }),
  });

  return {
    url: page.url,
    wsUrl: ws.url,
    get up() {
      return ws.up;
    },
    get accepted() {
      return accepted;
    },
    get open() {
      return ws.clients.size;
    },
    said,
    crash,
    restart,
    async stop() {
      await ws.crash();
      await page.stop();
    },
  };
}
