/**
 * Acknowledged delivery: what `sendReliable()` costs next to plain `send()`, in the same run.
 *
 * Method: the server (bench/lib/ack-server.mjs, written from docs/guide/protocol.md alone) runs in a
 * child process; it acknowledges each reliable message and counts plain messages and reliable ids
 * alike. One `ResilientSocket` with `delivery: delivery()` on `ws` without permessage-deflate.
 * - Throughput: M messages of 32 bytes. Plain: M `send()`s, then "END", clock stopped when the
 *   server's count comes back. Reliable: M `sendReliable()`s, clock stopped when every promise has
 *   resolved (every message acknowledged); then "END" checks the server counted each id once.
 *   Subjects alternate, R runs each, medians.
 * - Latency: L messages one after the other. Plain: a "PING" answered by "PONG" (a plain round
 *   trip); reliable: one `sendReliable()` awaited. Median and 99th percentile.
 * - Memory per pending message: P reliable messages sent to a server that never acknowledges them
 *   (path /silent), heap after GC before and after, over P; the same for P plain messages held in
 *   the outbound buffer of a socket that is not connected (the baseline: what a queued message costs
 *   anyway).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { WebSocket } from 'ws';
import type { ResilientSocket as Socket } from '../src/node.js';
import { awaitCount, startCountServer } from './lib/count-server.js';
import { isMain, loadPackage } from './lib/load.js';
import { alternate, median, percentile } from './lib/stats.js';

const { delivery, ResilientSocket } = await loadPackage();

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
function heap(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

const PAYLOAD = 'x'.repeat(32);

function connect(url: string): Promise<Socket> {
  const socket = new ResilientSocket(url, {
    WebSocket,
    wsOptions: { perMessageDeflate: false },
    delivery: delivery({ maxPending: 1_000_000 }),
    buffer: { maxMessages: 1_000_000, maxBytes: 1_000_000_000 },
  });
  return new Promise((resolve) => socket.once('open', () => resolve(socket)));
}

async function plainBurst(socket: Socket, messages: number): Promise<number> {
  const done = awaitCount(socket);
  const started = performance.now();
  for (let i = 0; i < messages; i++) socket.send(PAYLOAD);
  socket.send('END');
  const count = await done;
  const elapsed = performance.now() - started;
  if (count !== messages) throw new Error(`plain: the server counted ${count} of ${messages}`);
  return elapsed;
}

async function reliableBurst(socket: Socket, messages: number): Promise<number> {
  const started = performance.now();
  const acked: Promise<void>[] = [];
  for (let i = 0; i < messages; i++) acked.push(socket.sendReliable(PAYLOAD));
  await Promise.all(acked);
  const elapsed = performance.now() - started;
  const done = awaitCount(socket);
  socket.send('END');
  const count = await done;
  if (count !== messages) throw new Error(`reliable: the server counted ${count} of ${messages}`);
  return elapsed;
}

function nextPong(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const listener = (data: unknown) => {
      if (String(data) !== 'PONG') return;
      socket.off('message', listener);
      resolve();
    };
    socket.on('message', listener);
  });
}

async function latencies(socket: Socket, count: number, reliable: boolean): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    if (reliable) await socket.sendReliable(PAYLOAD);
    else {
      const pong = nextPong(socket);
      socket.send('PING');
      await pong;
    }
    samples.push(performance.now() - started);
  }
  return samples;
}

/** Bytes of heap per reliable message pending at a server that never acknowledges. */
async function pendingCost(url: string, count: number): Promise<number> {
  const socket = await connect(`${url}/silent`);
  socket.on('drop', () => undefined); // the close below gives them up, on purpose
  const before = heap();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) pending.push(socket.sendReliable(PAYLOAD).catch(() => undefined));
  // Everything written (the server answers "END" after it read every message before it).
  const done = awaitCount(socket);
  socket.send('END');
  await done;
  const after = heap();
  socket.close();
  await Promise.all(pending); // each rejects (delivery stopped) and is caught above
  return (after - before) / count;
}

