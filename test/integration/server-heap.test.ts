/**
 * What hostile clients can make `ReliableServer` keep, measured: in a fresh Node process (with
 * `--expose-gc`), clients send ids and session ids of 1 MiB, fill their windows with ids of the
 * longest length, open as many sessions as they can, and go away. The heap the server keeps
 * afterwards (after gc) must stay within the documented worst case for the options used:
 * `maxBytes` (the sessions, as counted) plus about 0.5 kB per open connection (none are left open here).
 */
import { describe, expect, it } from 'vitest';
import { parseLines, runNodeChild } from '../helpers/node-child.js';

const MAX_BYTES = 4 * 2 ** 20;

const script = `
import { WebSocket, WebSocketServer } from 'ws';
import { ReliableServer } from '#src/server/index.ts';
import { MAX_ID_LENGTH } from '#src/server/codec.ts';

const gc = globalThis.gc;
const options = { maxBytes: ${MAX_BYTES}, maxSessionBytes: 64 * 1024, window: 500, maxSessions: 100_000, sessionTtl: 600_000 };
const longest = (prefix, n) => (prefix + n).padEnd(MAX_ID_LENGTH, '.');
const huge = (n) => String(n).padEnd(2 ** 20, '#');
let seq = 0;

async function heap() {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

async function listen() {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 4 * 2 ** 20 });
  await new Promise((resolve) => wss.once('listening', resolve));
  return wss;
}

/** One client: connects, sends its frames, waits for the server's answer to a ping (or the close), closes. */
async function client(url, frames) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  for (const f of frames) ws.send(JSON.stringify(f));
  await new Promise((resolve) => {
    ws.once('close', resolve);
    ws.once('pong', resolve);
    ws.ping();
  });
  ws.close();
  await new Promise((resolve) => (ws.readyState === 3 ? resolve() : ws.once('close', resolve)));
}

async function inBatches(count, make) {
  for (let i = 0; i < count; i += 25) {
    await Promise.all(Array.from({ length: Math.min(25, count - i) }, (_, j) => make(i + j)));
  }
}

/** The attack, at a scale. */
async function attack(url, scale) {
  const run = seq++;
  // Ids and session ids of 1 MiB: refused, nothing kept of them.
  await inBatches(5 * scale, (i) => client(url, [{ rs: 'hello', session: longest('v' + run + '-', i) }, { rs: 'msg', id: huge(i), data: 0 }]));
  await inBatches(5 * scale, (i) => client(url, [{ rs: 'hello', session: huge(i) }]));
  // Many sessions of the longest ids.
  await inBatches(600 * scale, (i) => client(url, [{ rs: 'hello', session: longest('s' + run + '-', i) }]));
  // Then windows full of the longest ids, as many as the server takes.
  await inBatches(40 * scale, (i) => client(url, [
    { rs: 'hello', session: longest('w' + run + '-', i) },
    ...Array.from({ length: 500 }, (_, n) => ({ rs: 'msg', id: longest('m', n), data: n })),
  ]));
}

async function settled(wss, server) {
  for (let i = 0; i < 400 && (wss.clients.size > 0 || [...server.sessions.values()].some((s) => s.connected)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// A rehearsal on a server thrown away afterwards: ws, the server and V8 are warm for the measure.
{
  const wss = await listen();
  const server = new ReliableServer(wss, options);
  server.on('error', () => {});
  await attack('ws://127.0.0.1:' + wss.address().port, 1);
  await settled(wss, server);
  server.close();
  await new Promise((resolve) => wss.close(resolve));
}

const wss = await listen();
const url = 'ws://127.0.0.1:' + wss.address().port;
const server = new ReliableServer(wss, options);
const codes = {};
server.on('error', (error) => { codes[error.code] = (codes[error.code] ?? 0) + 1; });
const before = await heap();
await attack(url, 2);
await settled(wss, server);
const after = await heap();
console.log('growth', after - before);
console.log('counted', server.bytes);
console.log('sessions', server.sessions.size);
console.log('connected', [...server.sessions.values()].filter((s) => s.connected).length);
console.log('codes', JSON.stringify(codes));
server.close();
wss.close();
`;

describe('ReliableServer under attack, in a real Node process', () => {
  it('keeps no more heap than the documented worst case once the attackers are gone', async () => {
    const result = await runNodeChild(script, 90_000, { execArgv: ['--expose-gc'] });
    expect(result.stderr).toBe('');
    expect(result.killed).toBe(false);
    expect(result.code).toBe(0);
    const out = parseLines(result.stdout);
    const growth = Number(out.get('growth'));
    const counted = Number(out.get('counted'));
    const codes = JSON.parse(out.get('codes') ?? '{}') as Record<string, number>;
    // The attack ran: every oversized id refused, the budget reached, newcomers then refused.
    expect(codes.ERR_RS_PROTOCOL_VIOLATION).toBe(20);
    expect(codes.ERR_RS_BUFFER_OVERFLOW).toBeGreaterThan(0);
    expect(counted).toBeLessThanOrEqual(MAX_BYTES);
    expect(counted).toBeGreaterThan(MAX_BYTES - 2_000); // full, but for less than one more session
    expect(Number(out.get('connected'))).toBe(0);
    // What it keeps: within the worst case (maxBytes, no connection open), the count an upper bound.
    expect(growth).toBeLessThanOrEqual(MAX_BYTES);
    expect(growth).toBeLessThanOrEqual(counted);
    console.log(
      `server heap after the attack: ${growth} B kept, ${counted} B counted, ${MAX_BYTES} B allowed;`,
      Object.fromEntries(out),
    );
  }, 120_000);
});
