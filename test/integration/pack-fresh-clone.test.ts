import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

// `npm pack` as the first command after `npm ci`: no dist/ yet. The tarball must still hold the
// built package (`prepack` builds it), never a few files with no `dist/`. Run in a scratch copy of
// what the build needs, so this repository's dist/ is left alone.

const repo = fileURLToPath(new URL('../../', import.meta.url));
const COPIED = ['package.json', 'tsconfig.json', 'tsup.config.ts', 'src', 'README.md', 'LICENSE', 'CHANGELOG.md'];

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'resilient-socket-pack-'));
  for (const path of COPIED) cpSync(join(repo, path), join(dir, path), { recursive: true });
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'junction');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

it('npm pack without a build first builds, and the tarball holds every entry of the exports map', async () => {
  expect(existsSync(join(dir, 'dist'))).toBe(false);
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile('npm', ['pack', '--dry-run', '--json'], { cwd: dir, timeout: 120_000 }, (error, out, err) =>
      error ? reject(new Error(`npm pack failed: ${err}`)) : resolve(out),
    );
  });
  // The build prints its own lines first (prepack); npm's JSON array starts a line of its own.
  const [info] = JSON.parse(stdout.slice(stdout.search(/^\[\s*\{/m))) as [{ files: { path: string }[] }];
  const files = new Set(info.files.map((f) => f.path));
  const pkg = (await import(join(dir, 'package.json'), { with: { type: 'json' } })).default as {
    exports: Record<string, unknown>;
  };
  const targets = JSON.stringify(pkg.exports).match(/\.\/dist\/[\w./-]+/g) ?? [];
  expect(targets.length).toBeGreaterThan(20);
  for (const target of targets) expect(files, target).toContain(target.slice(2));
  expect(files).toContain('dist/cli.js');
}, 150_000);
