/**
 * Reconnect storm: K clients of one subject are connected to a server on 127.0.0.1, the server dies
 * abruptly, stays down D ms, and comes back. Counts every TCP connection attempt at the server,
 * the busiest 100 ms, and how long each client takes to come back.
 *
 *   npm run bench:storm                              # K=1000, D=5000, 3 reps, every subject
 *   npm run bench:storm -- --quick                   # CI smoke: K=50, D=1000, 1 rep, 3 subjects (< 60 s)
 *   npm run bench:storm -- --chart --json out.json   # + bench/charts/storm-attempts.svg, raw results
 *   npm run bench:storm -- --chart-from out.json     # only redraw the chart from a --json file (no run)
 *   options: --clients K --down-ms D --reps R --strategy-reps R2 --subjects id,id --chart --json FILE
 *
 * The report (markdown) goes to stdout, progress to stderr. Exit code 0 on success, non-zero on a
 * crash (never on performance numbers).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median, percentile } from './lib/stats.js';
import type { FromServer, ToServer } from './lib/storm-server.js';
import { bin, countIn, monotonicMs, slidingPeak } from './lib/storm-stats.js';
import { probe, type StormClient, SUBJECTS, type Subject } from './lib/storm-subjects.js';
import { histogram } from './lib/svg.js';

// ---------------------------------------------------------------- configuration

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string' },
    'down-ms': { type: 'string' },
    reps: { type: 'string' },
    'strategy-reps': { type: 'string' },
    subjects: { type: 'string' },
    quick: { type: 'boolean', default: false },
    chart: { type: 'boolean', default: false },
    json: { type: 'string' },
    'chart-from': { type: 'string' },
  },
  strict: true,
});

function intArg(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new RangeError(`--${name} must be an integer >= ${min}, got ${value}`);
  return n;
}

const QUICK = args.quick === true;
const K = intArg('clients', args.clients, QUICK ? 50 : 1000, 1);
const DOWN_MS = intArg('down-ms', args['down-ms'], QUICK ? 1000 : 5000, 1);
const REPS = intArg('reps', args.reps, QUICK ? 1 : 3, 1);
const STRATEGY_REPS = Math.min(REPS, intArg('strategy-reps', args['strategy-reps'], REPS, 1));
/** Longer than every subject's "stable" time (resilient-socket stableAfter, RWS/partysocket minUptime: 5 s). */
const HOLD_MS = 6_000;
/** Attempts after recovery are counted over this window (clients that are all back make no more). */
const AFTER_MS = 15_000;
/** A client not open again by recovery + DEADLINE_MS is "not back". */
const DEADLINE_MS = 20_000;
const BIN_MS = 100;
/** The chart runs from the outage start to recovery + CHART_AFTER_MS. */
const CHART_AFTER_MS = QUICK ? 5_000 : 10_000;
const BATCH = 100;
const DEFAULT_ID = 'rs-default';

const selected: Subject[] = (() => {
  if (args.subjects !== undefined) {
    const ids = args.subjects.split(',').map((s) => s.trim());
    const unknown = ids.filter((id) => !SUBJECTS.some((s) => s.id === id));
    if (unknown.length > 0) {
      throw new RangeError(`unknown subject(s) ${unknown.join(', ')}; known: ${SUBJECTS.map((s) => s.id).join(', ')}`);
    }
    return SUBJECTS.filter((s) => ids.includes(s.id));
  }
  return QUICK ? SUBJECTS.filter((s) => s.quick) : [...SUBJECTS];
})();
const isStrategy = (s: Subject) => s.id.startsWith('rs-') && s.id !== DEFAULT_ID;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stderr.write(`${line}\n`);

// ---------------------------------------------------------------- server child process

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type UpMessage = Extract<FromServer, { type: 'up' }>;

