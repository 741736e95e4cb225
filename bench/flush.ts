/**
 * Buffer flush: time to deliver Q messages queued while disconnected, once the connection opens,
 * against raw `ws` sending the same Q messages right after its `open`, in the same run.
 *
 * Method: server in a child process. resilient-socket: created with autoConnect false, Q sends
 * (all 'buffered'), then the clock starts and open() is called; it stops when the server reports
 * it counted Q messages. Raw ws: the clock starts at `new WebSocket()`, Q sends in the open
 * handler, same stop. Both include the connection set-up. R alternating runs, medians.
 */
import { WebSocket } from 'ws';
import { awaitCount, startCountServer } from './lib/count-server.js';
import { isMain, loadPackage } from './lib/load.js';
import { alternate } from './lib/stats.js';

const { ResilientSocket } = await loadPackage();

const PAYLOAD = 'x'.repeat(32);

async function raw(url: string, queued: number): Promise<number> {
  const started = performance.now();
  const ws = new WebSocket(url, { perMessageDeflate: false });
  ws.once('open', () => {
    for (let i = 0; i < queued; i++) ws.send(PAYLOAD);
    ws.send('END');
  });
  const count = await awaitCount(ws);
  const elapsed = performance.now() - started;
  if (count !== queued) throw new Error(`raw ws: ${count} of ${queued}`);
  ws.close();
  return elapsed;
}

async function ours(url: string, queued: number): Promise<number> {
  const socket = new ResilientSocket(url, {
    WebSocket,
    wsOptions: { perMessageDeflate: false },
    autoConnect: false,
    buffer: { maxMessages: queued + 1, maxBytes: Number.POSITIVE_INFINITY },
  });
  for (let i = 0; i < queued; i++) socket.send(PAYLOAD);
  socket.send('END');
  if (socket.bufferedCount !== queued + 1) throw new Error('not all messages were buffered');
  const count = awaitCount(socket);
  const started = performance.now();
  socket.open();
  const counted = await count;
  const elapsed = performance.now() - started;
  if (counted !== queued) throw new Error(`resilient-socket: ${counted} of ${queued}`);
  socket.close();
  return elapsed;
}

export interface FlushResult {
  readonly queued: number;
  readonly runs: number;
  readonly rawMs: number;
  readonly oursMs: number;
}

export async function flush({ quick = false } = {}): Promise<FlushResult> {
  const queued = quick ? 10_000 : 100_000;
  const runs = quick ? 1 : 5;
  const server = await startCountServer();
  try {
    const { raw: rawMs, ours: oursMs } = await alternate(
      { raw: (n) => raw(server.url, n), ours: (n) => ours(server.url, n) },
      { warmup: 5_000, size: queued, runs },
    );
    return { queued, runs, rawMs, oursMs };
  } finally {
    await server.stop();
  }
}

export function flushTable(r: FlushResult): string {
  return [
    `Buffer flush: ${r.queued.toLocaleString('en-US')} messages of 32 bytes queued while disconnected, delivered after open (connection set-up included), median of ${r.runs} alternating runs.`,
    '',
    '| subject | time to deliver all (ms) | vs raw ws |',
    '|---|---:|---:|',
    `| raw \`ws\`, sending in its open handler (baseline) | ${r.rawMs.toFixed(0)} | 1.00× |`,
    `| resilient-socket, flushing its buffer on open | ${r.oursMs.toFixed(0)} | ${(r.oursMs / r.rawMs).toFixed(2)}× the time |`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  console.log(flushTable(await flush({ quick: process.argv.includes('--quick') })));
}
