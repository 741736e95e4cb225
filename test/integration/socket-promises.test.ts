/**
 * Promises that only a real connection shows, against real ws servers on 127.0.0.1: binary data,
 * heartbeat answers, polite reconnects, oversized messages, timers under fake clocks, throwing
 * predicates in a real process. The protocol-ping heartbeat and the
 * `wsOptions.maxPayload` tests run on ws, pinned with the `WebSocket` option (only ws sends pings
 * and takes ws's client options); the rest run on whatever WebSocket the runtime gives.
 */
import { createHook } from 'node:async_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { constant } from '../../src/backoff/constant.js';
import type { Data } from '../../src/data.js';
import type { ResilientSocketError } from '../../src/errors.js';
import { ResilientSocket } from '../../src/node.js';
import { startTestServer } from '../faults/index.js';
import { errorMessage } from '../helpers/mode.js';
import { parseLines, runNodeChild } from '../helpers/node-child.js';
import { closeAndExpectGone, SocketRecorder } from '../helpers/socket-recorder.js';
import { Cleanup, waitFor } from '../helpers/wait.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

function track(socket: ResilientSocket): SocketRecorder {
  cleanup.add(socket, (s) => s.close());
  return new SocketRecorder(socket);
}

const bytes = (data: Data | undefined): number[] => [...new Uint8Array(data as Uint8Array)];

/** Makes `buffer` unusable here, as transferring it to a worker does. */
function detach(buffer: ArrayBufferLike): void {
  structuredClone(buffer, { transfer: [buffer as ArrayBuffer] });
}

describe('binary data that is or becomes detached', () => {
  it('queued, then transferred: the server still gets the bytes sent; later sends flow', async () => {
    const server = await startTestServer(cleanup);
    const socket = new ResilientSocket(server.url, { binaryType: 'arraybuffer' });
    const rec = track(socket);
    const view = new Uint8Array([1, 2, 3]);
    expect(socket.send(view)).toBe('buffered');
    detach(view.buffer);
    await waitFor(() => rec.messages.length === 1, 2_000, 'the echo of the queued bytes');
    expect(bytes(rec.events('message')[0]?.payload as Data)).toEqual([1, 2, 3]);
    expect(socket.send('text')).toBe('sent');
    await waitFor(() => rec.messages.length === 2, 1_000, 'the echo of "text"');
    expect(rec.drops).toEqual([]);
    await closeAndExpectGone(socket, server);
  });

  it('sent while open after it was transferred: dropped and reported, the connection goes on', async () => {
    const server = await startTestServer(cleanup);
    const socket = new ResilientSocket(server.url);
    const rec = track(socket);
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    const dead = new Uint8Array([9, 9]);
    detach(dead.buffer);
    expect(socket.send(dead)).toBe('dropped');
    expect(rec.errors.map((e) => e.code)).toEqual(['ERR_RS_UNSENDABLE']);
    expect(rec.drops.map((d) => [d.reason, d.messages.length])).toEqual([['unsendable', 1]]);
    expect(socket.send('after')).toBe('sent');
    await waitFor(() => server.received.includes('after'), 1_000, 'the server to get "after"');
    expect(server.received).toEqual(['after']);
    await closeAndExpectGone(socket, server);
  });
});

describe('a heartbeat that pings requires the answers', () => {
  it('protocol pings never answered while the server streams: the link is found dead', async () => {
    const server = await startTestServer(cleanup, { kind: 'accept', answerPings: false });
    const socket = new ResilientSocket(server.url, {
      WebSocket: WsWebSocket,
      heartbeat: { interval: 100, timeout: 150 },
      backoff: constant({ delay: 5_000 }),
    });
    const rec = track(socket);
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    const stream = setInterval(() => {
      for (const client of server.clients) if (client.readyState === 1) client.send('tick');
    }, 20);
    cleanup.add(stream, clearInterval);
    await waitFor(() => rec.errors.length > 0, 2_000, 'the heartbeat to find the link dead', {
      describe: () => rec.summary(),
    });
    expect(rec.errors.map((e) => e.code)).toEqual(['ERR_RS_DEAD_LINK']);
    expect(rec.messages.length).toBeGreaterThan(5); // the server kept streaming all along
    expect(rec.closes[0]).toMatchObject({ code: 1006, reason: 'heartbeat timeout' });
    expect(server.pings).toBeGreaterThan(0);
  });
});

describe('reconnect() closes politely', () => {
  it('the server sees the close frame with the code and reason, then the new connection', async () => {
    const server = await startTestServer(cleanup);
    const socket = new ResilientSocket(server.url);
    const rec = track(socket);
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    socket.reconnect(4002, 'moving');
    expect(rec.closes).toEqual([{ code: 4002, reason: 'moving', wasClean: false, willReconnect: true }]);
    await waitFor(() => rec.count('open') === 2 && server.disconnects.length === 1, 2_000, 'the new connection');
    expect(server.disconnects[0]).toMatchObject({ code: 4002, reason: 'moving' }); // not 1006: a close frame, not a cut
    expect(server.connections).toBe(2);
    await closeAndExpectGone(socket, server);
  });
});

