/**
 * The README's first program ("A first socket") runs as written, as a user runs it: the package is
 * packed (`npm pack`, whose `prepack` builds it, in a scratch copy of what the build needs, so this
 * repository's dist/ is left alone) and installed with `ws` into a fresh project
 * (`"type": "module"`), the code block is saved there as `first.ts`, unchanged, and run with tsx as
 * the README says. It must print what the README shows, nothing on stderr (no warning), and end by
 * itself. docs/guide/getting-started.md shows the same program.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script, without type declarations
import { splitMarkdown } from '../../scripts/check-links.mjs';

const REPO = join(import.meta.dirname, '..', '..');
const COPIED = ['package.json', 'tsconfig.json', 'tsup.config.ts', 'src', 'README.md', 'LICENSE', 'CHANGELOG.md'];
const require = createRequire(import.meta.url);
const wsVersion = (require('ws/package.json') as { version: string }).version;
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');

interface Fence {
  line: number;
  info: string;
  body: string[];
}

/** The fenced blocks of the section `heading` (up to the next heading of its level) of a markdown file. */
function sectionFences(file: string, heading: string): Fence[] {
  const { prose, fences } = splitMarkdown(readFileSync(join(REPO, file), 'utf8')) as {
    prose: { line: number; text: string }[];
    fences: Fence[];
  };
  const level = /^#+ /.exec(heading)?.[0] as string;
  const start = prose.find((p) => p.text === heading)?.line;
  if (start === undefined) throw new Error(`${file} has no "${heading}" section`);
  const end = prose.find((p) => p.line > start && p.text.startsWith(level))?.line ?? Infinity;
  return fences.filter((fence) => fence.line > start && fence.line < end);
}

const readme = sectionFences('README.md', '## A first socket');
const program = readme.find((fence) => fence.info === 'ts')?.body.join('\n') ?? '';
const shown = readme.find((fence) => fence.info === 'text')?.body ?? [];

let work: string;
let app: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rs-readme-'));
  const clone = join(work, 'clone');
  for (const path of COPIED) cpSync(join(REPO, path), join(clone, path), { recursive: true });
  symlinkSync(join(REPO, 'node_modules'), join(clone, 'node_modules'), 'junction');
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile('npm', ['pack', '--json', '--pack-destination', work], { cwd: clone }, (error, out, err) =>
      error ? reject(new Error(`npm pack failed: ${err}`)) : resolve(out),
    );
  });
  // The build prints its own lines first (prepack); npm's JSON array starts a line of its own.
  const [{ filename }] = JSON.parse(stdout.slice(stdout.search(/^\[\s*\{/m))) as [{ filename: string }];
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'first', private: true, type: 'module' }));
  execFileSync(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, filename), `ws@${wsVersion}`],
    { cwd: app, stdio: ['ignore', 'ignore', 'pipe'] },
  );
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

it('the README shows a program and what it prints', () => {
  expect(program).toMatch(/^import /);
  expect(program).toMatch(/new ResilientSocket\(`ws:\/\/127\.0\.0\.1:[^`]+`, \{ maxDelay: 10_000, ceiling: 10 \}\)/);
  for (const event of ['message', 'state', 'giveup']) expect(program).toContain(`socket.on('${event}'`);
  expect(shown.length).toBeGreaterThan(0);
});

it('docs/guide/getting-started.md shows the same program', () => {
  const guide = sectionFences('docs/guide/getting-started.md', '## A first socket');
  expect(guide.find((fence) => fence.info === 'ts')?.body.join('\n')).toBe(program);
});

it('runs as written in a fresh project: prints what the README shows, nothing on stderr, and ends by itself', async () => {
  writeFileSync(join(app, 'first.ts'), `${program}\n`);
  const env = { ...process.env };
  delete env.NODE_ENV; // vitest's "test"; a user's shell has none
  const run = await new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>(
    (resolve) => {
      const child = execFile(
        process.execPath,
        [TSX, 'first.ts'],
        { cwd: app, env, timeout: 20_000, killSignal: 'SIGKILL' },
        (_error, stdout, stderr) => resolve({ code: child.exitCode, signal: child.signalCode, stdout, stderr }),
      );
    },
  );
  expect(run.stderr).toBe('');
  expect(run.signal, 'ended by itself (not killed at the 20 s deadline)').toBeNull();
  expect(run.code).toBe(0);
  expect(run.stdout.trimEnd().split('\n')).toEqual(shown);
}, 30_000);
