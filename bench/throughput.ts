/**
 * Throughput overhead: M small messages through `ResilientSocket.send()` on an open connection,
 * against `ws`'s own `send()` on the same kind of connection, in the same run.
 *
 * Method: the server (bench/lib/count-server.mjs) runs in a child process and counts messages; a
 * run sends M messages of 32 bytes in a tight loop, then "END", and stops the clock when the
 * server answers with the count (which must equal M). Subjects alternate, R runs each, medians.
 */
import { WebSocket } from 'ws';
import { awaitCount, type MessageSource, startCountServer } from './lib/count-server.js';
import { isMain, loadPackage } from './lib/load.js';
import { alternate } from './lib/stats.js';

const { ResilientSocket } = await loadPackage();

const PAYLOAD = 'x'.repeat(32);

/**
 * One timed run: once `opened`, sends M messages and "END" through `client.send`, and stops the
 * clock when the server's count comes back; the count must be M.
 */
async function timedBurst(
  label: string,
  client: MessageSource & { send(data: string): unknown },
  opened: Promise<unknown>,
  messages: number,
): Promise<number> {
  await opened;
  const done = awaitCount(client);
  const started = performance.now();
  for (let i = 0; i < messages; i++) client.send(PAYLOAD);
  client.send('END');
  const count = await done;
  const elapsed = performance.now() - started;
  if (count !== messages) throw new Error(`${label}: server counted ${count} of ${messages}`);
  return elapsed;
}

async function rawRun(url: string, messages: number): Promise<number> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const opened = new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const elapsed = await timedBurst('raw ws', ws, opened, messages);
  ws.close();
  return elapsed;
}

async function oursRun(url: string, messages: number): Promise<number> {
  const socket = new ResilientSocket(url, { WebSocket, wsOptions: { perMessageDeflate: false } });
  const opened = new Promise((resolve) => socket.once('open', resolve));
  const elapsed = await timedBurst('resilient-socket', socket, opened, messages);
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
    const { raw: rawMs, ours: oursMs } = await alternate(
      { raw: (n) => rawRun(server.url, n), ours: (n) => oursRun(server.url, n) },
      { warmup: Math.min(messages, 10_000), size: messages, runs },
    );
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

if (isMain(import.meta.url)) {
  console.log(throughputTable(await throughput({ quick: process.argv.includes('--quick') })));
}
