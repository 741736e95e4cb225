/**
 * `ReliableServer` on Redis (`redisStore()`): what the cluster costs next to one process with its
 * sessions in memory, in the same run.
 *
 * Method: a `redis-server` of the benchmark's own on a free loopback port (`--save ''
 * --appendonly no`), and `ReliableServer`s from the built package, each in a child Node process
 * (bench/lib/reliable-node.mjs) over a ws server without permessage-deflate, all on 127.0.0.1:
 * - subjects: (a) one process, sessions in memory (no `store`: the baseline); (b) one process on
 *   Redis; (c) three processes on Redis (one prefix), the clients spread across them, each
 *   connected straight to its process's port (no proxy in front);
 * - clients: `ResilientSocket`s with `delivery: delivery()` on `ws` without permessage-deflate, in this
 *   process, C per server process (the same C × 3 on the single process of (a) and (b));
 * - client → server: M `sendReliable()`s of 32 bytes round-robin over the clients, clock stopped
 *   when every promise resolved (every message handled and acknowledged); latency: L of them, each
 *   awaited before the next, round-robin over the clients;
 * - server → client: M `send(session, data)`s of 32 bytes, clock stopped when every one was
 *   acknowledged; on three processes each sends its share either to sessions it holds, or to
 *   sessions another process holds (stored in Redis, routed to the holder through Redis pub/sub,
 *   the acknowledgement told back the same way); latency: L sends each awaited before the next,
 *   timed in the sending process;
 * - subjects alternate, R runs each after a warm-up, medians; afterwards each setup's servers must
 *   have handled every client message once, and its clients received every server message;
 * - Redis round trips: `INFO commandstats` read before and after each measured batch, the calls of
 *   commands the store's scripts do not call (those inside a script are Redis's own work) over the
 *   messages (bench/lib/redis-stats.ts), and Redis's CPU time (`INFO cpu`) over them;
 * - memory: N clients of a process of their own (another prefix) say hello, send one message and
 *   receive one, then idle: the `MEMORY USAGE` of the session keys (`SCAN` for the prefix) over N,
 *   and `INFO memory`'s `used_memory` after less before, over N. The hellos' round trips come from
 *   the same phase (counted until every session was greeted), and those of the N disconnections.
 *
 * Sizes: M = 21,000, R = 5, L = 1,500, N = 2,000, C = 2; `--quick` (a smoke test of a few
 * seconds): M = 2,100, R = 1, L = 150, N = 200.
 */
import { cpus } from 'node:os';
import { WebSocket } from 'ws';
import type { ResilientSocket as Socket } from '../src/node.js';
import { RedisServer } from '../test/helpers/redis-server.js';
import { isMain, loadPackage } from './lib/load.js';
import { keyMemory, read, Tally, usedMemory } from './lib/redis-stats.js';
import { type NodeCount, ReliableNode } from './lib/reliable-node.js';
import { alternate, machine, median, percentile } from './lib/stats.js';

const { delivery, ResilientSocket } = await loadPackage();

const PAYLOAD = 'x'.repeat(32);
/** Clients per server process in the three-process setup (the single process gets all of them). */
const PER_PROCESS = 2;

/** A client and the reliable messages it received. */
interface Client {
  readonly socket: Socket;
  received: number;
}

async function connect(url: string): Promise<Client> {
  const socket = new ResilientSocket(url, {
    WebSocket,
    wsOptions: { perMessageDeflate: false },
    delivery: delivery({ maxPending: 1_000_000 }),
    buffer: { maxMessages: 1_000_000, maxBytes: 1_000_000_000 },
  });
  const client: Client = { socket, received: 0 };
  socket.on('message', () => {
    client.received += 1;
  });
  await new Promise<void>((resolve) => socket.once('open', () => resolve()));
  return client;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the processes until `done` holds for what they say (at most 10 s). */
async function until(nodes: readonly ReliableNode[], done: (counts: NodeCount[]) => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (done(await Promise.all(nodes.map((node) => node.count())))) return;
    await sleep(50);
  }
  throw new Error('the server processes did not get there within 10 s');
}

/** Server processes, their clients, the sessions each process holds, and what was sent. */
class Setup {
  clients: Client[] = [];
  /** Per process, the ids of the sessions it holds. */
  sessions: string[][] = [];
  toServer = 0;
  toClients = 0;

  constructor(
    readonly nodes: ReliableNode[],
    readonly onRedis = true,
  ) {}

  /** C × 3 clients, spread evenly over the processes. */
  async open(): Promise<void> {
    const count = PER_PROCESS * 3;
    this.clients = await Promise.all(
      Array.from({ length: count }, (_, i) => connect((this.nodes[i % this.nodes.length] as ReliableNode).url)),
    );
    // Each client's first reliable message makes sure its hello is done.
    await Promise.all(this.clients.map((c) => c.socket.sendReliable(PAYLOAD)));
    this.toServer += count;
    this.sessions = (await Promise.all(this.nodes.map((node) => node.count()))).map((c) => [...c.held]);
  }