class ServerProcess {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve: (m: FromServer) => void; reject: (e: Error) => void }>();
  #nextId = 1;
  #upWaiter: ((m: UpMessage) => void) | undefined;
  #exited = false;
  port = 0;

  get pid(): number {
    return this.#child.pid ?? 0;
  }

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (message: FromServer) => {
      if (message.type === 'up') {
        this.#upWaiter?.(message);
        this.#upWaiter = undefined;
      } else if ('id' in message) {
        this.#pending.get(message.id)?.resolve(message);
        this.#pending.delete(message.id);
      }
    });
    child.on('exit', (code, signal) => {
      this.#exited = true;
      const error = new Error(`the server process exited (code ${code}, signal ${signal})`);
      for (const { reject } of this.#pending.values()) reject(error);
      this.#pending.clear();
    });
  }

  static start(): Promise<ServerProcess> {
    const file = fileURLToPath(new URL('./lib/storm-server.ts', import.meta.url));
    // Under tsx, execArgv carries its loader; otherwise load it explicitly.
    const execArgv = process.execArgv.some((a) => a.includes('tsx')) ? process.execArgv : ['--import', 'tsx'];
    const child = fork(file, [], {
      execArgv,
      env: { ...process.env, STORM_SERVER: '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const server = new ServerProcess(child);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the server process did not start within 30 s')), 30_000);
      child.once('exit', () => reject(new Error('the server process exited during startup')));
      child.once('message', (message: FromServer) => {
        clearTimeout(timer);
        if (message.type !== 'ready') return reject(new Error(`unexpected first message ${message.type}`));
        server.port = message.port;
        resolve(server);
      });
    });
  }

  request<T extends FromServer['type']>(message: WithoutId<ToServer>): Promise<Extract<FromServer, { type: T }>> {
    if (this.#exited) return Promise.reject(new Error('the server process has exited'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (m: FromServer) => void, reject });
      this.#child.send({ ...message, id });
    });
  }

  /** Resolves with the next `up` notification. */
  nextUp(): Promise<UpMessage> {
    return new Promise((resolve) => {
      this.#upWaiter = resolve;
    });
  }

  async stop(): Promise<void> {
    if (this.#exited) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    try {
      await Promise.race([this.request<'stopped'>({ type: 'stop' }), sleep(5_000)]);
    } catch {
      // already gone
    }
    await Promise.race([exited, sleep(5_000)]);
    if (!this.#exited) this.#child.kill('SIGKILL');
  }

  kill(): void {
    if (!this.#exited) this.#child.kill('SIGKILL');
  }
}

// ---------------------------------------------------------------- one run

/** TcpExt ListenOverflows (system-wide) from /proc/net/netstat, if readable. */
function listenOverflows(): number | undefined {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    const index = lines.findIndex((l) => l.startsWith('TcpExt:'));
    const names = lines[index]?.split(/\s+/) ?? [];
    const values = lines[index + 1]?.split(/\s+/) ?? [];
    const at = names.indexOf('ListenOverflows');
    return at > 0 ? Number(values[at]) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU jiffies: every process on the machine (busy) and ours (the bench + the server child). */
function cpuSample(pids: readonly number[]): { busy: number; own: number; at: number } | undefined {
  try {
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = (
      readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? ''
    )
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    let own = 0;
    for (const pid of pids) {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      own += Number(fields[11]) + Number(fields[12]); // utime + stime
    }
    return { busy: user + nice + system + irq + softirq, own, at: monotonicMs() };
  } catch {
    return undefined;
  }
}

/** Cores used by processes other than ours between two samples (USER_HZ = 100 on Linux). */
function foreignCores(a: ReturnType<typeof cpuSample>, b: ReturnType<typeof cpuSample>): number | undefined {
  if (!a || !b || b.at <= a.at) return undefined;
  return Math.max(0, (b.busy - a.busy - (b.own - a.own)) / 100 / ((b.at - a.at) / 1000));
}

interface RunResult {
  readonly subject: string;
  readonly rep: number;
  readonly note: string | undefined;
  readonly setupMs: number;
  readonly killed: number;
  readonly killMs: number;
  /** Measured outage (recovery instant − outage start), ms. */
  readonly outageMs: number;
  readonly outageAttempts: number;
  readonly recoveryAttempts: number;
  readonly clientOutageAttempts: number;
  readonly clientRecoveryAttempts: number;
  /** Sliding 100 ms windows over [outage start, recovery + 15 s). */
  readonly peak100: number;
  readonly peak100Outage: number;
  readonly peak100Recovery: number;
  /** Fixed 100 ms bins from the outage start, same span. */
  readonly peak100FixedBins: number;
  /** Per client, ms from the recovery instant to its next open; Infinity = not back by the deadline. */
  readonly reconnectMs: number[];
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly back: number;
  readonly openedDuringOutage: number;
  readonly errors: Record<string, number>;
  readonly listenOverflows: number | undefined;
  /** Server-side attempts per 100 ms from the outage start to recovery + CHART_AFTER_MS. */
  readonly bins: number[];
  /** Server-side attempt times, ms from the outage start. */
  readonly attempts: number[];
  /** Client-side attempt (WebSocket construction) times, ms from the outage start. */
  readonly clientAttempts: number[];
  readonly drained: boolean;
  /** CPU cores used by other processes on the machine during the measured phase (outage + recovery). */
  readonly foreignCores: number | undefined;
  readonly wallMs: number;
}

async function until(predicate: () => boolean, timeoutMs: number, step = 5): Promise<boolean> {
  const deadline = monotonicMs() + timeoutMs;
  while (!predicate()) {
    if (monotonicMs() > deadline) return false;
    await sleep(step);
  }
  return true;
}

async function run(server: ServerProcess, subject: Subject, rep: number): Promise<RunResult> {
  const wallStart = monotonicMs();
  const url = `ws://127.0.0.1:${server.port}/`;
  const note = subject.prepare?.();
  let armed = false;
  let connected = 0;
  const firstOpen = new Array<boolean>(K).fill(false);
  const reopenAt = new Array<number>(K).fill(Number.NaN);
  let reopened = 0;
  const clients: StormClient[] = [];

  // 1. connect K clients, BATCH at a time (a 1000-SYN burst would only test the listen backlog)
  const setupStart = monotonicMs();
  try {
    for (let start = 0; start < K; start += BATCH) {
      for (let i = start; i < Math.min(K, start + BATCH); i++) {
        clients.push(
          subject.create(url, () => {
            if (!firstOpen[i]) {
              firstOpen[i] = true;
              connected++;
            } else if (armed && Number.isNaN(reopenAt[i])) {
              reopenAt[i] = monotonicMs();
              reopened++;
            }
          }),
        );
      }
      if (!(await until(() => connected >= Math.min(K, start + BATCH), 60_000))) {
        throw new Error(`${subject.id}: only ${connected}/${K} clients connected within 60 s`);
      }
    }
    const setupMs = monotonicMs() - setupStart;
    const status = await server.request<'status'>({ type: 'status' });
    if (status.open !== K) throw new Error(`${subject.id}: the server sees ${status.open} clients, expected ${K}`);

    // 2. stay up long enough for every subject to call the connection stable (backoff reset)
    await sleep(HOLD_MS);
    await server.request<'take-attempts'>({ type: 'take-attempts' });
    probe.reset();
    const overflowBefore = listenOverflows();
    const cpuBefore = cpuSample([process.pid, server.pid]);

    // 3. kill the server; it comes back by itself DOWN_MS later
    armed = true;
    const upPromise = server.nextUp();
    const down = await server.request<'down'>({ type: 'down', downMs: DOWN_MS });
    const t0 = down.at;
    const up = await upPromise;
    const tUp = up.at;

    // 4. wait until every client has reopened, or the deadline
    await until(() => reopened >= K, tUp + DEADLINE_MS - monotonicMs(), 10);
    const { attempts: rawAttempts } = await server.request<'take-attempts'>({ type: 'take-attempts' });
    const overflowAfter = listenOverflows();
    const cpuAfter = cpuSample([process.pid, server.pid]);
    const clientRaw = probe.attempts;
    const errors = Object.fromEntries(probe.errors);
    probe.reset();

    // 5. close every client cleanly and wait for the server to see them all gone
    for (const client of clients.splice(0)) client.close();
    let drained = false;
    const drainDeadline = monotonicMs() + 15_000;
    while (!drained && monotonicMs() < drainDeadline) {
      const s = await server.request<'status'>({ type: 'status' });
      drained = s.open === 0 && s.sockets === 0;
      if (!drained) await sleep(50);
    }
    await server.request<'take-attempts'>({ type: 'take-attempts' }); // the closing phase is not measured

    // metrics
    const end = tUp + AFTER_MS;
    const inWindow = rawAttempts.filter((t) => t >= t0 && t < end);
    const outage = inWindow.filter((t) => t < tUp);
    const recovery = inWindow.filter((t) => t >= tUp);
    const reconnectMs = reopenAt.map((t) =>
      Number.isNaN(t) || t - tUp > DEADLINE_MS ? Number.POSITIVE_INFINITY : t - tUp,
    );
    const openedDuringOutage = reopenAt.filter((t) => t < tUp).length;
    const spanBins = Math.ceil((end - t0) / BIN_MS);
    const chartBins = Math.ceil((DOWN_MS + CHART_AFTER_MS) / BIN_MS);
    const rel = (t: number) => Math.round((t - t0) * 100) / 100;
    return {
      subject: subject.id,
      rep,
      note,
      setupMs,
      killed: down.killed,
      killMs: down.killMs,
      outageMs: tUp - t0,
      outageAttempts: outage.length,
      recoveryAttempts: recovery.length,
      clientOutageAttempts: countIn(clientRaw, t0, tUp),
      clientRecoveryAttempts: countIn(clientRaw, tUp, end),
      peak100: slidingPeak(inWindow, BIN_MS),
      peak100Outage: slidingPeak(outage, BIN_MS),
      peak100Recovery: slidingPeak(recovery, BIN_MS),
      peak100FixedBins: Math.max(0, ...bin(inWindow, t0, BIN_MS, spanBins)),
      reconnectMs,
      p50: percentile(reconnectMs, 50),
      p99: percentile(reconnectMs, 99),
      max: percentile(reconnectMs, 100),
      back: reconnectMs.filter(Number.isFinite).length,
      openedDuringOutage,
      errors,
      listenOverflows:
        overflowBefore !== undefined && overflowAfter !== undefined ? overflowAfter - overflowBefore : undefined,
      bins: bin(rawAttempts, t0, BIN_MS, chartBins),
      attempts: rawAttempts.map(rel),
      clientAttempts: clientRaw.map(rel),
      drained,
      foreignCores: foreignCores(cpuBefore, cpuAfter),
      wallMs: monotonicMs() - wallStart,
    };
  } finally {
    for (const client of clients) client.close();
  }
}

// ---------------------------------------------------------------- report

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : Number.isNaN(n)
      ? '–'
      : 'not back';

function packageVersion(name: string): string {
  try {
    const url = new URL(`../node_modules/${name}/package.json`, import.meta.url);
    return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

interface Summary {
  readonly subject: Subject;
  readonly runs: RunResult[];
  readonly outageAttempts: number;
  readonly recoveryAttempts: number;
  readonly peak100: number;
  readonly peak100Recovery: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly allBackRuns: number;
  readonly minBack: number;
  readonly ratio: number;
  readonly ratioRecovery: number;
}

function summarize(results: readonly RunResult[]): Summary[] {
  const byRep = (id: string, rep: number) => results.find((r) => r.subject === id && r.rep === rep);
  return selected
    .map((subject) => {
      const runs = results.filter((r) => r.subject === subject.id);
      const m = (f: (r: RunResult) => number) => median(runs.map(f));
      const ratios = runs.flatMap((r) => {
        const base = byRep(DEFAULT_ID, r.rep);
        return base ? [[r.peak100 / base.peak100, r.peak100Recovery / base.peak100Recovery] as const] : [];
      });
      return {
        subject,
        runs,
        outageAttempts: m((r) => r.outageAttempts),
        recoveryAttempts: m((r) => r.recoveryAttempts),
        peak100: m((r) => r.peak100),
        peak100Recovery: m((r) => r.peak100Recovery),
        p50: m((r) => r.p50),
        p99: m((r) => r.p99),
        max: m((r) => r.max),
        allBackRuns: runs.filter((r) => r.back === K).length,
        minBack: Math.min(...runs.map((r) => r.back)),
        ratio: median(ratios.map(([all]) => all)),
        ratioRecovery: median(ratios.map(([, rec]) => rec)),
      };
    })
    .filter((s) => s.runs.length > 0);
}

function report(results: readonly RunResult[], totalMs: number, load: { before: number[]; after: number[] }): string {
  const cpus = os.cpus();
  const summaries = summarize(results);
  const repsNote =
    STRATEGY_REPS < REPS && selected.some(isStrategy)
      ? `${REPS} runs per subject, except the non-default resilient-socket strategies: ${STRATEGY_REPS}`
      : `${REPS} run${REPS > 1 ? 's' : ''} per subject`;
  const out: string[] = [];
  out.push(
    `## Reconnect storm (K=${K.toLocaleString('en-US')}, outage ${DOWN_MS} ms, medians of ${REPS === 1 ? '1 run' : repsNote})`,
    '',
    `_Generated ${new Date().toISOString()}: ${cpus[0]?.model ?? '?'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}; ws ${packageVersion('ws')}, reconnecting-websocket ${packageVersion('reconnecting-websocket')}, partysocket ${packageVersion('partysocket')}. ${QUICK ? 'Mode: --quick. ' : ''}Wall time ${(totalMs / 1000).toFixed(0)} s; load average ${load.before.map((l) => l.toFixed(2)).join(' ')} before, ${load.after.map((l) => l.toFixed(2)).join(' ')} after._`,
    '',
    '### Method',
    '',
    `- **Server** (a child process, so that it does not share an event loop with the clients): \`http.Server\` + \`ws\` \`WebSocketServer({ server })\` on 127.0.0.1, listen backlog 511 (Node's default). Every TCP connection it accepts (the http server's \`connection\` event) is timestamped with \`process.hrtime\` (CLOCK_MONOTONIC, shared with the client process).`,
    `- **Clients**: K = ${K} clients of one subject in the parent process, connected ${BATCH} at a time, then left open ${HOLD_MS / 1000} s (longer than every subject's 5 s \`stableAfter\` / \`minUptime\`, so each starts from a reset backoff). Every subject drives the same \`ws\` ${packageVersion('ws')} client class (passed as the \`WebSocket\` option), which also timestamps each construction as a client-side cross-check.`,
    `- **Outage** at t = 0: the server switches to "a plain listener that counts and drops": it terminates every WebSocket (no close frame) and from then on destroys every new TCP connection as soon as it is accepted (clients see ECONNRESET / close 1006). After D = ${DOWN_MS} ms (the recovery instant) the same listener accepts upgrades again; no listener swap, so no attempt goes uncounted.`,
    `- **Attempts during outage**: TCP connections accepted in [0, D). **Attempts after recovery**: accepted in [D, D + ${AFTER_MS / 1000} s) (a client that is back makes no more, so the count is complete once all are back).`,
    `- **Peak /100 ms**: the most accepted connections in any sliding 100 ms window [t, t + 100 ms) over [0, D + ${AFTER_MS / 1000} s) (the JSON also has the peak of fixed 100 ms bins from t = 0); "after recovery" restricts it to [D, D + ${AFTER_MS / 1000} s). **Ratio**: the subject's peak ÷ resilient-socket default's peak in the same rep (same process, same server), median over reps.`,
    `- **Reconnect time** per client: from the recovery instant to that client's next \`open\`; p50 / p99 / max are nearest-rank over the K clients; **all back**: every client open again by recovery + ${DEADLINE_MS / 1000} s (later ones count as not back).`,
    `- **Runs**: ${repsNote}; each rep runs every subject once, in an order rotated by one per rep; table cells are medians over runs (per metric).`,
    '- **reconnecting-websocket**: its default `minReconnectionDelay = 1000 + Math.random()·4000` is evaluated once per **module load**, so all K clients of one process share one draw: the real behaviour for many sockets in one app process, but clients on different machines would each have their own draw. The module is loaded afresh for every run (so reps sample different draws; each run\'s draw is listed below), and the row "(1 module load per client)" gives each client its own draw, i.e. K independent machines.',
    '- **Harness limit**: all K clients share one Node event loop on one core; handling one failed attempt costs a fraction of a millisecond there, so a perfectly synchronised herd of 1000 is smeared over a few hundred ms and its peak /100 ms is a lower bound (independent machines would be sharper). Jittered subjects are far below that limit.',
    '',
    `| subject | attempts during outage | attempts after recovery | peak /100 ms | peak /100 ms after recovery | p50 / p99 / max reconnect (ms) | all back (≤ ${DEADLINE_MS / 1000} s) | peak vs resilient-socket default (whole · after recovery) |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const s of summaries) {
    const allBack =
      s.allBackRuns === s.runs.length
        ? `yes (${s.runs.length}/${s.runs.length} runs)`
        : `**no** (${s.allBackRuns}/${s.runs.length} runs; worst ${s.minBack}/${K})`;
    out.push(
      `| ${s.subject.label} | ${fmt(s.outageAttempts)} | ${fmt(s.recoveryAttempts)} | ${fmt(s.peak100)} | ${fmt(s.peak100Recovery)} | ${fmt(s.p50)} / ${fmt(s.p99)} / ${fmt(s.max)} | ${allBack} | ${fmt(s.ratio, 2)} · ${fmt(s.ratioRecovery, 2)} |`,
    );
  }
  out.push(
    '',
    'Per run (attempts outage / after recovery; peak /100 ms outage / after recovery; p50 / p99 / max ms; back):',
    '',
  );
  for (const s of summaries) {
    const runs = s.runs
      .map(
        (r) =>
          `${r.outageAttempts} / ${r.recoveryAttempts}; ${r.peak100Outage} / ${r.peak100Recovery}; ${fmt(r.p50)} / ${fmt(r.p99)} / ${fmt(r.max)}; ${r.back}${r.note ? ` (${r.note})` : ''}`,
      )
      .join(' · ');
    out.push(`- ${s.subject.label}: ${runs}`);
  }
  out.push('', '### Subjects (defaults in force)', '', '| subject | reconnection defaults |', '| --- | --- |');
  for (const s of summaries) out.push(`| ${s.subject.label} | ${s.subject.defaults} |`);

  const all = [...results];
  const diff = all.map(
    (r) => r.clientOutageAttempts + r.clientRecoveryAttempts - r.outageAttempts - r.recoveryAttempts,
  );
  const errorTotals = new Map<string, number>();
  for (const r of all) for (const [k, v] of Object.entries(r.errors)) errorTotals.set(k, (errorTotals.get(k) ?? 0) + v);
  const overflows = all.map((r) => r.listenOverflows).filter((v): v is number => v !== undefined);
  const outages = all.map((r) => r.outageMs);
  out.push(
    '',
    '### Harness checks',
    '',
    `- Client-side attempts (WebSocket constructions) minus server-side TCP accepts, per run: min ${Math.min(...diff)}, max ${Math.max(...diff)} (a positive difference = attempts that never reached the server's accept, or still in flight at the end).`,
    `- Measured outage: ${Math.min(...outages).toFixed(1)}–${Math.max(...outages).toFixed(1)} ms; kill loop ${Math.max(...all.map((r) => r.killMs)).toFixed(1)} ms at most; connections killed per run: ${[...new Set(all.map((r) => r.killed))].join(', ')}.`,
    `- Clients that opened during the outage (should be 0): ${all.reduce((n, r) => n + r.openedDuringOutage, 0)}. Runs where the server did not see every client closed within 15 s: ${all.filter((r) => !r.drained).length}.`,
    `- CPU used by other processes on the machine during the measured phases (of ${os.cpus().length} cores): ${(() => {
      const f = all.map((r) => r.foreignCores).filter((v): v is number => v !== undefined);
      return f.length ? `median ${median(f).toFixed(2)}, max ${Math.max(...f).toFixed(2)}` : 'not available';
    })()}.`,
    `- Client error codes over all runs: ${[...errorTotals].map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ') || 'none'}.`,
    `- Kernel TcpExt ListenOverflows during the measured phases (system-wide): ${overflows.length ? `total ${overflows.reduce((a, b) => a + b, 0)}, max per run ${Math.max(...overflows)}` : 'not available'}.`,
    `- Limits: ${(() => {
      try {
        const line = readFileSync('/proc/self/limits', 'utf8')
          .split('\n')
          .find((l) => l.startsWith('Max open files'));
        return `open files (soft) ${line?.split(/\s{2,}/)[1] ?? '?'}`;
      } catch {
        return 'open files ?';
      }
    })()}, ephemeral ports ${(() => {
      try {
        return readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().replace(/\s+/, '–');
      } catch {
        return '?';
      }
    })()}.`,
  );
  return `${out.join('\n')}\n`;
}

/** Attempts per 100 ms over time, one series per charted subject, from the first rep that ran. */
function chart(runs: readonly Pick<RunResult, 'subject' | 'rep' | 'bins'>[], clients: number, downMs: number): string {
  const firstRep = Math.min(...runs.map((r) => r.rep));
  const series = SUBJECTS.flatMap((s) => {
    const r = runs.find((x) => x.subject === s.id && x.rep === firstRep);
    return s.chart !== undefined && r ? [{ name: s.chart, values: r.bins }] : [];
  });
  return histogram(series, BIN_MS, {
    title: `Reconnect storm: TCP attempts per 100 ms (K=${clients}, server back at ${downMs} ms, rep ${firstRep + 1})`,
    xLabel: 'time since the outage began (ms)',
    yLabel: 'connection attempts per 100 ms',
    width: 900,
  });
}

const CHART_FILE = fileURLToPath(new URL('./charts/storm-attempts.svg', import.meta.url));

function writeChart(svg: string): void {
  mkdirSync(dirname(CHART_FILE), { recursive: true });
  writeFileSync(CHART_FILE, svg);
  log(`chart: ${CHART_FILE}`);
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  if (args['chart-from'] !== undefined) {
    const raw = JSON.parse(readFileSync(args['chart-from'], 'utf8')) as {
      config: { K: number; DOWN_MS: number };
      runs: Pick<RunResult, 'subject' | 'rep' | 'bins'>[];
    };
    writeChart(chart(raw.runs, raw.config.K, raw.config.DOWN_MS));
    return;
  }
  const started = monotonicMs();
  const load = { before: os.loadavg(), after: [] as number[] };
  log(
    `storm: K=${K}, D=${DOWN_MS} ms, reps ${REPS}${STRATEGY_REPS < REPS ? ` (strategies ${STRATEGY_REPS})` : ''}, subjects ${selected.map((s) => s.id).join(', ')}`,
  );
  const server = await ServerProcess.start();
  const kill = () => server.kill();
  process.once('exit', kill);
  const results: RunResult[] = [];
  try {
    for (let rep = 0; rep < REPS; rep++) {
      const order = selected.map((_, i) => selected[(i + rep) % selected.length] as Subject);
      for (const subject of order) {
        if (isStrategy(subject) && rep >= STRATEGY_REPS) continue;
        const r = await run(server, subject, rep);
        results.push(r);
        log(
          `[rep ${rep + 1}/${REPS}] ${subject.id}: attempts ${r.outageAttempts} + ${r.recoveryAttempts}, peak/100ms ${r.peak100} (recovery ${r.peak100Recovery}), reconnect p50 ${fmt(r.p50)} p99 ${fmt(r.p99)} max ${fmt(r.max)} ms, back ${r.back}/${K}${r.note ? `, ${r.note}` : ''} (${(r.wallMs / 1000).toFixed(1)} s)`,
        );
        await sleep(250);
      }
    }
  } finally {
    await server.stop();
    process.off('exit', kill);
  }
  load.after = os.loadavg();
  const totalMs = monotonicMs() - started;
  process.stdout.write(report(results, totalMs, load));

  if (args.chart) writeChart(chart(results, K, DOWN_MS));
  if (args.json !== undefined) {
    const raw = {
      config: { K, DOWN_MS, REPS, STRATEGY_REPS, HOLD_MS, AFTER_MS, DEADLINE_MS, BIN_MS, quick: QUICK },
      machine: {
        cpu: os.cpus()[0]?.model,
        cores: os.cpus().length,
        node: process.version,
        os: `${os.type()} ${os.release()}`,
        date: new Date().toISOString(),
      },
      summary: summarize(results).map(({ subject, runs: _runs, ...rest }) => ({ subject: subject.id, ...rest })),
      runs: results,
    };
    mkdirSync(dirname(args.json), { recursive: true });
    // Infinity (not back) becomes null in JSON.
    writeFileSync(args.json, `${JSON.stringify(raw, (_k, v) => (v === Number.POSITIVE_INFINITY ? null : v))}\n`);
    log(`json: ${args.json}`);
  }
  log(`done in ${(totalMs / 1000).toFixed(1)} s`);
}

main().then(
  () => {
    // Every client and the server are closed: the process should now exit by itself. If something
    // still holds it open, say what and fail (a leak in the harness or a subject).
    setTimeout(() => {
      log(`storm: still alive 30 s after finishing; active resources: ${process.getActiveResourcesInfo().join(', ')}`);
      process.exit(2);
    }, 30_000).unref();
  },
  (error: unknown) => {
    log(`storm: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
