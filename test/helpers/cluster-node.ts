/**
 * Server processes of a cluster for the tests: each a fresh Node process running a `ReliableServer`
 * on `redisStore()` over a ws server on a given port (127.0.0.1), killed with `SIGKILL` and started
 * again at will. The program (`PROGRAM`, bundled once with esbuild: `#src` is `src/`, `ws` and
 * `redis` stay external and load from the repository) tells on stdout, one JSON line each:
 * `{ t: 'ready' }`, `{ t: 'handled', s, data, at }` when a `message` listener runs, `{ t: 'acked', id }`
 * when a `send()` it made resolved, `{ t: 'failed', id, code }` when one rejected. It reads commands on
 * stdin, one JSON line each: `{ send: session, data, id }`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';

const PROGRAM = `
import { WebSocketServer } from 'ws';
import { createClient } from 'redis';
import { ReliableServer, redisStore } from '#src/server/index.ts';

const [port, url, prefix, sessionTtl, ackTimeout] = process.argv.slice(2);
const say = (line) => process.stdout.write(JSON.stringify(line) + '\\n');
const redis = createClient({ url });
redis.on('error', () => undefined);
await redis.connect();
const wss = new WebSocketServer({ host: '127.0.0.1', port: Number(port) });
await new Promise((resolve) => wss.once('listening', resolve));
const server = new ReliableServer(wss, {
  store: redisStore(redis, { prefix }),
  sessionTtl: Number(sessionTtl),
  ackTimeout: Number(ackTimeout),
});
server.on('error', (error) => say({ t: 'error', code: error.code, message: error.message }));
server.on('message', (data, session) => say({ t: 'handled', s: session.id, data, at: Date.now() }));
await server.ready;
say({ t: 'ready' });
let input = '';
process.stdin.on('data', (chunk) => {
  input += chunk;
  for (let at = input.indexOf('\\n'); at >= 0; at = input.indexOf('\\n')) {
    const line = input.slice(0, at);
    input = input.slice(at + 1);
    const command = JSON.parse(line);
    const sent = server.send(command.send, command.data);
    sent.stored.then(() => say({ t: 'stored', id: command.id }), () => undefined);
    sent.then(
      () => say({ t: 'acked', id: command.id }),
      (error) => say({ t: 'failed', id: command.id, code: error.code }),
    );
  }
});
`;

/** What a process said, with which run of it said it. */
export interface Line {
  readonly t: string;
  readonly run: number;
  readonly [key: string]: unknown;
}

let bundled: Promise<{ file: string; dir: string }> | undefined;

/** The program, bundled (once per test file). */
function program(): Promise<{ file: string; dir: string }> {
  bundled ??= (async () => {
    const cache = resolve('node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    const dir = mkdtempSync(join(cache, 'rs-cluster-node-'));
    const entry = join(dir, 'node.ts');
    writeFileSync(entry, PROGRAM);
    const file = join(dir, 'node.mjs');
    await build({
      entryPoints: [entry],
      outfile: file,
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
      external: ['ws', 'redis'],
      alias: { '#src': resolve('src') },
    });
    return { file, dir };
  })();
  return bundled;
}

/** Removes the bundled program (after the file's tests). */
export async function removeProgram(): Promise<void> {
  const made = await bundled;
  bundled = undefined;
  if (made) rmSync(made.dir, { recursive: true, force: true });
}

/** One server process of the cluster, on a fixed port, started again after each kill. */
export class ClusterNode {
  #child: ChildProcess | undefined;
  /** Runs so far: each start is a new one. */
  run = 0;
  /** Everything every run said, in order. */
  readonly lines: Line[] = [];
  /** When each run was killed (`Date.now()`), by run. */
  readonly killedAt = new Map<number, number>();

  constructor(
    readonly port: number,
    readonly redisUrl: string,
    readonly prefix: string,
    readonly options: { sessionTtl: number; ackTimeout: number } = { sessionTtl: 60_000, ackTimeout: 300 },
  ) {}

  get alive(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Starts a new run and waits until it is ready (at most 10 s). */
  async start(): Promise<void> {
    const { file } = await program();
    this.run += 1;
    const run = this.run;
    const child = spawn(
      process.execPath,
      [
        file,
        String(this.port),
        this.redisUrl,
        this.prefix,
        String(this.options.sessionTtl),
        String(this.options.ackTimeout),
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    this.#child = child;
    let ready: () => void = () => undefined;
    const isReady = new Promise<void>((resolve) => {
      ready = resolve;
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return;
      }
      this.lines.push({ ...line, run, t: String(line.t) });
      if (line.t === 'ready') ready();
    });
    child.stderr?.on('data', () => undefined);
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) =>
        reject(new Error(`cluster node on ${this.port} exited (${code}) before it was ready`)),
      ),
    );
    await Promise.race([
      isReady,
      exited,
      new Promise((_, reject) => setTimeout(() => reject(new Error('not ready in 10 s')), 10_000)),
    ]);
    exited.catch(() => undefined);
  }

  /** Kills the current run with SIGKILL (no cleanup of any kind), and waits for it to end. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (child === undefined || !this.alive) return;
    this.killedAt.set(this.run, Date.now());
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** Asks the current run to `send()` `data` to `session` (its lines say what became of it, by `id`). */
  send(session: string, data: unknown, id: string): void {
    this.#child?.stdin?.write(`${JSON.stringify({ send: session, data, id })}\n`);
  }

  /** Ends the current run politely (SIGTERM) — or with SIGKILL if it lingers. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (child === undefined || !this.alive) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(timer);
  }
}

/** HAProxy (Debian's `haproxy`) in front of `backends`, on `port`, in the foreground: its process. */
export function haproxyConfig(port: number, backends: readonly number[]): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 500ms',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout tunnel 1h',
    '  option redispatch',
    '  retries 3',
    'frontend front',
    `  bind 127.0.0.1:${port}`,
    '  default_backend servers',
    'backend servers',
    '  balance roundrobin',
    ...backends.map((b, i) => `  server s${i} 127.0.0.1:${b} check inter 100ms fall 1 rise 1`),
    '',
  ].join('\n');
}