/** Bytes of heap per plain message held in the outbound buffer of a socket not yet connected. */
function queuedCost(url: string, count: number): number {
  const socket = new ResilientSocket(url, {
    WebSocket,
    autoConnect: false,
    buffer: { maxMessages: 1_000_000, maxBytes: 1_000_000_000 },
  });
  socket.on('drop', () => undefined);
  const before = heap();
  for (let i = 0; i < count; i++) socket.send(PAYLOAD);
  const after = heap();
  socket.close();
  return (after - before) / count;
}

export interface DeliveryResult {
  readonly messages: number;
  readonly runs: number;
  readonly plainMs: number;
  readonly reliableMs: number;
  readonly ratio: number;
  readonly roundTrips: number;
  readonly plainLatency: readonly [number, number];
  readonly reliableLatency: readonly [number, number];
  readonly pending: number;
  readonly pendingBytes: number;
  readonly queuedBytes: number;
}

export async function deliveryBench({ quick = false } = {}): Promise<DeliveryResult> {
  const messages = quick ? 5_000 : 50_000;
  const runs = quick ? 2 : 7;
  const roundTrips = quick ? 200 : 2_000;
  const pending = quick ? 2_000 : 20_000;
  const server = await startCountServer('ack-server.mjs');
  try {
    const socket = await connect(server.url);
    const { plain: plainMs, reliable: reliableMs } = await alternate(
      { plain: (n) => plainBurst(socket, n), reliable: (n) => reliableBurst(socket, n) },
      { warmup: Math.min(messages, 5_000), size: messages, runs },
    );
    await latencies(socket, Math.min(roundTrips, 200), false); // warm-up
    await latencies(socket, Math.min(roundTrips, 200), true);
    const plainSamples = await latencies(socket, roundTrips, false);
    const reliableSamples = await latencies(socket, roundTrips, true);
    socket.close();
    const pendingBytes = await pendingCost(server.url, pending);
    const queuedBytes = queuedCost(server.url, pending);
    return {
      messages,
      runs,
      plainMs,
      reliableMs,
      ratio: plainMs / reliableMs,
      roundTrips,
      plainLatency: [median(plainSamples), percentile(plainSamples, 99)],
      reliableLatency: [median(reliableSamples), percentile(reliableSamples, 99)],
      pending,
      pendingBytes,
      queuedBytes,
    };
  } finally {
    await server.stop();
  }
}

export function deliveryTable(r: DeliveryResult): string {
  const rate = (ms: number) => Math.round(r.messages / (ms / 1000)).toLocaleString('en-US');
  const ms = (v: number) => v.toFixed(3);
  return [
    `Acknowledged delivery: ${r.messages.toLocaleString('en-US')} messages of 32 bytes on one open connection, median of ${r.runs} alternating runs (reliable: until every message is acknowledged); latency over ${r.roundTrips.toLocaleString('en-US')} sequential messages; server in a child process, written from docs/guide/protocol.md.`,
    '',
    '| subject | time (ms) | messages/s | throughput vs plain | latency median (ms) | latency p99 (ms) |',
    '|---|---:|---:|---:|---:|---:|',
    `| plain \`send()\` (baseline; latency: a PING/PONG round trip) | ${r.plainMs.toFixed(0)} | ${rate(r.plainMs)} | 1.00× | ${ms(r.plainLatency[0])} | ${ms(r.plainLatency[1])} |`,
    `| \`sendReliable()\` | ${r.reliableMs.toFixed(0)} | ${rate(r.reliableMs)} | ${r.ratio.toFixed(2)}× (aim ≥ 0.5×) | ${ms(r.reliableLatency[0])} | ${ms(r.reliableLatency[1])} |`,
    '',
    `Memory: ${r.pending.toLocaleString('en-US')} reliable messages pending (never acknowledged) cost ${Math.round(r.pendingBytes)} bytes of heap each; a plain message waiting in the outbound buffer costs ${Math.round(r.queuedBytes)} bytes (heap after GC, same run).`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  console.log(deliveryTable(await deliveryBench({ quick: process.argv.includes('--quick') })));
}
