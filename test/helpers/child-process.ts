import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

/** Result of running a script in a child Node process with a deadline. */
export interface ChildResult {
  /** Exit code, or null when the child was killed at the deadline. */
  code: number | null;
  /** True when the child had to be killed because it outlived `deadlineMs`. */
  killed: boolean;
  /** Wall time until exit (or kill), in ms. */
  elapsedMs: number;
  stdout: string;
  stderr: string;
}

/**
 * Bundles `source` (TypeScript that may import from `src/`) with esbuild and runs it in a fresh
 * Node process. The child is killed if it is still alive after `deadlineMs`, so a test that
 * checks "the process exits by itself" is bounded in time.
 */
export async function runInChild(source: string, deadlineMs: number): Promise<ChildResult> {
  const dir = mkdtempSync(join(tmpdir(), 'rs-child-'));
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
      nodePaths: [resolve('node_modules')],
      alias: { '#src': resolve('src') },
    });
    return await new Promise<ChildResult>((done) => {
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
        clearTimeout(deadline);
        done({ code, killed, elapsedMs: Date.now() - started, stdout, stderr });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
