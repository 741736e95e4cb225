/**
 * Nothing lost across a cluster: three server processes (`ReliableServer` on `redisStore()`, each a
 * Node process of its own, test/helpers/cluster-node.ts) behind HAProxy (Debian's `haproxy`), on a
 * real `redis-server`; clients (`ResilientSocket` with `delivery`) reach them through HAProxy and
 * send reliably while the servers send to them, and the processes are killed with SIGKILL and
 * started again in turn, holders and senders alike.
 *
 * What must hold, as docs/guide/cluster.md states it: every `sendReliable()` promise settles
 * (resolved); every client message is handled, in order per session; a message handled twice was
 * handled first by a process that was killed after it ran (the one exception: its record never
 * landed); every server message stored before its sender died reaches its client, once; and every
 * key the cluster leaves in Redis has a TTL. The duplicates are counted and reported.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { delivery, ResilientSocket } from '../../src/node.js';
import { ClusterNode, haproxyConfig, removeProgram } from '../helpers/cluster-node.js';
import { freePort, RedisServer } from '../helpers/redis-server.js';
import { sleep, waitFor } from '../helpers/wait.js';

const CLIENTS = 3;
const EACH_WAY = 150; // per client, each way: 450 client messages and 450 server messages in all

let redis: RedisServer;
let haproxy: ChildProcess;
let dir: string;
let front: number;
const nodes: ClusterNode[] = [];

beforeAll(async () => {
  redis = await RedisServer.start();
  front = await freePort();
  const ports = [await freePort(), await freePort(), await freePort()];
  dir = mkdtempSync(join(tmpdir(), 'rs-haproxy-'));
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(front, ports));
  haproxy = spawn('haproxy', ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'ignore'] });
  for (const port of ports) nodes.push(new ClusterNode(port, redis.url, 'failover:'));
  await Promise.all(nodes.map((n) => n.start()));
}, 60_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  haproxy?.kill('SIGKILL');
  await redis?.down();
  await removeProgram();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('processes killed with SIGKILL in turn: every promise settles, every message handled in order, duplicates only from a killed run', async () => {
  const url = `ws://127.0.0.1:${front}/`;
  const clients = Array.from({ length: CLIENTS }, (_, c) => {
    const socket = new ResilientSocket(url, {
      delivery: delivery({ ackTimeout: 300 }),
      backoff: constant({ delay: 30 }),
    });
    socket.on('error', () => undefined); // refused and cut connections while processes die
    socket.on('drop', () => undefined);
    const received: number[] = [];
    socket.on('message', (data) => {
      const m = data as { c?: number; k?: number };
      if (m.c === c && typeof m.k === 'number') received.push(m.k);
    });
    return { socket, received, c };
  });
  try {
    // A first message each, so that every session is known (from the processes' lines).
    await Promise.all(clients.map(({ socket, c }) => socket.sendReliable({ c, n: -1 })));
    const sessions = clients.map(({ c }) => {
      const line = nodes.flatMap((n) => n.lines).find((l) => l.t === 'handled' && (l.data as { c: number }).c === c);
      return String(line?.s);
    });

    // The killer: one process after another, SIGKILL, started again 200 ms later.
    let killing = true;
    const killer = (async () => {
      for (let i = 0; killing; i++) {
        await sleep(500 + (i % 3) * 150);
        if (!killing) break;
        const node = nodes[i % nodes.length] as ClusterNode;
        await node.kill();
        await sleep(200);
        await node.start();
      }
    })();

    // Both ways at once, in bursts: the clients send theirs; each server message goes through
    // whichever process is alive, and that process is killed now and then right after it stored it.
    const stored = new Set<string>();
    const sends = clients.map(async ({ socket, c }) => {
      const promises: Promise<void>[] = [];
      for (let n = 0; n < EACH_WAY; n++) {
        promises.push(socket.sendReliable({ c, n }));
        if (n % 10 === 9) await sleep(300); // about 4.5 s of traffic: several kills meanwhile
      }
      return Promise.allSettled(promises);
    });
    for (let k = 0; k < EACH_WAY; k++) {
      for (const { c } of clients) {
        const alive = nodes.filter((n) => n.alive);
        const node = alive[(k + c) % alive.length] as ClusterNode;
        node.send(sessions[c] as string, { c, k }, `${c}:${k}`);
      }
      if (k % 10 === 9) await sleep(300);
    }
    const settled = await Promise.all(sends);
    // Which server messages were stored (said by the run that stored them, before any kill).
    for (const line of nodes.flatMap((n) => n.lines)) if (line.t === 'stored') stored.add(String(line.id));
    // At least one kill of each process (on a slow machine the traffic can outrun the killer).
    while (nodes.reduce((sum, n) => sum + n.killedAt.size, 0) < 3) await sleep(50);
    killing = false;
    await killer;

    // Every client promise resolved.
    for (const outcomes of settled) {
      expect(
        outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason)),
      ).toEqual([]);
    }
    // Every stored server message reached its client, once.
    for (const { c, received } of clients) {
      const wanted = [...stored].filter((id) => id.startsWith(`${c}:`)).map((id) => Number(id.split(':')[1]));
      await waitFor(() => wanted.every((k) => received.includes(k)), 20_000, `client ${c} gets every stored message`, {
        describe: () => wanted.filter((k) => !received.includes(k)),
      });
      expect(received.length).toBe(new Set(received).size);
    }
    // Every client message handled, in order per session; a duplicate only from a run killed after it.
    let duplicates = 0;
    for (const { c } of clients) {
      const handled = nodes
        .flatMap((node) =>
          node.lines
            .filter((l) => l.t === 'handled')
            .map((l) => ({ node, run: l.run, at: l.at as number, data: l.data as { c: number; n: number } })),
        )
        .filter((l) => l.data.c === c)
        .sort((a, b) => a.at - b.at);
      const firstTimes: number[] = [];
      const seen = new Map<number, { node: ClusterNode; run: number; at: number }>();
      for (const h of handled) {
        const n = h.data.n;
        const first = seen.get(n);
        if (first === undefined) {
          seen.set(n, { node: h.node, run: h.run, at: h.at });
          firstTimes.push(n);
          continue;
        }
        duplicates++;
        const killedAt = first.node.killedAt.get(first.run);
        expect(killedAt, `message ${n} of client ${c} handled twice, first by a run that was not killed`).toBeDefined();
        expect(killedAt as number).toBeGreaterThanOrEqual(first.at);
      }
      expect(firstTimes).toEqual([-1, ...Array.from({ length: EACH_WAY }, (_, n) => n)]);
    }
    // Every key left has a TTL (a killed holder's sessions expire too).
    const raw = await redis.client();
    try {
      const keys = await raw.keys('failover:*');
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) expect(await raw.pTTL(key), key).toBeGreaterThan(0);
    } finally {
      raw.destroy();
    }
    const kills = nodes.reduce((sum, n) => sum + n.killedAt.size, 0);
    console.log(
      `cluster failover: ${kills} processes killed, ${CLIENTS * EACH_WAY} client messages and ${stored.size} stored server messages, ${duplicates} handled twice (each first handled by a run killed after it)`,
    );
    expect(kills).toBeGreaterThanOrEqual(3);
  } finally {
    for (const { socket } of clients) socket.close();
  }
}, 120_000);

it('both outbox cases, one at a time: the holder killed with a message for its client, the sender killed right after send()', async () => {
  const [a, b, c] = nodes as [ClusterNode, ClusterNode, ClusterNode];
  for (const node of nodes) if (!node.alive) await node.start();
  // The client connects to a directly while a lives, else to b.
  const socket = new ResilientSocket(async () => `ws://127.0.0.1:${a.alive ? a.port : b.port}/`, {
    delivery: delivery({ ackTimeout: 300 }),
    backoff: constant({ delay: 30 }),
  });
  socket.on('error', () => undefined);
  socket.on('drop', () => undefined);
  const received: string[] = [];
  socket.on('message', (data) => received.push(String(data)));
  try {
    await socket.sendReliable('hello');
    const session = String([...a.lines].reverse().find((l) => l.t === 'handled' && l.data === 'hello')?.s);
    const storedBy = (node: ClusterNode, id: string) => () => node.lines.some((l) => l.t === 'stored' && l.id === id);

    // The holder (a) killed: c stores a message for a's client, and a dies at once.
    c.send(session, 'for the holder', 'h1');
    await waitFor(storedBy(c, 'h1'), 5_000, 'stored by c');
    await a.kill();
    await waitFor(() => received.includes('for the holder'), 10_000, 'delivered after the holder died', {
      describe: () => received,
    });
    // The sender (c) killed right after send(): b holds the client now.
    c.send(session, 'from a dead sender', 's1');
    await waitFor(storedBy(c, 's1'), 5_000, 'stored by c');
    await c.kill();
    await waitFor(() => received.includes('from a dead sender'), 10_000, 'delivered after the sender died', {
      describe: () => received,
    });
    expect(received.filter((r) => r === 'for the holder' || r === 'from a dead sender')).toHaveLength(2);
  } finally {
    socket.close();
    await a.start();
    await c.start();
  }
}, 60_000);

it("a holder killed with SIGKILL: its sessions' keys are gone sessionTtl after it last held them", async () => {
  const node = new ClusterNode(await freePort(), redis.url, 'expiry:', { sessionTtl: 1_000, ackTimeout: 300 });
  await node.start();
  const socket = new ResilientSocket(`ws://127.0.0.1:${node.port}/`, {
    delivery: delivery({ ackTimeout: 300 }),
    backoff: constant({ delay: 30 }),
  });
  socket.on('error', () => undefined);
  socket.on('drop', () => undefined);
  const raw = await redis.client();
  try {
    await socket.sendReliable('held');
    const session = String(node.lines.find((l) => l.t === 'handled')?.s);
    socket.close(); // the client goes: the message waits in Redis
    node.send(session, 'waiting for the client', 'w1');
    await waitFor(() => node.lines.some((l) => l.t === 'stored' && l.id === 'w1'), 5_000, 'stored');
    expect((await raw.keys('expiry:*')).length).toBeGreaterThan(0);
    await node.kill(); // without a word to Redis
    const killedAt = Date.now();
    let left = await raw.keys('expiry:*');
    while (left.length > 0 && Date.now() - killedAt < 5_000) {
      await sleep(50);
      left = await raw.keys('expiry:*');
    }
    expect(left).toEqual([]);
    // Not before the TTL: the keys were refreshed by the holder until it died.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(500);
  } finally {
    socket.close();
    raw.destroy();
    await node.stop();
  }
}, 30_000);
