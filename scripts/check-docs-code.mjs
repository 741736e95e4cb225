#!/usr/bin/env node
// Type-checks the complete programs of the documentation: every ```ts / ```tsx block of README.md
// and docs/**/*.md (the generated docs/api/ aside) whose first line starts with `import`. Each block
// becomes a module of its own under .tmp/docs-code/, compiled by tsc with the repository's compiler
// options (but the two stricter flags a reader's project seldom has), the package's names ('resilient-socket', '/modular', '/react', …) pointing at src/ as the
// tests' and examples' do. A failure is reported at the markdown file and line of the failing code.
// A block that is not a complete program must not start with `import` (or be ```js / ```text).
//
// Usage: npm run check:docs-code   (node scripts/check-docs-code.mjs [file.md …])

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { documentationFiles, splitMarkdown } from './check-links.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));

/** The package's import names → their sources (the node flavour, as a Node program resolves them). */
export const ENTRIES = {
  'resilient-socket': 'src/node.ts',
  'resilient-socket/modular': 'src/modular-node.ts',
  'resilient-socket/websocket': 'src/websocket-node.ts',
  'resilient-socket/react': 'src/react-node.ts',
  'resilient-socket/vue': 'src/vue.ts',
  'resilient-socket/shared': 'src/shared-node.ts',
  'resilient-socket/backoff': 'src/backoff/index.ts',
  'resilient-socket/testing': 'src/testing/index.ts',
  'resilient-socket/server': 'src/server/index.ts',
};

const LANGUAGES = new Map([
  ['ts', 'ts'],
  ['typescript', 'ts'],
  ['tsx', 'tsx'],
]);

/** The complete programs of one markdown text: `{ line, lang, code }`, `line` that of the first code line. */
export function programsOf(markdown) {
  const blocks = [];
  for (const { line, info, body } of splitMarkdown(markdown).fences) {
    const lang = LANGUAGES.get(/^[\w-]*/.exec(info)[0].toLowerCase());
    const first = body.find((text) => text.trim() !== '');
    if (lang && first !== undefined && /^\s*import\b/.test(first))
      blocks.push({ line: line + 1, lang, code: body.join('\n') });
  }
  return blocks;
}

/**
 * Type-checks the programs of `files` (absolute paths). Returns `{ checked, problems }`;
 * each problem reads `file:line:column: message`, file relative to `base`.
 */
export function checkDocsCode(files, { repo = REPO, base = repo, out = join(repo, '.tmp', 'docs-code') } = {}) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const paths = {};
  for (const [name, source] of Object.entries(ENTRIES)) {
    if (!existsSync(join(repo, source)))
      throw new Error(`check-docs-code: ${name} maps to ${source}, which does not exist`);
    paths[name] = [join(repo, source)];
  }
  const origin = new Map();
  let checked = 0;
  for (const file of files) {
    const shown = relative(base, file);
    for (const block of programsOf(readFileSync(file, 'utf8'))) {
      const name = `block-${String(checked).padStart(3, '0')}.${block.lang}`;
      writeFileSync(join(out, name), `${block.code}\n`);
      origin.set(name, { shown, line: block.line });
      checked++;
    }
  }
  if (checked === 0) return { checked, problems: [] };
  const config = {
    extends: join(repo, 'tsconfig.json'),
    compilerOptions: {
      noEmit: true,
      jsx: 'react-jsx',
      paths,
      // A reader's project is `strict`, but seldom has the repository's two stricter flags.
      exactOptionalPropertyTypes: false,
      noUncheckedIndexedAccess: false,
    },
    include: ['*.ts', '*.tsx'],
    exclude: [],
  };
  writeFileSync(join(out, 'tsconfig.json'), JSON.stringify(config, null, 2));
  const tsc = createRequire(join(repo, 'package.json')).resolve('typescript/bin/tsc');
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: out, encoding: 'utf8' });
  } catch (error) {
    output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    if (output.trim() === '') throw error;
  }
  const problems = [];
  for (const line of output.split('\n')) {
    const m = /^(.*?)\((\d+),(\d+)\): (error .*)$/.exec(line.trim());
    if (!m) {
      if (line.trim() !== '' && !line.startsWith(' ')) problems.push(line.trim());
      else if (problems.length > 0 && line.trim() !== '') problems[problems.length - 1] += ` ${line.trim()}`;
      continue;
    }
    const where = origin.get(relative(out, resolve(out, m[1])));
    const at = where
      ? `${where.shown}:${where.line + Number(m[2]) - 1}:${m[3]}`
      : `${relative(base, resolve(out, m[1]))}:${m[2]}:${m[3]}`;
    problems.push(`${at}: ${m[4]}`);
  }
  return { checked, problems };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const files =
    args.length > 0 ? args.map((file) => resolve(file)) : documentationFiles(REPO).map((file) => join(REPO, file));
  const { checked, problems } = checkDocsCode(files, { base: process.cwd() });
  if (problems.length > 0) {
    console.error(
      `check-docs-code: ${problems.length} type error(s) in the ${checked} program(s) of ${files.length} file(s):`,
    );
    for (const problem of problems) console.error(`  ${problem}`);
    process.exitCode = 1;
  } else {
    console.log(`check-docs-code: the ${checked} program(s) of ${files.length} file(s) type-check`);
  }
}
