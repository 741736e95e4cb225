/** Small pieces shared by the examples' command-line entry points. */
import { createInterface } from 'node:readline';

/** A port from the environment variable `name`, or `fallback`. */
export function portFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  const port = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new RangeError(`${name} must be a port, got ${raw}`);
  return port;
}

/** A log line prefixed with the wall-clock time. */
export function log(line: string): void {
  console.log(`${new Date().toISOString().slice(11, 23)}  ${line}`);
}

/**
 * Runs `actions[key]` for every key + Enter typed on stdin; `q` + Enter, Ctrl-C and SIGTERM run
 * `stop` and exit.
 */
export function onKeys(actions: Record<string, () => Promise<void>>, help: string, stop: () => Promise<void>): void {
  let stopping = false;
  const input = createInterface({ input: process.stdin });
  const quit = async () => {
    if (stopping) return;
    stopping = true;
    input.close();
    await stop();
    process.exit(0);
  };
  input.on('line', (line) => {
    const key = line.trim().toLowerCase();
    if (key === 'q') return void quit();
    const action = actions[key];
    if (action) action().catch((error: unknown) => console.error(error));
    else if (key) console.log(help);
  });
  process.once('SIGINT', () => void quit());
  process.once('SIGTERM', () => void quit());
}
