/**
 * `resilient-socket --demo` (and `npm run demo`): several clients against an embedded echo server
 * on 127.0.0.1 that crashes and comes back on a schedule. It prints a live timeline (states, the
 * backoff window of every retry and the delay drawn in it, buffered messages flushed after each
 * recovery), then a lane chart of the whole run and a summary per client.
 */
import { truncatedBinaryExponential, truncatedWindow } from '../backoff/truncated-binary-exponential.js';
import type { BackoffPolicyLike } from '../backoff/types.js';
import { ResilientSocket } from '../node.js';
import { ECHO, TestWsServer } from '../testing/ws-server.js';
import { ExitCode } from './exit-codes.js';
import { type LaneChange, laneChart } from './lane-chart.js';

/** The demo's timing, in ms from the start. */
export interface DemoSchedule {
  /** When the server crashes (every client connection cut, listener closed). */
  readonly crashes: readonly number[];
  /** When it comes back, one per crash. */
  readonly restarts: readonly number[];
  /** When the clients close and the summary is printed. */
  readonly end: number;
  /** Each client sends a message this often. */
  readonly sendEvery: number;
  /** The clients' backoff: truncated binary exponential with this T (ms) and ceiling N. */
  readonly maxDelay: number;
  readonly ceiling: number;
  /** The clients' `stableAfter`. */
  readonly stableAfter: number;
}

export const DEFAULT_SCHEDULE: DemoSchedule = /* @__PURE__ */ Object.freeze({
  crashes: [2_000, 7_000],
  restarts: [5_000, 8_000],
  end: 10_500,
  sendEvery: 400,
  maxDelay: 2_000,
  ceiling: 6,
  stableAfter: 1_000,
});

export interface DemoIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Registers a Ctrl-C handler; returns a function that removes it. */
  onInterrupt(handler: () => void): () => void;
}

export interface DemoOptions {
  readonly clients: number;
  readonly schedule?: DemoSchedule;
}

/** What one client did, for the summary (and for tests). */
export interface ClientReport {
  readonly name: string;
  readonly attempts: number;
  readonly connects: number;
  readonly sent: number;
  /** Sends that were queued because the client was down. */
  readonly buffered: number;
  /** Queued messages written out when a connection opened. */
  readonly flushed: number;
  /** Echoes received back from the server. */
  readonly echoed: number;
  readonly dropped: number;
}

/** The lane chart's column, in ms. */
const LANE_STEP = 200;

/** Runs the demo; resolves with the exit code (0, or 130 when interrupted) and the per-client reports. */
export async function runDemo(options: DemoOptions, io: DemoIO): Promise<{ code: number; reports: ClientReport[] }> {
  const s = options.schedule ?? DEFAULT_SCHEDULE;
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  const line = (who: string, text: string) =>
    io.stdout.write(`${(elapsed() / 1_000).toFixed(2).padStart(6)} s  ${who.padEnd(6)} ${text}\n`);

  // The test kit's real-server fixture: it echoes, and stop() cuts every client like a crash.
  const server = new TestWsServer(ECHO);
  try {
    await server.start();
  } catch {
    io.stderr.write('resilient-socket: the demo needs the ws package for its server: npm install ws\n');
    return { code: ExitCode.Usage, reports: [] };
  }
  const crash = async (): Promise<number> => {
    const cut = server.openClients;
    await server.stop();
    return cut;
  };
  const url = server.url;
  const windows = Array.from({ length: s.ceiling }, (_, i) => format(truncatedWindow(s.maxDelay, s.ceiling, i + 1)));
  io.stdout.write(
    [
      `resilient-socket demo: ${options.clients} clients and an echo server on ${url}`,
      `the server crashes at ${s.crashes.map(sec).join(' and ')} and comes back at ${s.restarts.map(sec).join(' and ')}`,
      `backoff: truncated binary exponential, T = ${s.maxDelay} ms, N = ${s.ceiling}; after the n-th failure a random`,
      `wait in [0, window n), windows ${windows.join(', ')} ms; stable after ${s.stableAfter} ms`,
      '',
    ].join('\n'),
  );
  line('server', 'up');
  // The server's lane of the chart: up and down, as they happen.
  const serverLane: LaneChange[] = [{ at: elapsed(), state: 'open' }];

  const clients = Array.from(
    { length: options.clients },
    (_, i) => new DemoClient(String.fromCharCode(65 + i), url, s, line, elapsed),
  );
  const timers: ReturnType<typeof setTimeout>[] = [];
  const at = (ms: number, task: () => unknown) => timers.push(setTimeout(task, Math.max(0, ms - elapsed())));

  const sender = setInterval(() => {
    for (const client of clients) client.sendNext();
  }, s.sendEvery);

  let interrupted = false;
  let removeInterrupt = () => {};
  const finished = new Promise<void>((resolve) => {
    s.crashes.forEach((crashAt, i) => {
      at(crashAt, async () => {
        serverLane.push({ at: elapsed(), state: 'closed' });
        const cut = await crash();
        line('server', `crashed (${cut} connection${cut === 1 ? '' : 's'} cut, listener closed)`);
      });
      const restartAt = s.restarts[i];
      if (restartAt !== undefined) {
        at(restartAt, async () => {
          await server.start();
          serverLane.push({ at: elapsed(), state: 'open' });
          line('server', 'back up');
        });
      }
    });
    at(s.end, resolve);
    removeInterrupt = io.onInterrupt(() => {
      interrupted = true;
      resolve();
    });
  });
  await finished;
  removeInterrupt();
  // The chart covers the run up to here (not the closing below).
  const chartEnd = elapsed();

  for (const timer of timers) clearTimeout(timer);
  clearInterval(sender);
  // Give the last echoes a moment to come back before closing.
  if (!interrupted) await new Promise((resolve) => setTimeout(resolve, 200));
  await Promise.all(clients.map((client) => client.close()));
  await server.stop();
  line('demo', interrupted ? 'interrupted: clients closed, server stopped' : 'done: clients closed, server stopped');

  const reports = clients.map((client) => client.report());
  const lanes = [{ name: 'server', changes: serverLane }, ...clients.map((client) => client.lane)];
  io.stdout.write(`\n${laneChart(lanes, LANE_STEP, chartEnd)}\n\n${summary(reports)}\n`);
  return { code: interrupted ? ExitCode.Interrupted : ExitCode.Ok, reports };
}

