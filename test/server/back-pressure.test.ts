/**
 * No amplification: a client that neither reads nor acknowledges costs one copy of its outbox in
 * its connection's buffer. Resends wait until the connection wrote what it was given before
 * (`bufferedAmount` 0); a hello resends once; a session taken over cuts the old connection and
 * frees what it held. Real ws connections, the client's socket paused (it reads nothing), time on
 * a TestClock, every real wait bounded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { Cleanup, waitFor } from '../helpers/wait.js';
import { fakeServer } from './fake.js';
import { type RawClient, settle, start } from './harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** Stops reading on the client's side: what the server writes piles up in its buffers. */
function pause(client: RawClient): void {
  (client.ws as unknown as { _socket: { pause(): void } })._socket.pause();
}

function resume(client: RawClient): void {
  (client.ws as unknown as { _socket: { resume(): void } })._socket.resume();
}

/** 40 messages of 200 000 characters: 8 MB, more than loopback's kernel buffers take. */
const COUNT = 40;
const payload = (n: number) => `${n}:`.padEnd(200_000, 'x');
const budgets = { maxSessionBytes: 64 * 2 ** 20, maxBytes: 256 * 2 ** 20 };

describe('ReliableServer: resends paced by the connection', () => {
  it('writes nothing again while the connection still holds earlier copies; resends once it drained', async () => {
    const { server, clock, connect } = await start(cleanup, { ackTimeout: 1_000, ...budgets });
    const client = await connect();
    client.hello('s1');
    await settle(client);
    pause(client);
    for (let n = 0; n < COUNT; n++) void server.send('s1', payload(n)).catch(() => {});
    const socket = server.sessions.get('s1')?.socket as WebSocket;
    const first = socket.bufferedAmount;
    expect(first).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) {
      await clock.advance(1_000);
      await new Promise((resolve) => setTimeout(resolve, 10)); // let a resend reach the socket, if any
    }
    // Earlier copies still on their way: not one more byte queued (each resend would add 8 MB).
    expect(socket.bufferedAmount).toBeLessThanOrEqual(first);

    resume(client);
    await waitFor(() => client.received.length >= COUNT, 5_000, 'the first copies to arrive');
    await waitFor(() => socket.bufferedAmount === 0, 5_000, 'the connection to drain');
    expect(client.received).toHaveLength(COUNT); // once each, no copy
    await clock.advance(1_000); // drained and still unacknowledged: now they go again, once
    await waitFor(() => client.received.length >= 2 * COUNT, 5_000, 'the resends');
    await settle(client);
    expect(client.received).toHaveLength(2 * COUNT);
  });

  it('does not count a resend held back toward `maxAttempts`', async () => {
    const { server, clock, connect } = fakeServer(cleanup, { ackTimeout: 1_000, maxAttempts: 2 });
    const socket = connect();
    socket.receive({ rs: 'hello', session: 's1' });
    let outcome: unknown = 'pending';
    server.send('s1', 'x').then(
      () => {
        outcome = 'resolved';
      },
      (error: unknown) => {
        outcome = error;
      },
    );
    socket.bufferedAmount = 10;
    await clock.advance(10_000);
    expect(socket.sent).toHaveLength(1);
    expect(clock.pending).toBe(1); // one timer, re-armed every `ackTimeout`: never a busy loop
    socket.bufferedAmount = 0;
    await clock.advance(1_000);
    expect(socket.sent).toHaveLength(2);
    expect(outcome).toBe('pending');
    await clock.advance(1_000);
    expect(outcome).toMatchObject({ code: 'ERR_RS_NOT_ACKNOWLEDGED' });
  });
});

describe('ReliableServer: a session moves, its copies do not pile up', () => {
  it('hellos on new connections cut the old ones, and what they had not written is freed', async () => {
    const { server, wss, connect } = await start(cleanup, budgets);
    for (let n = 0; n < COUNT; n++) void server.send('s1', payload(n)).catch(() => {});
    const sockets: WebSocket[] = [];
    for (let i = 0; i < 5; i++) {
      const client = await connect();
      pause(client);
      client.hello('s1');
      const moved = () => server.sessions.get('s1')?.socket as WebSocket | undefined;
      await waitFor(
        () => moved() !== undefined && !sockets.includes(moved() as WebSocket),
        2_000,
        'the session to move',
      );
      sockets.push(moved() as WebSocket);
    }
    await waitFor(() => wss.clients.size === 1, 2_000, 'the old connections to be cut');
    expect(sockets.slice(0, -1).map((s) => s.readyState)).toEqual([3, 3, 3, 3]);
    const held = [...wss.clients].reduce((sum, s) => sum + s.bufferedAmount, 0);
    expect(held).toBeLessThanOrEqual(COUNT * 200_100); // one copy of the outbox, at most
  });
});
