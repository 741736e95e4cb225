import { describe, expect, it } from 'vitest';
import { parseLines, runNodeChild } from '../helpers/node-child.js';

// Real Node processes using the Node entry point (`ws` found through its fallback): a closed
// socket, or an unref'd one waiting to reconnect, must not keep the process alive.

const roundTripThenClose = `
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { ResilientSocket } from '#src/node.ts';

const http = createServer();
const wss = new WebSocketServer({ server: http });
wss.on('connection', (ws) => ws.on('message', (data) => ws.send('echo:' + data)));
await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
const { port } = http.address();

const socket = new ResilientSocket('ws://127.0.0.1:' + port, { heartbeat: { interval: 100, timeout: 1000 } });
socket.on('error', (error) => console.log('error', error.code));
socket.on('close', (info) => console.log('close', JSON.stringify(info)));
socket.on('message', (data) => {
  console.log('message', String(data));
  console.log('closeCalledAt', Date.now());
  socket.close();
  wss.close();
  http.close(() => console.log('serverClosed', Date.now()));
});
socket.on('state', ({ current }) => current === 'closed' && console.log('socketClosed', Date.now(), socket.state));
console.log('send', socket.send('hello'));
process.on('exit', (code) => console.log('exitAt', Date.now(), code));
`;

// 127.0.0.1:<port> with nothing listening: every attempt is refused at once.
// With \`buffered\`, a queued message with a ttl adds a second pending timer.
const deadPortSocket = (unref: boolean, buffered = false) => `
import { createServer } from 'node:net';
import { constant } from '#src/backoff/index.ts';
import { bufferPolicy, ResilientSocket } from '#src/node.ts';

const probe = createServer();
await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
const { port } = probe.address();
await new Promise((resolve) => probe.close(resolve));

const socket = new ResilientSocket('ws://127.0.0.1:' + port, {
  backoff: constant({ delay: 60_000 }),
  unref: ${unref},
  bufferPolicy: bufferPolicy({ ttl: 120_000 }),
});
if (${buffered}) console.log('send', socket.send('queued'));
socket.on('error', (error) => console.log('error', error.code));
socket.on('reconnecting', ({ delay }) => console.log('reconnecting', delay));
process.on('exit', () => console.log('exitState', socket.state, socket.stats.nextRetryAt === undefined ? 'none' : 'pending'));
`;

// A socket that gives up with nobody listening: the process still exits by itself, but not in silence.
const unheardGiveUp = `
import { createServer } from 'node:net';
import { ResilientSocket } from '#src/node.ts';

const probe = createServer();
await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
const { port } = probe.address();
await new Promise((resolve) => probe.close(resolve));
new ResilientSocket('ws://127.0.0.1:' + port + '/?token=s3cret', { maxRetries: 1, maxDelay: 20, ceiling: 1 });
`;

describe('the Node process lifecycle', () => {
  it('a give-up nobody listens for is printed once on stderr, and the process exits by itself', async () => {
    const result = await runNodeChild(unheardGiveUp, 5_000);
    expect(result.killed).toBe(false);
    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n').filter((line) => line.includes('ResilientSocketWarning'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\(node:\d+\) \[ERR_RS_RETRIES_EXHAUSTED\] ResilientSocketWarning: resilient-socket: the socket to ws:\/\/127\.0\.0\.1:\d+\/\?token=\*\*\* gave up/,
    );
    expect(result.stderr).not.toContain('s3cret');
  });

  it('exits by itself within 1 s of close() after a real round trip', async () => {
    const result = await runNodeChild(roundTripThenClose, 5_000);
    const lines = parseLines(result.stdout);

    expect(result.stderr).toBe('');
    expect(result.killed).toBe(false);
    expect(result.code).toBe(0);
    expect(lines.get('send')).toBe('buffered');
    expect(lines.get('message')).toBe('echo:hello');
    expect(lines.get('socketClosed')?.split(' ')[1]).toBe('closed');
    expect(JSON.parse(lines.get('close') ?? '{}')).toEqual({
      code: 1000,
      reason: '',
      wasClean: true,
      willReconnect: false,
    });
    expect(lines.has('error')).toBe(false);
    const closeCalledAt = Number(lines.get('closeCalledAt'));
    expect(Number.isFinite(closeCalledAt)).toBe(true);
    expect(Number(lines.get('exitAt')?.split(' ')[0]) - closeCalledAt, 'close() → event loop empty').toBeLessThan(
      1_000,
    );
    expect(result.exitedAt - closeCalledAt, 'close() → process gone').toBeLessThan(1_000);
  });

  it('with unref: true, exits by itself while a reconnect wait is pending (no close())', async () => {
    const result = await runNodeChild(deadPortSocket(true), 5_000);
    const lines = parseLines(result.stdout);

    expect(result.stderr).toBe('');
    expect(result.killed).toBe(false);
    expect(result.code).toBe(0);
    expect(lines.get('error')).toBe('ERR_RS_CONNECTION_FAILED');
    expect(lines.get('reconnecting')).toBe('60000');
    expect(lines.get('exitState')).toBe('reconnecting pending');
    expect(result.elapsedMs).toBeLessThan(3_000);
  });

  it('with unref: true, exits by itself while a reconnect wait and a message ttl are pending', async () => {
    const result = await runNodeChild(deadPortSocket(true, true), 5_000);
    const lines = parseLines(result.stdout);

    expect(result.stderr).toBe('');
    expect(result.killed).toBe(false);
    expect(lines.get('send')).toBe('buffered');
    expect(lines.get('reconnecting')).toBe('60000');
    expect(lines.get('exitState')).toBe('reconnecting pending');
    expect(result.elapsedMs).toBeLessThan(3_000);
  });

  it('without unref, a pending message ttl with the reconnect wait keeps the process alive (control)', async () => {
    const result = await runNodeChild(deadPortSocket(false, true), 1_500);
    const lines = parseLines(result.stdout);

    expect(lines.get('send')).toBe('buffered');
    expect(lines.get('reconnecting')).toBe('60000');
    expect(result.killed).toBe(true);
  });

  it('without unref and without close(), the pending reconnect keeps the process alive (control)', async () => {
    const result = await runNodeChild(deadPortSocket(false), 1_500);
    const lines = parseLines(result.stdout);

    expect(lines.get('error')).toBe('ERR_RS_CONNECTION_FAILED');
    expect(lines.get('reconnecting')).toBe('60000');
    expect(result.killed).toBe(true);
    expect(result.code).toBe(null);
  });
});
