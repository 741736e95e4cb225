import { afterEach, describe, expect, it } from 'vitest';
import { ResilientSocket } from '../../src/node.js';
import { ECHO, TestWsServer } from '../faults/index.js';
import { closeAndExpectGone, SocketRecorder } from '../helpers/socket-recorder.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

// A real ws server on 127.0.0.1 that is stopped (clients cut abruptly) and restarted on the same
// port while the client keeps sending.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

function setup() {
  const server = cleanup.add(new TestWsServer(ECHO), (s) => s.stop());
  const track = (socket: ResilientSocket) => {
    cleanup.add(socket, (s) => s.close());
    return new SocketRecorder(socket);
  };
  return { server, track };
}

describe('server restart', () => {
  it('delivers 1,000 messages sent during the outage exactly once, in order, after the restart', async () => {
    const { server, track } = setup();
    await server.start();
    const socket = new ResilientSocket(server.url, { maxDelay: 200, ceiling: 3, stableAfter: 200 });
    const rec = track(socket);
    await waitFor(() => socket.state === 'open', 2_000, 'first open');
    expect(socket.send('before')).toBe('sent');
    await waitFor(() => server.received.length === 1, 1_000, 'the first message to arrive');

    await server.stop();
    // A message written to a connection the client still believes open would be lost by any
    // WebSocket; the outage starts, for the client, when it notices the drop.
    await waitFor(() => socket.state !== 'open', 1_000, 'the client to notice the server went away');
    expect(rec.closes).toEqual([{ code: 1006, reason: '', wasClean: false, willReconnect: true }]);

    const expected = Array.from({ length: 1_000 }, (_, i) => `m${i}`);
    const results = expected.map((message) => socket.send(message));
    expect(new Set(results)).toEqual(new Set(['buffered']));
    expect(socket.bufferedCount).toBe(1_000);
    await sleep(100); // a few failed attempts against the dead port
    expect(socket.state).not.toBe('open');

    await server.start();
    await waitFor(() => server.received.length >= 1_001, 3_000, 'the server to receive all 1,000 messages', {
      describe: () => ({ received: server.received.length, state: socket.state, events: rec.summary().slice(-5) }),
    });
    await waitFor(() => rec.messages.length >= 1_001, 2_000, 'the echoes to come back');
    await sleep(50); // nothing more may arrive

    expect(server.received).toEqual(['before', ...expected]);
    expect(rec.messages).toEqual(['before', ...expected]);
    expect(socket.bufferedCount).toBe(0);
    expect(rec.opens).toEqual([
      { attempt: 1, reconnected: false },
      { attempt: expect.any(Number), reconnected: true },
    ]);
    expect(rec.drops).toEqual([]);
    expect(socket.stats.dropped).toBe(0);
    expect(server.connections).toBe(2);

    await closeAndExpectGone(socket, server);
    expect(rec.drops).toEqual([]);
  });
});
