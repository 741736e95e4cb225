import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** What a server process says it did (its `count` answer). */
export interface NodeCount {
  /** Messages its `message` listener handled. */
  readonly handled: number;
  /** Sessions whose first hello it handled (its `session` events). */
  readonly greeted: number;
  /** The ids of the sessions it holds. */
  readonly held: readonly string[];
  /** The codes of the errors its server told. */
  readonly errors: readonly string[];
}

/**
 * A `ReliableServer` in a child Node process (bench/lib/reliable-node.mjs): in memory, or on the
 * Redis at `redis` with `prefix`. Commands go on its stdin, answers come back on its stdout.
 */
export class ReliableNode {
  readonly #child: ChildProcess;
  readonly #waiting = new Map<number, (reply: Record<string, unknown>) => void>();
  #next = 0;
  #exited: Promise<number | null>;

  private constructor(
    child: ChildProcess,
    readonly port: number,
  ) {
    this.#child = child;
    this.#exited = new Promise((resolve) => {
      if (child.exitCode !== null) resolve(child.exitCode);
      else child.once('exit', (code) => resolve(code));
    });
  }

  /** Starts one and resolves once its server is ready (on Redis: hears its channel). */
  static start(redis?: { url: string; prefix: string }): Promise<ReliableNode> {
    const script = fileURLToPath(new URL('./reliable-node.mjs', import.meta.url));
    const args = redis === undefined ? [script] : [script, redis.url, redis.prefix];
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    return new Promise((resolve, reject) => {
      let node: ReliableNode | undefined;
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
        const reply = JSON.parse(line) as Record<string, unknown>;
        if (node === undefined) {
          node = new ReliableNode(child, reply.port as number);
          resolve(node);
        } else node.#answer(reply);
      });
      child.once('error', reject);
      child.once('exit', (code) => {
        if (node === undefined) reject(new Error(`a server process exited before it was ready (${code})`));
      });
    });
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  count(): Promise<NodeCount> {
    return this.#call({ op: 'count' }) as Promise<unknown> as Promise<NodeCount>;
  }

  /** `n` sends round-robin over `targets`, all at once: the time until all are acknowledged (ms, in the process). */
  async send(targets: readonly string[], n: number): Promise<number> {
    return (await this.#call({ op: 'send', targets, n })).ms as number;
  }

  /** `n` sends to `target`, one after the other: each one's time to its acknowledgement (ms, in the process). */
  async latency(target: string, n: number): Promise<number[]> {
    return (await this.#call({ op: 'latency', target, n })).samples as number[];
  }

  /** Closes its stdin and waits for it to exit (it closes everything, and must end by itself). */
  async stop(): Promise<void> {
    this.#child.stdin?.end();
    const code = await this.#exited;
    if (code !== 0) throw new Error(`a server process ended with code ${code}`);
  }

  #call(command: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.#next += 1;
    const id = this.#next;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, (reply) => {
        if (typeof reply.failed === 'string') reject(new Error(`${command.op} failed: ${reply.failed}`));
        else resolve(reply);
      });
      this.#child.stdin?.write(`${JSON.stringify({ ...command, id })}\n`);
    });
  }

  #answer(reply: Record<string, unknown>): void {
    const id = reply.id as number;
    const settle = this.#waiting.get(id);
    this.#waiting.delete(id);
    settle?.(reply);
  }
}
