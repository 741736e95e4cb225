/**
 * A real `redis-server` (Debian's package; `.ci/run` installs it) of a test's own, on 127.0.0.1 and
 * a free port, with nothing kept on disk (`--save ''`, `--appendonly no`): started, stopped,
 * restarted on the same port (what it held is lost, as a Redis without persistence loses it), or
 * killed. No mock of Redis anywhere.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Socket } from 'node:net';
import { createClient } from 'redis';

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

/** Whether something answers `PING` on the port (a raw RESP exchange, no client library). */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.once('data', (data) => done(String(data).startsWith('+PONG')));
  });
}

export class RedisServer {
  #child: ChildProcess | undefined;
  stderr = '';

  private constructor(readonly port: number) {}

  /** A server on a free port, answering. */
  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort());
    await server.up();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it (again) on its port, and waits until it answers (at most 5 s). */
  async up(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk;
    });
    this.#child = child;
    for (let i = 0; i < 100; i++) {
      if (child.exitCode !== null) throw new Error(`redis-server exited at once: ${this.stderr}`);
      if (await pings(this.port)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`redis-server did not answer on ${this.port} within 5 s`);
  }

  /** Stops it (`SIGTERM`, or `SIGKILL`), and waits for the process to end. */
  async down(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  /** A node-redis client on it, connected (the caller closes it). */
  async client() {
    const client = createClient({ url: this.url });
    client.on('error', () => undefined); // a test that stops the server reads the failures elsewhere
    await client.connect();
    return client;
  }
}
