/**
 * How a ws socket is bound (src/transports/ws/binding.ts): through its own `emit`, with no listener on
 * ws's EventEmitter, while anything else listening on the socket still hears every event. Every
 * socket runs on ws, pinned with the `WebSocket` option (ws's class, or a subclass that records
 * what ws emits): the binding under test is the one for ws sockets.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ResilientSocket } from '../../src/node.js';
import { startTestServer } from '../faults/index.js';
import { closeAndExpectGone, SocketRecorder } from '../helpers/socket-recorder.js';
import { Cleanup, waitFor } from '../helpers/wait.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const startServer = () => startTestServer(cleanup);

/** ws with listeners of its own, as an app's subclass (or the storm benchmark's) may have. */
function recordingWebSocket() {
  const instances: WebSocket[] = [];
  const heard: string[] = [];
  class Recording extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      instances.push(this);
      this.on('open', () => heard.push('open'));
      this.on('message', (data, isBinary) => heard.push(`message:${isBinary ? 'binary' : String(data)}`));
      this.on('error', (error: NodeJS.ErrnoException) => heard.push(`error:${error.code ?? error.message}`));
      this.on('close', (code) => heard.push(`close:${code}`));
    }
  }
  return { Recording, instances, heard };
}

const EVENTS = ['open', 'message', 'error', 'close', 'pong', 'unexpected-response'];

describe('the ws binding', () => {
  it('puts no listener on ws, and a subclass that listens itself still hears every event', async () => {
    const server = await startServer();
    const { Recording, instances, heard } = recordingWebSocket();
    const socket = new ResilientSocket(server.url, { WebSocket: Recording, maxDelay: 100, ceiling: 2 });
    cleanup.add(socket, (s) => s.close());
    const rec = new SocketRecorder(socket);

    await waitFor(() => socket.state === 'open', 2_000, 'open', { describe: () => rec.summary() });
    const ws = instances[0] as WebSocket;
    // Only the subclass's own four listeners: none of ours.
    expect(EVENTS.map((event) => ws.listenerCount(event))).toEqual([1, 1, 1, 1, 0, 0]);

    socket.send('ping-1');
    await waitFor(() => rec.messages.length === 1, 1_000, 'the echo');
    expect(rec.messages).toEqual(['ping-1']);
    expect(heard).toEqual(['open', 'message:ping-1']);

    for (const client of server.clients) client.close(4001, 'bye');
    await waitFor(() => rec.count('open') === 2, 2_000, 'the reconnect', { describe: () => rec.summary() });
    expect(heard).toEqual(['open', 'message:ping-1', 'close:4001', 'open']);
    expect(rec.closes[0]).toMatchObject({ code: 4001, reason: 'bye', wasClean: true });
    await closeAndExpectGone(socket, server);
  });

  it('delivers text as strings and binary as ws gives it: Buffer by default, ArrayBuffer with binaryType', async () => {
    const server = await startServer();
    const socket = new ResilientSocket(server.url, { WebSocket, maxDelay: 100, ceiling: 2 });
    cleanup.add(socket, (s) => s.close());
    const received: unknown[] = [];
    socket.on('message', (data) => received.push(data));
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    socket.send('text');
    socket.send(new Uint8Array([1, 2, 3]));
    await waitFor(() => received.length === 2, 1_000, 'two echoes');
    expect(received[0]).toBe('text');
    expect(Buffer.isBuffer(received[1])).toBe(true);
    expect([...(received[1] as Buffer)]).toEqual([1, 2, 3]);

    socket.binaryType = 'arraybuffer'; // on the live connection too
    socket.send(new Uint8Array([4, 5]));
    await waitFor(() => received.length === 3, 1_000, 'the third echo');
    expect(received[2]).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(received[2] as ArrayBuffer)]).toEqual([4, 5]);
    expect(socket.stats.messagesIn).toBe(3);
  });

  it('late events of a replaced ws socket reach nobody', async () => {
    const server = await startServer();
    const { Recording, instances } = recordingWebSocket();
    const socket = new ResilientSocket(server.url, { WebSocket: Recording, maxDelay: 100, ceiling: 2 });
    cleanup.add(socket, (s) => s.close());
    const rec = new SocketRecorder(socket);
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    socket.reconnect();
    await waitFor(() => rec.count('open') === 2, 2_000, 'the second connection');
    const before = { events: rec.summary(), stats: socket.stats };
    const old = instances[0] as WebSocket;
    old.emit('message', Buffer.from('late'), false);
    old.emit('pong', Buffer.alloc(0));
    old.emit('error', new Error('late'));
    old.emit('close', 1006, Buffer.alloc(0));
    expect(rec.summary()).toEqual(before.events);
    expect(socket.state).toBe('open');
    expect(socket.stats.messagesIn).toBe(before.stats.messagesIn);
    await closeAndExpectGone(socket, server);
  });

  it("absorbs a transport error nobody else listens for (ws's EventEmitter would throw it)", async () => {
    const server = await startServer();
    const url = server.url;
    await server.stop(); // refused: ws emits `error` (ECONNREFUSED), then `close`
    const errors: unknown[] = [];
    const socket = new ResilientSocket(url, { WebSocket, maxDelay: 50, ceiling: 1, maxRetries: 1 });
    socket.on('error', (error) => errors.push(error));
    cleanup.add(socket, (s) => s.close());
    await waitFor(() => socket.state === 'closed', 2_000, 'the give-up');
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual([
      'ERR_RS_CONNECTION_FAILED',
      'ERR_RS_CONNECTION_FAILED',
      'ERR_RS_RETRIES_EXHAUSTED',
    ]);
    expect(String((errors[0] as { cause?: unknown }).cause)).toMatch(/ECONNREFUSED/);
  });

  it('an error listener of the subclass hears the transport error too', async () => {
    const server = await startServer();
    const url = server.url;
    await server.stop();
    const { Recording, heard } = recordingWebSocket();
    const socket = new ResilientSocket(url, { WebSocket: Recording, maxDelay: 50, ceiling: 1, maxRetries: 0 });
    socket.on('error', () => undefined);
    cleanup.add(socket, (s) => s.close());
    await waitFor(() => socket.state === 'closed', 2_000, 'the give-up');
    expect(heard).toEqual(['error:ECONNREFUSED', 'close:1006']);
  });
});
