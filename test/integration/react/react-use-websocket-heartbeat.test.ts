// @vitest-environment jsdom
/**
 * react-use-websocket's own tests asked of `useResilientSocket` (./react-use-websocket-harness.ts
 * says which of their tests each one is, and how the two hooks differ): the heartbeat: pings, dead
 * links found and reconnected, silence detection, answers kept out of lastMessage, and a ping made
 * by a function.
 */
import { describe, expect, it } from 'vitest';
import { heartbeat } from '../../../src/modular.js';
import { mount, pass, startServer, until } from './harness.js';
import { answerPings, heard, probe, seen, timed } from './react-use-websocket-harness.js';

describe('use-websocket.test.ts: the hook', () => {
  it.each([false, true])(
    'without answers, the heartbeat ends the connection and the socket reconnects (share: %s)',
    async (share) => {
      const server = await startServer();
      const s = seen();
      const options = {
        share,
        maxDelay: 50,
        features: [heartbeat({ message: 'ping', isPong: (data) => data === 'pong', interval: 30, timeout: 100 })],
      };
      await mount(probe(server.url, s, options));
      await until(() => heard(s, 'close').length > 0, 'the heartbeat gives up on the link');
      expect(heard(s, 'close')[0]).toMatchObject({ code: 1006, reason: 'heartbeat timeout', willReconnect: true });
      await until(() => server.connections === 2 && s.hook?.state === 'open', 'open again');
      expect(new Set(server.received)).toEqual(new Set(['ping']));
    },
  );

  it.each([false, true])('the heartbeat pings every interval, once per socket (share: %s)', async (share) => {
    const server = await startServer();
    answerPings(server);
    const log = timed(server);
    const options = {
      share,
      features: [heartbeat({ message: 'ping', isPong: (data) => data === 'pong', interval: 100, timeout: 1_000 })],
    };
    const all = share ? [seen(), seen()] : [seen()];
    await mount(all.map((s, i) => probe(server.url, s, options, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open'), 'open');
    const opened = performance.now();
    await until(() => log.length >= 3, 'three pings');
    const elapsed = performance.now() - opened;
    expect(server.connections).toBe(1);
    expect(new Set(log.map((m) => m.data))).toEqual(new Set(['ping']));
    expect(log.length).toBeLessThanOrEqual(Math.floor(elapsed / 100) + 1); // not one timer per component
  });

  it.each([false, true])(
    'in silence detection, any message within the timeout keeps the link (share: %s)',
    async (share) => {
      const server = await startServer();
      const all = share ? [seen(), seen()] : [seen()];
      const options = { share, features: [heartbeat({ interval: 200, timeout: 200 })] };
      await mount(all.map((s, i) => probe(server.url, s, options, String(i))));
      await until(() => all.every((s) => s.hook?.state === 'open'), 'open');
      for (let i = 0; i < 10; i++) {
        server.broadcast('ping'); // 600 ms in all, longer than interval + timeout
        await pass(60);
      }
      expect(server.connections).toBe(1);
      expect(server.closes).toBe(0);
      expect(all[0]?.hook?.state).toBe('open');
    },
  );

  it.each([false, true])('answers to pings never reach lastMessage; other messages do (share: %s)', async (share) => {
    const server = await startServer();
    answerPings(server);
    const all = share ? [seen(), seen()] : [seen()];
    const options = {
      share,
      features: [heartbeat({ message: 'ping', isPong: (data) => data === 'pong', interval: 50, timeout: 1_000 })],
    };
    await mount(all.map((s, i) => probe(server.url, s, options, String(i))));
    await until(() => server.received.filter((m) => m === 'ping').length >= 2, 'two pings answered');
    server.broadcast('hello');
    await until(() => all.every((s) => s.hook?.lastMessage?.data === 'hello'), 'hello');
    for (const s of all) expect(s.data).toEqual(['hello']);
  });

  it('one ping for every component of a shared socket, with an interval close to the timeout', async () => {
    const server = await startServer();
    const [a, b] = [seen(), seen()];
    const options = {
      features: [heartbeat({ message: 'ping', isPong: (data) => data === 'pong', interval: 500, timeout: 600 })],
    };
    await mount([probe(server.url, a, options, 'a'), probe(server.url, b, options, 'b')]);
    await until(() => a.hook?.state === 'open' && b.hook?.state === 'open', 'open');
    a.hook?.send('token');
    server.broadcast('authorized');
    await until(() => a.hook?.lastMessage?.data === 'authorized', 'authorized');
    await until(() => server.received.includes('ping'), 'a ping');
    expect(server.received).toEqual(['token', 'ping']);
    server.broadcast('pong');
    await pass(50);
    expect(a.hook?.state).toBe('open');
    expect(server.connections).toBe(1);
  });
});

describe('heartbeat.test.ts: what their unit tests check, end to end', () => {
  it('a ping made by a function is sent as it returns', async () => {
    const server = await startServer();
    server.wss.on('connection', (ws) => ws.on('message', () => ws.send('pong')));
    const s = seen();
    const message = () => `msg${33}`;
    await mount(
      probe(server.url, s, { features: [heartbeat({ message, isPong: (d) => d === 'pong', interval: 50 })] }),
    );
    await until(() => server.received.length >= 2, 'two pings');
    expect(new Set(server.received)).toEqual(new Set(['msg33']));
  });
});
