/**
 * The main demo: a ResilientSocket against an embedded ws server on 127.0.0.1 that crashes and
 * comes back. Watch the client back off, buffer what you send while it is down, and deliver it
 * in order once the server returns. Run with `npm run demo` (about four seconds).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { ResilientSocket } from '../src/node.js';

const started = Date.now();
const log = (who: string, text: string) =>
  console.log(`${String(Date.now() - started).padStart(5)} ms  ${who.padEnd(6)} ${text}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A tiny feed server: greets each client and echoes what it receives. */
function startServer(port: number): Promise<{ port: number; crash: () => Promise<void> }> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (ws) => {
    ws.send('welcome');
    ws.on('message', (data) => {
      log('server', `received ${data}`);
      ws.send(`ack ${data}`);
    });
  });
  return new Promise((resolve) => {
    http.listen(port, '127.0.0.1', () => {
      const actual = (http.address() as AddressInfo).port;
      log('server', `listening on 127.0.0.1:${actual}`);
      resolve({
        port: actual,
        crash: async () => {
          for (const client of wss.clients) client.terminate(); // no close frame: like a crash
          await new Promise<void>((done) => wss.close(() => http.close(() => done())));
          log('server', 'crashed');
        },
      });
    });
  });
}

let server = await startServer(0);
const socket = new ResilientSocket(`ws://127.0.0.1:${server.port}`, { maxDelay: 2_000, ceiling: 6, stableAfter: 500 });
socket.on('state', ({ previous, current, reason }) => log('client', `${previous} → ${current} (${reason})`));
socket.on('reconnecting', ({ attempt, delay }) => log('client', `attempt ${attempt} in ${delay.toFixed(0)} ms`));
socket.on('open', ({ reconnected }) => log('client', reconnected ? 'reconnected' : 'connected'));
socket.on('message', (data) => log('client', `message: ${data}`));
socket.on('drop', ({ reason, messages }) => log('client', `dropped ${messages.length} (${reason})`));
socket.on('error', (error) => log('client', `${error.code}: ${error.message}`));

log('client', `send "hello" → ${socket.send('hello')}`);
await sleep(800);
await server.crash();
for (const n of [1, 2, 3]) {
  await sleep(200);
  log('client', `send "order ${n}" while down → ${socket.send(`order ${n}`)}`);
}
await sleep(900);
server = await startServer(server.port);
await sleep(1_500);
const { attempts, connects, messagesOut, messagesIn } = socket.stats;
log('client', `stats: ${attempts} attempts, ${connects} connects, ${messagesOut} sent, ${messagesIn} received`);
socket.close();
await server.crash();
log('demo', 'done: the process now exits by itself');
