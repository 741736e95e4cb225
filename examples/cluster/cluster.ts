/**
 * Orders through a cluster whose processes get killed: a `redis-server`, three server processes
 * (`./server.mjs`: a `ReliableServer` each, on `redisStore()`) and HAProxy in front of them
 * (`./haproxy.cfg`). Clients (`ResilientSocket` with `delivery`) connect through HAProxy and send
 * orders with `sendReliable()`; whichever process holds a client's connection handles its orders
 * and sends a receipt for each with `send()`. Meanwhile processes are killed with SIGKILL (no
 * goodbye to anyone: not to Redis, not to the clients) and started again a moment later.
 *
 * What it shows: every `sendReliable()` promise settles (resolves: nothing gives up), every order
 * is handled, in order per client, and every receipt reaches its client, in order. The one
 * exception, in the nature of a process killed at any moment: an order whose handler ran in a
 * process killed before it recorded, in Redis, that the order was handled is handled once more by
 * the process the client reconnects to (and sends a second receipt). `./summary.ts` checks it all.
 */

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constant, delivery, ResilientSocket } from 'resilient-socket';
import {
  freePort,
  INSTALL,
  missingTools,
  type Run,
  type Said,
  ServerProcess,
  startHaproxy,
  startRedis,
  stopProcess,
} from './processes.js';

export interface ClusterOptions {
  /** Clients sending orders. @default 3 */
  readonly clients?: number;
  /** Orders each client sends. @default 200 */
  readonly orders?: number;
  /** Each client's orders are spread over this time (ms). @default 4_500 */
  readonly duration?: number;
  /** Each process is killed once, in turn, while the orders go (else only `kill()` kills). @default true */
  readonly autoKill?: boolean;
  /** A killed process is started again after this long (ms). @default 1_000 */
  readonly restartAfter?: number;
  /** Told about every kill and restart. */
  readonly log?: (line: string) => void;
}

/** A receipt as its client saw it. */
export interface Receipt {
  readonly order: number;
  /** The process that sent it (its pid), and the one that wrote it to the client (the one connected). */
  readonly by: number;
  readonly via: number;
}

/** An order handled by a process (`run`), at `at` (ms since the epoch, from the process's clock). */
export interface Handling {
  readonly client: number;
  readonly order: number;
  readonly at: number;
  readonly run: Run;
}