describe('a message over wsOptions.maxPayload', () => {
  it('is reported as an error, not a silent reconnect', async () => {
    const server = await startTestServer(cleanup);
    const socket = new ResilientSocket(server.url, {
      WebSocket: WsWebSocket,
      wsOptions: { maxPayload: 16 },
      backoff: constant({ delay: 5_000 }),
    });
    const rec = track(socket);
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    for (const client of server.clients) client.send('x'.repeat(100));
    await waitFor(() => rec.errors.length > 0, 2_000, 'the error', { describe: () => rec.summary() });
    const error = rec.errors[0] as ResilientSocketError;
    expect(error.code).toBe('ERR_RS_CONNECTION_FAILED');
    expect(error.message).toEqual(
      errorMessage('ERR_RS_CONNECTION_FAILED', expect.stringContaining('Max payload size exceeded')),
    );
    expect((error.cause as { code?: string }).code).toBe('WS_ERR_UNSUPPORTED_MESSAGE_LENGTH');
    expect(rec.messages).toEqual([]);
    expect(socket.state).toBe('reconnecting');
    await waitFor(() => server.disconnects.length === 1, 1_000, 'the server to see the close');
    expect(server.disconnects[0]?.code).toBe(1009);
  });
});

describe('timers armed before fake timers were installed', () => {
  /** Node's live timers (setTimeout/setInterval), from the process's own count. */
  const liveTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

  /**
   * The Node timers made while `watching` is true, each until it fires or is cleared: the socket's
   * own, told apart from the process's other timers (a server's, one a previous test left to end).
   */
  function watchTimers() {
    const live = new Set<number>();
    const watch = { live, watching: true, stop: () => hook.disable() };
    const hook = createHook({
      init(id, type) {
        if (watch.watching && type === 'Timeout') live.add(id);
      },
      destroy(id) {
        live.delete(id);
      },
    }).enable();
    return watch;
  }

  it('close() under fake timers still clears the real ones: nothing keeps the process alive', async () => {
    const server = await startTestServer(cleanup);
    const before = liveTimers();
    const timers = watchTimers();
    cleanup.add(timers, (watch) => watch.stop());
    const socket = new ResilientSocket(server.url, { heartbeat: { interval: 30_000, timeout: 10_000 } });
    track(socket);
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    timers.watching = false;
    // The stable reset and the heartbeat ping (the waits' own timers have fired).
    expect(timers.live.size).toBeGreaterThanOrEqual(2);
    // A test file's beforeEach, after the socket was made; as sinon and jest do by default, the fake
    // clearTimeout leaves native timers alone (vitest's own default would clear them for us).
    vi.useFakeTimers({ shouldClearNativeTimers: false });
    try {
      socket.close();
    } finally {
      vi.useRealTimers();
    }
    await waitFor(() => socket.state === 'closed', 2_000, 'closed');
    expect([...timers.live]).toEqual([]); // cleared by close(), with the real clearTimeout
    await waitFor(() => liveTimers() <= before, 1_000, 'the real timers to be gone', {
      describe: () => ({ before, now: liveTimers() }),
    });
  });
});

describe('throwing predicates do not kill the process', () => {
  // A real process: with ws, an exception in the receive path is an uncaught exception.
  const script = `
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { handshake, ResilientSocket } from '#src/node.ts';

const http = createServer();
const wss = new WebSocketServer({ server: http });
wss.on('connection', (ws) => ws.send('welcome, this is not JSON'));
await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
const url = 'ws://127.0.0.1:' + http.address().port;
const isJsonType = (type) => (data) => JSON.parse(String(data)).type === type;

const withHeartbeat = new ResilientSocket(url, {
  heartbeat: { interval: 60_000, timeout: 1_000, message: 'ping', isPong: isJsonType('pong') },
});
const withHandshake = new ResilientSocket(url, {
  handshake: handshake((c) => c.nextMessage(isJsonType('subscribed')).then(() => undefined)),
  backoff: { next: () => 60_000, reset: () => undefined },
});
const codes = [];
for (const socket of [withHeartbeat, withHandshake]) socket.on('error', (error) => codes.push(error.code));
withHeartbeat.on('message', (data) => console.log('message', String(data)));
setTimeout(() => {
  console.log('codes', codes.sort().join(','));
  withHeartbeat.close();
  withHandshake.close();
  wss.close();
  http.close();
}, 300);
process.on('exit', (code) => console.log('exit', code));
`;

  it('heartbeat.isPong and a handshake nextMessage() predicate that throw are reported; the process carries on', async () => {
    const result = await runNodeChild(script, 5_000);
    const lines = parseLines(result.stdout);
    expect(result.stderr).toBe('');
    expect(result.killed).toBe(false);
    expect(lines.get('message')).toBe('welcome, this is not JSON');
    expect(lines.get('codes')).toBe('ERR_RS_CALLBACK_FAILED,ERR_RS_HANDSHAKE_FAILED');
    expect(lines.get('exit')).toBe('0');
    expect(result.code).toBe(0);
  });

  const noListener = `
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { ResilientSocket } from '#src/node.ts';

const http = createServer();
const wss = new WebSocketServer({ server: http });
wss.on('connection', (ws) => ws.send('not JSON'));
await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
const socket = new ResilientSocket('ws://127.0.0.1:' + http.address().port, {
  heartbeat: { interval: 60_000, timeout: 1_000, message: 'ping', isPong: (d) => JSON.parse(String(d)).type === 'pong' },
});
socket.on('message', (data) => {
  console.log('message', String(data));
  throw new Error('and a message listener that throws');
});
setTimeout(() => {
  console.log('state', socket.state);
  socket.close();
  wss.close();
  http.close();
}, 300);
process.on('exit', (code) => console.log('exit', code));
`;

  it('with no error listener at all: shown as process warnings, never an uncaught exception', async () => {
    const result = await runNodeChild(noListener, 5_000);
    const lines = parseLines(result.stdout);
    expect(lines.get('message')).toBe('not JSON');
    expect(lines.get('state')).toBe('open');
    expect(lines.get('exit')).toBe('0');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('ResilientSocketError: `heartbeat.isPong` threw');
    expect(result.stderr).toContain('ResilientSocketError: A listener threw: and a message listener that throws');
  });
});
