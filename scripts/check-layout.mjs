#!/usr/bin/env node
// Checks that the source layout shows the architecture:
//   1. no import cycle between source files, counting only imports that exist at run time
//      (type-only imports vanish in the build and cannot form a cycle there);
//   2. no import cycle between folders (src/core, src/features/<name>, src/transports, src/backoff, …:
//      the layers only depend downwards);
//   3. no source file over MAX_LINES lines, but the one core file (CORE_FILE), which reads top to
//      bottom and may run to CORE_MAX_LINES.
// The import graph is esbuild's: every entry point is bundled with a metafile (nothing written),
// which lists each input file's run-time imports.
//
// Usage: node scripts/check-layout.mjs   (npm run check:layout)

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const repo = fileURLToPath(new URL('..', import.meta.url));
const MAX_LINES = 420;
const CORE_FILE = 'src/core/machine.ts';
const CORE_MAX_LINES = 650;
const ENTRIES = [
  'src/index.ts',
  'src/node.ts',
  'src/modular.ts',
  'src/modular-node.ts',
  'src/websocket.ts',
  'src/websocket-node.ts',
  'src/react.ts',
  'src/react-node.ts',
  'src/vue.ts',
  'src/vue-node.ts',
  'src/shared.ts',
  'src/shared-node.ts',
  'src/backoff/index.ts',
  'src/testing/index.ts',
  'src/server/index.ts',
  'src/cli/bin.ts',
];

const result = await esbuild.build({
  entryPoints: ENTRIES.map((entry) => join(repo, entry)),
  bundle: true,
  write: false,
  metafile: true,
  outdir: join(repo, 'node_modules/.cache/check-layout'),
  platform: 'node',
  format: 'esm',
  packages: 'external',
  define: { __VERSION__: '"0.0.0"' },
  logLevel: 'silent',
});

/** File → the source files it imports at run time. */
const graph = new Map();
for (const [file, input] of Object.entries(result.metafile.inputs)) {
  if (!file.startsWith('src/')) continue;
  graph.set(
    file,
    input.imports.filter((i) => i.path.startsWith('src/') && i.kind !== 'require-call').map((i) => i.path),
  );
}

/**
 * The folder a file belongs to. A file directly in src/ is a node of its own: the entry points
 * (which import the layers) and the shared leaves (errors, validation, data, …, which the layers
 * import) live side by side there.
 */
const folderOf = (file) => (dirname(file) === 'src' ? file : dirname(file));

/** Every cycle of `edges` (Tarjan's strongly connected components of more than one node, or a self loop). */
function cycles(edges) {
  let index = 0;
  const stack = [];
  const meta = new Map();
  const found = [];
  const visit = (node) => {
    meta.set(node, { index, low: index, onStack: true });
    index++;
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!meta.has(next)) {
        visit(next);
        meta.get(node).low = Math.min(meta.get(node).low, meta.get(next).low);
      } else if (meta.get(next).onStack) {
        meta.get(node).low = Math.min(meta.get(node).low, meta.get(next).index);
      }
    }
    if (meta.get(node).low === meta.get(node).index) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        meta.get(member).onStack = false;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!meta.has(node)) visit(node);
  return found;
}

const problems = [];

for (const cycle of cycles(graph)) problems.push(`import cycle between files: ${cycle.join(' ↔ ')}`);

const folders = new Map();
for (const [file, imports] of graph) {
  const from = folderOf(file);
  const set = folders.get(from) ?? new Set();
  for (const target of imports) if (folderOf(target) !== from) set.add(folderOf(target));
  folders.set(from, set);
}
for (const cycle of cycles(new Map([...folders].map(([k, v]) => [k, [...v]])))) {
  // Name the imports that close the cycle, so the fix is obvious.
  const edges = [...graph]
    .flatMap(([file, imports]) => imports.map((target) => [file, target]))
    .filter(([file, target]) => cycle.includes(folderOf(file)) && cycle.includes(folderOf(target)))
    .filter(([file, target]) => folderOf(file) !== folderOf(target))
    .map(([file, target]) => `${file} → ${target}`);
  problems.push(`import cycle between folders ${cycle.join(' ↔ ')}:\n      ${edges.join('\n      ')}`);
}

/** Every .ts file under src/. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}
let longest = ['', 0];
for (const path of sources(join(repo, 'src'))) {
  const lines = readFileSync(path, 'utf8').split('\n').length - 1;
  if (lines > longest[1]) longest = [relative(repo, path), lines];
  const most = relative(repo, path) === CORE_FILE ? CORE_MAX_LINES : MAX_LINES;
  if (lines > most) problems.push(`${relative(repo, path)} has ${lines} lines (at most ${most})`);
}

// 4. No module-level side effects in what browsers import: importing an entry for nothing
// (`import 'resilient-socket/modular'`) must leave no code at all, even with the package's
// `sideEffects: false` ignored, so that tree-shaking never keeps anything alive by a top-level
// call (an unmarked Object.freeze, new Map, Symbol()). PURE annotations are honoured.
for (const entry of ['src/index.ts', 'src/modular.ts', 'src/websocket.ts', 'src/shared.ts', 'src/backoff/index.ts']) {
  const bare = await esbuild.build({
    stdin: { contents: `import ${JSON.stringify(`./${entry}`)};`, resolveDir: repo, loader: 'js' },
    bundle: true,
    write: false,
    minify: true,
    metafile: true,
    format: 'esm',
    platform: 'browser',
    logLevel: 'silent',
    plugins: [
      {
        name: 'every-file-may-have-side-effects',
        setup(build) {
          // Our own sources only (dependencies keep their own flags).
          build.onResolve({ filter: /^\./ }, (args) =>
            args.resolveDir.includes('node_modules')
              ? undefined
              : { path: join(args.resolveDir, args.path).replace(/\.js$/, '.ts'), sideEffects: true },
          );
        },
      },
    ],
  });
  // Only our files count: a dependency (eventemitter3's CommonJS wrapper) is dropped with the
  // modules that import it once our `sideEffects: false` applies.
  const kept = Object.entries(Object.values(bare.metafile.outputs)[0]?.inputs ?? {})
    .filter(([file, input]) => file.startsWith('src/') && input.bytesInOutput > 0)
    .map(([file]) => file);
  if (kept.length > 0) {
    problems.push(`importing ${entry} for nothing keeps code of ${kept.join(', ')} alive (a module-level side effect)`);
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`FAIL ${problem}`);
  process.exit(1);
}
console.log(
  `OK   ${graph.size} source files, ${folders.size} folders: no import cycle between files or folders; ` +
    `the longest file is ${longest[0]} (${longest[1]} lines; at most ${MAX_LINES}, ${CORE_MAX_LINES} for ${CORE_FILE})`,
);
