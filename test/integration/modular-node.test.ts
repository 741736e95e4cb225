/**
 * The Node entry of `resilient-socket/modular` (src/modular-node.ts) against real ws servers on
 * 127.0.0.1 (ephemeral ports): its `BaseSocket` finds `ws` by itself, and takes it over any global
 * WebSocket (Node 20 has none; Node ≥ 22, Bun and Deno have one that cannot ping), the heartbeat
 * uses protocol pings, upgradeRejection() honours Retry-After, and close() leaves nothing running.
 * Every wait is bounded; servers and sockets are closed in afterEach.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Clock, systemClock, type TimerHandle } from '../../src/clock.js';
import { BaseSocket, heartbeat, upgradeRejection } from '../../src/modular-node.js';
import type { ResilientSocket } from '../../src/node.js';
import { ACCEPT, type BehaviourSetting, startTestServer, type TestWsServer } from '../faults/index.js';
import { errorMessage } from '../helpers/mode.js';
import { parseLines, runNodeChild } from '../helpers/node-child.js';
import { SocketRecorder } from '../helpers/socket-recorder.js';
import { activeTimeouts, timerBaseline } from '../helpers/timers.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const startServer = (behaviour?: BehaviourSetting): Promise<TestWsServer> => startTestServer(cleanup, behaviour);

/** A socket closed after the test, with a recorder of everything it tells. */
function track(socket: BaseSocket): { socket: BaseSocket; rec: SocketRecorder } {
  cleanup.add(socket, (s) => s.close());
  return { socket, rec: new SocketRecorder(socket as ResilientSocket) };
}

/** A system clock that knows which of its timers are still pending. */
function countingClock(): Clock & { readonly pending: Set<TimerHandle> } {
  const pending = new Set<TimerHandle>();
  return {
    pending,
    setTimeout(callback, ms) {
      const handle = systemClock.setTimeout(() => {
        pending.delete(handle);
        callback();
      }, ms);
      pending.add(handle);
      return handle;
    },
    clearTimeout(handle) {
      pending.delete(handle);
      systemClock.clearTimeout(handle);
    },
    now: () => systemClock.now(),
  };
}

