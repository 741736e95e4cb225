import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { ECHO, TestWsServer } from '../faults/index.js';
import { Cleanup, waitFor } from '../helpers/wait.js';

// The `resilient-socket` bin as a real process, from source: `node --import tsx src/cli/bin.ts`
// (no build needed). Exit codes must reach the shell, and the process must exit by itself: bin.ts
// has an unref'd 1 s fallback that calls process.exit(), so "by itself" means well within 1 s of
// the session's last line.
const BY_ITSELF = 900;

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

interface Bin {
  readonly child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  /** `performance.now()` when the session's last line ("…; exit code N") reached us, if it did. */
  readonly exitLineAt: number | undefined;
  /** `performance.now()` when the last stdout chunk arrived. */
  readonly lastStdoutAt: number;
  /** Resolves once `text` appeared on stdout or stderr, bounded. */
  waitFor(text: string, within: number): Promise<void>;
  /** Resolves with the exit code (null if killed) and the time of exit; SIGKILLs the child at `within`. */
  exit(within: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

function bin(args: readonly string[], stdin: 'pipe' | 'ignore' = 'ignore'): Bin {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args], {
    stdio: [stdin, 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let exitLineAt: number | undefined;
  let lastStdoutAt = Number.NaN;
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    lastStdoutAt = performance.now();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    if (exitLineAt === undefined && /; exit code \d+\n/.test(stderr)) exitLineAt = performance.now();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() }));
  });
  cleanup.add(child, (c) => {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    get exitLineAt() {
      return exitLineAt;
    },
    get lastStdoutAt() {
      return lastStdoutAt;
    },
    async waitFor(text, within) {
      await waitFor(() => stdout.includes(text) || stderr.includes(text), within, JSON.stringify(text), {
        interval: 20,
        describe: () => ({ stdout, stderr }),
      });
    },
    async exit(within) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`the process did not exit within ${within} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
        }, within);
      });
      return Promise.race([exited, deadline]).finally(() => clearTimeout(timer));
    },
  };
}

/** The rows of the demo's summary table, by client name. */
function parseSummary(stdout: string): Map<string, Record<string, number>> {
  const lines = stdout.split('\n');
  const start = lines.indexOf('summary:');
  expect(start, 'a "summary:" line').toBeGreaterThanOrEqual(0);
  const header = lines[start + 1]?.trim().split(/\s+/) ?? [];
  expect(header).toEqual([
    'client',
    'attempts',
    'connects',
    'sent',
    'buffered',
    'flushed',
    'echoed',
    'dropped',
    'lost',
  ]);
  const rows = new Map<string, Record<string, number>>();
  for (const line of lines.slice(start + 2)) {
    const cells = line.trim().split(/\s+/);
    if (!/^[A-H]$/.test(cells[0] ?? '')) break;
    rows.set(cells[0] as string, Object.fromEntries(header.slice(1).map((name, i) => [name, Number(cells[i + 1])])));
  }
  return rows;
}

async function deadPort(): Promise<number> {
  const server = await TestWsServer.start();
  await server.stop();
  return server.port;
}

describe('the bin as a process', () => {
  it('--send hi against an echo server: prints the echo, exits 0 by itself', async () => {
    const server = cleanup.add(await TestWsServer.start(ECHO), (s) => s.stop());
    const run = bin([server.url, '--send', 'hi']);
    const { code, signal, at } = await run.exit(10_000);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(run.stdout).toBe('hi\n');
    expect(server.received).toEqual(['hi']);
    expect(run.stderr).toContain('input ended; exit code 0');
    expect(at - (run.exitLineAt ?? Number.NaN), 'last line → exit').toBeLessThan(BY_ITSELF);
  });

  it('piped stdin: every line is sent, the process exits 0 once stdin ends', async () => {
    const server = cleanup.add(await TestWsServer.start(ECHO), (s) => s.stop());
    const run = bin([server.url], 'pipe');
    await run.waitFor('* connected', 10_000);
    run.child.stdin?.end('one\ntwo\n');
    const ended = performance.now();
    const { code, at } = await run.exit(5_000);
    expect(code).toBe(0);
    expect(server.received).toEqual(['one', 'two']);
    expect(run.stdout).toBe('one\ntwo\n');
    expect(at - ended, 'stdin end → exit').toBeLessThan(BY_ITSELF);
  });

  it('exit code 2 for a bad command line reaches the shell', async () => {
    const run = bin(['http://127.0.0.1:9/']);
    const { code } = await run.exit(10_000);
    expect(code).toBe(2);
    expect(run.stderr).toContain('Expected a ws:// or wss:// URL');
  });

  it.each([
    ['a URL that is not ws(s)://', 'http', 2],
    ['connection refused, --max-retries 0', 'ws', 1],
  ] as const)('a URL with a password and a token (%s): neither reaches the terminal', async (_name, scheme, exit) => {
    const port = await deadPort();
    const run = bin([`${scheme}://user:S3CR3T@127.0.0.1:${port}/x?token=T0K3N`, '--max-retries', '0']);
    const { code } = await run.exit(10_000);
    expect(code).toBe(exit);
    expect(run.stdout + run.stderr).not.toMatch(/S3CR3T|T0K3N/);
    expect(run.stderr).toContain(`${scheme}://***@127.0.0.1:${port}/x?token=***`);
  });

  it.each(['ignore', 'pipe'] as const)(
    'SIGINT while reconnecting to a dead port (stdin %s): exit 130 within 2 s',
    async (stdin) => {
      const port = await deadPort();
      const run = bin([`ws://127.0.0.1:${port}/`, '--strategy', 'constant', '--base-delay', '200'], stdin);
      await run.waitFor('* attempt 2 in 200 ms', 10_000);
      const sent = performance.now();
      run.child.kill('SIGINT');
      const { code, signal, at } = await run.exit(5_000);
      expect({ code, signal }).toEqual({ code: 130, signal: null });
      expect(at - sent, 'SIGINT → exit').toBeLessThan(2_000);
      expect(run.stderr).toContain('interrupted; exit code 130');
      expect(at - (run.exitLineAt ?? Number.NaN), 'last line → exit').toBeLessThan(BY_ITSELF);
    },
  );

  it('--demo: the whole run, exit 0, every client back three times with nothing dropped', {
    timeout: 30_000,
  }, async () => {
    const run = bin(['--demo']);
    const { code, at } = await run.exit(25_000);
    const out = run.stdout;
    expect(code).toBe(0);
    expect(at - run.lastStdoutAt, 'summary → exit').toBeLessThan(BY_ITSELF);
    expect(out).toMatch(/^resilient-socket demo: 3 clients and an echo server on ws:\/\/127\.0\.0\.1:\d+\//);
    expect(out).toContain('the server crashes at 2.0 s and 7.0 s and comes back at 5.0 s and 8.0 s');
    expect(out.match(/server crashed \(\d+ connections? cut, listener closed\)/g)).toHaveLength(2);
    expect(out.match(/server back up/g)).toHaveLength(2);
    expect(out).toMatch(/reconnected on attempt \d+/);
    expect(out).toMatch(/flushed \d+ buffered messages? in order/);
    expect(out).toContain('done: clients closed, server stopped');
    expect(out).toContain('timeline, one column per 200 ms:');
    expect(out).toMatch(/^ {2}server {2}[█ ]+$/m);
    for (const name of ['A', 'B', 'C']) expect(out).toMatch(new RegExp(`^  ${name} {7}[█○·▁ ]+$`, 'm'));
    const rows = parseSummary(out);
    expect([...rows.keys()]).toEqual(['A', 'B', 'C']);
    for (const [name, r] of rows) {
      expect(r.connects, `${name} connects`).toBe(3);
      expect(r.dropped, `${name} dropped`).toBe(0);
      expect(r.lost, `${name} lost`).toBeGreaterThanOrEqual(0);
      expect((r.echoed ?? 0) + (r.lost ?? 0), `${name} echoed + lost`).toBe(r.sent);
      expect(r.buffered, `${name} buffered`).toBe(r.flushed);
      expect(r.buffered, `${name} buffered`).toBeGreaterThan(0);
    }
    expect(run.stderr).toBe('');
  });

  it('--demo interrupted by SIGINT after the first crash: exit 130, summary still printed', async () => {
    const run = bin(['--demo', '--clients', '2']);
    await run.waitFor('server crashed', 10_000);
    const sent = performance.now();
    run.child.kill('SIGINT');
    const { code, signal, at } = await run.exit(5_000);
    expect({ code, signal }).toEqual({ code: 130, signal: null });
    expect(at - sent, 'SIGINT → exit').toBeLessThan(2_000);
    expect(at - run.lastStdoutAt, 'summary → exit').toBeLessThan(BY_ITSELF);
    expect(run.stdout).toContain('interrupted: clients closed, server stopped');
    expect(run.stdout).toContain('timeline, one column per 200 ms:');
    const rows = parseSummary(run.stdout);
    expect([...rows.keys()]).toEqual(['A', 'B']);
    for (const r of rows.values()) expect(r.connects).toBe(1);
  });
});
