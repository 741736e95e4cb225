/**
 * The dashboard example's server: a `ws` feed that pushes metrics to every client, and an HTTP
 * server for the page (with the library's browser build) and a few control endpoints to simulate
 * outages. The two listen on separate ports so the feed can crash while the page stays reachable.
 *
 * Feed messages (JSON): `{ type: 'metrics', seq, at, cpu, rps, latency, clients }`, every
 * `intervalMs`. `seq` keeps counting across feed restarts, so a reconnected page shows the gap.
 *
 * Control endpoints (also used by the page's buttons): `POST /api/crash`, `POST /api/restart`,
 * `POST /api/outage?ms=5000` (crash, restart `ms` later), `GET /api/status`.
 */
import { fileURLToPath } from 'node:url';
import { RestartableWsServer } from '../lib/restartable-ws.js';
import { controlRoutes, sendJson, startStaticServer } from '../lib/static-server.js';

export interface DashboardServerOptions {
  /** Port of the page server. @default 0 (a free port) */
  readonly port?: number;
  /** Port of the metrics feed. @default 0 (a free port) */
  readonly wsPort?: number;
  /** Time between two pushes, in ms. @default 400 */
  readonly intervalMs?: number;
  /** Called with a line for every notable event (crash, restart, connections). */
  readonly log?: (line: string) => void;
}

export interface DashboardServer {
  /** The page: `http://127.0.0.1:<port>/`. */
  readonly url: string;
  /** The feed: `ws://127.0.0.1:<wsPort>/`. */
  readonly wsUrl: string;
  /** Whether the feed is listening. */
  readonly up: boolean;
  /** Metrics pushed so far (the last `seq`). */
  readonly seq: number;
  /** Cuts every feed client abruptly and stops listening (until `restart()`). */
  crash(): Promise<void>;
  /** Listens again on the same port, after a crash if it is up (cancels a pending outage's restart). */
  restart(): Promise<void>;
  /** Crashes now and restarts `ms` later. */
  outage(ms: number): Promise<void>;
  /** Stops everything. */
  stop(): Promise<void>;
}

const PAGE = fileURLToPath(new URL('./page/', import.meta.url));

/** A value that wanders inside [min, max]. */
function walk(value: number, step: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value + (Math.random() - 0.5) * 2 * step));
}

export async function startDashboardServer(options: DashboardServerOptions = {}): Promise<DashboardServer> {
  const { port = 0, wsPort = 0, intervalMs = 400, log = () => {} } = options;
  const feed = new RestartableWsServer((socket) => {
    log(`feed: client connected (${feed.clients.size} connected)`);
    socket.on('close', () => log(`feed: client left (${feed.clients.size} connected)`));
  }, wsPort);
  await feed.start();

  let seq = 0;
  let cpu = 35;
  let rps = 1200;
  let latency = 40;
  const pusher = setInterval(() => {
    if (!feed.up) return;
    seq += 1;
    cpu = walk(cpu, 6, 2, 98);
    rps = walk(rps, 120, 100, 5000);
    latency = walk(latency, 5, 5, 400);
    const message = JSON.stringify({
      type: 'metrics',
      seq,
      at: Date.now(),
      cpu: Math.round(cpu * 10) / 10,
      rps: Math.round(rps),
      latency: Math.round(latency),
      clients: feed.clients.size,
    });
    for (const client of feed.clients) client.send(message);
  }, intervalMs);

  let pendingRestart: NodeJS.Timeout | undefined;
  const cancelRestart = () => {
    clearTimeout(pendingRestart);
    pendingRestart = undefined;
  };
  const crash = async () => {
    cancelRestart();
    if (!feed.up) return;
    await feed.crash();
    log('feed: crashed (clients cut, port closed)');
  };
  const restart = async () => {
    await crash();
    await feed.start();
    log(`feed: back on ${feed.url}`);
  };
  const outage = async (ms: number) => {
    await crash();
    log(`feed: restarting in ${ms} ms`);
    pendingRestart = setTimeout(() => {
      pendingRestart = undefined;
      restart().catch((error: unknown) => log(`feed: restart failed: ${String(error)}`));
    }, ms);
  };

  const status = () => ({ up: feed.up, wsUrl: feed.url, seq, clients: feed.clients.size });
  const page = await startStaticServer({
    root: PAGE,
    port,
    config: () => ({ wsUrl: feed.url }),
    routes: {
      ...controlRoutes({ status, crash, restart }),
      'POST /api/outage': async (_request, response, url) => {
        const ms = Number(url.searchParams.get('ms') ?? 5_000);
        if (!Number.isFinite(ms) || ms < 0 || ms > 600_000) return sendJson(response, 400, { error: 'bad ms' });
        await outage(ms);
        sendJson(response, 200, status());
      },
    },
  });

  return {
    url: page.url,
    wsUrl: feed.url,
    get up() {
      return feed.up;
    },
    get seq() {
      return seq;
    },
    crash,
    restart,
    outage,
    async stop() {
      cancelRestart();
      clearInterval(pusher);
      await feed.crash();
      await page.stop();
    },
  };
}
