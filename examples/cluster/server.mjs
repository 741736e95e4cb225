/**
 * One server process of the cluster example: a `ws` server on 127.0.0.1:PORT and a
 * `ReliableServer` whose sessions are on Redis (`redisStore()`), so that any process serves any
 * client, whichever one HAProxy sends it to. Plain JavaScript, run by `node`: it imports the package
 * by name, as an application would (here Node resolves `resilient-socket/server` to this
 * repository's dist/, through the package's own "exports").
 *
 * Settings come from the environment: PORT, REDIS_URL, PREFIX, SESSION_TTL (ms).
 *
 * It tells the example what it does on stdout, one JSON line each. Writes to a pipe are synchronous
 * in Node on Linux, so a line written is read by the example even when this process is killed the
 * next moment:
 * - `{ t: 'ready' }` once it serves;
 * - `{ t: 'handled', client, order, at }` when it handles an order (the first thing its listener does);
 * - `{ t: 'held', sessions }` when the number of sessions it holds (clients connected here) changed;
 * - `{ t: 'receipt', ok, code }` when the `send()` of a receipt settled (resolved: the client acknowledged it);
 * - `{ t: 'error', code, message }` for an `error` of the server or of the Redis client.
 */
import { once } from 'node:events';
import { createClient } from 'redis';
import { ReliableServer, redisStore } from 'resilient-socket/server';
import { WebSocketServer } from 'ws';

const { PORT, REDIS_URL, PREFIX = 'orders:', SESSION_TTL = '30000' } = process.env;
const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

const redis = createClient({ url: REDIS_URL });
redis.on('error', (error) => say({ t: 'error', code: 'REDIS', message: String(error?.message ?? error) }));
await redis.connect();

const wss = new WebSocketServer({ host: '127.0.0.1', port: Number(PORT) });
await once(wss, 'listening');

const server = new ReliableServer(wss, {
  store: redisStore(redis, { prefix: PREFIX }),
  // A session whose client went away is kept this long, whichever process held it (a killed one too).
  sessionTtl: Number(SESSION_TTL),
  ackTimeout: 500,
});
server.on('error', (error) => say({ t: 'error', code: error.code, message: error.message }));

// A plain frame (not the protocol's: it passes through) that tells a new client which process it
// reached, so that it can tell which receipts another process wrote to it.
wss.on('connection', (ws) => ws.send(JSON.stringify({ welcome: process.pid })));

// An order is handled once in the whole cluster, by the process holding its client's connection
// (except when a process is killed while handling it: see the example's summary).
//
// The receipt is sent from the listener, by the process that handled the order: that is what keeps
// one receipt per handling (a process asked to send a receipt later could die before it does, and
// another asked again could send a second one). `send()` stores the receipt in Redis first, with
// this process as its sender, then the process holding the client's connection writes it: this one
// while the client stays, another one when the client had to reconnect elsewhere (this process was
// killed before the client acknowledged the receipt). The promise resolves here when the client
// acknowledged it, whichever process the acknowledgement came through.
server.on('message', (data, session) => {
  const { client, order } = data;
  say({ t: 'handled', client, order, at: performance.timeOrigin + performance.now() });
  server.send(session, { receipt: order, client, by: process.pid }).then(
    () => say({ t: 'receipt', ok: true }),
    (error) => say({ t: 'receipt', ok: false, code: error.code }),
  );
});

await server.ready;
say({ t: 'ready' });

let held = -1;
setInterval(() => {
  if (server.sessions.size === held) return;
  held = server.sessions.size;
  say({ t: 'held', sessions: held });
}, 100);

// Stopped at the end of the example (SIGTERM): let go of everything, then exit.
process.once('SIGTERM', () => {
  server.close();
  for (const ws of wss.clients) ws.terminate();
  wss.close();
  redis.destroy();
  process.exit(0);
});
