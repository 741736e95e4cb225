import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxiedServer } from '../faults/index.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

// Self-test of the fault proxy: each control does what the reliability suite relies on.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const setup = () => startProxiedServer(cleanup);

function rawClient(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
    cleanup.add(socket, (s) => s.destroy());
  });
}

describe('FaultProxy', () => {
  it('passes an HTTP exchange through, and holds it while blackholed until restore()', async () => {
    const { proxy } = await setup();
    const socket = await rawClient(proxy.port);
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk;
    });
    proxy.blackhole('both');
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(150);
    expect(received).toBe('');
    expect(socket.destroyed).toBe(false);
    proxy.restore();
    await waitFor(() => received.includes('426'), 2_000, 'the server answer after restore');
  });

  it('reset() ends proxied connections with ECONNRESET', async () => {
    const { proxy } = await setup();
    const socket = await rawClient(proxy.port);
    await waitFor(() => proxy.active === 1, 1_000, 'the pair');
    const error = new Promise<NodeJS.ErrnoException>((resolve) => socket.once('error', resolve));
    proxy.reset();
    expect((await error).code).toBe('ECONNRESET');
    expect(proxy.active).toBe(0);
  });

  it('refuse() makes new connections fail with ECONNREFUSED; accept() reopens the same port', async () => {
    const { proxy } = await setup();
    const port = proxy.port;
    await proxy.refuse();
    await expect(rawClient(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(await proxy.accept()).toBe(port);
    await expect(rawClient(port)).resolves.toBeDefined();
  });

  it('adds latency to every chunk', async () => {
    const { proxy } = await setup();
    proxy.latency = 120;
    const socket = await rawClient(proxy.port);
    const started = performance.now();
    let firstAt = 0;
    socket.once('data', () => {
      firstAt = performance.now();
    });
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(() => firstAt > 0, 2_000, 'the delayed answer');
    expect(firstAt - started).toBeGreaterThanOrEqual(230); // 120 ms each way
  });

  it('flap() alternates down and up', async () => {
    const { proxy } = await setup();
    proxy.flap({ up: 150, down: 150 });
    await sleep(50);
    expect(proxy.listening).toBe(false);
    await waitFor(() => proxy.listening, 1_000, 'up again');
    proxy.stopFlapping();
  });
});
