/**
 * The process around the CLI, faked for in-process tests of `main(argv, io)`: PassThrough stdio
 * whose output is collected as text, an `isTTY` of your choice on stdin and on stdout, and Ctrl-C
 * as a method.
 */
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/session.js';
import { loadWs } from '../../src/transports/ws/load-ws.js';
import { waitFor } from './wait.js';

export interface FakeProcess {
  readonly io: CliIO;
  readonly stdin: PassThrough & { isTTY?: boolean };
  /** Everything written to stdout / stderr so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Non-empty stdout lines. */
  stdoutLines(): string[];
  /** Ctrl-C: calls every handler registered through `io.onInterrupt` (and still registered). */
  interrupt(): void;
  /** Handlers registered through `io.onInterrupt` and not removed. */
  readonly interruptHandlers: number;
  /** Event names with listeners on stdin that were not there before the run. */
  stdinLeftovers(): (string | symbol)[];
  /** Resolves once `text` has appeared on stderr (or stdout with `from: 'stdout'`), bounded. */
  waitForOutput(text: string | RegExp, within?: number, from?: 'stdout' | 'stderr'): Promise<void>;
}

export interface FakeProcessOptions {
  /** `stdin.isTTY`. @default false */
  readonly tty?: boolean;
  /** `stdout.isTTY`: received messages are written for a terminal (controls made visible). @default false */
  readonly stdoutTty?: boolean;
  /** Replaces `io.loadWs` (e.g. `() => undefined`: ws not installed). */
  readonly loadWs?: CliIO['loadWs'];
}

export function fakeProcess(options: FakeProcessOptions = {}): FakeProcess {
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdin.isTTY = options.tty ?? false;
  const stdout = new PassThrough() as PassThrough & { isTTY?: boolean };
  const stderr = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdout.isTTY = options.stdoutTty ?? false;
  stderr.isTTY = false;
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const baseline = new Set(stdin.eventNames());
  const handlers = new Set<() => void>();
  const io: CliIO = {
    stdin,
    stdout,
    stderr,
    onInterrupt(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    loadWs: options.loadWs ?? loadWs,
  };
  return {
    io,
    stdin,
    get stdout() {
      return out;
    },
    get stderr() {
      return err;
    },
    stdoutLines: () => out.split('\n').filter((line) => line !== ''),
    interrupt() {
      for (const handler of [...handlers]) handler();
    },
    get interruptHandlers() {
      return handlers.size;
    },
    stdinLeftovers: () => stdin.eventNames().filter((name) => !baseline.has(name) && stdin.listenerCount(name) > 0),
    async waitForOutput(text, within = 5_000, from = 'stderr') {
      const seen = () => (from === 'stdout' ? out : err);
      const found = () => (typeof text === 'string' ? seen().includes(text) : text.test(seen()));
      await waitFor(found, within, `${String(text)} on ${from}`, { describe: () => ({ stdout: out, stderr: err }) });
    },
  };
}

/** A CLI run in progress: `main(argv, proc.io)` started, with a bounded way to await its exit code. */
export interface CliRun {
  readonly proc: FakeProcess;
  /** Whether `main()` has settled. */
  readonly ended: boolean;
  /** Resolves with the exit code; rejects (with the output so far) if the run takes longer than `within`. */
  exit(within?: number): Promise<number>;
}

export function startCli(argv: readonly string[], options: FakeProcessOptions = {}): CliRun {
  const proc = fakeProcess(options);
  let code: number | undefined;
  let failure: unknown;
  const running = main(argv, proc.io).then(
    (c) => {
      code = c;
    },
    (error: unknown) => {
      failure = error;
    },
  );
  return {
    proc,
    get ended() {
      return code !== undefined || failure !== undefined;
    },
    async exit(within = 5_000) {
      await waitFor(() => code !== undefined || failure !== undefined, within, `main(${JSON.stringify(argv)}) to end`, {
        describe: () => ({ stdout: proc.stdout, stderr: proc.stderr }),
      });
      await running;
      if (failure !== undefined) throw failure;
      return code as number;
    },
  };
}

/**
 * The control characters in `text` (C0 U+0000–U+001F, DEL, C1 U+0080–U+009F) other than those in
 * `allowed`, as `U+XXXX` so that a failure is readable: `expect(controlsIn(stderr, '\n')).toEqual([])`.
 */
export function controlsIn(text: string, allowed = ''): string[] {
  const found: string[] = [];
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const control = code <= 0x1f || (code >= 0x7f && code <= 0x9f);
    if (control && !allowed.includes(char)) found.push(`U+${code.toString(16).toUpperCase().padStart(4, '0')}`);
  }
  return found;
}