/** One demo client: a ResilientSocket that sends a numbered message on every tick and counts echoes. */
class DemoClient {
  readonly socket: ResilientSocket;
  /** Every state change, for the lane chart. */
  readonly lane: { readonly name: string; readonly changes: LaneChange[] };
  readonly #name: string;
  readonly #line: (who: string, text: string) => void;
  #sent = 0;
  #buffered = 0;
  #waiting = 0;
  #flushed = 0;
  #echoed = 0;
  #dropped = 0;
  #window = 0;
  #wasOpen = false;

  constructor(
    name: string,
    url: string,
    s: DemoSchedule,
    line: (who: string, text: string) => void,
    elapsed: () => number,
  ) {
    this.#name = name;
    this.#line = line;
    const policy = truncatedBinaryExponential({ maxDelay: s.maxDelay, ceiling: s.ceiling });
    // The same policy, observed: after each draw, remember the window it was drawn from.
    const backoff: BackoffPolicyLike = {
      next: () => {
        const delay = policy.next();
        this.#window = truncatedWindow(s.maxDelay, s.ceiling, policy.attempt);
        return delay;
      },
      reset: () => policy.reset(),
    };
    this.socket = new ResilientSocket(url, { backoff, stableAfter: s.stableAfter });
    this.lane = { name, changes: [{ at: elapsed(), state: this.socket.state }] };
    this.socket.on('state', ({ current }) => this.lane.changes.push({ at: elapsed(), state: current }));
    this.#watch();
  }

  #watch(): void {
    const socket = this.socket;
    const say = (text: string) => this.#line(this.#name, text);
    socket.on('open', ({ attempt, reconnected }) => {
      this.#wasOpen = true;
      const flushed = this.#waiting;
      this.#flushed += flushed;
      this.#waiting = 0;
      const what = reconnected ? `reconnected on attempt ${attempt}` : `connected on attempt ${attempt}`;
      say(flushed > 0 ? `${what}; flushed ${flushed} buffered message${flushed === 1 ? '' : 's'} in order` : what);
    });
    socket.on('close', ({ code, willReconnect }) => {
      if (this.#wasOpen && willReconnect) say(`connection lost (${code})`);
      this.#wasOpen = false;
    });
    socket.on('reconnecting', ({ attempt, delay }) =>
      say(`retry ${attempt}: window [0, ${format(this.#window)}) ms, drew ${format(delay)} ms`),
    );
    socket.on('stable', () => say(`stable for ${socket.stats.uptime} ms: backoff reset`));
    socket.on('message', () => {
      this.#echoed += 1;
    });
    socket.on('drop', ({ messages, reason }) => {
      this.#dropped += messages.length;
      say(`dropped ${messages.length} (${reason})`);
    });
    socket.on('error', () => undefined); // every failure shows up as close/reconnecting above
  }

  sendNext(): void {
    this.#sent += 1;
    const result = this.socket.send(`${this.#name}-${this.#sent}`);
    if (result === 'buffered') {
      this.#buffered += 1;
      this.#waiting += 1;
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.state === 'closed') return resolve();
      this.socket.on('state', ({ current }) => {
        if (current === 'closed') resolve();
      });
      this.socket.close();
    });
  }

  report(): ClientReport {
    return {
      name: this.#name,
      attempts: this.socket.stats.attempts,
      connects: this.socket.stats.connects,
      sent: this.#sent,
      buffered: this.#buffered,
      flushed: this.#flushed,
      echoed: this.#echoed,
      dropped: this.#dropped,
    };
  }
}

function summary(reports: readonly ClientReport[]): string {
  const header = ['client', 'attempts', 'connects', 'sent', 'buffered', 'flushed', 'echoed', 'dropped', 'lost'];
  const rows = reports.map((r) => [
    r.name,
    r.attempts,
    r.connects,
    r.sent,
    r.buffered,
    r.flushed,
    r.echoed,
    r.dropped,
    // Sent into a connection that was already dead, before the client could notice (see docs).
    r.sent - r.echoed - r.dropped,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const render = (cells: readonly (string | number)[]) =>
    `  ${cells.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i] ?? 0) : String(cell).padStart(widths[i] ?? 0))).join('  ')}`;
  return [
    'summary:',
    render(header),
    ...rows.map(render),
    '  lost = sent − echoed − dropped: messages written into a connection that had already died unnoticed',
  ].join('\n');
}

function format(ms: number): string {
  return Number.isInteger(ms) ? String(ms) : ms.toFixed(1);
}

function sec(ms: number): string {
  return `${(ms / 1_000).toFixed(1)} s`;
}
