// The checks of `resilient-socket/server` that scripts/check-package.mjs runs on the installed
// tarball (ws installed in the consumer project first, as a server has it):
//   - SERVER_ROUND_TRIP: ESM and CJS, a ReliableServer over a real ws server on 127.0.0.1 and a raw
//     ws client speaking the protocol by hand: a message delivered once and acknowledged, a
//     duplicate acknowledged again, a send() resolved by the client's acknowledgement, a plain
//     frame passed through; after close() the process exits by itself;
//   - checkServerNotForBrowsers: a browser bundle of `resilient-socket/server` fails to resolve
//     (the entry has a `node` condition only), and no browser bundle of the other entries holds
//     the server's code (nor its Redis store);
//   - CLUSTER_ROUND_TRIP: two ReliableServers on one redisStore() (a real redis-server), a send()
//     from the one without the connection reaching the client through the other;
//   - checkRedisOptional: `redis` is an optional peer dependency and no browser file names it.

import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

/** The round-trip script of one format. */
export const SERVER_ROUND_TRIP = (format) => `${
  format === 'esm'
    ? "import { ReliableServer, jsonCodec } from 'resilient-socket/server';\nimport { WebSocket, WebSocketServer } from 'ws';"
    : "const { ReliableServer, jsonCodec } = require('resilient-socket/server');\nconst { WebSocket, WebSocketServer } = require('ws');"
}
const fail = (why) => {
  console.error('FAIL [${format}] ReliableServer: ' + why);
  process.exit(1);
};
const deadline = setTimeout(() => fail('no round trip within 5 s'), 5000);
if (ReliableServer.name !== 'ReliableServer') fail('ReliableServer.name is ' + ReliableServer.name);
if (jsonCodec.encode({ rs: 'ack', id: '1' }) !== '{"rs":"ack","id":"1"}') fail('jsonCodec');
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
const server = new ReliableServer(wss);
const got = [];
const plain = [];
server.on('message', (data, session) => got.push([data, session.id]));
server.on('plain', (data) => plain.push(String(data)));
wss.on('listening', () => {
  const client = new WebSocket('ws://127.0.0.1:' + wss.address().port);
  const frames = [];
  client.on('message', (raw) => {
    const frame = JSON.parse(String(raw));
    frames.push(frame);
    if (frame.rs === 'msg') client.send(JSON.stringify({ rs: 'ack', id: frame.id }));
  });
  client.on('open', () => {
    client.send(JSON.stringify({ rs: 'hello', session: 'check' }));
    client.send(JSON.stringify({ rs: 'msg', id: '1', data: { n: 1 } }));
    client.send(JSON.stringify({ rs: 'msg', id: '1', data: { n: 1 } }));
    client.send('plain text');
    setTimeout(() => {
      server.send('check', 'to the client').then(() => {
        const acks = frames.filter((f) => f.rs === 'ack').map((f) => f.id).join();
        const msgs = frames.filter((f) => f.rs === 'msg').map((f) => f.data).join();
        if (JSON.stringify(got) !== '[[{"n":1},"check"]]') fail('delivered ' + JSON.stringify(got));
        if (acks !== '1,1') fail('acknowledged ' + acks);
        if (msgs !== 'to the client') fail('sent ' + msgs);
        if (plain.join() !== 'plain text') fail('passed through ' + plain.join());
        clearTimeout(deadline);
        server.close();
        client.close();
        wss.close();
        console.log('OK   [${format}] ReliableServer: delivered once, acknowledged twice, send() resolved on the ack, plain passed through');
      }, (error) => fail('send() rejected: ' + error));
    }, 50);
  });
});
`;

/**
 * A browser bundle of `resilient-socket/server` must fail (no browser export), and the server's
 * code must be in no browser bundle of the entries: `bundle` is check-package's esbuild helper.
 */
