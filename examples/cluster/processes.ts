/**
 * The cluster example's processes, each on 127.0.0.1 and a free port: `redis-server` (nothing kept
 * on disk, in a temporary directory), the server processes (`./server.mjs`, killed with SIGKILL and
 * started again at will) and HAProxy in front of them (`./haproxy.cfg`). Every process started here
 * is stopped when the example ends, and killed if the example exits any other way.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('./server.mjs', import.meta.url));
const HAPROXY_CONFIG = fileURLToPath(new URL('./haproxy.cfg', import.meta.url));

/** The command that installs what the example needs (Debian, Ubuntu). */
export const INSTALL = 'sudo apt-get install redis-server haproxy';

/** The programs the example needs that are not on the PATH. */
export function missingTools(): string[] {
  return ['redis-server', 'haproxy'].filter((tool) => spawnSync(tool, ['-v'], { stdio: 'ignore' }).error !== undefined);
}

// Whatever ends this process (an exception, process.exit()), the processes it started end too.
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts `command` and follows it until it exits. */
function start(command: string, args: string[], env: Record<string, string> = {}, cwd?: string): ChildProcess {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(cwd === undefined ? {} : { cwd }),
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.once('error', () => running.delete(child));
  return child;
}

/** Ends `child` with `signal` (SIGKILL after 2 s if it lingers), and waits until it has. */
export async function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
  await exited;
  clearTimeout(timer);
}

/**
 * A port free now (listened on, then closed), below the kernel's range for outgoing connections
 * (`ip_local_port_range`, 32768 and up on Linux): a server started again on it after a kill must
 * not find it taken by some client connection's local port meanwhile.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await listenable(port)) return port;
  }
  throw new Error('no free port below 32000');
}

/** Whether `port` can be listened on now on 127.0.0.1. */
function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** Whether `port` accepts a connection; with `send`, whether the first answer starts with `expect`. */
function answers(port: number, send?: string, expect = ''): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => (send === undefined ? done(true) : socket.write(send)));
    socket.once('data', (data) => done(String(data).startsWith(expect)));
  });
}

/** Waits (at most 5 s) until `ok()`, or fails with what `child` wrote on stderr. */
async function until(what: string, child: ChildProcess, ok: () => Promise<boolean>): Promise<void> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk).slice(-2_000);
  });
  const deadline = performance.now() + 5_000;
  while (!(await ok())) {
    if (child.exitCode !== null || performance.now() > deadline) {
      await stopProcess(child, 'SIGKILL');
      throw new Error(`${what} did not start:\n${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** `redis-server` on `port`, working in `dir`, keeping nothing on disk; resolves once it answers PING. */
export async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = start('redis-server', [...args, '--dir', dir, '--daemonize', 'no', '--loglevel', 'warning'], {}, dir);
  await until('redis-server', child, () => answers(port, '*1\r\n$4\r\nPING\r\n', '+PONG'));
  return child;
}

/** HAProxy on `front`, in front of the processes on `ports`; resolves once it accepts connections. */
export async function startHaproxy(front: number, ports: readonly number[]): Promise<ChildProcess> {
  const env: Record<string, string> = { FRONT_PORT: String(front) };
  ports.forEach((port, i) => {
    env[`SERVER_${i + 1}_PORT`] = String(port);
  });
  // -db: in the foreground, stopped with this example.
  const child = start('haproxy', ['-db', '-f', HAPROXY_CONFIG], env);
  await until('haproxy', child, () => answers(front));
  child.stderr?.resume(); // its notices (a server DOWN, UP again) are not shown
  return child;
}

/** One run of a server process: from a start to its end. */
export interface Run {
  /** Which process (1, 2, 3) and which of its runs (1 for the first start). */
  readonly process: number;
  readonly n: number;
  readonly pid: number;
  /** Killed with SIGKILL (rather than stopped at the end). */
  killed: boolean;
}

/** What a server process says on stdout (see `./server.mjs`). */
export type Said =
  | { t: 'ready' }
  | { t: 'handled'; client: number; order: number; at: number }
  | { t: 'held'; sessions: number }
  | { t: 'receipt'; ok: boolean; code?: string }
  | { t: 'error'; code: string; message: string };

/** One of the server processes, on its own port: killed and started again at will. */
export class ServerProcess {
  #child: ChildProcess | undefined;
  state: 'starting' | 'up' | 'killed' | 'stopped' = 'stopped';
  /** Its runs, the current one last. */
  readonly runs: Run[] = [];
  /** Sessions the current run holds (its clients). */
  sessions = 0;
  /** Orders it handled, all runs together. */
  handled = 0;
  /** What it wrote on stderr (nothing, when all goes well). */
  stderr = '';

  constructor(
    readonly index: number,
    readonly port: number,
    readonly env: Record<string, string>,
    /** Told every line a run says. */
    readonly heard: (said: Said, run: Run) => void,
  ) {}

  get pid(): number | undefined {
    return this.state === 'up' ? this.#child?.pid : undefined;
  }

  /** Starts a new run; resolves once it serves (at most 10 s). */
  async start(): Promise<void> {
    const child = start(process.execPath, [SERVER], { ...this.env, PORT: String(this.port) });
    this.#child = child;
    this.state = 'starting';
    this.sessions = 0;
    const run: Run = { process: this.index, n: this.runs.length + 1, pid: child.pid ?? 0, killed: false };
    this.runs.push(run);
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk;
    });
    const ready = new Promise<void>((resolve, reject) => {
      child.once('exit', (code, signal) => reject(new Error(`process ${this.index} ended (${code ?? signal})`)));
      const timer = setTimeout(() => reject(new Error(`process ${this.index} not ready in 10 s`)), 10_000);
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
        let said: Said;
        try {
          said = JSON.parse(text) as Said;
        } catch {
          return; // the last line of a killed process may be cut short
        }
        if (said.t === 'ready') {
          clearTimeout(timer);
          if (this.#child === child) this.state = 'up';
          resolve();
        } else if (said.t === 'held' && this.#child === child) this.sessions = said.sessions;
        else if (said.t === 'handled') this.handled++;
        this.heard(said, run);
      });
    });
    try {
      await ready;
    } catch (error) {
      await stopProcess(child, 'SIGKILL');
      throw new Error(`${(error as Error).message}${this.stderr ? `:\n${this.stderr.trim()}` : ''}`);
    }
  }

  /** Kills the current run with SIGKILL (no cleanup of any kind), and waits until it is gone. */
  async kill(): Promise<void> {
    const run = this.runs.at(-1);
    if (this.state !== 'up' || run === undefined) return;
    this.state = 'killed';
    this.sessions = 0;
    run.killed = true;
    await stopProcess(this.#child, 'SIGKILL');
  }

  /** Stops the current run (SIGTERM: it closes its server and exits). */
  async stop(): Promise<void> {
    if (this.state === 'up') this.state = 'stopped';
    await stopProcess(this.#child);
  }
}
