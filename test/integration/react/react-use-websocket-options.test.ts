// @vitest-environment jsdom
/**
 * react-use-websocket's own tests asked of `useResilientSocket` (./react-use-websocket-harness.ts
 * says which of their tests each one is, and how the two hooks differ): the hook's options and the
 * socket's events: sharing, query parameters, protocols, the open, close and error events,
 * onMessage, shouldReconnect, giveup and filter.
 */
import { describe, expect, it } from 'vitest';
import { mount, pass, startServer, until } from './harness.js';
import { codeOf, heard, probe, seen } from './react-use-websocket-harness.js';

describe('use-websocket.test.ts: the hook', () => {
  it('components sharing a socket each see every message, as if alone', async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    for (const s of all) {
      await mount(probe(server.url, s));
      await until(() => s.hook?.state === 'open', 'open');
    }
    server.broadcast('Hello all');
    await until(() => all.every((s) => s.hook?.lastMessage?.data === 'Hello all'), 'all see it');
    expect(server.connections).toBe(1);
    // Unlike theirs (null), a component that joins later starts from the socket's latest message.
    const late = seen();
    await mount(probe(server.url, late));
    await until(() => late.hook?.state === 'open', 'the latecomer open');
    expect(late.hook?.lastMessage?.data).toBe('Hello all');
    expect(server.connections).toBe(1);
  });

  it("each component's close listener hears each close once", async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    for (const s of all) {
      await mount(probe(server.url, s));
      await until(() => s.hook?.state === 'open', 'open');
    }
    for (const s of all) expect(heard(s, 'close')).toEqual([]);
    for (const client of server.wss.clients) client.close(4000, 'bye');
    await until(() => all.every((s) => heard(s, 'close').length > 0), 'every listener hears it');
    await pass(50);
    for (const s of all)
      expect(heard(s, 'close')).toEqual([{ code: 4000, reason: 'bye', wasClean: true, willReconnect: true }]);
  });

  it('query parameters are written in the URL', async () => {
    const server = await startServer();
    const paths: string[] = [];
    server.wss.on('connection', (_ws, request) => paths.push(request.url ?? ''));
    const s = seen();
    const url = `${server.url}?${new URLSearchParams({ type: 'user', id: '5' })}`;
    await mount(probe(url, s));
    await until(() => s.hook?.state === 'open', 'open');
    expect(paths).toEqual(['/?type=user&id=5']);
    expect(s.hook?.socket?.url).toBe(url);
  });

  it('protocols reach the server, and socket.protocol is the one it chose', async () => {
    const server = await startServer();
    server.wss.options.handleProtocols = (offered: Set<string>) => (offered.has('chat') ? 'chat' : false);
    const s = seen();
    await mount(probe(server.url, s, { protocols: 'chat' }));
    await until(() => s.hook?.state === 'open', 'open');
    expect(s.hook?.socket?.protocol).toBe('chat');
  });

  it('equal URL and options share one connection (share: true is the default)', async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    await mount(all.map((s, i) => probe(server.url, s, i === 0 ? { share: true } : {}, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open'), 'all open');
    await pass(100);
    expect(server.connections).toBe(1);
  });

  it('share: false makes a connection per component', async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    await mount(all.map((s, i) => probe(server.url, s, { share: false }, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open'), 'all open');
    await pass(100);
    expect(server.connections).toBe(3);
    expect(new Set(all.map((s) => s.hook?.socket)).size).toBe(3);
  });

  it("the socket's open event tells the attempt that opened", async () => {
    const server = await startServer();
    server.down = true; // so that the listener is there before it opens
    const s = seen();
    await mount(probe(server.url, s, { maxDelay: 50 }));
    await until(() => s.hook?.socket !== null && heard(s, 'error').length > 0, 'a refused attempt');
    server.down = false;
    await until(() => heard(s, 'open').length > 0, 'open');
    expect(heard(s, 'open')).toHaveLength(1);
    expect(heard(s, 'open')[0]).toMatchObject({ reconnected: false });
  });

  it("the socket's close event tells the code, the reason and whether it reconnects", async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s, { maxDelay: 50 }));
    await until(() => s.hook?.state === 'open', 'open');
    for (const client of server.wss.clients) client.close(4001, 'later');
    await until(() => heard(s, 'close').length === 1, 'the close');
    expect(heard(s, 'close')[0]).toEqual({ code: 4001, reason: 'later', wasClean: true, willReconnect: true });
  });

  it('onMessage receives each message as { data, timeStamp }', async () => {
    const server = await startServer();
    const got: unknown[] = [];
    const s = seen();
    await mount(probe(server.url, s, { onMessage: (message) => got.push(message) }));
    await until(() => s.hook?.state === 'open', 'open');
    server.broadcast('Hello');
    await until(() => got.length === 1, 'onMessage');
    expect(got[0]).toEqual({ data: 'Hello', timeStamp: expect.any(Number) });
  });

  it("the socket's error event tells a failed attempt", async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s, { maxDelay: 50 }));
    await until(() => s.hook?.state === 'open', 'open');
    server.crash();
    await until(() => heard(s, 'error').length > 0, 'an error');
    expect(codeOf(heard(s, 'error')[0])).toBe('ERR_RS_CONNECTION_FAILED');
  });

  it('shouldReconnect decides whether a connection the server closed is made again', async () => {
    const server = await startServer();
    server.wss.on('connection', (ws) => ws.close(4000, 'go'));
    const never = seen();
    await mount(probe(server.url, never, { maxDelay: 50, shouldReconnect: () => false }));
    await until(() => never.hook?.state === 'closed', 'closed');
    await pass(200);
    expect(server.connections).toBe(1);
    const always = seen();
    await mount(probe(server.url, always, { maxDelay: 50, shouldReconnect: () => true }));
    await until(() => server.connections >= 3, 'two connections more');
  });

  it('the giveup event (their onReconnectStop) comes once maxRetries retries failed', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s, { maxRetries: 3, maxDelay: 50 }));
    await until(() => s.hook?.state === 'open', 'open');
    server.crash();
    expect(heard(s, 'giveup')).toEqual([]);
    await until(() => s.hook?.state === 'closed', 'gave up');
    expect(heard(s, 'giveup')).toHaveLength(1);
    const info = heard(s, 'giveup')[0] as { failures: number; error: unknown };
    expect(info.failures).toBe(4); // the loss, then 3 failed retries
    expect(codeOf(info.error)).toBe('ERR_RS_RETRIES_EXHAUSTED');
  });

  it('filter: a refused message leaves lastMessage alone', async () => {
    const server = await startServer();
    const [picky, plain] = [seen(), seen()];
    await mount([probe(server.url, picky, { filter: () => false }, 'f'), probe(server.url, plain, {}, 'p')]);
    await until(() => picky.hook?.state === 'open' && plain.hook?.state === 'open', 'open');
    server.broadcast('Hello');
    await until(() => plain.hook?.lastMessage?.data === 'Hello', 'the message arrived');
    await pass(50);
    expect(picky.hook?.lastMessage).toBeNull();
  });
});
