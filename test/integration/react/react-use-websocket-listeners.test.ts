// @vitest-environment jsdom
/**
 * react-use-websocket's own tests asked of `useResilientSocket` (./react-use-websocket-harness.ts
 * says which of their tests each one is, and how the two hooks differ): the socket under the hook
 * and its listeners: retries, a backoff policy of one's own, closing, and one socket shared by many
 * components.
 */
import { act } from 'react';
import type { Root } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import type { BaseSocket } from '../../../src/core/socket.js';
import { AFTER_GRACE, mount, pass, render, startServer, until } from './harness.js';
import { codeOf, heard, probe, type Seen, seen } from './react-use-websocket-harness.js';

describe('attach-listener.test.ts: the socket under the hook', () => {
  it('retries maxRetries times, then gives up', async () => {
    const server = await startServer();
    server.down = true;
    const s = seen();
    await mount(probe(server.url, s, { maxRetries: 5, maxDelay: 20 }));
    await until(() => s.hook?.state === 'closed', 'gave up');
    expect(heard(s, 'reconnecting')).toHaveLength(5);
    expect(heard(s, 'giveup')[0]).toMatchObject({ attempts: 6, failures: 6 });
  });

  it('a backoff policy of its own sets each wait', async () => {
    const server = await startServer();
    server.down = true;
    const s = seen();
    // Their reconnectInterval function, as a policy: 10 ms times the square of the attempt.
    const backoff = {
      n: 0,
      next: () => {
        backoff.n++;
        return backoff.n ** 2 * 10;
      },
      reset: () => {
        backoff.n = 0;
      },
    };
    const started = performance.now();
    await mount(probe(server.url, s, { maxRetries: 3, backoff }));
    await until(() => s.hook?.state === 'closed', 'gave up');
    expect(heard(s, 'reconnecting').map((r) => (r as { delay: number }).delay)).toEqual([10, 40, 90]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('socket.close() goes through closing to closed', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s));
    await until(() => s.hook?.state === 'open', 'open');
    await act(async () => s.hook?.socket?.close());
    await until(() => s.hook?.state === 'closed', 'closed');
    const changes = heard(s, 'state').map((change) => (change as { current: string }).current);
    expect(changes).toEqual(['open', 'closing', 'closed']);
  });
});

describe('attach-shared-listeners.test.ts and create-or-join.test.ts: one socket, many components', () => {
  it('every component of a shared socket sees its states', async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    const options = { shouldReconnect: () => false };
    await mount(all.map((s, i) => probe(server.url, s, options, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open'), 'all open');
    for (const client of server.wss.clients) client.close(1000);
    await until(() => all.every((s) => s.hook?.state === 'closed'), 'all closed');
    for (const s of all) expect(s.states).toEqual(['idle', 'connecting', 'open', 'closed']);
  });

  it('one socket per URL, closed after its last user unmounts', async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    const roots: Root[] = [];
    for (const s of all) roots.push(await mount(probe(server.url, s)));
    await until(() => all.every((s) => s.hook?.state === 'open'), 'all open');
    const socket = all[0]?.hook?.socket as BaseSocket;
    await render(roots[0] as Root, null);
    await render(roots[1] as Root, null);
    await pass(AFTER_GRACE);
    expect(socket.state).toBe('open');
    await render(roots[2] as Root, null);
    await until(() => socket.state === 'closed' && server.closes === 1, 'closed');
    expect(server.connections).toBe(1);
  });

  it("a clean close: every component's close listener hears it once, no error listener hears anything", async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    await mount(all.map((s, i) => probe(server.url, s, { maxDelay: 50 }, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open' && s.events.state), 'all open and listening');
    for (const client of server.wss.clients) client.close(1000);
    await until(() => all.every((s) => heard(s, 'close').length === 1), 'all hear the close');
    await until(() => all.every((s) => s.hook?.state === 'open'), 'reconnected');
    for (const s of all) expect(heard(s, 'error')).toEqual([]);
  });

  it('onMessage of every component is called for each message', async () => {
    const server = await startServer();
    const got: unknown[][] = [[], [], []];
    const all = [seen(), seen(), seen()];
    await mount(all.map((s, i) => probe(server.url, s, { onMessage: (m) => got[i]?.push(m.data) }, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open'), 'all open');
    server.broadcast('one');
    server.broadcast('two');
    await until(() => got.every((g) => g.length === 2), 'all get both');
    expect(got).toEqual([
      ['one', 'two'],
      ['one', 'two'],
      ['one', 'two'],
    ]);
  });

  it("a failed attempt: every component's error and close listeners hear it", async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    await mount(all.map((s, i) => probe(server.url, s, { maxDelay: 50 }, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open' && s.events.state), 'all open and listening');
    server.crash();
    await until(() => all.every((s) => heard(s, 'error').length > 0 && heard(s, 'close').length > 1), 'heard');
    for (const s of all) {
      expect(codeOf(heard(s, 'error')[0])).toBe('ERR_RS_CONNECTION_FAILED');
      expect(heard(s, 'close')[1]).toMatchObject({ wasClean: false, willReconnect: true });
    }
    const [first, ...rest] = all;
    for (const s of rest) expect(heard(s, 'error').slice(0, 1)).toEqual(heard(first as Seen, 'error').slice(0, 1));
  });
});
