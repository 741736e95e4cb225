/**
 * What Redis says about the work it did and the memory it holds, for the cluster benchmark.
 *
 * `INFO commandstats` counts every command Redis ran, those a script runs with `redis.call` too.
 * So a command is a round trip when it is not one the store's scripts call (read from their
 * source, src/server/redis-scripts.ts); `PUBLISH` counts as a script's, as the scripts publish
 * and a process publishes on its own only to probe its channel after its subscription failed.
 * `INFO` is the benchmark's own and is left out. Redis's CPU time comes from `INFO cpu` (user and
 * system, the whole process: the benchmark's own `INFO` and Redis's timers are in it, a little).
 */
import * as lua from '../../src/server/redis-scripts.js';

/** Something to send Redis commands with (node-redis's client). */
export interface Commander {
  sendCommand(args: string[]): Promise<unknown>;
}

/**
 * Calls per command (`evalsha`, `client|setinfo`, …), failed ones included (an `EVALSHA` Redis
 * answers `NOSCRIPT` is one), and those that failed under `failed <command>`.
 */
export type Calls = Map<string, number>;

const FAILED = 'failed ';

/** The commands the store's scripts call. */
const IN_SCRIPTS: ReadonlySet<string> = new Set(
  Object.values(lua).flatMap((source) =>
    [...source.matchAll(/redis\.call\('([A-Za-z]+)'/g)].map((m) => (m[1] as string).toLowerCase()),
  ),
);

/** What Redis did so far: its calls per command, and its CPU time (user and system, in µs). */
export interface Reading {
  readonly calls: Calls;
  readonly cpu: number;
}

export async function read(redis: Commander): Promise<Reading> {
  const text = String(await redis.sendCommand(['INFO', 'commandstats']));
  const calls: Calls = new Map();
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+).*failed_calls=(\d+)/gm)) {
    calls.set(m[1] as string, Number(m[2]));
    if (m[3] !== '0') calls.set(`${FAILED}${m[1]}`, Number(m[3]));
  }
  const cpu = String(await redis.sendCommand(['INFO', 'cpu']));
  const seconds = (field: string) => Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(cpu)?.[1]);
  return { calls, cpu: (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6 };
}

/** Calls and Redis CPU time added up over several measured batches, and the messages (or hellos) they carried. */
export class Tally {
  readonly calls: Calls = new Map();
  cpu = 0;
  units = 0;

  /** Adds what Redis did between two readings, for `units` messages (without the benchmark's `INFO`). */
  between(before: Reading, after: Reading, units: number): void {
    for (const [command, n] of after.calls) {
      const d = n - (before.calls.get(command) ?? 0);
      if (d > 0 && command !== 'info' && command !== `${FAILED}info`) {
        this.calls.set(command, (this.calls.get(command) ?? 0) + d);
      }
    }
    this.cpu += after.cpu - before.cpu;
    this.units += units;
  }

  /** Reads Redis around `batch` (which carries `units` messages), and adds what it did. */
  async around<T>(redis: Commander, units: number, batch: () => Promise<T>): Promise<T> {
    const before = await read(redis);
    const result = await batch();
    this.between(before, await read(redis), units);
    return result;
  }

  /** Redis's CPU time per unit, in µs. */
  get cpuPerUnit(): number {
    return this.cpu / this.units;
  }

  /** Round trips per unit: the calls of commands the scripts do not call. */
  get roundTrips(): number {
    return this.#sum(false) / this.units;
  }

  /** Commands run inside the scripts, per unit. */
  get inScripts(): number {
    return this.#sum(true) / this.units;
  }

  /**
   * "evalsha 1.00, zscore 1.00": the round trips per unit, by command (or, `inside`, the commands
   * run inside scripts), with the failed share of a command that failed.
   */
  breakdown(inside = false): string {
    const per = (n: number) => (n / this.units < 0.005 ? '< 0.01' : (n / this.units).toFixed(2));
    return [...this.calls]
      .filter(([command]) => !command.startsWith(FAILED) && IN_SCRIPTS.has(command) === inside)
      .sort((a, b) => b[1] - a[1])
      .map(([command, n]) => {
        const failed = this.calls.get(`${FAILED}${command}`);
        return `${command} ${per(n)}${failed === undefined ? '' : ` (${per(failed)} failed)`}`;
      })
      .join(', ');
  }

  #sum(inside: boolean): number {
    let sum = 0;
    for (const [command, n] of this.calls) {
      if (!command.startsWith(FAILED) && IN_SCRIPTS.has(command) === inside) sum += n;
    }
    return sum;
  }
}

/** `INFO memory`'s `used_memory`, in bytes. */
export async function usedMemory(redis: Commander): Promise<number> {
  const text = String(await redis.sendCommand(['INFO', 'memory']));
  return Number(/^used_memory:(\d+)/m.exec(text)?.[1]);
}

/** The keys matching `pattern` (`SCAN`), with each one's `MEMORY USAGE` in bytes. */
export async function keyMemory(redis: Commander, pattern: string): Promise<Map<string, number>> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = (await redis.sendCommand(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000'])) as [
      string,
      string[],
    ];
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  const sizes = await Promise.all(keys.map((key) => redis.sendCommand(['MEMORY', 'USAGE', key, 'SAMPLES', '0'])));
  return new Map(keys.map((key, i) => [key, Number(sizes[i])]));
}
