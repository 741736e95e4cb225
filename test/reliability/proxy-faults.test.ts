import { afterEach, describe, expect, it } from 'vitest';
import { constant } from '../../src/backoff/index.js';
import { ResilientSocket } from '../../src/node.js';
import { startProxiedServer } from '../faults/index.js';
import { closeAndExpectGone, SocketRecorder } from '../helpers/socket-recorder.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

// Faults that only a man in the middle can produce: a link that stops forwarding without closing
// (blackhole) and a connection reset (RST), between a real ResilientSocket and a real ws server.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const setup = () => startProxiedServer(cleanup);

function track(socket: ResilientSocket): SocketRecorder {
  cleanup.add(socket, (s) => s.close());
  return new SocketRecorder(socket);
}

describe('blackhole while open (half-open link)', () => {
  it('is detected by the heartbeat within interval + timeout, closed with 1006 and reconnected', async () => {
    const { server, proxy } = await setup();
    const interval = 200;
    const timeout = 200;
    const socket = new ResilientSocket(proxy.url, {
      heartbeat: { interval, timeout },
      backoff: constant({ delay: 50 }),
    });
    const rec = track(socket);
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    expect(socket.send('before')).toBe('sent');
    await waitFor(() => server.received.includes('before'), 1_000, 'the first message');

    const cut = performance.now();
    proxy.blackhole('both');
    await waitFor(() => rec.closes.length === 1, 2_000, 'dead-link close', { describe: () => rec.summary() });
    const detectedAfter = performance.now() - cut;
    expect(rec.closes[0]).toMatchObject({ code: 1006, reason: 'heartbeat timeout', willReconnect: true });
    expect(rec.errors.map((e) => e.code)).toContain('ERR_RS_DEAD_LINK');
    // Worst case interval + timeout; allow scheduling slack on a loaded machine.
    expect(detectedAfter).toBeLessThan(interval + timeout + 150);

    // Sends while the link is being replaced are buffered and delivered on the new connection.
    proxy.restore();
    socket.send('after');
    await waitFor(() => rec.opens.length === 2, 2_000, 'reconnected');
    await waitFor(() => server.received.includes('after'), 1_000, 'the buffered message');
    expect(server.received.filter((m) => m === 'after')).toHaveLength(1);
    await closeAndExpectGone(socket, server);
  });

  it('a one-way blackhole (server → client lost) is detected the same way', async () => {
    const { proxy } = await setup();
    const socket = new ResilientSocket(proxy.url, { heartbeat: { interval: 150, timeout: 150 } });
    const rec = track(socket);
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    proxy.blackhole('downstream');
    await waitFor(() => rec.closes.length === 1, 2_000, 'dead-link close');
    expect(rec.closes[0]?.reason).toBe('heartbeat timeout');
  });
});

describe('blackhole while connecting', () => {
  it('an upgrade that never gets an answer is abandoned at connectTimeout, then succeeds after restore', async () => {
    const { server, proxy } = await setup();
    proxy.blackhole('both');
    const connectTimeout = 300;
    const socket = new ResilientSocket(proxy.url, { connectTimeout, backoff: constant({ delay: 50 }) });
    const rec = track(socket);
    const started = performance.now();
    await waitFor(() => rec.errors.length === 1, 2_000, 'the connect timeout');
    expect(rec.errors[0]?.code).toBe('ERR_RS_CONNECT_TIMEOUT');
    expect(performance.now() - started).toBeGreaterThanOrEqual(connectTimeout - 5);
    expect(rec.closes[0]).toMatchObject({ code: 1006, reason: 'connect timeout', willReconnect: true });
    expect(server.connections).toBe(0);

    proxy.restore();
    await waitFor(() => socket.state === 'open', 2_000, 'open after restore', { describe: () => rec.summary() });
    await closeAndExpectGone(socket, server);
  });
});

describe('RST mid-message', () => {
  it('a reset during a burst of large messages: only whole messages arrive, then it reconnects', async () => {
    const { server, proxy } = await setup();
    const socket = new ResilientSocket(proxy.url, { backoff: constant({ delay: 50 }) });
    const rec = track(socket);
    const received: string[] = [];
    socket.on('message', (data) => received.push(String(data)));
    await waitFor(() => socket.state === 'open' && server.openClients === 1, 2_000, 'open');

    const size = 64 * 1024;
    server.flood(200, size); // ~12.5 MiB through the proxy
    await waitFor(() => received.length > 0, 2_000, 'the first messages');
    proxy.reset();
    await waitFor(() => rec.closes.length === 1, 2_000, 'the reset');
    expect(rec.closes[0]).toMatchObject({ code: 1006, willReconnect: true });
    expect(received.length).toBeLessThan(200);
    // Every message delivered is whole and in order: flood:0, flood:1, …
    received.forEach((message, i) => {
      expect(message.length).toBe(size);
      expect(message.startsWith(`flood:${i}:`)).toBe(true);
    });

    await waitFor(() => rec.opens.length === 2, 2_000, 'reconnected');
    expect(socket.send('still works')).toBe('sent');
    await waitFor(() => server.received.includes('still works'), 1_000, 'a message after the reset');
    await sleep(0);
    await closeAndExpectGone(socket, server);
  });
});
