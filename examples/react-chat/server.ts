/**
 * The React chat example's server: the chat server of `examples/chat/` (same protocol, same
 * crash/restart, same history), and a page server for the bundled React app on `port`.
 *
 * `startChatServer()` always serves its own page (`examples/chat/page/`), so this starts it with
 * a page port of 0 (a free port, unused here) and serves the React page itself:
 *
 * | path                         | what                                                   |
 * | ---------------------------- | ------------------------------------------------------ |
 * | `/`                          | `./page/index.html`                                    |
 * | `/app.js`, `/app.js.map`     | the app, bundled in memory at startup (`./build.ts`)   |
 * | `/style.css`                 | the chat example's stylesheet                          |
 * | `/config.json`               | `{ wsUrl }`: the chat server                           |
 * | `GET /api/status`, `POST /api/crash`, `POST /api/restart` | the outage controls       |
 *
 * It also counts the connections the chat server accepts (`joins`, by name, across restarts), read
 * from the chat server's log lines (`chat: <name> joined (<n> online)`), so a test can tell one
 * shared connection from several. Everything listens on 127.0.0.1 only.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { type ChatMessage, startChatServer } from '../chat/server.js';
import { controlRoutes, startStaticServer } from '../lib/static-server.js';
import { type AppBundle, bundleApp } from './build.js';

export interface ReactChatServerOptions {
  /** Port of the React page. @default 0 (a free port) */
  readonly port?: number;
  /** Port of the chat server. @default 0 (a free port) */
  readonly wsPort?: number;
  /** Messages sent to a client when it joins. @default 50 */
  readonly history?: number;
  /** Called with a line for every notable event. */
  readonly log?: (line: string) => void;
}

export interface ReactChatServer {
  /** The React page: `http://127.0.0.1:<port>/`. */
  readonly url: string;
  /** The chat server: `ws://127.0.0.1:<wsPort>/`. */
  readonly wsUrl: string;
  /** Whether the chat server is listening. */
  readonly up: boolean;
  /** Every message received, in order, across restarts. */
  readonly messages: readonly ChatMessage[];
  /** Clients connected now. */
  readonly online: number;
  /** The name of every connection the chat server accepted, in order, across restarts. */
  readonly joins: readonly string[];
  /** The name of every client that closed its connection while the server was up (not those cut by `crash()`). */
  readonly leaves: readonly string[];
  /** The size of the bundled app, in bytes. */
  readonly bundleBytes: number;
  /** Cuts every client abruptly (no close frame) and stops listening. */
  crash(): Promise<void>;
  /** Listens again on the same port (crashing first if it is up). */
  restart(): Promise<void>;
  /** Stops everything. */
  stop(): Promise<void>;
}

const PAGE = fileURLToPath(new URL('./page/', import.meta.url));
const STYLE = fileURLToPath(new URL('../chat/page/style.css', import.meta.url));
const JOINED = /^chat: (.*) joined \(\d+ online\)$/;
const LEFT = /^chat: (.*) left \(\d+ online\)$/;

/** The bundle, made once per process (the app's sources do not change while it runs). */
let bundle: Promise<AppBundle> | undefined;

function serve(response: ServerResponse, type: string, body: string | Buffer): void {
  response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
}

/** Bundles the app (once), then starts the chat server and the page server on 127.0.0.1. */
export async function startReactChatServer(options: ReactChatServerOptions = {}): Promise<ReactChatServer> {
  const { port = 0, wsPort = 0, history = 50, log = () => {} } = options;
  bundle ??= bundleApp();
  const app = await bundle.catch((error: unknown) => {
    bundle = undefined;
    throw error;
  });
  const joins: string[] = [];
  const leaves: string[] = [];
  const chat = await startChatServer({
    port: 0,
    wsPort,
    history,
    log: (line) => {
      const joined = JOINED.exec(line);
      if (joined?.[1] !== undefined) joins.push(joined[1]);
      const left = LEFT.exec(line);
      if (left?.[1] !== undefined) leaves.push(left[1]);
      log(line);
    },
  });

  const status = () => ({ up: chat.up, wsUrl: chat.wsUrl, online: chat.online, messages: chat.messages.length });
  let page: Awaited<ReturnType<typeof startStaticServer>>;
  try {
    page = await startStaticServer({
      root: PAGE,
      port,
      config: () => ({ wsUrl: chat.wsUrl }),
      routes: {
        'GET /app.js': (_request, response) => serve(response, 'text/javascript; charset=utf-8', app.js),
        'GET /app.js.map': (_request, response) => serve(response, 'application/json; charset=utf-8', app.map),
        'GET /style.css': async (_request, response) =>
          serve(response, 'text/css; charset=utf-8', await readFile(STYLE)),
        ...controlRoutes({ status, crash: () => chat.crash(), restart: () => chat.restart() }),
      },
    });
  } catch (error) {
    await chat.stop();
    throw error;
  }

  return {
    url: page.url,
    wsUrl: chat.wsUrl,
    get up() {
      return chat.up;
    },
    messages: chat.messages,
    get online() {
      return chat.online;
    },
    joins,
    leaves,
    bundleBytes: app.bytes,
    crash: () => chat.crash(),
    restart: () => chat.restart(),
    async stop() {
      await Promise.all([chat.stop(), page.stop()]);
    },
  };
}
