/**
 * A chat app bundled in memory (by esbuild), served next to the chat server of `examples/chat/`
 * (same protocol, crash/restart and history): what the framework chat examples
 * (`examples/react-chat/`, `examples/vue-chat/`) run on.
 *
 * `startChatServer()` always serves its own page, on a free port unused here; this serves the
 * app's page itself:
 *
 * | path                         | what                                                    |
 * | ---------------------------- | ------------------------------------------------------- |
 * | `/`                          | the app's `index.html` (from `page`)                    |
 * | `/app.js`, `/app.js.map`     | the bundle, made once per process                       |
 * | `/style.css`                 | the chat example's stylesheet                           |
 * | `/config.json`               | `{ wsUrl }`: the chat server                            |
 * | `GET /api/status`, `POST /api/crash`, `POST /api/restart` | the outage controls        |
 *
 * It counts the connections the chat server accepts and the ones that leave (by name, across
 * restarts), read from the chat server's log lines, so that a test can tell one shared connection
 * from several. Everything listens on 127.0.0.1 only.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { type ChatMessage, startChatServer } from '../chat/server.js';
import type { AppBundle } from './bundle-app.js';
import { controlRoutes, startStaticServer } from './static-server.js';

/** The options an example's server takes (its page and bundle are its own). */
export interface ChatAppServerOptions {
  /** Port of the page. @default 0 (a free port) */
  readonly port?: number;
  /** Port of the chat server. @default 0 (a free port) */
  readonly wsPort?: number;
  /** Messages sent to a client when it joins. @default 50 */
  readonly history?: number;
  /** Called with a line for every notable event. */
  readonly log?: (line: string) => void;
}

export interface BundledChatOptions extends ChatAppServerOptions {
  /** The folder of the app's `index.html`. */
  readonly page: string;
  /** Makes the bundle; called once per `bundle` function and process, again only after a failure. */
  readonly bundle: () => Promise<AppBundle>;
}

export interface BundledChatServer {
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

const STYLE = fileURLToPath(new URL('../chat/page/style.css', import.meta.url));
const JOINED = /^chat: (.*) joined \(\d+ online\)$/;
const LEFT = /^chat: (.*) left \(\d+ online\)$/;

/** One bundle per bundling function (the sources do not change while a process runs). */
const bundles = new Map<() => Promise<AppBundle>, Promise<AppBundle>>();

function serve(response: ServerResponse, type: string, body: string | Buffer): void {
  response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
}

/** Bundles the app (once), then starts the chat server and the page server on 127.0.0.1. */
export async function startBundledChatServer(options: BundledChatOptions): Promise<BundledChatServer> {
  const { page: root, bundle, port = 0, wsPort = 0, history = 50, log = () => {} } = options;
  const pending = bundles.get(bundle) ?? bundle();
  bundles.set(bundle, pending);
  const app = await pending.catch((error: unknown) => {
    bundles.delete(bundle);
    throw error;
  });
  const joins: string[] = [];
  const leaves: string[] = [];
  const chat = await startChatServer({
    port: 0,
    wsPort,
    history,
    log: (line) => {
      const joined = JOINED.exec(line)?.[1];
      if (joined !== undefined) joins.push(joined);
      const left = LEFT.exec(line)?.[1];
      if (left !== undefined) leaves.push(left);
      log(line);
    },
  });

  const status = () => ({ up: chat.up, wsUrl: chat.wsUrl, online: chat.online, messages: chat.messages.length });
  let page: Awaited<ReturnType<typeof startStaticServer>>;
  try {
    page = await startStaticServer({
      root,
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