export interface ClusterResult {
  readonly clients: number;
  /** Orders each client sent (all of them, unless the run was finished early). */
  readonly sent: readonly number[];
  /** The clients' `sendReliable()` promises: resolved, rejected (why), and not settled in time. */
  readonly resolved: number;
  readonly rejected: readonly string[];
  readonly unsettled: number;
  /** Every handling of an order, in the order they happened. */
  readonly handlings: readonly Handling[];
  /** The receipts each client saw, in the order it saw them. */
  readonly receipts: readonly (readonly Receipt[])[];
  /** The receipts' `send()` promises in the processes still running at the end: resolved, rejected, not settled in time. */
  readonly receiptsResolved: number;
  readonly receiptsRejected: readonly string[];
  readonly receiptsUnsettled: number;
  /** Every run of every process; the killed ones are marked. */
  readonly runs: readonly Run[];
  /** What went wrong on the servers: `error` events and anything written on stderr. */
  readonly errors: readonly string[];
  /** The clients' `error` events, by code, how many of each. */
  readonly clientErrors: ReadonlyMap<string, number>;
  readonly ms: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done()` or the `deadline` (`performance.now()` time); resolves with `done()`. */
async function waitUntil(done: () => boolean, deadline: number): Promise<boolean> {
  while (!done() && performance.now() < deadline) await sleep(20);
  return done();
}

export class Cluster {
  readonly processes: ServerProcess[] = [];
  readonly #options: Required<Omit<ClusterOptions, 'log'>>;
  readonly #log: (line: string) => void;
  readonly #handlings: Handling[] = [];
  readonly #receiptOutcomes = new Map<Run, string[]>();
  readonly #errors: string[] = [];
  readonly #clientErrors = new Map<string, number>();
  readonly #restarts = new Set<Promise<void>>();
  #dir = '';
  #redis: ChildProcess | undefined;
  #haproxy: ChildProcess | undefined;
  #finishing = false;
  #stopped = false;
  /** Where the clients connect: HAProxy. */
  url = '';
  redisPort = 0;
  /** Progress of the run, for a live view. */
  readonly progress = { sent: 0, acknowledged: 0, receipts: 0 };

  private constructor(options: ClusterOptions) {
    this.#options = {
      clients: options.clients ?? 3,
      orders: options.orders ?? 200,
      duration: options.duration ?? 4_500,
      autoKill: options.autoKill ?? true,
      restartAfter: options.restartAfter ?? 1_000,
    };
    this.#log = options.log ?? (() => undefined);
  }

  /** Starts Redis, three server processes and HAProxy (stopped again if any fails to start). */
  static async start(options: ClusterOptions = {}): Promise<Cluster> {
    const missing = missingTools();
    if (missing.length > 0) throw new Error(`${missing.join(' and ')} not found: install with \`${INSTALL}\``);
    const cluster = new Cluster(options);
    try {
      await cluster.#start();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  async #start(): Promise<void> {
    this.#dir = mkdtempSync(join(tmpdir(), 'rs-cluster-'));
    this.redisPort = await freePort();
    this.#redis = await startRedis(this.redisPort, this.#dir);
    const env = { REDIS_URL: `redis://127.0.0.1:${this.redisPort}`, PREFIX: 'orders:', SESSION_TTL: '30000' };
    for (let i = 1; i <= 3; i++) {
      this.processes.push(new ServerProcess(i, await freePort(), env, (said, run) => this.#heard(said, run)));
    }
    await Promise.all(this.processes.map((p) => p.start()));
    const front = await freePort();
    this.#haproxy = await startHaproxy(
      front,
      this.processes.map((p) => p.port),
    );
    this.url = `ws://127.0.0.1:${front}/`;
  }

  #heard(said: Said, run: Run): void {
    if (said.t === 'handled') this.#handlings.push({ client: said.client, order: said.order, at: said.at, run });
    else if (said.t === 'receipt') {
      const outcomes = this.#receiptOutcomes.get(run) ?? [];
      this.#receiptOutcomes.set(run, outcomes);
      outcomes.push(said.ok ? 'resolved' : String(said.code));
    } else if (said.t === 'error') this.#errors.push(`process ${run.process}: ${said.code} ${said.message}`);
  }

  /**
   * Kills process `index` (1, 2, 3) with SIGKILL if it is up, and starts it again `restartAfter`
   * later; resolves once it is killed.
   */
  async kill(index: number): Promise<void> {
    const p = this.processes[index - 1];
    if (p === undefined || p.state !== 'up' || this.#stopped) return;
    const held = p.sessions;
    await p.kill();
    this.#log(`process ${index} (:${p.port}) killed with SIGKILL, holding ${held} session${held === 1 ? '' : 's'}`);
    const restart = async () => {
      await sleep(this.#options.restartAfter);
      if (this.#stopped) return;
      try {
        await p.start();
        this.#log(`process ${index} (:${p.port}) up again`);
      } catch (error) {
        this.#errors.push(`process ${index} did not start again: ${String(error)}`);
      }
    };
    this.#restarts.add(restart());
  }

  /** No more orders: the run checks those sent so far. */
  finish(): void {
    this.#finishing = true;
  }

  /** The clients send their orders (killing processes meanwhile, with `autoKill`), and what came of it. */
  async run(): Promise<ClusterResult> {
    const { clients: count, orders, duration, autoKill } = this.#options;
    const started = performance.now();
    const clients = Array.from({ length: count }, () => this.#client());
    const promises: Promise<void>[] = [];
    const rejected: string[] = [];
    let resolved = 0;

    // Each process killed once, in turn, while the orders go: at 15 %, 40 % and 65 % of the time.
    const killing = autoKill
      ? (async () => {
          for (const [k, p] of this.processes.entries()) {
            await sleep(Math.max(0, started + duration * (0.15 + 0.25 * k) - performance.now()));
            if (!this.#finishing) await this.kill(p.index);
          }
        })()
      : Promise.resolve();

    // Each client's orders spread evenly over `duration`.
    while (!this.#finishing && clients.some((c) => c.sent < orders)) {
      const due = Math.min(orders, Math.ceil((orders * (performance.now() - started)) / duration));
      for (const [c, client] of clients.entries()) {
        for (; client.sent < due; client.sent++) {
          const order = client.sent + 1;
          promises.push(
            client.socket.sendReliable({ client: c, order }).then(
              () => {
                resolved++;
                this.progress.acknowledged++;
              },
              (error: unknown) => void rejected.push(`client ${c}, order ${order}: ${String(error)}`),
            ),
          );
          this.progress.sent++;
        }
      }
      await sleep(10);
    }
    this.#finishing = true;
    await killing;

    // Within 15 s (a few ms, normally): every promise settles, every receipt reaches its client, and
    // every receipt a process still running sent is acknowledged. What did not is in the result.
    const deadline = performance.now() + 15_000;
    await waitUntil(() => resolved + rejected.length === promises.length, deadline);
    const seen = clients.map((client) => () => new Set(client.receipts.map((r) => r.order)).size >= client.sent);
    await waitUntil(() => seen.every((s) => s()), deadline);
    await Promise.all(this.#restarts);
    const running = () => this.processes.flatMap((p) => p.runs.filter((run) => !run.killed).slice(-1));
    const sentBy = (run: Run) => this.#handlings.filter((h) => h.run === run).length;
    const outcomes = (run: Run) => this.#receiptOutcomes.get(run) ?? [];
    await waitUntil(() => running().every((run) => outcomes(run).length >= sentBy(run)), deadline);
    for (const client of clients) client.socket.close();

    const receiptOutcomes = running().flatMap((run) => outcomes(run));
    const errors = [...this.#errors];
    for (const p of this.processes) if (p.stderr) errors.push(`process ${p.index} wrote on stderr: ${p.stderr.trim()}`);
    return {
      clients: count,
      sent: clients.map((c) => c.sent),
      resolved,
      rejected,
      unsettled: promises.length - resolved - rejected.length,
      handlings: [...this.#handlings].sort((a, b) => a.at - b.at),
      receipts: clients.map((c) => c.receipts),
      receiptsResolved: receiptOutcomes.filter((o) => o === 'resolved').length,
      receiptsRejected: receiptOutcomes.filter((o) => o !== 'resolved'),
      receiptsUnsettled: running().reduce((n, run) => n + sentBy(run) - outcomes(run).length, 0),
      runs: this.processes.flatMap((p) => p.runs),
      errors,
      clientErrors: new Map(this.#clientErrors),
      ms: performance.now() - started,
    };
  }

  /** A client: its socket through HAProxy, what it sent, and the receipts it saw. */
  #client() {
    const socket = new ResilientSocket(this.url, {
      delivery: delivery({ ackTimeout: 500 }),
      backoff: constant({ delay: 100 }),
    });
    const client = { socket, sent: 0, receipts: [] as Receipt[], via: 0 };
    // Connections refused or cut while processes die: told here, and the socket reconnects by itself.
    socket.on('error', (error) => {
      const code = (error as { code?: string }).code ?? error.name;
      this.#clientErrors.set(code, (this.#clientErrors.get(code) ?? 0) + 1);
    });
    socket.on('message', (data) => {
      if (typeof data === 'string') {
        // The plain frame each process sends first on a connection: which process this is.
        const welcome = (JSON.parse(data) as { welcome?: number }).welcome;
        if (welcome !== undefined) client.via = welcome;
      } else if (typeof data === 'object' && data !== null && 'receipt' in data) {
        const { receipt, by } = data as unknown as { receipt: number; by: number };
        client.receipts.push({ order: receipt, by, via: client.via });
        this.progress.receipts++;
      }
    });
    return client;
  }

  /** Stops everything: the server processes, HAProxy, Redis; removes the temporary directory. Idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#finishing = true;
    await Promise.all(this.#restarts); // a process being started again is stopped once it is up
    await Promise.all(this.processes.map((p) => p.stop()));
    await stopProcess(this.#haproxy);
    await stopProcess(this.#redis);
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** Starts the cluster, runs it, and stops it. */
export async function runCluster(options: ClusterOptions = {}): Promise<ClusterResult> {
  const cluster = await Cluster.start(options);
  try {
    return await cluster.run();
  } finally {
    await cluster.stop();
  }
}
