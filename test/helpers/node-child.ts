/**
 * Runs a TypeScript script in a fresh Node process, for tests that need a real process: one that
 * must exit by itself (no handle left open), or that uses `ws` at run time.
 *
 * The script is bundled with esbuild (`#src` is `src/`; `ws` stays external) and written inside the
 * repository (`node_modules/.cache/rs-child-*`, removed afterwards), so the Node entry point's
 * `createRequire(import.meta.url)('ws')` and an `import 'ws'` in the script both resolve to the
 * installed `ws`, exactly as they would for a user of the published package. (Bundling `ws`, which
 * is CommonJS, into ESM output fails at run time with "Dynamic require of "events" is not supported".)
 *
 * `withoutWs` runs it as an app where `ws` is not installed: the script is written outside the
 * repository and the child starts there, so the package's own search for ws (beside itself, then
 * from the working directory) finds nothing; the script's own `import … from 'ws'` (its server)
 * still loads the repository's ws, by absolute path.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';
/** Result of running a script in a child Node process with a deadline. */
export interface NodeChildResult {
  /** Exit code, or null when the child was killed at the deadline. */
  code: number | null;
  /** True when the child had to be killed because it outlived `deadlineMs`. */
  killed: boolean;
  /** Wall time until exit (or kill), in ms. */
  elapsedMs: number;
  stdout: string;
  stderr: string;
  /** `Date.now()` in the parent when the child exited (or was killed). */
  exitedAt: number;
}

/**
 * Bundles `source` (TypeScript; `#src` is `src/`, `ws` is external) and runs it in a fresh Node
 * process (with `execArgv`, e.g. `--experimental-websocket`), killed with SIGKILL if still alive
 * after `deadlineMs`.
 */
export async function runNodeChild(
  source: string,
  deadlineMs: number,
  {
    execArgv = [],
    withoutWs = false,
    env = {},
  }: { execArgv?: readonly string[]; withoutWs?: boolean; env?: Record<string, string> } = {},
): Promise<NodeChildResult> {
  const cache = withoutWs ? tmpdir() : resolve('node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'rs-child-'));
  try {
    const entry = join(dir, 'entry.ts');
    writeFileSync(entry, source);
    const out = join(dir, 'entry.mjs');
    await build({
      entryPoints: [entry],
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
      external: ['ws'],
      alias: { '#src': resolve('src') },
      plugins: withoutWs ? [wsByPath] : [],
    });
    return await new Promise<NodeChildResult>((done) => {
      const started = Date.now();
      const child = spawn(process.execPath, [...execArgv, out], {
        stdio: ['ignore', 'pipe', 'pipe'],
        cwd: withoutWs ? dir : undefined,
        env: { ...process.env, ...env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      let killed = false;
      const deadline = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, deadlineMs);
      child.on('exit', (code) => {
        const exitedAt = Date.now();
        clearTimeout(deadline);
        done({ code, killed, elapsedMs: exitedAt - started, exitedAt, stdout, stderr });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The script's own `import … from 'ws'`, kept external but by absolute path (for `withoutWs`). */
const wsByPath: Plugin = {
  name: 'ws-by-path',
  setup(build) {
    const wrapper = join(dirname(createRequire(import.meta.url).resolve('ws/package.json')), 'wrapper.mjs');
    build.onResolve({ filter: /^ws$/ }, () => ({ path: wrapper, external: true }));
  },
};

/** Parses `key value` lines a child printed (`console.log('closeCalledAt', Date.now())`). */
export function parseLines(stdout: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    const space = trimmed.indexOf(' ');
    if (space < 0) map.set(trimmed, '');
    else map.set(trimmed.slice(0, space), trimmed.slice(space + 1));
  }
  return map;
}
