/**
 * `ReliableServer` on Redis when things go wrong or come in an odd shape: Redis restarted without
 * persistence (its data lost), frames right behind a hello, binary frames, a client that never
 * acknowledges (`maxAttempts`), an outbox at its bytes (`maxSessionBytes`). A real
 * `redis-server` of each test's own (test/helpers/redis-server.ts), real ws servers and clients on
 * 127.0.0.1; the "processes" are servers in this process, each with its own subscription.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { constant } from '../../src/backoff/constant.js';
import { isResilientSocketError } from '../../src/errors.js';
import { type DeliveryOptions, delivery, ResilientSocket } from '../../src/node.js';
import { type DeliveryCodec, ReliableServer, type ReliableServerOptions, redisStore } from '../../src/server/index.js';
import { RedisServer } from '../helpers/redis-server.js';
import { Cleanup, waitFor } from '../helpers/wait.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function redisServer(): Promise<RedisServer> {
  return cleanup.add(await RedisServer.start(), (r) => r.down('SIGKILL'));
}

/** A "process": a ws server on a free port, and a ReliableServer on `redis` with `prefix`. */
async function node(redis: RedisServer, options: ReliableServerOptions = {}) {
  const client = cleanup.add(await redis.client(), (c) => c.destroy());
  const wss = cleanup.add(new WebSocketServer({ host: '127.0.0.1', port: 0 }), (s) => {
    for (const ws of s.clients) ws.terminate();
    s.close();
  });
  await new Promise((resolve) => wss.once('listening', resolve));
  const server = cleanup.add(
    new ReliableServer(wss, { ...options, store: redisStore(client, { prefix: 'f:' }) }),
    (s) => s.close(),
  );
  const errors: string[] = [];
  server.on('error', (error) => errors.push(String(error.code)));
  const received: unknown[] = [];
  server.on('message', (data) => received.push(data));
  const plain: unknown[] = [];
  server.on('plain', (data) => plain.push(data));
  await server.ready;
  return { server, url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}`, errors, received, plain };
}

function client(url: string, options: DeliveryOptions = {}) {
  const socket = cleanup.add(
    new ResilientSocket(url, { delivery: delivery(options), backoff: constant({ delay: 50 }) }),
    (s) => s.close(),
  );
  socket.on('error', () => undefined); // refused connections while Redis is away are expected
  socket.on('drop', () => undefined);
  const received: unknown[] = [];
  socket.on('message', (data) => received.push(data));
  return { socket, received };
}

/** A raw ws client on `url`, its messages collected as text. */
async function raw(url: string) {
  const ws = cleanup.add(new WebSocket(url), (w) => w.terminate());
  const heard: string[] = [];
  ws.on('message', (data) => heard.push(String(data)));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, heard };
}

const codeOf = (error: unknown) => (isResilientSocketError(error) ? error.code : String(error));

describe('Redis restarted without persistence', () => {
  it('the processes recover by themselves: a sendReliable() made while Redis is away resolves once it is back, handled once; a send stored before it is lost rejects; each outage is told once, not per operation', async () => {
    const redis = await redisServer();
    const a = await node(redis, { ackTimeout: 100, sessionTtl: 120_000 });
    const b = await node(redis, { ackTimeout: 100, sessionTtl: 120_000 });
    const { socket, received } = client(a.url, { ackTimeout: 150 });
    await socket.sendReliable('before');
    const session = [...a.server.sessions.keys()][0] as string;
    // Stored for a session nobody holds: the restart loses it.
    const ghost = b.server.send('ghost', 'never delivered');
    await ghost.stored;

    await redis.down();
    const during = socket.sendReliable('during');
    let settled = false;
    void during.finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 600)); // several resends meanwhile, none acknowledged
    expect(settled).toBe(false);
    expect(a.received).toEqual(['before']);
    await redis.up();

    await during;
    expect(a.received).toEqual(['before', 'during']);
    expect(
      codeOf(
        await ghost.then(
          () => 'resolved',
          (e: unknown) => e,
        ),
      ),
    ).toMatch(/^ERR_RS_(DELIVERY_STOPPED|STORE_FAILED)$/);
    // A send from another process reaches the client again: the holder heard its channel again
    // (or read its outbox) after the restart.
    const after = b.server.send(session, 'after');
    await waitFor(() => received.includes('after'), 10_000, 'a send after the restart delivered', {
      describe: () => received,
    });
    await after;
    expect(received).toEqual(['after']);
    // Told, but once per kind of failure, not once per resend, poll or refresh.
    for (const errors of [a.errors, b.errors]) {
      expect(errors.every((code) => code === 'ERR_RS_STORE_FAILED')).toBe(true);
      expect(errors.length).toBeLessThanOrEqual(4);
    }
    expect(a.errors.length).toBeGreaterThan(0);
  }, 30_000);
});

describe('frames as they come', () => {
  it('a message right behind a hello is the session’s, handled once and acknowledged, never plain', async () => {
    const redis = await redisServer();
    const a = await node(redis);
    const { ws, heard } = await raw(a.url);
    ws.send(JSON.stringify({ rs: 'hello', session: 'quick' }));
    ws.send(JSON.stringify({ rs: 'msg', id: '1', data: 'right behind' }));
    ws.send(JSON.stringify({ rs: 'msg', id: '1', data: 'right behind' }));
    ws.send(JSON.stringify({ rs: 'msg', id: '2', data: 'second' }));
    await waitFor(() => heard.length >= 3, 5_000, 'three acknowledgements', { describe: () => heard });
    expect(a.received).toEqual(['right behind', 'second']);
    expect(a.plain).toEqual([]);
    expect(heard.map((h) => JSON.parse(h))).toEqual([
      { rs: 'ack', id: '1' },
      { rs: 'ack', id: '1' },
      { rs: 'ack', id: '2' },
    ]);
  });

  it('binary frames go through Redis as they are', async () => {
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    // Frames as UTF-8 JSON in binary messages; text passes through.
    const codec: DeliveryCodec = {
      encode: (frame) => encoder.encode(JSON.stringify(frame)),
      decode: (data) => {
        if (typeof data === 'string') return undefined;
        const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : (data as Uint8Array);
        return JSON.parse(decoder.decode(bytes));
      },
    };
    const redis = await redisServer();
    const a = await node(redis, { codec });
    const b = await node(redis, { codec });
    const { socket, received } = client(a.url, { codec });
    await socket.sendReliable({ bytes: 'up' });
    const session = [...a.server.sessions.keys()][0] as string;
    await b.server.send(session, { text: 'é ✓ \u0000', n: [1, 2, 3] });
    expect(a.received).toEqual([{ bytes: 'up' }]);
    expect(received).toEqual([{ text: 'é ✓ \u0000', n: [1, 2, 3] }]);
  });
});

describe('limits on Redis', () => {
  it('maxAttempts: a client that never acknowledges; the sender, another process, is told ERR_RS_NOT_ACKNOWLEDGED', async () => {
    const redis = await redisServer();
    const holder = await node(redis, { maxAttempts: 2, ackTimeout: 60 });
    const sender = await node(redis, { ackTimeout: 60 });
    const { ws, heard } = await raw(holder.url);
    ws.send(JSON.stringify({ rs: 'hello', session: 'deaf' }));
    await waitFor(() => holder.server.sessions.has('deaf'), 5_000, 'held');
    const outcome = await sender.server.send('deaf', 'unheard').then(
      () => 'resolved',
      (e: unknown) => codeOf(e),
    );
    expect(outcome).toBe('ERR_RS_NOT_ACKNOWLEDGED');
    expect(heard.filter((h) => h.includes('unheard'))).toHaveLength(2); // written twice, then given up
    const keys = await redis.client();
    try {
      expect(await keys.hLen(keysOf('deaf')[2] as string)).toBe(0);
    } finally {
      keys.destroy();
    }
  });

  it('maxSessionBytes: a message that would pass the outbox’s bytes is refused, nothing stored; acknowledged ones make room', async () => {
    const redis = await redisServer();
    const a = await node(redis, { maxSessionBytes: 4_000, ackTimeout: 100 });
    const big = 'x'.repeat(1_000); // about 2.5 kB as counted
    const first = a.server.send('full', big);
    first.catch(() => undefined);
    await first.stored;
    const second = a.server.send('full', big);
    second.catch(() => undefined);
    const refused = await second.stored.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(codeOf(refused)).toBe('ERR_RS_BUFFER_OVERFLOW');
    expect(String((refused as Error).message)).toMatch(/maxSessionBytes/);
    // The client comes: the first is delivered and acknowledged, and the room is there again.
    const { ws, heard } = await raw(a.url);
    ws.send(JSON.stringify({ rs: 'hello', session: 'full' }));
    await waitFor(() => heard.length === 1, 5_000, 'the first delivered');
    const { id } = JSON.parse(heard[0] as string) as { id: string };
    ws.send(JSON.stringify({ rs: 'ack', id }));
    await first;
    const third = a.server.send('full', big);
    await third.stored;
    expect(a.errors).toEqual([]);
  });
});

/** The keys of a session under the prefix `f:` (see `redisStore()`): meta, window, outbox, order. */
function keysOf(session: string) {
  const store = redisStore({ sendCommand: async () => undefined, duplicate: () => ({}) as never }, { prefix: 'f:' });
  return (store as unknown as { keys(id: string): string[] }).keys(session);
}
