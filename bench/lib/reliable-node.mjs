// One server process for the cluster benchmark: a `ReliableServer` from the built package
// (dist/dev/server.js, what `resilient-socket/server` gives in Node) over a ws server on
// 127.0.0.1:0 without permessage-deflate; its sessions in memory, or on Redis with
// `redisStore()` when a Redis URL is given: `node reliable-node.mjs [redis-url prefix]`.
// It prints {"port":N} once ready, then answers commands read on stdin, one JSON line each,
// `{ id, op, … }`, with one JSON line `{ id, … }`:
// - `count`: the messages its `message` listener handled, the sessions it holds, the sessions it
//   greeted (`session` events: their first hello is done), the errors told;
// - `send` `{ targets, n }`: n `send()`s of 32 bytes, round-robin over the session ids `targets`,
//   all at once; answers once every one is acknowledged, with the time it took (ms);
// - `latency` `{ target, n }`: n `send()`s to `target`, each awaited before the next; answers with
//   each one's time from the call to the acknowledgement (ms).
// It closes everything when its stdin closes and exits by itself (a handle left open after
// `close()` is told on stderr, and the process ends with code 1 after 2 s).
import { createClient } from 'redis';
import { WebSocketServer } from 'ws';

const { ReliableServer, redisStore } = await import(new URL('../../dist/dev/server.js', import.meta.url).href);

const [url, prefix] = process.argv.slice(2);
const PAYLOAD = 'x'.repeat(32);
// Bounds far above what the benchmark keeps pending, so that it measures the path, not a refusal.
const bounds = { maxPending: 1_000_000, maxSessionBytes: 512 * 2 ** 20, maxBytes: 2 ** 30 };

let redis;
if (url !== undefined) {
  redis = createClient({ url });
  redis.on('error', () => undefined); // failures reach the server's `error` event, counted below
  await redis.connect();
}
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
await new Promise((resolve) => wss.once('listening', resolve));
const server = new ReliableServer(wss, redis ? { ...bounds, store: redisStore(redis, { prefix }) } : bounds);
let handled = 0;
let greeted = 0;
const errors = [];
server.on('message', () => {
  handled += 1;
});
server.on('session', () => {
  greeted += 1;
});
server.on('error', (error) => errors.push(error.code ?? String(error)));
await server.ready;

const operations = {
  count: async () => ({ handled, greeted, held: [...server.sessions.keys()], errors }),
  send: async ({ targets, n }) => {
    const started = performance.now();
    const sent = [];
    for (let i = 0; i < n; i++) sent.push(server.send(targets[i % targets.length], PAYLOAD));
    await Promise.all(sent);
    return { ms: performance.now() - started };
  },
  latency: async ({ target, n }) => {
    const samples = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await server.send(target, PAYLOAD);
      samples.push(performance.now() - started);
    }
    return { samples };
  },
};

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  input += chunk;
  for (let at = input.indexOf('\n'); at >= 0; at = input.indexOf('\n')) {
    const command = JSON.parse(input.slice(0, at));
    input = input.slice(at + 1);
    operations[command.op](command).then(
      (reply) => process.stdout.write(`${JSON.stringify({ id: command.id, ...reply })}\n`),
      (error) => process.stdout.write(`${JSON.stringify({ id: command.id, failed: String(error?.code ?? error) })}\n`),
    );
  }
});
process.stdin.on('end', async () => {
  const released = server.close(); // on Redis: resolves once Redis heard this process let go of its sessions
  for (const client of wss.clients) client.terminate();
  wss.close();
  await released;
  redis?.destroy();
  setTimeout(() => {
    process.stderr.write('reliable-node: still running 2 s after everything was closed\n');
    process.exit(1);
  }, 2_000).unref();
});
process.stdout.write(`${JSON.stringify({ port: wss.address().port })}\n`);
