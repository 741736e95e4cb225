/**
 * The packed package on every runtime it claims, as a user installs it: the tarball `npm pack`
 * makes, installed into two fresh apps, one with `ws` and one without, and run by Node 20 (the
 * one running these tests), Node 22, 24 and 26, Bun and Deno (`scripts/runtimes.mjs`; install them
 * with `node scripts/runtimes.mjs install`). Each run executes test/runtimes/smoke-app.mjs against
 * the servers hosted here (test/runtimes/servers.ts): reconnect with the queue flushed in order,
 * close codes, the default heartbeat against a silent server, a configured one, binary data, the
 * drop-in, acknowledged delivery and the test kit; then the process must end by itself.
 *
 * What differs by installation is expected, not tolerated: where a WebSocket that can ping is
 * loaded (ws installed, or Bun, whose ws is built in) the default heartbeat must find the silent
 * server dead; where none is, it must not (it cannot watch) and must say so once.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../examples/lib/ensure-build.js';
// @ts-expect-error: a plain ESM script, without types
import { binaryOf, commandFor, RUNTIMES, versionOf } from '../../scripts/runtimes.mjs';
import { type SmokeServers, startSmokeServers } from './servers.js';

interface Runtime {
  readonly name: string;
  readonly kind: 'node' | 'bun' | 'deno';
}
interface CheckLine {
  check?: string;
  ok?: boolean;
  detail?: unknown;
  done?: boolean;
}

const REPO = join(import.meta.dirname, '..', '..');
const APP = join(import.meta.dirname, 'smoke-app.mjs');
const wsVersion = (createRequire(import.meta.url)('ws/package.json') as { version: string }).version;

let work: string;
let servers: SmokeServers;
const apps: Record<'with ws' | 'without ws', string> = { 'with ws': '', 'without ws': '' };

beforeAll(async () => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'rs-runtimes-'));
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
      cwd: REPO,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as { filename: string }[];
  const tarball = join(work, packed[0]?.filename as string);
  for (const [variant, withWs] of [
    ['with ws', true],
    ['without ws', false],
  ] as const) {
    const dir = join(work, variant.replace(' ', '-'));
    mkdirSync(dir);
    const dependencies: Record<string, string> = { 'resilient-socket': `file:${tarball}` };
    if (withWs) dependencies.ws = wsVersion;
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'smoke-app', private: true, type: 'module', dependencies }),
    );
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock'], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    copyFileSync(APP, join(dir, 'smoke-app.mjs'));
    apps[variant] = dir;
  }
  servers = await startSmokeServers();
}, 240_000);

afterAll(async () => {
  await servers?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Run {
  lines: CheckLine[];
  code: number | null;
  stderr: string;
  /** ms between the app's last line and its exit; undefined when it had to be killed. */
  exitAfterDone: number | undefined;
}

/** Runs the app of `dir` with `command`, killed after 90 s. */
function runApp(command: string[], env: Record<string, string>, dir: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command[0] as string, command.slice(1), {
      cwd: dir,
      env: { ...process.env, NODE_ENV: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let doneAt: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      if (doneAt === undefined && stdout.includes('"done":true')) doneAt = Date.now();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const deadline = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('exit', (code, signal) => {
      clearTimeout(deadline);
      const lines = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as CheckLine);
      const exitAfterDone = signal === null && doneAt !== undefined ? Date.now() - doneAt : undefined;
      resolve({ lines, code, stderr, exitAfterDone });
    });
  });
}

const NODE_20: Runtime & { command: (script: string) => { command: string[]; env: Record<string, string> } } = {
  name: `node${process.versions.node.split('.')[0]} (the one running the tests)`,
  kind: 'node',
  command: (script) => ({ command: [process.execPath, script], env: {} }),
};
const OTHERS = (RUNTIMES as Runtime[]).map((runtime) => ({
  ...runtime,
  command: (script: string) => commandFor(runtime, script) as { command: string[]; env: Record<string, string> },
}));

describe.each([NODE_20, ...OTHERS])('$name', (runtime) => {
  it.each(['with ws', 'without ws'] as const)(
    '%s: every check passes and the process ends by itself',
    async (variant) => {
      if (runtime !== NODE_20) {
        expect(
          versionOf(runtime),
          `${binaryOf(runtime)} is not installed: node scripts/runtimes.mjs install ${runtime.name}`,
        ).toBeDefined();
      }
      const withWs = variant === 'with ws';
      const pings = withWs || runtime.kind === 'bun';
      // Node 20 has no global WebSocket: without ws it has none at all.
      const none = !withWs && runtime === NODE_20 && Number(process.versions.node.split('.')[0]) < 22;
      const dir = apps[variant];
      const { command, env } = runtime.command(join(dir, 'smoke-app.mjs'));
      const smoke = JSON.stringify({ ...servers.urls, pings, none, testWsServer: pings });
      const run = await runApp(command, { ...env, RS_SMOKE: smoke }, dir);
      const checks = run.lines.filter((line) => line.check !== undefined);
      const failures = checks.filter((line) => !line.ok).map((line) => `${line.check}: ${String(line.detail)}`);
      expect(failures, run.stderr).toEqual([]);
      expect(checks.length, `checks run (stderr: ${run.stderr})`).toBe(none ? 1 : pings ? 11 : 10);
      expect(run.lines.at(-1)?.done, 'the app finished').toBe(true);
      expect(run.exitAfterDone, 'the process ended by itself after close()').toBeLessThan(5_000);
      expect(run.code).toBe(0);
    },
    120_000,
  );
});