  /** Client → server: `n` reliable messages round-robin over the clients, until all are acknowledged (ms). */
  async burst(n: number): Promise<number> {
    const started = performance.now();
    const acked: Promise<void>[] = [];
    for (let i = 0; i < n; i++)
      acked.push((this.clients[i % this.clients.length] as Client).socket.sendReliable(PAYLOAD));
    await Promise.all(acked);
    this.toServer += n;
    return performance.now() - started;
  }

  async latencies(n: number): Promise<number[]> {
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await (this.clients[i % this.clients.length] as Client).socket.sendReliable(PAYLOAD);
      samples.push(performance.now() - started);
    }
    this.toServer += n;
    return samples;
  }

  /** The sessions process `k` sends to: its own, or (`routed`) those of the next process. */
  #targets(k: number, routed: boolean): string[] {
    return this.sessions[(k + (routed ? 1 : 0)) % this.nodes.length] as string[];
  }

  /** Server → client: `n` sends shared by the processes, until all are acknowledged (ms). */
  async sends(n: number, routed = false): Promise<number> {
    const share = Math.ceil(n / this.nodes.length);
    const started = performance.now();
    await Promise.all(this.nodes.map((node, k) => node.send(this.#targets(k, routed), share)));
    this.toClients += share * this.nodes.length;
    return performance.now() - started;
  }

  async sendLatencies(n: number, routed = false): Promise<number[]> {
    const samples: number[] = [];
    const share = Math.ceil(n / this.nodes.length);
    for (const [k, node] of this.nodes.entries()) {
      samples.push(...(await node.latency(this.#targets(k, routed)[0] as string, share)));
    }
    this.toClients += share * this.nodes.length;
    return samples;
  }

  /** Every client message handled once, every server message received once, no error told. */
  async check(name: string): Promise<void> {
    const counts = await Promise.all(this.nodes.map((node) => node.count()));
    const handled = counts.reduce((sum, c) => sum + c.handled, 0);
    const received = this.clients.reduce((sum, c) => sum + c.received, 0);
    const errors = counts.flatMap((c) => c.errors);
    if (handled !== this.toServer) throw new Error(`${name}: ${handled} messages handled of ${this.toServer} sent`);
    if (received !== this.toClients) throw new Error(`${name}: ${received} messages received of ${this.toClients}`);
    if (errors.length > 0) throw new Error(`${name}: the servers told errors: ${errors.join(', ')}`);
  }

  /** Closes the clients; on Redis, waits for the processes to let their sessions go (`RELEASE`); stops them. */
  async close(): Promise<void> {
    for (const c of this.clients) c.socket.close();
    if (this.onRedis) {
      await until(this.nodes, (counts) => counts.every((c) => c.held.length === 0));
      await sleep(100);
    }
    await Promise.all(this.nodes.map((node) => node.stop()));
  }
}

/** Idle sessions on Redis: what they keep there, and the round trips of their hellos and disconnections. */
interface Idle {
  readonly sessions: number;
  readonly keyBytes: number;
  readonly keysPerSession: string;
  readonly usedBytes: number;
  readonly hello: Tally;
  readonly bye: Tally;
}

async function idleSessions(redis: RedisClient, url: string, n: number): Promise<Idle> {
  const prefix = 'idle:';
  const node = await ReliableNode.start({ url, prefix });
  const before = await usedMemory(redis);
  const hello = new Tally();
  const bye = new Tally();
  const clients: Client[] = [];
  const greeting = await read(redis);
  for (let i = 0; i < n; i += 100) {
    clients.push(...(await Promise.all(Array.from({ length: Math.min(100, n - i) }, () => connect(node.url)))));
  }
  await until([node], ([c]) => c?.greeted === n);
  hello.between(greeting, await read(redis), n);
  // One message each way, then nothing.
  await Promise.all(clients.map((c) => c.socket.sendReliable(PAYLOAD)));
  const { held } = await node.count();
  await node.send(held, held.length);
  const after = await usedMemory(redis);
  const keys = await keyMemory(redis, `${prefix}{*`);
  const kinds = new Map<string, number>();
  for (const key of keys.keys()) kinds.set(key.slice(-1), (kinds.get(key.slice(-1)) ?? 0) + 1);
  const keysPerSession = [...kinds].map(([kind, count]) => `${(count / n).toFixed(2)} \`${kind}\``).join(', ');
  const leaving = await read(redis);
  for (const c of clients) c.socket.close();
  await until([node], ([c]) => c?.held.length === 0);
  await sleep(250); // the releases in flight land
  bye.between(leaving, await read(redis), n);
  const { errors } = await node.count();
  if (errors.length > 0) throw new Error(`idle sessions: the server told errors: ${errors.join(', ')}`);
  await node.stop();
  const keyBytes = [...keys.values()].reduce((sum, bytes) => sum + bytes, 0) / n;
  return { sessions: n, keyBytes, keysPerSession, usedBytes: (after - before) / n, hello, bye };
}

type RedisClient = Awaited<ReturnType<RedisServer['client']>>;
type Latency = readonly [median: number, p99: number];
const summary = (samples: number[]): Latency => [median(samples), percentile(samples, 99)];

export interface ClusterResult {
  readonly messages: number;
  readonly runs: number;
  readonly warmup: number;
  /** The round trips of the first burst of server sends on this Redis (the one-process warm-up). */
  readonly cold: Tally;
  readonly roundTrips: number;
  readonly redisVersion: string;
  readonly host: string;
  readonly cores: number;
  /** Client → server: time (ms) and latency, by subject. */
  readonly in: Record<'memory' | 'single' | 'cluster', { ms: number; latency: Latency; tally?: Tally }>;
  /** Server → client. */
  readonly out: Record<'memory' | 'single' | 'cluster' | 'routed', { ms: number; latency: Latency; tally?: Tally }>;
  readonly idle: Idle;
}

export async function clusterBench({ quick = false } = {}): Promise<ClusterResult> {
  const messages = quick ? 2_100 : 21_000;
  const runs = quick ? 1 : 5;
  const roundTrips = quick ? 150 : 1_500;
  const idle = quick ? 200 : 2_000;
  const warmup = { warmup: Math.min(messages, 3_000), size: messages, runs };
  const redisServer = await RedisServer.start();
  const redis = await redisServer.client();
  const setups: Setup[] = [];
  try {
    const url = redisServer.url;
    const memory = new Setup([await ReliableNode.start()], false);
    setups.push(memory);
    const single = new Setup([await ReliableNode.start({ url, prefix: 'one:' })]);
    setups.push(single);
    const cluster = new Setup(await Promise.all([0, 1, 2].map(() => ReliableNode.start({ url, prefix: 'three:' }))));
    setups.push(cluster);
    for (const setup of setups) await setup.open();

    // The round trips of the measured runs; those of a warm-up apart (`cold`: the scripts a warm-up
    // runs first on this Redis are not loaded yet).
    const tallies = { single: new Tally(), cluster: new Tally() };
    const cold = new Tally();
    const counted = (tally: Tally, measure: (n: number) => Promise<number>, warm = new Tally()) => {
      let first = true;
      return (n: number) => {
        const t = first ? warm : tally;
        first = false;
        return t.around(redis, n, () => measure(n));
      };
    };
    const inMs = await alternate(
      {
        memory: (n) => memory.burst(n),
        single: counted(tallies.single, (n) => single.burst(n)),
        cluster: counted(tallies.cluster, (n) => cluster.burst(n)),
      },
      warmup,
    );
    const outTallies = { single: new Tally(), cluster: new Tally(), routed: new Tally() };
    const outMs = await alternate(
      {
        memory: (n) => memory.sends(n),
        single: counted(outTallies.single, (n) => single.sends(n), cold),
        cluster: counted(outTallies.cluster, (n) => cluster.sends(n)),
        routed: counted(outTallies.routed, (n) => cluster.sends(n, true)),
      },
      warmup,
    );
    const inLatency = async (setup: Setup) => {
      await setup.latencies(Math.min(roundTrips, 150));
      return summary(await setup.latencies(roundTrips));
    };
    const outLatency = async (setup: Setup, routed = false) => {
      await setup.sendLatencies(Math.min(roundTrips, 150), routed);
      return summary(await setup.sendLatencies(roundTrips, routed));
    };
    const result: Omit<ClusterResult, 'idle'> = {
      messages,
      warmup: warmup.warmup,
      cold,
      runs,
      roundTrips,
      redisVersion: String(/^redis_version:(\S+)/m.exec(String(await redis.sendCommand(['INFO', 'server'])))?.[1]),
      host: await machine(),
      cores: cpus().length,
      in: {
        memory: { ms: inMs.memory, latency: await inLatency(memory) },
        single: { ms: inMs.single, latency: await inLatency(single), tally: tallies.single },
        cluster: { ms: inMs.cluster, latency: await inLatency(cluster), tally: tallies.cluster },
      },
      out: {
        memory: { ms: outMs.memory, latency: await outLatency(memory) },
        single: { ms: outMs.single, latency: await outLatency(single), tally: outTallies.single },
        cluster: { ms: outMs.cluster, latency: await outLatency(cluster), tally: outTallies.cluster },
        routed: { ms: outMs.routed, latency: await outLatency(cluster, true), tally: outTallies.routed },
      },
    };
    await memory.check('one process in memory');
    await single.check('one process on Redis');
    await cluster.check('three processes on Redis');
    for (const setup of setups.splice(0)) await setup.close();
    return { ...result, idle: await idleSessions(redis, url, idle) };
  } finally {
    for (const setup of setups) await setup.close().catch(() => undefined);
    redis.destroy();
    await redisServer.down();
  }
}

export function clusterTable(r: ClusterResult): string {
  const rate = (ms: number) => Math.round(r.messages / (ms / 1000)).toLocaleString('en-US');
  const ms = (v: number) => v.toFixed(3);
  const row = (label: string, s: { ms: number; latency: Latency; tally?: Tally }, baseline: number) =>
    `| ${label} | ${s.ms.toFixed(0)} | ${rate(s.ms)} | ${(baseline / s.ms).toFixed(2)}× | ${ms(s.latency[0])} | ${ms(s.latency[1])} | ${s.tally ? s.tally.roundTrips.toFixed(2) : '—'} |`;
  const head = [
    '| subject | time (ms) | messages/s | throughput vs in memory | latency median (ms) | latency p99 (ms) | Redis round trips per message |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  const spread = `three processes on Redis, ${PER_PROCESS} clients connected straight to each one's port`;
  const trips = (label: string, t: Tally) =>
    `| ${label} | ${t.roundTrips.toFixed(2)} | ${t.breakdown()} | ${t.cpuPerUnit.toFixed(1)} | ${t.inScripts.toFixed(1)} (${t.breakdown(true)}) |`;
  const { idle } = r;
  return [
    `Cluster on Redis: \`ReliableServer\` in child processes from the built package, Redis ${r.redisVersion} of the benchmark's own, all on 127.0.0.1, \`ws\` without permessage-deflate; ${PER_PROCESS * 3} \`ResilientSocket\` clients with \`delivery: {}\` in the benchmark's process; ${r.messages.toLocaleString('en-US')} messages of 32 bytes per run (until every one is acknowledged), median of ${r.runs} alternating runs; latency over ${r.roundTrips.toLocaleString('en-US')} messages, each awaited before the next. Every client message was handled once and every server message received once.`,
    '',
    'Client → server (`sendReliable()`):',
    '',
    ...head,
    row('one process, sessions in memory (baseline)', r.in.memory, r.in.memory.ms),
    row('one process on Redis', r.in.single, r.in.memory.ms),
    row(spread, r.in.cluster, r.in.memory.ms),
    '',
    'Server → client (`send(session, data)` until acknowledged; latency timed in the sending process):',
    '',
    ...head,
    row('one process, sessions in memory (baseline)', r.out.memory, r.out.memory.ms),
    row('one process on Redis', r.out.single, r.out.memory.ms),
    row('three processes on Redis, each sending to the sessions it holds', r.out.cluster, r.out.memory.ms),
    row(
      'three processes on Redis, each sending to sessions another holds (through Redis pub/sub)',
      r.out.routed,
      r.out.memory.ms,
    ),
    '',
    `Redis round trips (commands a process sent, from \`INFO commandstats\` around each measured batch; those the scripts run inside Redis apart; Redis's CPU time from \`INFO cpu\`):`,
    '',
    '| what | round trips each | by command | Redis CPU each (µs) | run inside scripts each |',
    '|---|---:|---|---:|---|',
    trips('client message, one process', r.in.single.tally as Tally),
    trips('client message, three processes', r.in.cluster.tally as Tally),
    trips('server send, one process', r.out.single.tally as Tally),
    trips('server send, three processes, to its own sessions', r.out.cluster.tally as Tally),
    trips("server send, three processes, to another's sessions", r.out.routed.tally as Tally),
    trips(
      `server send, one process, first burst on this Redis (warm-up, ${r.warmup.toLocaleString('en-US')} at once)`,
      r.cold,
    ),
    trips('hello (a new session)', idle.hello),
    trips('disconnection', idle.bye),
    '',
    `Memory: ${idle.sessions.toLocaleString('en-US')} idle sessions on Redis (hello, one message each way, then nothing) keep ${Math.round(idle.keyBytes)} bytes each by \`MEMORY USAGE\` of their keys (${idle.keysPerSession} per session), and \`used_memory\` grew by ${Math.round(idle.usedBytes)} bytes per session.`,
    '',
    `Machine: ${r.host}. ${
      r.cores < 6
        ? `With ${r.cores} cores, three server processes, Redis and the clients share the same CPUs: the three-process rows show what the cluster costs, not a speed-up.`
        : 'Three server processes, Redis and the clients may each have a core of their own.'
    }`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  console.log(clusterTable(await clusterBench({ quick: process.argv.includes('--quick') })));
}
