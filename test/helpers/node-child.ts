/**
 * Like `runInChild` (./child-process.ts), for scripts that need the `ws` package at run time:
 * the Node entry point (`#src/node.ts`) loads `ws` with `createRequire(import.meta.url)`, and a
 * script may import `ws` itself to start a server.
 *
 * Why a second runner: `runInChild` writes its bundle to `os.tmpdir()`, from where neither a
 * `createRequire(import.meta.url)('ws')` nor an external `import 'ws'` can find the repository's
 * node_modules (the ResilientSocket then throws ERR_RS_NO_WEBSOCKET), and bundling `ws` (CommonJS)
 * into ESM output fails at run time with "Dynamic require of "events" is not supported".
 * Here `ws` stays external and the bundle is written inside the repository
 * (`node_modules/.cache/rs-child-*`, removed afterwards), so both resolve to the installed `ws`,
 * exactly as they would for a user of the published package.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { ChildResult } from './child-process.js';

export interface NodeChildResult extends ChildResult {
  /** `Date.now()` in the parent when the child exited (or was killed). */
  exitedAt: number;
}

/**
 * Bundles `source` (TypeScript; `#src` is `src/`, `ws` is external) and runs it in a fresh Node
 * process, killed with SIGKILL if still alive after `deadlineMs`.
 */
export async function runNodeChild(source: string, deadlineMs: number): Promise<NodeChildResult> {
  const cache = resolve('node_modules', '.cache');
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
    });
    return await new Promise<NodeChildResult>((done) => {
      const started = Date.now();
      const child = spawn(process.execPath, [out], { stdio: ['ignore', 'pipe', 'pipe'] });
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
