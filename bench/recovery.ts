/**
 * Measures how fast a ResilientSocket recovers from each fault of the reliability matrix, against
 * a real ws server (and a TCP fault proxy) on 127.0.0.1. Each scenario runs REPS times (default 5);
 * the table shows the median and the maximum, in ms, of the time from the moment the fault ends
 * (or starts, where noted) to the next `open`.
 *
 *   npm run bench:recovery            # RECOVERY_REPS=5
 *
 * Settings used by every scenario: the default backoff (T = 10 s, N = 10), heartbeat
 * { interval: 1000, timeout: 1000 }, connectTimeout 1000, stableAfter 1000.
 */

import { type Behaviour, ECHO, TestWsServer } from '../test/faults/index.js';
import { FaultProxy } from '../test/faults/tcp-proxy.js';
import { loadPackage } from './lib/load.js';

const { ResilientSocket } = await loadPackage();

const REPS = Number(process.env.RECOVERY_REPS ?? 5);
const OPTIONS = { heartbeat: { interval: 1_000, timeout: 1_000 }, connectTimeout: 1_000, stableAfter: 1_000 } as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(predicate: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(2);
  }
}
function nextOpen(socket: InstanceType<typeof ResilientSocket>): Promise<number> {
  return new Promise((resolve) => socket.once('open', () => resolve(performance.now())));
}

interface Result {
  /** ms from the reference moment to the next open. */
  readonly recovery: number;
  /** Attempts the client made during the scenario. */
  readonly attempts: number;
  /** Buffered messages delivered / sent during the outage. */
  readonly delivered?: string;
}

interface Scenario {
  readonly fault: string;
  readonly reference: string;
  readonly behaviour: string;
  run(): Promise<Result>;
}

/** Starts a server (and a proxy in front of it) and an open socket through the proxy. */
async function rig(behaviour: Behaviour = ECHO) {
  const server = new TestWsServer(behaviour);
  await server.start();
  const proxy = new FaultProxy(() => server.port);
  await proxy.start();
  const socket = new ResilientSocket(proxy.url, OPTIONS);
  socket.on('error', () => undefined);
  await until(() => socket.state === 'open', 5_000, 'first open');
  const done = async () => {
    socket.close();
    await proxy.stop();
    await server.stop();
  };
  return { server, proxy, socket, done };
}

/**
 * The common shape of a fault injected into a stable, open connection: wait until the backoff has
 * reset, inject the fault, and time it to the next `open`.
 */
async function faultWhileStable(inject: (r: Awaited<ReturnType<typeof rig>>) => void | Promise<void>): Promise<Result> {
  const r = await rig();
  await sleep(OPTIONS.stableAfter + 50); // stable, so the failure count starts from 0
  const attemptsBefore = r.socket.stats.attempts;
  const opened = nextOpen(r.socket);
  const at0 = performance.now();
  await inject(r);
  const result = { recovery: (await opened) - at0, attempts: r.socket.stats.attempts - attemptsBefore };
  await r.done();
  return result;
}

/** The server refuses the first upgrade with `refusal`, then accepts; timed from the refusal to `open`. */
async function refusedOnce(
  refusal: Extract<Behaviour, { kind: 'refuse' }>,
  url: (server: TestWsServer) => string | (() => string),
): Promise<Result> {
  let refused = false;
  const server = new TestWsServer(() => (refused ? ECHO : refusal));
  await server.start();
  let at0 = 0;
  const socket = new ResilientSocket(url(server), OPTIONS);
  socket.on('error', (error) => {
    if (error.status === refusal.status) {
      refused = true;
      at0 = performance.now();
    }
  });
  const at = await nextOpen(socket);
  socket.close();
  await server.stop();
  return { recovery: at - at0, attempts: socket.stats.attempts };
}

