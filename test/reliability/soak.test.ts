import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { ResilientSocket } from '../../src/node.js';
import type { WebSocketConstructorLike } from '../../src/transports/websocket-like.js';
import { isBound } from '../../src/transports/ws/binding.js';
import { startProxiedServer } from '../faults/index.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

// Case 10: a flapping server for a bounded soak. N clients connect through a proxy that goes down
// (all connections reset, port refused) and up on a schedule. Sampled over the run: live timers,
// listeners on the underlying sockets, and heap after GC. None may grow beyond noise, and after
// close() everything returns to the baseline.
//
// RS_SOAK_SECONDS (default 20) and RS_SOAK_CLIENTS (default 50) size it; CI uses the defaults,
// `RS_SOAK_SECONDS=60 npm run test:soak` runs the long version.

const SECONDS = Number(process.env.RS_SOAK_SECONDS ?? 20);
const CLIENTS = Number(process.env.RS_SOAK_CLIENTS ?? 50);
const EVENTS = ['open', 'message', 'close', 'error', 'pong', 'ping', 'unexpected-response', 'upgrade'] as const;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Every ws client instance created, so listeners left on them can be counted. */
const instances = new Set<WsWebSocket>();
class TrackingWs extends WsWebSocket {
  constructor(...args: ConstructorParameters<typeof WsWebSocket>) {
    super(...args);
    instances.add(this);
  }
}

function timers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

/**
 * What of ours is on the live sockets: listeners, and bindings (a natively bound ws socket reports
 * to us through its own emit, with no listener to count).
 */
function listenersOnLiveSockets(): number {
  let total = 0;
  for (const ws of instances) {
    if (ws.readyState === WsWebSocket.CLOSED) continue;
    for (const event of EVENTS) total += ws.listenerCount(event);
    if (isBound(ws)) total++;
  }
  return total;
}

/** Listeners and bindings found on sockets that had closed, summed over the run. */
let leftOnClosed = 0;
let closedSeen = 0;

/**
 * Checks every socket that has closed since the last sweep for listeners left behind, then
 * forgets it, so the test itself does not keep thousands of dead sockets alive (and the heap
 * figures measure the library, not the test).
 */
function sweepClosedSockets(): void {
  for (const ws of instances) {
    if (ws.readyState !== WsWebSocket.CLOSED) continue;
    for (const event of EVENTS) leftOnClosed += ws.listenerCount(event);
    if (isBound(ws)) leftOnClosed++;
    closedSeen++;
    instances.delete(ws);
  }
}

function heapMiB(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe(`flapping server soak (${CLIENTS} clients, ${SECONDS} s)`, () => {
  it('no growth in timers, listeners or heap; everything released after close()', {
    timeout: (SECONDS + 30) * 1000,
  }, async () => {
    const { server, proxy } = await startProxiedServer(cleanup);
    await sleep(0);
    const baselineTimers = timers();
    const baselineHeap = heapMiB();

    const sockets = Array.from({ length: CLIENTS }, (_, i) =>
      cleanup.add(
        new ResilientSocket(proxy.urlFor(`/?client=${i}`), {
          WebSocket: TrackingWs as unknown as WebSocketConstructorLike,
          maxDelay: 400,
          ceiling: 4,
          stableAfter: 300,
          heartbeat: { interval: 500, timeout: 500 },
        }),
        (s) => s.close(),
      ),
    );
    let delivered = 0;
    let dropped = 0;
    for (const socket of sockets) {
      socket.on('message', () => delivered++);
      socket.on('drop', ({ messages }) => {
        dropped += messages.length;
      });
      socket.on('error', () => undefined);
    }
    await waitFor(() => sockets.every((s) => s.state === 'open'), 5_000, 'all clients open');

    proxy.flap({ up: 700, down: 300 });
    const samples: { t: number; timers: number; listeners: number; heap: number }[] = [];
    const started = performance.now();
    let sent = 0;
    while (performance.now() - started < SECONDS * 1000) {
      for (const socket of sockets) {
        socket.send(`tick ${sent}`);
        sent++;
      }
      await sleep(250);
      sweepClosedSockets();
      // The test server records every upgrade, message and disconnect; forget them as we go so
      // the heap figures are the client's.
      server.upgrades.splice(0);
      server.disconnects.splice(0);
      server.received.splice(0);
      if (samples.length === 0 || performance.now() - (samples.at(-1)?.t ?? 0) > 1_000) {
        samples.push({ t: performance.now(), timers: timers(), listeners: listenersOnLiveSockets(), heap: heapMiB() });
      }
    }
    proxy.stopFlapping();
    await proxy.accept();
    await waitFor(() => sockets.every((s) => s.state === 'open'), 10_000, 'all clients back');

    // Compare the first and the last third of the run.
    const third = Math.max(1, Math.floor(samples.length / 3));
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const first = samples.slice(0, third);
    const last = samples.slice(-third);
    const report = {
      samples: samples.length,
      timers: [avg(first.map((s) => s.timers)), avg(last.map((s) => s.timers))],
      listeners: [avg(first.map((s) => s.listeners)), avg(last.map((s) => s.listeners))],
      heapMiB: [baselineHeap, avg(first.map((s) => s.heap)), avg(last.map((s) => s.heap))],
      heapSeries: samples.map((s) => Math.round(s.heap * 10) / 10),
      socketsClosed: closedSeen,
      socketsLive: instances.size,
      sent,
      delivered,
      dropped,
    };
    console.log('soak report', JSON.stringify(report));

    // Each client holds at most a handful of timers (reconnect or stable/heartbeat + buffer ttl):
    // the count is bounded by the client count, whatever the run length.
    expect(Math.max(...samples.map((s) => s.timers))).toBeLessThanOrEqual(baselineTimers + CLIENTS * 4 + 10);
    // No trend: the last third holds at most one more timer per client than the first (phases of
    // the flap make single samples noisy; a leak grows with every reconnect and would dwarf this).
    expect(report.timers[1]).toBeLessThanOrEqual((report.timers[0] ?? 0) + CLIENTS);
    // On live sockets: one binding per client at most (the current connection's), no listener.
    expect(Math.max(...samples.map((s) => s.listeners))).toBeLessThanOrEqual(CLIENTS);
    // Dead sockets keep no listeners of ours once closed.
    sweepClosedSockets();
    expect(leftOnClosed).toBe(0);
    // Heap: no trend beyond noise (20 % or 8 MiB, whichever is larger).
    const [, heapFirst = 0, heapLast = 0] = report.heapMiB;
    expect(heapLast - heapFirst).toBeLessThan(Math.max(8, heapFirst * 0.2));
    expect(dropped).toBe(0);

    for (const socket of sockets) socket.close();
    await waitFor(() => sockets.every((s) => s.state === 'closed'), 5_000, 'all closed');
    await waitFor(() => server.openClients === 0, 5_000, 'server sees every client gone');
    await sleep(50);
    expect(timers()).toBeLessThanOrEqual(baselineTimers);
    sweepClosedSockets();
    expect(instances.size).toBe(0);
    expect(leftOnClosed).toBe(0);
  });
});