describe('BaseSocket from the Node modular entry', () => {
  it('takes ws over a global WebSocket, which this runtime may have (Node ≥ 22) or not (Node 20)', async () => {
    const server = await startServer(); // echo
    class GlobalWebSocket {
      constructor() {
        throw new Error('the global WebSocket was taken');
      }
    }
    const global = globalThis as { WebSocket?: unknown };
    const runtimes = global.WebSocket;
    global.WebSocket = GlobalWebSocket;
    try {
      const { socket, rec } = track(new BaseSocket(server.url));
      await waitFor(() => socket.state === 'open', 2_000, 'open', { describe: () => rec.summary() });
      expect(socket.binaryType).toBe('nodebuffer'); // ws's own default: the socket underneath is a ws one
      expect(rec.errors).toEqual([]);
    } finally {
      global.WebSocket = runtimes;
    }
    expect(BaseSocket.name).toBe('BaseSocket');
  });

  it('finds ws without the WebSocket option: connects, sends, receives the echo', async () => {
    const server = await startServer(); // echo
    const { socket, rec } = track(new BaseSocket(server.url));
    expect(socket.send('queued')).toBe('buffered');
    await waitFor(() => socket.state === 'open', 2_000, 'open', { describe: () => rec.summary() });
    expect(socket.binaryType).toBe('nodebuffer'); // ws's own default: the socket underneath is a ws one
    expect(socket.send('direct')).toBe('sent');
    await waitFor(() => rec.messages.length === 2, 2_000, 'two echoes', { describe: () => rec.messages });
    // Text frames arrive as strings (not Buffers), in order.
    expect(rec.events('message').map((e) => e.payload)).toEqual(['queued', 'direct']);
    expect(server.received).toEqual(['queued', 'direct']);
    expect(rec.opens).toEqual([{ attempt: 1, reconnected: false }]);
    expect(rec.errors).toEqual([]);
  });

  it('heartbeat() sends protocol pings: the server sees the first within the interval, and answered pings keep the link', async () => {
    const INTERVAL = 150;
    const TIMEOUT = 300;
    const server = await startServer(ACCEPT);
    const { socket, rec } = track(
      new BaseSocket(server.url, { features: [heartbeat({ interval: INTERVAL, timeout: TIMEOUT })] }),
    );
    await waitFor(() => socket.state === 'open', 2_000, 'open', { describe: () => rec.summary() });
    const openedAt = rec.events('open')[0]?.at ?? Number.NaN;
    await waitFor(() => server.pings >= 1, INTERVAL + 250, 'a protocol ping', { interval: 2 });
    const firstPingAfter = performance.now() - openedAt;
    expect(firstPingAfter).toBeGreaterThanOrEqual(INTERVAL - 5);
    expect(firstPingAfter).toBeLessThan(INTERVAL + 250);
    // The pongs come back through the ws binding: three intervals (longer than interval + timeout) and still open.
    await sleep(3 * INTERVAL + TIMEOUT);
    expect(server.pings).toBeGreaterThanOrEqual(3);
    expect(socket.state).toBe('open');
    expect(rec.errors).toEqual([]);
    expect(rec.closes).toEqual([]);
    expect(server.received, 'protocol pings, not messages').toEqual([]);
  });

  it('without heartbeat(), nothing pings (control)', async () => {
    const server = await startServer(ACCEPT);
    const { socket } = track(new BaseSocket(server.url));
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    await sleep(400);
    expect(server.pings).toBe(0);
  });

  /** A server that refuses the first upgrade with 503 and `Retry-After: 1`, then accepts. */
  const refuseOnce: BehaviourSetting = ({ index }) =>
    index === 0 ? { kind: 'refuse', status: 503, retryAfter: 1 } : ACCEPT;

  it('upgradeRejection(): 503 with Retry-After: 1 is ERR_RS_UPGRADE_REJECTED and the retry waits at least 1 s', async () => {
    const server = await startServer(refuseOnce);
    const { socket, rec } = track(new BaseSocket(server.url, { features: [upgradeRejection()] }));
    await waitFor(() => rec.count('reconnecting') === 1, 2_000, 'the refusal', { describe: () => rec.summary() });
    const [error] = rec.errors;
    expect(error).toMatchObject({ code: 'ERR_RS_UPGRADE_REJECTED', status: 503, retryAfter: 1_000 });
    expect(error?.message).toEqual(errorMessage('ERR_RS_UPGRADE_REJECTED', expect.stringContaining('HTTP 503')));
    const [{ delay } = { delay: Number.NaN }] = rec.reconnecting;
    // At least the Retry-After; the default backoff's first window (about 20 ms) is shorter.
    expect(delay).toBe(1_000);

    await waitFor(() => socket.state === 'open', 3_000, 'open after the wait', { describe: () => rec.summary() });
    expect(server.upgrades.map((u) => u.kind)).toEqual(['refuse', 'accept']);
    const [first, second] = server.upgrades;
    // Node may run a timer up to a millisecond early on performance.now()'s finer clock.
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1_000 - 2);
    expect(rec.opens).toEqual([{ attempt: 2, reconnected: false }]);
    expect(rec.errors).toHaveLength(1);
  });

  it('without upgradeRejection(), the same refusal is an ordinary failed attempt retried with backoff (control)', async () => {
    const server = await startServer(refuseOnce);
    const { socket, rec } = track(new BaseSocket(server.url));
    await waitFor(() => socket.state === 'open', 2_000, 'open', { describe: () => rec.summary() });
    expect(rec.errors[0]).toMatchObject({ code: 'ERR_RS_CONNECTION_FAILED' });
    expect(rec.errors[0]?.message).toEqual(
      errorMessage('ERR_RS_CONNECTION_FAILED', expect.stringContaining('HTTP 503')),
    );
    expect(rec.reconnecting[0]?.delay).toBeLessThan(1_000);
  });

  it('close() leaves nothing running: no timer of the socket, none in the process, the server sees the close', async () => {
    const server = await startServer(ACCEPT);
    const baseline = await timerBaseline();
    const clock = countingClock();
    const { socket, rec } = track(
      new BaseSocket(server.url, {
        clock,
        stableAfter: 60_000,
        features: [heartbeat({ interval: 100, timeout: 1_000 })],
      }),
    );
    await waitFor(() => socket.state === 'open', 2_000, 'open', { describe: () => rec.summary() });
    await waitFor(() => server.pings >= 1, 1_000, 'a ping');
    expect(clock.pending.size, 'while open: the stable deadline and the heartbeat').toBeGreaterThanOrEqual(2);

    socket.close(1000, 'done');
    await waitFor(() => socket.state === 'closed', 2_000, 'closed', { describe: () => rec.summary() });
    await waitFor(() => server.openClients === 0, 2_000, 'the server to see the client go');
    expect(server.disconnects).toEqual([expect.objectContaining({ code: 1000, reason: 'done' })]);
    expect(rec.closes).toEqual([{ code: 1000, reason: 'done', wasClean: true, willReconnect: false }]);
    expect(clock.pending.size, 'timers of the socket left').toBe(0);
    await waitFor(() => activeTimeouts() <= baseline, 2_000, 'no timer left in the process', {
      describe: () => ({ active: activeTimeouts(), baseline, resources: process.getActiveResourcesInfo() }),
    });
    const pings = server.pings;
    await sleep(300);
    expect(server.pings, 'no ping after close()').toBe(pings);
    expect(server.connections).toBe(1);
  });

  it('a Node process that round-trips and closes exits by itself within 1 s of close()', async () => {
    const script = `
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { BaseSocket, heartbeat, upgradeRejection } from '#src/modular-node.ts';


const http = createServer();
const wss = new WebSocketServer({ server: http });
wss.on('connection', (ws) => ws.on('message', (data) => ws.send('echo:' + data)));
await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
const { port } = http.address();
const socket = new BaseSocket('ws://127.0.0.1:' + port, {
  features: [heartbeat({ interval: 100, timeout: 1000 }), upgradeRejection()],
});
socket.on('error', (error) => console.log('error', error.code));
socket.on('message', (data) => {
  console.log('message', String(data));
  console.log('binaryType', socket.binaryType);
  console.log('closeCalledAt', Date.now());
  socket.close();
  wss.close();
  http.close();
});
console.log('send', socket.send('hello'));
process.on('exit', (code) => console.log('exitAt', Date.now(), code));
`;
    const result = await runNodeChild(script, 5_000);
    const lines = parseLines(result.stdout);
    expect(result.stderr).toBe('');
    expect(result.killed, `the child outlived 5 s:\n${result.stdout}`).toBe(false);
    expect(result.code).toBe(0);
    expect(lines.get('binaryType')).toBe('nodebuffer'); // found ws by itself
    expect(lines.get('send')).toBe('buffered');
    expect(lines.get('message')).toBe('echo:hello');
    expect(lines.has('error')).toBe(false);
    const closeCalledAt = Number(lines.get('closeCalledAt'));
    expect(Number.isFinite(closeCalledAt)).toBe(true);
    expect(result.exitedAt - closeCalledAt, 'close() → process gone').toBeLessThan(1_000);
  });
});
