/**
 * Throughput overhead: M small messages through `ResilientSocket.send()` on an open connection,
 * against `ws`'s own `send()` on the same kind of connection, in the same run.
 *
 * Method: the server (bench/lib/count-server.mjs) runs in a child process and counts messages; a
 * run sends M messages of 32 bytes in a tight loop, then "END", and stops the clock when the
 * server answers with the count (which must equal M). Subjects alternate, R runs each, medians.
 */
import { WebSocket } from 'ws';
import { startCountServer } from './lib/count-server.js';
import { loadPackage } from './lib/load.js';
import { median } from './lib/stats.js';

const { ResilientSocket } = await loadPackage();

const PAYLOAD = 'x'.repeat(32);

function awaitCount(onMessage: (listener: (data: unknown) => void) => () => void): Promise<number> {
  return new Promise((resolve) => {
    const off = onMessage((data) => {
      const text = String(data);
      if (!text.startsWith('COUNT ')) return;
      off();
      resolve(Number(text.slice(6)));
    });
  });
}

async function rawRun(url: string, messages: number): Promise<number> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const done = awaitCount((listener) => {
    ws.on('message', listener);
    return () => ws.off('message', listener);
  });
  const started = performance.now();
  for (let i = 0; i < messages; i++) ws.send(PAYLOAD);
  ws.send('END');
  const count = await done;
  const elapsed = performance.now() - started;
  if (count !== messages) throw new Error(`raw ws: server counted ${count} of ${messages}`);
  ws.close();
  return elapsed;
}

async function oursRun(url: string, messages: number): Promise<number> {
  const socket = new ResilientSocket(url, { WebSocket, wsOptions: { perMessageDeflate: false } });
  await new Promise((resolve) => socket.once('open', resolve));
  const done = awaitCount((listener) => {
    socket.on('message', listener);
    return () => socket.off('message', listener);
  });
  const started = performance.now();
  for (let i = 0; i < messages; i++) socket.send(PAYLOAD);
  socket.send('END');
  const count = await done;
  const elapsed = performance.now() - started;
  if (count !== messages) throw new Error(`resilient-socket: server counted ${count} of ${messages}`);
  socket.close();
  return elapsed;
}

export interface ThroughputResult {
  readonly messages: number;
  readonly runs: number;
  readonly rawMs: number;
  readonly oursMs: number;
  /** ours / raw throughput (1 = same speed). */
  readonly ratio: number;
}

export async function throughput({ quick = false } = {}): Promise<ThroughputResult> {
  const messages = quick ? 20_000 : 200_000;
  const runs = quick ? 2 : 7;
  const server = await startCountServer();
  try {
    await rawRun(server.url, Math.min(messages, 10_000)); // warm-up (JIT, sockets)
    await oursRun(server.url, Math.min(messages, 10_000));
    const raw: number[] = [];
    const ours: number[] = [];
    for (let i = 0; i < runs; i++) {
      raw.push(await rawRun(server.url, messages));
      ours.push(await oursRun(server.url, messages));
    }
    const rawMs = median(raw);
    const oursMs = median(ours);
    return { messages, runs, rawMs, oursMs, ratio: rawMs / oursMs };
  } finally {
    await server.stop();
  }
}

export function throughputTable(r: ThroughputResult): string {
  const rate = (ms: number) => Math.round(r.messages / (ms / 1000)).toLocaleString('en-US');
  return [
    `Throughput: ${r.messages.toLocaleString('en-US')} messages of 32 bytes on an open connection, median of ${r.runs} alternating runs; server in a child process.`,
    '',
    '| subject | time (ms) | messages/s | throughput vs raw ws |',
    '|---|---:|---:|---:|',
    `| raw \`ws\` (baseline) | ${r.rawMs.toFixed(0)} | ${rate(r.rawMs)} | 1.00× |`,
    `| resilient-socket | ${r.oursMs.toFixed(0)} | ${rate(r.oursMs)} | ${r.ratio.toFixed(2)}× (target ≥ 0.95×) |`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(throughputTable(await throughput({ quick: process.argv.includes('--quick') })));
}