export async function checkServerNotForBrowsers({ bundle, consumerDir, entries, fail }) {
  let refused = false;
  try {
    await bundle(consumerDir, 'resilient-socket/server', "export * from 'resilient-socket/server';\n", {
      platform: 'browser',
      format: 'esm',
    });
  } catch (error) {
    // esbuild's own words: the package's `exports` has no entry for the browser's conditions.
    refused = /resolve|exports/i.test(String(error?.message ?? error));
  }
  if (!refused) fail('a browser bundle of resilient-socket/server was built: it must have no browser export');
  const everything = entries.map(({ specifier }, i) => `export * as e${i} from '${specifier}';`).join('\n');
  for (const development of [false, true]) {
    const { code } = await bundle(consumerDir, 'every entry', everything, {
      platform: 'browser',
      format: 'esm',
      external: ['react', 'vue'],
      minify: false,
      ...(development ? { conditions: ['development'] } : {}),
    });
    const text = Buffer.from(code).toString('utf8');
    if (/ReliableServer|redisStore|EVALSHA|src\/server\//.test(text)) {
      fail(`a browser bundle of every entry (${development ? 'development' : 'production'}) holds the server helper`);
    }
  }
  return 'a browser bundle of resilient-socket/server is refused; no browser bundle of the entries holds it';
}

/**
 * Both halves from the tarball, ESM: a `ResilientSocket` with `delivery` (and `indexedDbStore`
 * exported beside it) against a `ReliableServer` that cuts the first connection before it
 * acknowledges anything: each of three reliable messages reaches the server once, in order, every
 * promise resolves, the server's own reliable message reaches the client once; after close() the
 * process exits by itself.
 */
export const DELIVERY_ROUND_TRIP = `import { ResilientSocket, delivery, indexedDbStore, constant } from 'resilient-socket';
import { ReliableServer } from 'resilient-socket/server';
import { WebSocketServer } from 'ws';
const fail = (why) => {
  console.error('FAIL delivery round trip: ' + why);
  process.exit(1);
};
const deadline = setTimeout(() => fail('not done within 8 s'), 8000);
if (typeof indexedDbStore !== 'function') fail('indexedDbStore is not exported');
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
const server = new ReliableServer(wss, { ackTimeout: 200 });
const got = [];
let receipt;
let cut = false;
wss.on('connection', (ws) => {
  if (cut) return;
  cut = true;
  // The first connection dies as the messages arrive: nothing acknowledged, everything resent.
  ws.once('message', () => setImmediate(() => ws.terminate()));
});
server.on('message', (data, session) => {
  got.push(data.n);
  if (got.length === 3) receipt = server.send(session, 'receipt');
});
wss.on('listening', async () => {
  const socket = new ResilientSocket('ws://127.0.0.1:' + wss.address().port, {
    backoff: constant({ delay: 20 }),
    delivery: delivery({ ackTimeout: 200 }),
  });
  const heard = [];
  socket.on('message', (data) => heard.push(data));
  await Promise.all([1, 2, 3].map((n) => socket.sendReliable({ n })));
  const until = Date.now() + 3000;
  while (heard.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  if (got.join() !== '1,2,3') fail('the server processed ' + got.join());
  if (JSON.stringify(heard) !== '["receipt"]') fail('the client heard ' + JSON.stringify(heard));
  await receipt; // the client's acknowledgement resolves the server's send()
  clearTimeout(deadline);
  socket.close();
  server.close();
  wss.close();
  console.log('OK   delivery round trip: three messages through a cut connection, each processed once, in order; a receipt back');
});
`;

/**
 * Two `ReliableServer`s on one `redisStore()` from the tarball (with the node-redis the repository
 * tests against installed beside it, as an app has it), ESM: a `ResilientSocket` with `delivery`
 * connected to the first; its reliable messages reach the first server once each, in order; a
 * `send()` made on the second, which holds no connection, is stored, reaches the client through the
 * first, and resolves on the client's acknowledgement. After `close()` of everything (the stores'
 * own copies of the Redis client included) the process exits by itself. The Redis URL is argv[2].
 */
