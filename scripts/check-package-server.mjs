// The checks of `resilient-socket/server` that scripts/check-package.mjs runs on the installed
// tarball (ws installed in the consumer project first, as a server has it):
//   - SERVER_ROUND_TRIP: ESM and CJS, a ReliableServer over a real ws server on 127.0.0.1 and a raw
//     ws client speaking the protocol by hand: a message delivered once and acknowledged, a
//     duplicate acknowledged again, a send() resolved by the client's acknowledgement, a plain
//     frame passed through; after close() the process exits by itself;
//   - checkServerNotForBrowsers: a browser bundle of `resilient-socket/server` fails to resolve
//     (the entry has a `node` condition only), and no browser bundle of the other entries holds
//     the server's code.

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
    if (/ReliableServer|src\/server\//.test(text)) {
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
export const DELIVERY_ROUND_TRIP = `import { ResilientSocket, indexedDbStore, constant } from 'resilient-socket';
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
    delivery: { ackTimeout: 200 },
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