const scenarios: Scenario[] = [
  {
    fault: 'server restart (down 2 s), 100 messages sent while down',
    reference: 'server back up',
    behaviour: 'backs off (truncated binary exponential), buffers, flushes in order on open',
    async run() {
      const { server, socket, done } = await rig();
      const attemptsBefore = socket.stats.attempts;
      await server.stop();
      // Send once the client has noticed the outage: before that, send() writes to a connection
      // that is already dead (lost in flight, the limit no client can remove without app-level acks).
      await until(() => socket.state !== 'open', 2_000, 'the client noticing the outage');
      for (let i = 0; i < 100; i++) socket.send(`m${i}`);
      await sleep(2_000);
      const opened = nextOpen(socket);
      await server.start();
      const up = performance.now();
      const at = await opened;
      await until(() => server.received.length >= 100, 2_000, 'delivery');
      const inOrder = server.received.slice(-100).every((m, i) => m === `m${i}`);
      const result = {
        recovery: at - up,
        attempts: socket.stats.attempts - attemptsBefore,
        delivered: `${server.received.length}/100${inOrder ? ' in order' : ' OUT OF ORDER'}`,
      };
      await done();
      return result;
    },
  },
  {
    fault: 'connection reset (RST) while open',
    reference: 'the reset',
    behaviour: 'close 1006, reconnects in the first window (≈ 0–19.5 ms)',
    run: () => faultWhileStable(({ proxy }) => proxy.reset()),
  },
  {
    fault: 'blackhole while open (half-open link)',
    reference: 'the blackhole starts (link restored at detection)',
    behaviour: 'heartbeat: no pong within timeout → close 1006 "heartbeat timeout", reconnect',
    run: () =>
      faultWhileStable(({ proxy, socket }) => {
        socket.once('close', () => proxy.restore());
        proxy.blackhole('both');
      }),
  },
  {
    fault: 'blackhole while connecting',
    reference: 'the attempt starts (link restored at the timeout)',
    behaviour: 'connectTimeout abandons the attempt (ERR_RS_CONNECT_TIMEOUT), retries',
    async run() {
      const server = new TestWsServer(ECHO);
      await server.start();
      const proxy = new FaultProxy(() => server.port);
      await proxy.start();
      proxy.blackhole('both');
      const at0 = performance.now();
      const socket = new ResilientSocket(proxy.url, OPTIONS);
      socket.on('error', (error) => {
        if (error.code === 'ERR_RS_CONNECT_TIMEOUT') proxy.restore();
      });
      const at = await nextOpen(socket);
      const result = { recovery: at - at0, attempts: socket.stats.attempts };
      socket.close();
      await proxy.stop();
      await server.stop();
      return result;
    },
  },
  {
    fault: 'server accepts then closes at once (1011), for 3 s',
    reference: 'the server accepts normally again',
    behaviour: 'no stable reset: delays keep growing instead of a tight loop',
    async run() {
      const server = new TestWsServer({ kind: 'accept-then-close', code: 1011 });
      await server.start();
      const socket = new ResilientSocket(server.url, OPTIONS);
      socket.on('error', () => undefined);
      await sleep(3_000);
      const attempts = socket.stats.attempts;
      const opened = nextOpen(socket);
      server.behaviour = ECHO;
      const at0 = performance.now();
      const at = await opened;
      socket.close();
      await server.stop();
      return { recovery: at - at0, attempts };
    },
  },
  {
    fault: 'server closes with 1012 (service restart)',
    reference: 'the close frame',
    behaviour: 'reconnects (1012 is retryable) in the first window',
    run: () => faultWhileStable(({ server }) => server.closeAll(1012, 'restart')),
  },
  {
    fault: 'upgrade refused 401 once (token expired)',
    reference: 'the refusal',
    behaviour: 'retries at once with a fresh URL from the provider',
    run: () => refusedOnce({ kind: 'refuse', status: 401 }, (server) => () => server.urlFor(`/?token=${Date.now()}`)),
  },
  {
    fault: 'upgrade refused 503 with Retry-After: 1',
    reference: 'the refusal',
    behaviour: 'waits at least Retry-After, then connects',
    run: () => refusedOnce({ kind: 'refuse', status: 503, retryAfter: 1 }, (server) => server.url),
  },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

console.log(`Recovery times, ${REPS} runs each, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}\n`);
console.log(
  '| fault | measured from | what the client does | recovery median (ms) | max (ms) | attempts (median) | buffered messages |',
);
console.log('|---|---|---|---:|---:|---:|---|');
for (const scenario of scenarios) {
  const results: Result[] = [];
  for (let i = 0; i < REPS; i++) results.push(await scenario.run());
  const recoveries = results.map((r) => r.recovery);
  const delivered = results.map((r) => r.delivered).filter(Boolean);
  console.log(
    `| ${scenario.fault} | ${scenario.reference} | ${scenario.behaviour} | ${median(recoveries).toFixed(0)} | ${Math.max(...recoveries).toFixed(0)} | ${median(results.map((r) => r.attempts))} | ${delivered.length ? [...new Set(delivered)].join(', ') : '—'} |`,
  );
}
