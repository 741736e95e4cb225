import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

// `npm run size` as the first command after `npm ci`: no dist/ yet. It must build the library
// first (and not crash on the missing dist/index.js), then print the table. Run in a scratch copy
// of what the build and the script need, so this repository's dist/ is left alone.

const repo = fileURLToPath(new URL('../../', import.meta.url));
const COPIED = [
  'package.json',
  'tsconfig.json',
  'tsup.config.ts',
  'src',
  'bench/size.ts',
  'bench/lib/load.ts',
  'examples/lib',
];

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'resilient-socket-size-'));
  for (const path of COPIED) cpSync(join(repo, path), join(dir, path), { recursive: true });
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'junction');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The run worked: it printed the tables (a row per named import: minified, gzipped and development
 * sizes, the ratio, its gate and target; the peers; what each feature adds to `BaseSocket`), and
 * exited 0, or 1 for a gate alone (what the bundles weigh is another test's business; this one is
 * about the missing dist/).
 */
function expectSizesReported(run: { code: number; stdout: string; stderr: string }): void {
  expect(run.stdout).toMatch(
    /^\| `\{ BaseSocket \} from 'resilient-socket\/modular'` \| [\d.]+ kB \| [\d.]+ kB \| [\d.]+ kB \| [\d.]+× \| [\d.]+ kB (✓|✗ over) \| [\d.]+ kB (✓ met|✗ not met) \|$/m,
  );
  expect(run.stdout).toMatch(/^\| `\{ truncatedBinaryExponential \} from 'resilient-socket\/backoff'` \| /m);
  expect(run.stdout).toMatch(
    /^\| `\{ WebSocket \} from 'partysocket' [\d.]+` \| [\d.]+ kB \| [\d.]+ kB \| — \| 1\.00× \| — \| — \|$/m,
  );
  expect(run.stdout).toMatch(/^\| `heartbeat\(\)` \| [\d.]+ kB \|$/m);
  expect(run.stderr).not.toMatch(/Could not resolve|Error:/);
  if (run.code !== 0) {
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/^size gate exceeded: /m);
  }
}

function npmRunSize(): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', 'size', '--silent'],
      { cwd: dir, timeout: 120_000, shell: process.platform === 'win32' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

it('builds dist/ when it is missing, then reports the sizes; the next run does not rebuild', async () => {
  expect(existsSync(join(dir, 'dist'))).toBe(false);

  const first = await npmRunSize();
  expect(first.stderr).toContain('building the library (dist/index.js is missing)');
  expect(existsSync(join(dir, 'dist', 'index.js'))).toBe(true);
  expect(existsSync(join(dir, 'dist', 'modular.js'))).toBe(true);
  expect(existsSync(join(dir, 'dist', 'backoff.js'))).toBe(true);
  expectSizesReported(first);

  const second = await npmRunSize();
  expect(second.stderr).not.toContain('building the library');
  expectSizesReported(second);
  expect(second.code).toBe(first.code);
}, 180_000);
