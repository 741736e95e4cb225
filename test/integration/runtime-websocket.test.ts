/**
 * The WebSocket a server runtime gives, in fresh Node processes against real servers on 127.0.0.1
 * (the global one is undici's: native from Node 22, behind `--experimental-websocket` on Node 20):
 *
 * - with ws installed, the Node entry takes ws even where a global WebSocket exists, so the
 *   default heartbeat pings, and a server that accepts and then goes silent is found dead
 *   (`interval + timeout` of the defaults, 40 s, passed on an injected clock);
 * - without ws, it takes the global one and says once, in development, that the default heartbeat
 *   cannot watch it (`RS_NO_PING` on stderr), and nothing in production;
 * - the global WebSocket's way of failing (Node 22 and Node 20's undici: `error` and never
 *   `close` after a refused connection) ends the attempt at once, not at `connectTimeout`: a
 *   restarted server is reached again within the backoff.
 */
import { describe, expect, it } from 'vitest';
import { parseLines, runNodeChild } from '../helpers/node-child.js';

const GLOBAL = ['--experimental-websocket'];

const DEAD_LINK = `
import { WebSocketServer } from 'ws';
import { ResilientSocket } from '#src/node.ts';
import { TestClock } from '#src/testing/test-clock.ts';

const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
await new Promise((resolve) => server.once('listening', resolve));
let silent = true;
server.on('connection', (ws) => {
  // Silent: reads nothing more, so a ping is never answered (as a host that vanished).
  if (silent) ws._socket.pause();
});
const clock = new TestClock();
const socket = new ResilientSocket('ws://127.0.0.1:' + server.address().port, { clock });
const seen = [];
socket.on('close', ({ code, reason }) => seen.push('close:' + code + ':' + reason));
socket.on('error', (error) => seen.push('error:' + error.code));
const until = async (test) => {
  for (let i = 0; i < 400 && !test(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
};
await until(() => socket.state === 'open');
console.log('global ' + typeof globalThis.WebSocket);
console.log('binaryType ' + socket.binaryType);
await clock.advance(30_000); // the default interval: a ping goes out
await new Promise((resolve) => setTimeout(resolve, 200)); // real time for an answer (none comes)
await clock.advance(10_000); // the default timeout
console.log('silent ' + JSON.stringify(seen));
// A server that answers: reconnected, pinged, answered, kept.
silent = false;
seen.length = 0;
await clock.advance(50); // the first backoff window (19.5 ms)
await until(() => socket.state === 'open');
await clock.advance(30_000);
await new Promise((resolve) => setTimeout(resolve, 200)); // the pong arrives
await clock.advance(10_000);
console.log('answered ' + socket.state + ' ' + JSON.stringify(seen));
socket.close();
server.close();
`;

const WITHOUT_WS = `
import { WebSocketServer } from 'ws';
import { ResilientSocket } from '#src/node.ts';

const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
await new Promise((resolve) => server.once('listening', resolve));
const url = 'ws://127.0.0.1:' + server.address().port;
for (let i = 0; i < 2; i++) {
  const socket = new ResilientSocket(url);
  await new Promise((resolve) => socket.once('open', resolve));
  console.log('open ' + socket.binaryType);
  socket.close();
}
server.close();
`;

const REFUSED = `
import { createServer } from 'node:net';
import { WebSocketServer } from 'ws';
import { ResilientSocket } from '#src/node.ts';

// A port nothing listens on, for now.
const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const started = Date.now();
const socket = new ResilientSocket('ws://127.0.0.1:' + port, { WebSocket: globalThis.WebSocket, maxDelay: 200, ceiling: 3 });
const errors = [];
const closes = [];
let server;
socket.on('error', (error) => errors.push(error.code + ' ' + error.message));
socket.on('close', ({ code }) => closes.push(code));
socket.on('reconnecting', ({ attempt }) => {
  // Two attempts refused: the server comes (back) on that port.
  if (attempt === 3 && !server) server = new WebSocketServer({ host: '127.0.0.1', port });
});
await new Promise((resolve) => socket.once('open', resolve));
console.log('openedAfter ' + (Date.now() - started));
console.log('errors ' + JSON.stringify(errors));
console.log('closes ' + JSON.stringify(closes));
socket.close();
server.close();
`;

describe('the WebSocket of a server runtime', () => {
  it('with ws installed, ws even beside a global WebSocket: the default heartbeat finds a silent server dead', async () => {
    const child = await runNodeChild(DEAD_LINK, 15_000, { execArgv: GLOBAL });
    expect(child.killed, child.stderr).toBe(false);
    const lines = parseLines(child.stdout);
    expect(lines.get('global')).toBe('function');
    expect(lines.get('binaryType')).toBe('nodebuffer'); // a ws socket underneath
    expect(JSON.parse(lines.get('silent') ?? '[]')).toEqual(['error:ERR_RS_DEAD_LINK', 'close:1006:heartbeat timeout']);
    expect(lines.get('answered')).toBe('open []');
    expect(child.code).toBe(0);
  });

  it('without ws, the global one, and a development warning once that the default heartbeat cannot ping', async () => {
    const child = await runNodeChild(WITHOUT_WS, 10_000, { execArgv: GLOBAL, withoutWs: true });
    expect(child.code, child.stderr).toBe(0);
    expect(parseLines(child.stdout).get('open')).toBe('blob'); // the global WebSocket's default
    const warnings = child.stderr.split('\n').filter((line) => line.includes('RS_NO_PING'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/cannot send pings.*npm install ws/);

    const production = await runNodeChild(WITHOUT_WS, 10_000, {
      execArgv: GLOBAL,
      withoutWs: true,
      env: { NODE_ENV: 'production' },
    });
    expect(production.code, production.stderr).toBe(0);
    expect(production.stderr).not.toMatch(/RS_NO_PING/);
  });

  it("the global WebSocket's refused connections end their attempts at once: the server is reached when it comes back", async () => {
    const child = await runNodeChild(REFUSED, 8_000, { execArgv: GLOBAL });
    expect(child.killed, 'still not open after 8 s').toBe(false);
    expect(child.code, child.stderr).toBe(0);
    const lines = parseLines(child.stdout);
    const errors = JSON.parse(lines.get('errors') ?? '[]') as string[];
    expect(errors).toHaveLength(2);
    for (const error of errors) {
      // Failed, not timed out; and never a message that ends at a colon (Node 24 and 26 say nothing).
      expect(error).toMatch(/^ERR_RS_CONNECTION_FAILED Connection attempt [12] failed \(close code 1006\)(: \S.*)?$/);
    }
    expect(JSON.parse(lines.get('closes') ?? '[]')).toEqual([1006, 1006]);
    // Two refusals and two backoff waits (under 50 ms and 100 ms), far from connectTimeout (10 s).
    expect(Number(lines.get('openedAfter'))).toBeLessThan(5_000);
  });
});