export const CLUSTER_ROUND_TRIP = `import { ResilientSocket, constant, delivery } from 'resilient-socket';
import { ReliableServer, redisStore } from 'resilient-socket/server';
import { createClient } from 'redis';
import { WebSocketServer } from 'ws';
const fail = (why) => {
  console.error('FAIL cluster round trip: ' + why);
  process.exit(1);
};
const deadline = setTimeout(() => fail('not done within 8 s'), 8000);
const redis = createClient({ url: process.argv[2] });
redis.on('error', (error) => fail('redis: ' + error));
await redis.connect();
const listening = () =>
  new Promise((resolve) => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    wss.once('listening', () => resolve(wss));
  });
const [wssA, wssB] = await Promise.all([listening(), listening()]);
const [a, b] = [wssA, wssB].map((wss) => new ReliableServer(wss, { store: redisStore(redis, { prefix: 'check:' }) }));
for (const server of [a, b]) server.on('error', (error) => fail('server error: ' + error.code + ' ' + error.message));
await Promise.all([a.ready, b.ready]);
const got = [];
let session;
a.on('message', (data, s) => {
  got.push(data.n);
  session = s.id;
});
b.on('message', () => fail('the second server handled a message of a client it does not hold'));
const socket = new ResilientSocket('ws://127.0.0.1:' + wssA.address().port, {
  backoff: constant({ delay: 20 }),
  delivery: delivery({ ackTimeout: 500 }),
});
const heard = [];
socket.on('message', (data) => heard.push(data));
await Promise.all([1, 2, 3].map((n) => socket.sendReliable({ n })));
if (got.join() !== '1,2,3') fail('the first server handled ' + got.join());
const sent = b.send(session, 'from the other process');
await sent.stored;
await sent;
if (JSON.stringify(heard) !== '["from the other process"]') fail('the client heard ' + JSON.stringify(heard));
clearTimeout(deadline);
socket.close();
a.close();
b.close();
wssA.close();
wssB.close();
await redis.close();
console.log('OK   cluster round trip: three messages handled once, in order; a send() from the process without the connection reached the client');
`;

/**
 * The packed package.json: \`redis\` is an optional peer dependency (never a dependency, so no app
 * installs it for the client), and no file a browser loads names it.
 */
export function checkRedisOptional({ packageJson, distDir, browserFiles, fail }) {
  if (packageJson.dependencies?.redis !== undefined) fail('redis must not be a dependency');
  if (packageJson.peerDependencies?.redis === undefined || packageJson.peerDependenciesMeta?.redis?.optional !== true)
    fail('redis must be an optional peer dependency');
  for (const file of browserFiles) {
    const text = readFileSync(join(distDir, file), 'utf8');
    if (/redis/i.test(text)) fail(`${file} (a browser file) mentions redis`);
  }
  return `redis is an optional peer (${packageJson.peerDependencies.redis}); ${browserFiles.length} browser files never name it`;
}

/**
 * Runs CLUSTER_ROUND_TRIP in the consumer project against a `redis-server` of its own (Debian's
 * package, which `.ci/run` installs) on a free loopback port, keeping nothing on disk; the server
 * is stopped at the end whatever happened.
 */
export async function runClusterCheck({ consumerDir, install, redisVersion, fail }) {
  install([`redis@${redisVersion}`]);
  const port = await new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolve(free));
    });
  });
  let redis;
  try {
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    redis.once('error', () => undefined);
    const until = Date.now() + 5000;
    while (!(await answers(port))) {
      if (redis.exitCode !== null || Date.now() > until)
        fail('redis-server did not start (install it: apt-get install redis-server)');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    writeFileSync(join(consumerDir, 'cluster-round-trip.mjs'), CLUSTER_ROUND_TRIP);
    const started = Date.now();
    execFileSync(process.execPath, ['cluster-round-trip.mjs', `redis://127.0.0.1:${port}`], {
      cwd: consumerDir,
      stdio: 'inherit',
      timeout: 15_000,
    });
    return `redis@${redisVersion}: two processes' servers on one store, a send() routed to the holder; the process exited by itself after ${Date.now() - started} ms`;
  } finally {
    redis?.kill('SIGKILL');
  }
}

/** Whether a Redis answers PING on the port. */
function answers(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(String(data).startsWith('+PONG')));
  });
}
