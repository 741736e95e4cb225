import { afterEach, describe, expect, it } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { isResilientSocketError } from '../../src/errors.js';
import { type DeliveryOptions, delivery, ResilientSocket } from '../../src/node.js';
import { ProtocolServer } from '../helpers/protocol-server.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

// Acknowledged delivery on real sockets, against a server written from the protocol alone
// (test/helpers/protocol-server.ts), not the package's own server helper.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** A ResilientSocket that follows the server from port to port (a URL provider), closed after the test. */
function client(server: ProtocolServer, options: DeliveryOptions = {}): ResilientSocket {
  const socket = new ResilientSocket(
    async () => {
      // While the server is down, wait for it (bounded by the test's timeout).
      while (!server.url) await sleep(2);
      return server.url;
    },
    { delivery: delivery(options), backoff: constant({ delay: 10 }) },
  );
  socket.on('error', () => undefined); // refused connections while the server is down are expected
  cleanup.add(socket, (s) => s.close());
  return socket;
}

describe('acknowledged delivery against a server written from the protocol alone', () => {
  it('the hello goes first, plain frames pass through both ways, reliable ones are acked', async () => {
    const server = cleanup.add(new ProtocolServer(), (s) => s.stop());
    await server.start();
    const socket = client(server);
    const messages: unknown[] = [];
    socket.on('message', (data) => messages.push(data));
    socket.send('plain before');
    await socket.sendReliable({ hello: 'server' });
    const [session] = [...server.sessions.values()];
    expect(session?.processed).toEqual([{ hello: 'server' }]);
    expect(server.plain).toEqual(['plain before']);
    session?.socket?.send('plain from the server');
    await server.send(session?.id as string, ['to', 'the client']);
    expect(messages).toEqual(['plain from the server', ['to', 'the client']]);
    expect(socket.stats.delivery).toEqual({ pending: 0, acked: 1, resent: 0, duplicates: 0 });
  });

  it('a flapping server that loses a third of its acks and a fifth of the client acks: 400 messages each way, all settled, each processed once and in order', async () => {
    const started = performance.now();
    const server = cleanup.add(new ProtocolServer({ ackLoss: 1 / 3, ackInLoss: 1 / 5 }), (s) => s.stop());
    await server.start();
    // Restarts every 100–250 ms (every connection cut, a fresh port, down for up to 20 ms).
    let flapping = true;
    const flap = (async () => {
      while (flapping) {
        await sleep(100 + Math.random() * 150);
        if (flapping) await server.restart(Math.random() * 20);
      }
    })();
    cleanup.add(flap, async (running) => {
      flapping = false;
      await running;
    });

    const socket = client(server, { ackTimeout: 150 });
    const received: unknown[] = [];
    socket.on('message', (data) => received.push(data));
    const N = 400;
    const expected = Array.from({ length: N }, (_, n) => ({ n }));

    // Both send in bursts of 10, every 30 ms (over a second and more of flapping), whatever the state of the connection.
    const outcomes: Promise<unknown>[] = [];
    const sending = (async () => {
      for (let n = 0; n < N; n += 10) {
        for (const message of expected.slice(n, n + 10))
          outcomes.push(
            socket.sendReliable(message).then(
              () => 'acked',
              (e) => e,
            ),
          );
        await sleep(30);
      }
    })();
    await waitFor(() => server.sessions.size === 1, 5_000, 'the first hello');
    const session = [...server.sessions.values()][0];
    if (!session) throw new Error('no session');
    const serverSends: Promise<void>[] = [];
    for (let n = 0; n < N; n += 10) {
      for (const message of expected.slice(n, n + 10)) serverSends.push(server.send(session.id, message));
      await sleep(30);
    }
    await sending;

    const results = await Promise.all(outcomes);
    await waitFor(() => received.length >= N && session.outbox.size === 0, 15_000, 'the server messages to be acked', {
      describe: () => ({ received: received.length, outbox: session.outbox.size }),
    });
    await Promise.all(serverSends);
    flapping = false;
    await flap;

    // Every client promise settled, and all of them as acked (no maxAttempts: nothing given up).
    expect(results.filter((r) => r !== 'acked').map((r) => (isResilientSocketError(r) ? r.code : r))).toEqual([]);
    // Exactly once and in order, both ways.
    expect(session.processed).toEqual(expected);
    expect(received).toEqual(expected);
    // The run did what it says: restarts, lost acks, resends and duplicates on both sides.
    expect(server.restarts).toBeGreaterThanOrEqual(3);
    expect(server.acksLost).toBeGreaterThan(0);
    expect(session.duplicates).toBeGreaterThan(0);
    const stats = socket.stats.delivery;
    expect(stats).toMatchObject({ pending: 0, acked: N });
    expect(stats?.resent).toBeGreaterThan(0);
    expect(stats?.duplicates).toBeGreaterThan(0);
    expect(socket.stats.connects).toBeGreaterThanOrEqual(3);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('close() with messages in flight: every promise settles, with ERR_RS_DELIVERY_STOPPED for what was not acked', async () => {
    const server = cleanup.add(new ProtocolServer({ ackLoss: 1 }), (s) => s.stop());
    await server.start();
    const socket = client(server);
    const dropped: unknown[] = [];
    socket.on('drop', ({ messages }) => dropped.push(...messages));
    const results = Array.from({ length: 20 }, (_, n) =>
      socket.sendReliable(n).then(
        () => 'acked',
        (e) => e,
      ),
    );
    await waitFor(() => (server.sessions.values().next().value?.processed.length ?? 0) === 20, 5_000, 'all processed');
    socket.close();
    const settled = await Promise.all(results);
    expect(settled.map((r) => (isResilientSocketError(r) ? r.code : r))).toEqual(
      Array(20).fill('ERR_RS_DELIVERY_STOPPED'),
    );
    expect(dropped).toEqual(Array.from({ length: 20 }, (_, n) => n));
  });
});
