/**
 * `ReliableServer` on Redis (`redisStore()`): several servers on one Redis serve every session as
 * one, against a real `redis-server` of the test's own (test/helpers/redis-server.ts) and real ws
 * servers and clients on 127.0.0.1. Here the "processes" are servers in this one process, each on
 * its own ws server and with its own subscription (what a process is to the store); killed
 * processes are in test/reliability/cluster-failover.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { constant } from '../../src/backoff/constant.js';
import { isResilientSocketError } from '../../src/errors.js';
import { type DeliveryOptions, delivery, ResilientSocket } from '../../src/node.js';
import { ReliableServer, type ReliableServerOptions, redisStore } from '../../src/server/index.js';
import { RedisServer } from '../helpers/redis-server.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await RedisServer.start();
}, 20_000);
afterAll(async () => {
  await redis?.down();
});

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

let prefixes = 0;

/** A "process": a ws server on a free port, and a ReliableServer on the shared Redis and prefix. */
async function node(prefix: string, options: ReliableServerOptions = {}) {
  const client = cleanup.add(await redis.client(), (c) => c.destroy());
  const wss = cleanup.add(new WebSocketServer({ host: '127.0.0.1', port: 0 }), (s) => {
    for (const ws of s.clients) ws.terminate();
    s.close();
  });
  await new Promise((resolve) => wss.once('listening', resolve));
  const server = cleanup.add(new ReliableServer(wss, { ...options, store: redisStore(client, { prefix }) }), (s) =>
    s.close(),
  );
  const errors: string[] = [];
  server.on('error', (error) => errors.push(`${error.code}: ${error.message}`));
  const received: unknown[] = [];
  server.on('message', (data) => received.push(data));
  await server.ready;
  return { server, wss, url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}`, errors, received };
}

/** A client with acknowledged delivery that connects where `target()` says (again on every attempt). */
function client(target: () => string, options: DeliveryOptions = {}) {
  const socket = cleanup.add(
    new ResilientSocket(async () => target(), { delivery: delivery(options), backoff: constant({ delay: 20 }) }),
    (s) => s.close(),
  );
  socket.on('error', () => undefined); // refused connections while a target is down are expected
  socket.on('drop', () => undefined);
  const received: unknown[] = [];
  socket.on('message', (data) => received.push(data));
  return { socket, received };
}

describe('redisStore()', () => {
  it('refuses what is not a connected node-redis client, and unknown options', async () => {
    expect(() => redisStore({} as never)).toThrow(TypeError);
    expect(() =>
      redisStore({ sendCommand: () => undefined, duplicate: () => undefined, isOpen: false } as never),
    ).toThrow(/redis.connect\(\)/);
    const connected = cleanup.add(await redis.client(), (c) => c.destroy());
    expect(() => redisStore(connected, { prefix: 5 } as never)).toThrow(TypeError);
    expect(() => redisStore(connected, { prefx: 'a:' } as never)).toThrow(/prefx/);
    expect(() => new ReliableServer(new WebSocketServer({ noServer: true }), { store: {} as never })).toThrow(
      /`store`/,
    );
  });
});

describe('one session, served by any process on the Redis', () => {
  it('a message from the client is handled once; a send from another process reaches it and resolves', async () => {
    const prefix = `t${++prefixes}:`;
    const a = await node(prefix);
    const b = await node(prefix);
    const { socket, received } = client(() => a.url);
    await socket.sendReliable({ n: 1 });
    expect(a.received).toEqual([{ n: 1 }]);
    const [session] = [...a.server.sessions.keys()];
    expect(typeof session).toBe('string');
    expect(b.server.sessions.size).toBe(0); // held by a, not b
    const sent = b.server.send(session as string, { from: 'b' });
    await sent.stored;
    await sent;
    expect(received).toEqual([{ from: 'b' }]);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('the client moves to another process: what was pending follows it, what was handled is not handled again', async () => {
    const prefix = `t${++prefixes}:`;
    const a = await node(prefix);
    const b = await node(prefix);
    let target = a.url;
    const { socket, received } = client(() => target);
    await socket.sendReliable('one');
    const [session] = [...a.server.sessions.keys()] as string[];
    // a goes away with its connection; a message stored for the session meanwhile waits in Redis.
    target = b.url;
    for (const ws of a.wss.clients) ws.terminate();
    const pending = b.server.send(session as string, 'while moving');
    await pending.stored;
    await socket.sendReliable('two');
    await pending;
    expect(received).toEqual(['while moving']);
    expect(a.received).toEqual(['one']);
    expect(b.received).toEqual(['two']);
    expect(b.server.sessions.has(session as string)).toBe(true);
  });

  it('what a message listener sends is stored before the message is recorded: a process that dies between handles it again, it never loses the reply', async () => {
    const prefix = `t${++prefixes}:`;
    const a = await node(prefix);
    const { socket, received } = client(() => a.url);
    await socket.sendReliable('hello'); // the scripts are loaded; the session is made
    // Redis's own log of what it ran, in the order it ran it.
    const monitor = cleanup.add(await redis.client(), (c) => c.destroy());
    const ran: string[] = [];
    await monitor.monitor((line: string) => ran.push(line));
    a.server.on('message', (data, session) => {
      if (data === 'order') a.server.send(session, 'receipt').catch(() => undefined);
    });
    await socket.sendReliable('order');
    await waitFor(() => received.includes('receipt'), 5_000, 'the receipt arrives');
    // SEND carries the frame (`t…receipt…`); MARK carries the id of 'order' and the window (1000).
    const send = ran.findIndex((line) => line.includes('receipt'));
    const mark = ran.findIndex((line, i) => i > 0 && / "1000"$/.test(line));
    expect(send).toBeGreaterThanOrEqual(0);
    expect(mark).toBeGreaterThanOrEqual(0);
    expect(send).toBeLessThan(mark);
  });

  it('a holder that missed being told another process took its session finds out at its next refresh, and cuts its connection', async () => {
    const prefix = `t${++prefixes}:`;
    const a = await node(prefix, { sessionTtl: 1_000 }); // refreshes every 250 ms
    const { socket } = client(() => a.url);
    await socket.sendReliable('here');
    let closes = 0;
    socket.on('close', () => closes++);
    // Another process holds it now, and its word to `a` was lost (no `moved` published).
    const raw = cleanup.add(await redis.client(), (c) => c.destroy());
    const [meta] = await raw.keys(`${prefix}{*}:m`);
    await raw.hSet(meta as string, 'h', 'another-process');
    await waitFor(() => closes > 0, 3_000, 'the connection cut at the next refresh');
    expect(a.errors).toEqual([]);
  });

  it('a hello on another process takes the session over: the old connection is cut', async () => {
    const prefix = `t${++prefixes}:`;
    const a = await node(prefix);
    const b = await node(prefix);
    let target = a.url;
    const first = client(() => target);
    await first.socket.sendReliable('on a');
    const [session] = [...a.server.sessions.keys()] as string[];
    // A second client with the same session id (a persistent store shared by two tabs, or a
    // reconnect before a saw the old connection die) says hello on b.
    target = b.url;
    const store = new Map<string, unknown>([['session', session]]);
    const second = client(() => b.url, {
      store: {
        persistent: true,
        load: async () => [...store],
        put: async (k: string, v: unknown) => void store.set(k, v),
        delete: async (k: string) => void store.delete(k),
      },
    });
    await second.socket.sendReliable('on b');
    await waitFor(() => a.server.sessions.size === 0, 2_000, 'a lets the session go');
    expect(b.server.sessions.has(session as string)).toBe(true);
  });
});

describe('bounded, and cleaned up', () => {
  it('ready means Redis knows the scripts: a first burst runs them by their SHA1, none sent again in full', async () => {
    const raw = cleanup.add(await redis.client(), (c) => c.destroy());
    await raw.sendCommand(['SCRIPT', 'FLUSH']);
    const evals = async () => {
      const stats = String(await raw.sendCommand(['INFO', 'commandstats']));
      return Number(/cmdstat_eval:calls=(\d+)/.exec(stats)?.[1] ?? 0);
    };
    const before = await evals();
    const a = await node(`t${++prefixes}:`);
    const sent = Array.from({ length: 50 }, (_, i) => a.server.send(`burst-${i % 5}`, i));
    await Promise.all(sent.map((d) => d.stored));
    for (const d of sent) d.catch(() => undefined);
    expect(await evals()).toBe(before);
  });

  it('close() resolves once Redis heard this process let go of its sessions', async () => {
    const prefix = `t${++prefixes}:`;
    const a = await node(prefix);
    const { socket } = client(() => a.url);
    await socket.sendReliable('here');
    const raw = cleanup.add(await redis.client(), (c) => c.destroy());
    const [meta] = await raw.keys(`${prefix}{*}:m`);
    expect(Number(await raw.hExists(meta as string, 'h'))).toBe(1);
    await a.server.close();
    expect(Number(await raw.hExists(meta as string, 'h'))).toBe(0);
  });

  it('a session with nobody connected expires sessionTtl after it was last held: its keys are gone, its sends reject', async () => {
    const prefix = `t${++prefixes}:`;
    const a = await node(prefix, { sessionTtl: 400, ackTimeout: 100 });
    const sent = a.server.send('nobody-here', { n: 1 });
    await sent.stored;
    const outcome = await sent.then(
      () => 'resolved',
      (error: unknown) => (isResilientSocketError(error) ? error.code : error),
    );
    expect(outcome).toBe('ERR_RS_DELIVERY_STOPPED');
    const raw = cleanup.add(await redis.client(), (c) => c.destroy());
    let left = await raw.keys(`${prefix}*`);
    for (let i = 0; i < 40 && left.length > 0; i++) {
      await sleep(50);
      left = await raw.keys(`${prefix}*`);
    }
    expect(left).toEqual([]);
  });

  it('a held session outlives a sessionTtl shorter than its refresh: its window stays while its client is connected', async () => {
    const prefix = `t${++prefixes}:`;
    const a = await node(prefix, { sessionTtl: 50, ackTimeout: 100 });
    const { socket } = client(() => a.url);
    await socket.sendReliable('first');
    const raw = cleanup.add(await redis.client(), (c) => c.destroy());
    // Far past sessionTtl and past the refresh (every 250 ms at most): still there, window included.
    await sleep(1_200);
    const keys = await raw.keys(`${prefix}{*`);
    expect(keys.map((key) => key.slice(-1)).sort()).toContain('w');
    expect(a.received).toEqual(['first']);
    await socket.sendReliable('second');
    expect(a.received).toEqual(['first', 'second']);
    // Let go: gone sessionTtl after it was last held.
    socket.close();
    let left = keys;
    for (let i = 0; i < 40 && left.length > 0; i++) {
      await sleep(50);
      left = await raw.keys(`${prefix}{*`);
    }
    expect(left).toEqual([]);
  });

  it('maxPending: past it send() rejects at once with ERR_RS_BUFFER_OVERFLOW, nothing stored', async () => {
    const prefix = `t${++prefixes}:`;
    const a = await node(prefix, { maxPending: 2 });
    const ok = [a.server.send('s', 1), a.server.send('s', 2)];
    for (const d of ok) d.catch(() => undefined);
    await Promise.all(ok.map((d) => d.stored));
    const third = a.server.send('s', 3);
    const error = await third.stored.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isResilientSocketError(error) && error.code).toBe('ERR_RS_BUFFER_OVERFLOW');
    await sleep(0);
  });
});
