/**
 * Memory per connected client: K clients connected to one server, heap after GC, against K raw
 * `ws` clients in the same run.
 *
 * Method: the server runs in a child process, so the heap measured here holds only clients. For
 * each subject: wait until every client of the previous run has been collected (so none of its
 * garbage is freed during this measurement, which would read as a too-small figure), GC, read
 * heapUsed; open K clients and wait until all are open; GC, read heapUsed; the difference over K
 * is the per-client cost. Then close them all and go on with the next subject. Subjects
 * alternate, R runs each, medians.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { WebSocket } from 'ws';
import { startCountServer } from './lib/count-server.js';
import { loadPackage } from './lib/load.js';
import { median } from './lib/stats.js';

const { ResilientSocket } = await loadPackage();

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heap(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/** The clients of the previous run, held weakly: the next run starts once all are collected. */
let previous: WeakRef<object>[] = [];

/** Waits (bounded: 5 s) until every client of the previous run is garbage, then a short settle. */
async function collected(): Promise<void> {
  // deref() keeps a target alive until the current job ends: collect first, in a fresh job.
  const alive = () => previous.filter((ref) => ref.deref() !== undefined).length;
  let left = previous.length;
  for (let i = 0; i < 100 && left > 0; i++) {
    await settle();
    gc();
    left = alive();
  }
  if (left > 0) throw new Error(`bench/memory: ${left} clients of the previous run are still alive after 5 s`);
  previous = [];
  await settle();
}

async function measureRaw(url: string, clients: number): Promise<number> {
  await collected();
  const before = heap();
  const sockets = Array.from({ length: clients }, () => new WebSocket(url, { perMessageDeflate: false }));
  await Promise.all(sockets.map((ws) => new Promise((resolve) => ws.once('open', resolve))));
  const after = heap();
  previous = sockets.map((ws) => new WeakRef(ws));
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise((resolve) => {
          ws.once('close', resolve);
          ws.close();
        }),
    ),
  );
  return (after - before) / clients;
}

async function measureOurs(url: string, clients: number): Promise<number> {
  await collected();
  const before = heap();
  const sockets = Array.from(
    { length: clients },
    () => new ResilientSocket(url, { WebSocket, wsOptions: { perMessageDeflate: false } }),
  );
  await Promise.all(sockets.map((s) => new Promise((resolve) => s.once('open', resolve))));
  const after = heap();
  previous = sockets.map((s) => new WeakRef(s));
  await Promise.all(
    sockets.map(
      (s) =>
        new Promise((resolve) => {
          s.once('state', resolve);
          s.close();
        }),
    ),
  );
  return (after - before) / clients;
}

export interface MemoryResult {
  readonly clients: number;
  readonly runs: number;
  readonly rawBytes: number;
  readonly oursBytes: number;
  /** ours / raw bytes per client. */
  readonly ratio: number;
}

export async function memory({ quick = false } = {}): Promise<MemoryResult> {
  const clients = quick ? 100 : 1000;
  const runs = quick ? 1 : 5;
  const server = await startCountServer();
  try {
    await measureRaw(server.url, Math.min(clients, 100)); // warm-up: load code, JIT
    await measureOurs(server.url, Math.min(clients, 100));
    const raw: number[] = [];
    const ours: number[] = [];
    for (let i = 0; i < runs; i++) {
      raw.push(await measureRaw(server.url, clients));
      ours.push(await measureOurs(server.url, clients));
    }
    const rawBytes = median(raw);
    const oursBytes = median(ours);
    return { clients, runs, rawBytes, oursBytes, ratio: oursBytes / rawBytes };
  } finally {
    await server.stop();
  }
}

export function memoryTable(r: MemoryResult): string {
  const kib = (bytes: number) => (bytes / 1024).toFixed(1);
  return [
    `Memory: heap per connected client after GC, ${r.clients} clients, median of ${r.runs} alternating runs; server in a child process.`,
    '',
    '| subject | heap per client (KiB) | vs raw ws |',
    '|---|---:|---:|',
    `| raw \`ws\` (baseline) | ${kib(r.rawBytes)} | 1.00× |`,
    `| resilient-socket | ${kib(r.oursBytes)} | ${r.ratio.toFixed(2)}× (target ≤ 1.25×) |`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(memoryTable(await memory({ quick: process.argv.includes('--quick') })));
}
