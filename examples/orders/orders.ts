/**
 * Orders over a link that keeps failing, delivered exactly once each way: a client sends orders
 * with `sendReliable()`, a `ReliableServer` processes each once and answers each with a receipt
 * sent reliably too. Meanwhile the server crashes and comes back every 100–250 ms (every client cut
 * without a close frame) and loses a share of the acknowledgements it sends.
 *
 * What it shows: every `sendReliable()` promise settles (resolves here: nothing gives up), the
 * server processes each order once, in order, and the client sees each receipt once, in order,
 * however often the network made either side send a message again.
 */
import { EventEmitter } from 'node:events';
import { constant, delivery, ResilientSocket } from 'resilient-socket';
import { ReliableServer } from 'resilient-socket/server';
import type { WebSocket } from 'ws';
import { RestartableWsServer } from '../lib/restartable-ws.js';

export interface OrdersOptions {
  /** Orders the client sends. @default 300 */
  readonly orders?: number;
  /** The share of the server's acknowledgements lost on the way. @default 0.25 */
  readonly ackLoss?: number;
  /** The server is up for a random time in this range (ms), then crashes. @default [100, 250] */
  readonly uptime?: readonly [number, number];
  /** A seed for the random choices (which acks are lost, how long the server stays up). @default 1 */
  readonly seed?: number;
  /** Told about every notable event. */
  readonly log?: (line: string) => void;
}

export interface OrdersResult {
  /** Order numbers in the order the server processed them. */
  readonly processed: readonly number[];
  /** Receipt numbers in the order the client received them. */
  readonly receipts: readonly number[];
  /** How many `sendReliable()` promises resolved / rejected (client side). */
  readonly resolved: number;
  readonly rejected: number;
  /** How many receipt promises resolved / rejected (server side). */
  readonly receiptsResolved: number;
  readonly receiptsRejected: number;
  /** Server crashes during the run. */
  readonly crashes: number;
  /** Acknowledgements the server sent that were lost on purpose. */
  readonly acksLost: number;
  /** Reliable messages the client sent again (`socket.stats.delivery.resent`). */
  readonly resent: number;
  readonly ms: number;
}

/** A small seeded generator (mulberry32), so a run can be repeated. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export async function runOrders(options: OrdersOptions = {}): Promise<OrdersResult> {
  const { orders = 300, ackLoss = 0.25, uptime = [100, 250], seed = 1, log = () => undefined } = options;
  const rnd = random(seed);
  const started = performance.now();
  let acksLost = 0;

  // The reliable server listens to the connections of whichever ws server is up now.
  const connections = new EventEmitter();
  const server = new RestartableWsServer((ws: WebSocket, request) => {
    // A lossy link: some of the acknowledgements the server sends never arrive.
    const send = ws.send.bind(ws) as (data: unknown, ...rest: unknown[]) => void;
    (ws as { send: unknown }).send = (data: unknown, ...rest: unknown[]) => {
      if (typeof data === 'string' && data.startsWith('{"rs":"ack"') && rnd() < ackLoss) {
        acksLost++;
        return;
      }
      send(data, ...rest);
    };
    connections.emit('connection', ws, request);
  });
  await server.start();
  const reliable = new ReliableServer(connections, { ackTimeout: 200 });

  const processed: number[] = [];
  let receiptsResolved = 0;
  let receiptsRejected = 0;
  const receiptsSent: Promise<void>[] = [];
  reliable.on('message', (data, session) => {
    const order = (data as { order: number }).order;
    processed.push(order);
    receiptsSent.push(
      reliable.send(session, { receipt: order }).then(
        () => void receiptsResolved++,
        () => void receiptsRejected++,
      ),
    );
  });
  reliable.on('error', (error) => log(`server: ${error.message}`));

  // The server flaps: up for 100–250 ms, down for a moment, up again, until the client is done.
  let crashes = 0;
  let flapping = true;
  const flap = (async () => {
    while (flapping) {
      await new Promise((resolve) => setTimeout(resolve, uptime[0] + rnd() * (uptime[1] - uptime[0])));
      if (!flapping) break;
      await server.crash();
      crashes++;
      log(`server crashed (${crashes})`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await server.start();
    }
  })();

  const socket = new ResilientSocket(server.url, {
    backoff: constant({ delay: 10 }),
    delivery: delivery({ ackTimeout: 200 }),
  });
  const receipts: number[] = [];
  socket.on('message', (data) => {
    if (typeof data === 'object' && data !== null && 'receipt' in data)
      receipts.push((data as { receipt: number }).receipt);
  });
  socket.on('error', (error) => log(`client: ${error.message}`));

  let resolved = 0;
  let rejected = 0;
  const sent: Promise<void>[] = [];
  for (let order = 1; order <= orders; order++) {
    sent.push(
      socket.sendReliable({ order }).then(
        () => void resolved++,
        () => void rejected++,
      ),
    );
    // A steady producer: a few orders per millisecond, so the outages fall in the middle of it.
    if (order % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await Promise.all(sent);
  // Every receipt reaches the client too (the server resends on each hello until acknowledged).
  const deadline = performance.now() + 30_000;
  while (receipts.length < orders || receiptsResolved + receiptsRejected < orders) {
    if (performance.now() > deadline) throw new Error(`orders: ${receipts.length} of ${orders} receipts after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await Promise.all(receiptsSent);
  const resent = socket.stats.delivery?.resent ?? 0;
  flapping = false;
  await flap;
  socket.close();
  reliable.close();
  await server.crash(); // stops listening for good
  return {
    processed,
    receipts,
    resolved,
    rejected,
    receiptsResolved,
    receiptsRejected,
    crashes,
    acksLost,
    resent,
    ms: performance.now() - started,
  };
}
