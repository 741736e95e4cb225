/**
 * A tiny static HTTP server for the browser examples and the browser tests: it serves one page
 * directory plus the library's browser build, so a page can load `resilient-socket` with an
 * import map and no bundler:
 *
 * ```html
 * <script type="importmap">
 *   { "imports": { "eventemitter3": "/vendor/eventemitter3/dist/eventemitter3.esm.js",
 *                  "resilient-socket": "/dist/index.js" } }
 * </script>
 * ```
 *
 * | path                    | served from                                   |
 * | ----------------------- | --------------------------------------------- |
 * | `/dist/…`               | the repository's `dist/` (`npm run build`)    |
 * | `/vendor/eventemitter3/…` | `node_modules/eventemitter3/`               |
 * | `/config.json`          | the `config` option, as JSON                  |
 * | `routes`                | extra handlers (e.g. `POST /api/crash`)       |
 * | anything else           | the page directory (a directory: its `index.html`) |
 *
 * (`eventemitter3`'s `index.mjs` re-exports its CommonJS `index.js`, which a browser cannot load;
 * its `dist/eventemitter3.esm.js` is a real ES module.) Files are sent with `Cache-Control:
 * no-store`, so a rebuilt `dist/` is picked up on reload. Listens on 127.0.0.1 only.
 */
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is `examples/lib/static-server.ts`). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** A handler for one `METHOD /path` (query string ignored when matching). */
export type Route = (request: IncomingMessage, response: ServerResponse, url: URL) => void | Promise<void>;

export interface StaticServerOptions {
  /** The page directory (absolute path); `/` serves its `index.html`. */
  readonly root: string;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** Served as `/config.json` (e.g. the WebSocket URL the page should use). */
  readonly config?: () => unknown;
  /** Extra handlers, keyed `'POST /api/crash'`. */
  readonly routes?: Readonly<Record<string, Route>>;
  /**
   * The `Cache-Control` header of every file. Chromium keeps no page served `no-store` in its
   * back/forward cache: a test of that cache serves its page with `''` (no header).
   * @default 'no-store'
   */
  readonly cacheControl?: string;
}

export interface StaticServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  readonly port: number;
  /** Stops listening and cuts open connections. */
  stop(): Promise<void>;
}

/** Mounts: URL prefix → directory. The page directory is the fallback. */
function mounts(root: string): [string, string][] {
  return [
    ['/dist/', join(REPO_ROOT, 'dist')],
    ['/vendor/eventemitter3/', join(REPO_ROOT, 'node_modules', 'eventemitter3')],
    ['/', root],
  ];
}

/** Maps a URL path to a file inside one of the mounts, or undefined (never outside them). */
function resolveFile(root: string, pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  for (const [prefix, dir] of mounts(root)) {
    if (!decoded.startsWith(prefix)) continue;
    const rest = decoded.slice(prefix.length) || 'index.html';
    const base = resolve(dir);
    const file = resolve(base, rest);
    return file.startsWith(base + sep) ? file : undefined;
  }
  return undefined;
}

function send(
  response: ServerResponse,
  status: number,
  body: string | Buffer,
  type = 'text/plain; charset=utf-8',
  cacheControl = 'no-store',
) {
  response.writeHead(status, { 'content-type': type, ...(cacheControl ? { 'cache-control': cacheControl } : {}) });
  response.end(body);
}

/** Starts the server on 127.0.0.1. */
export function startStaticServer(options: StaticServerOptions): Promise<StaticServer> {
  const { root, port = 0, config, routes = {}, cacheControl } = options;
  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, String(error));
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const route = routes[`${request.method} ${url.pathname}`];
    if (route) return route(request, response, url);
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(response, 405, 'method not allowed');
    if (url.pathname === '/config.json' && config) {
      return send(response, 200, JSON.stringify(config()), TYPES['.json']);
    }
    let file = resolveFile(root, url.pathname);
    if (!file) return send(response, 404, 'not found');
    try {
      // A directory is served by its index.html, as static hosts do (`/api/` → `/api/index.html`).
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      if (!(await stat(file)).isFile()) return send(response, 404, 'not found');
    } catch {
      return send(response, 404, 'not found');
    }
    send(response, 200, await readFile(file), TYPES[extname(file)] ?? 'application/octet-stream', cacheControl);
  }

  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const actual = (server.address() as AddressInfo).port;
      resolvePromise({
        url: `http://127.0.0.1:${actual}/`,
        port: actual,
        stop: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** Reads a small request body as text (for the control endpoints). */
export async function readBody(request: IncomingMessage, limit = 64 * 1024): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Answers with JSON. */
export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  send(response, status, JSON.stringify(value), TYPES['.json']);
}

/**
 * The outage controls both example servers offer: `GET /api/status`, `POST /api/crash` and
 * `POST /api/restart`, each answering with the status.
 */
export function controlRoutes(server: {
  status(): unknown;
  crash(): Promise<unknown>;
  restart(): Promise<unknown>;
}): Record<string, Route> {
  return {
    'GET /api/status': (_request, response) => sendJson(response, 200, server.status()),
    'POST /api/crash': async (_request, response) => {
      await server.crash();
      sendJson(response, 200, server.status());
    },
    'POST /api/restart': async (_request, response) => {
      await server.restart();
      sendJson(response, 200, server.status());
    },
  };
}
