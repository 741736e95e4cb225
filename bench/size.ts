/**
 * Bundle size: what an import costs a browser app, minified and gzipped, per named import (as
 * nanostores' size-limit does), from the built package (what users install), the peers alongside.
 *
 * Method: esbuild bundles `export { Name } from '<specifier>'` for the browser (ESM, minified, every
 * dependency included: eventemitter3 too), and the bundle is gzipped at level 9. Our specifiers
 * resolve through package.json's `exports`, as in an app: with no condition (esbuild's default,
 * and what Vite and webpack production builds get) that is the production flavour, which is what
 * the gates judge; with the `development` condition (Vite and webpack development builds), the
 * development flavour, shown beside it. Tree-shaking keeps only what that name needs, so each row is
 * what an app importing just that pays. The other tables are what each feature, and each import
 * that stands on the core, adds to `BaseSocket`: `{ BaseSocket, feature }` minus `{ BaseSocket }`,
 * production flavour, measured the same way in the same run. The last is what a page loads before
 * a whole program runs (`PROGRAMS`: code splitting on, its entry chunk and their static imports).
 *
 * `npm run size` exits 1 when an import of ours is over its gate (CI runs it). Gates catch growth
 * (raise one only deliberately): each is the size measured when it was set, plus a little. Targets
 * are the sizes the lean core set out to reach (6.5 kB for `BaseSocket`, 7.0 for the small drop-in,
 * 12 for `ResilientSocket`, 1.0 for the default backoff, the add-ons no bigger than they were),
 * shown met or not met: docs/guide/builds-and-size.md says where the bytes of the sockets go
 * and why those are not met.
 *
 * Run as a script, it builds `dist/` first when it is missing or older than `src/` (the check the
 * browser tests use), so `npm run size` works as the first command after `npm ci`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { ensureBuilt } from '../examples/lib/ensure-build.js';
import { isMain } from './lib/load.js';

/** The repository: the package `resilient-socket` itself, whose `exports` our specifiers go through. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One named import to measure. */
interface Subject {
  /** What the table shows. */
  readonly label: string;
  /** The names imported, from `from`. */
  readonly names: string;
  /** A package specifier. */
  readonly from: string;
  /** The gate, in gzipped bytes of the production flavour (ours only). */
  readonly gate?: number;
  /** The size aimed at (ours only). */
  readonly target?: number;
  /** The row every ratio is against. */
  readonly baseline?: boolean;
}

/** The version of an installed peer. */
function version(name: string): string {
  const path = new URL(`../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
}

/** Whether a specifier is one of ours (two flavours) rather than a peer's. */
const ours = (from: string): boolean => from === 'resilient-socket' || from.startsWith('resilient-socket/');

/** What is measured: ours with a gate and a target, then the peers. */
export const SUBJECTS: readonly Subject[] = [
  {
    label: "{ BaseSocket } from 'resilient-socket/modular'",
    names: 'BaseSocket',
    from: 'resilient-socket/modular',
    // What it carries beyond the machine: the error grace, close-code normalising, the steady clock,
    // `binaryType` values, unflushed bytes, bufferedAmount with features' bytes, redaction, and the
    // state table the machine reads.
    gate: 10_000,
    target: 6_500,
  },
  {
    label: "{ ResilientWebSocket } from 'resilient-socket/websocket'",
    names: 'ResilientWebSocket',
    from: 'resilient-socket/websocket',
    // The core above, the WebSocket-shaped face and the WebIDL constants; no emitter. (The machine
    // as one class with two modules of functions over it, `core/loss.ts` and `core/commands.ts`,
    // costs about 0.02 kB here: a parameter compresses a little less well than `this`.)
    gate: 10_325,
    target: 7_000,
  },
  {
    label: "{ ResilientSocket } from 'resilient-socket'",
    names: 'ResilientSocket',
    from: 'resilient-socket',
    // The core and the features it installs from flat options; handshake, buffer policy and
    // delivery only when the program imports their factories; the other libraries' option table
    // only in development.
    gate: 14_250,
    target: 12_000,
  },
  {
    label: "{ truncatedBinaryExponential } from 'resilient-socket/backoff'",
    names: 'truncatedBinaryExponential',
    from: 'resilient-socket/backoff',
    gate: 1_300,
    target: 1_000,
  },
  { label: "{ retry } from 'resilient-socket/backoff'", names: 'retry', from: 'resilient-socket/backoff', gate: 2_200 },
  ...[
    { names: 'WebSocket', from: 'partysocket', baseline: true },
    { names: 'PartySocket', from: 'partysocket' },
    { names: 'default', from: 'reconnecting-websocket' },
    { names: 'default', from: 'sturdy-websocket' },
    // What a reconnecting websocket-ts socket needs: the builder and a backoff.
    { names: 'WebsocketBuilder, ExponentialBackoff', from: 'websocket-ts' },
  ].map((subject) => ({
    ...subject,
    label: `${subject.names === 'default' ? 'default export' : `{ ${subject.names} }`} from '${subject.from}' ${version(subject.from)}`,
  })),
];

/** The features, each measured as what it adds to `{ BaseSocket }`. */
export const FEATURES: readonly string[] = [
  'heartbeat',
  'resume',
  'handshake',
  'upgradeRejection',
  'bufferPolicy',
  'providers',
  'stats',
  'asyncIteration',
  'abortSignal',
  'unref',
  'delivery',
];

/** The two builds an app can get: the default (production) or the `development` condition's. */
export type Flavour = 'production' | 'development';

export interface SizeRow {
  readonly label: string;
  /** Production flavour (a peer: its only build), bytes. */
  readonly minified: number;
  readonly gzipped: number;
  /** The development flavour, gzipped bytes (ours only). */
  readonly development: number | undefined;
  readonly gate: number | undefined;
  readonly target: number | undefined;
  readonly baseline: boolean;
}

/**
 * Bundles `export { names } from 'from'` for the browser and returns [minified, gzipped] bytes.
 * Ours resolve through package.json's `exports` (`tsconfigRaw: {}`: the repository's tsconfig maps
 * the package's names to `src/` for the examples; an app's bundler sees only `exports`), and the
 * files they pull in are checked to be of the flavour asked for.
 */
export async function measure(
  names: string,
  from: string,
  { flavour = 'production', external = [] }: { flavour?: Flavour; external?: string[] } = {},
): Promise<[number, number]> {
  const result = await build({
    external,
    stdin: { contents: `export { ${names} } from '${from}';`, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    tsconfigRaw: {},
    ...(flavour === 'development' ? { conditions: ['development'] } : {}),
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  if (ours(from)) {
    const files = Object.keys(result.metafile.inputs).filter((input) => input.startsWith('dist/'));
    const wrong = files.filter((file) => file.startsWith('dist/dev/') !== (flavour === 'development'));
    if (files.length === 0 || wrong.length > 0) {
      throw new Error(`${from} (${flavour}) resolved to ${files.join(', ') || 'no file of dist/'}`);
    }
  }
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  return [code.length, gzipSync(code, { level: 9 }).length];
}

/** A program, measured as what a page loads before it runs it. */
export interface Program {
  readonly label: string;
  /** Its source: an ES module importing from our package. */
  readonly source: string;
  readonly gate: number;
  readonly target?: number;
}

/**
 * Programs whose size is gated: what a page loads before the program runs, with code splitting
 * (esbuild `splitting: true`, as Vite and webpack do by default), is the entry chunk and every
 * chunk it imports statically; a chunk loaded with `import()` loads later and is not counted. Each
 * file is gzipped on its own (a browser fetches them one by one) and the sizes are added.
 */
export const PROGRAMS: readonly Program[] = [
  {
    label: 'new ResilientSocket(url, { maxDelay, ceiling })',
    source: `import { ResilientSocket } from 'resilient-socket';
const socket = new ResilientSocket('wss://example.test/feed', { maxDelay: 10_000, ceiling: 10 });
socket.on('message', (data) => console.log(data));`,
    // The core and the features it runs with these options (heartbeat, resume, refused upgrades,
    // buffer policy, abort signal, stats, async iteration); no handshake, no delivery.
    gate: 14_500,
    // socket.io-client's size.
    target: 13_300,
  },
];

/** Bundles `source` as a browser app with code splitting and returns [minified, gzipped] bytes of what loads first. */
export async function measureProgram(source: string, flavour: Flavour = 'production'): Promise<[number, number]> {
  const result = await build({
    entryPoints: ['program'],
    plugins: [
      {
        name: 'program',
        setup(plugin) {
          plugin.onResolve({ filter: /^program$/ }, () => ({ path: 'program', namespace: 'program' }));
          plugin.onLoad({ filter: /.*/, namespace: 'program' }, () => ({
            contents: source,
            resolveDir: ROOT,
            loader: 'js',
          }));
        },
      },
    ],
    bundle: true,
    splitting: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    outdir: 'out',
    tsconfigRaw: {},
    ...(flavour === 'development' ? { conditions: ['development'] } : {}),
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const outputs = result.metafile.outputs;
  const entry = Object.keys(outputs).find((path) => outputs[path]?.entryPoint !== undefined);
  const loaded = new Set<string>();
  const visit = (path: string): void => {
    if (loaded.has(path)) return;
    loaded.add(path);
    for (const { path: imported, kind } of outputs[path]?.imports ?? []) {
      if (kind === 'import-statement') visit(imported);
    }
  };
  if (entry) visit(entry);
  let [minified, gzipped] = [0, 0];
  for (const file of result.outputFiles) {
    if (![...loaded].some((path) => file.path.endsWith(`/${path}`))) continue;
    minified += file.contents.length;
    gzipped += gzipSync(file.contents, { level: 9 }).length;
  }
  return [minified, gzipped];
}

/** A program's row. */
export interface ProgramRow extends Program {
  readonly minified: number;
  readonly gzipped: number;
  readonly development: number;
}

export async function programSizes(): Promise<ProgramRow[]> {
  const rows: ProgramRow[] = [];
  for (const program of PROGRAMS) {
    const [minified, gzipped] = await measureProgram(program.source);
    const [, development] = await measureProgram(program.source, 'development');
    rows.push({ ...program, minified, gzipped, development });
  }
  return rows;
}

export function programTable(rows: readonly ProgramRow[]): string {
  return [
    'What a page loads before a program runs (its entry chunk and the chunks that imports statically; esbuild with code splitting, browser, ESM, minified; each file gzip -9, added up; same run):',
    '',
    '| program | minified | gzipped | development (gzipped) | gate | target |',
    '|---|---:|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| \`${r.label}\` | ${kb(r.minified)} | ${kb(r.gzipped)} | ${kb(r.development)} | ${gateCell(r.gzipped, r.gate)} | ${targetCell(r.gzipped, r.target)} |`,
    ),
  ].join('\n');
}

export async function sizes(): Promise<SizeRow[]> {
  const rows: SizeRow[] = [];
  for (const { label, names, from, gate, target, baseline = false } of SUBJECTS) {
    const [minified, gzipped] = await measure(names, from);
    const development = ours(from) ? (await measure(names, from, { flavour: 'development' }))[1] : undefined;
    rows.push({ label, minified, gzipped, development, gate, target, baseline });
  }
  return rows;
}

/** An import that stands on the core (`ADDONS`). */
interface Addon extends Subject {
  /** Left out of its bundle (a peer the app has already). */
  readonly external: string[];
}

/** An add-on's row: its bundle, and what it adds to `{ BaseSocket }`. */
type AddonRow = Omit<SizeRow, 'development' | 'baseline'> & { readonly added: number };

/**
 * Imports that stand on the core, measured as what they add to `{ BaseSocket }` (the same run's
 * baseline, production flavour), each with its gate and target. React and Vue are left out of the
 * bindings' bundles: the app has them already.
 */
export const ADDONS: readonly Addon[] = [
  {
    label: "{ useResilientSocket } from 'resilient-socket/react'",
    names: 'useResilientSocket',
    from: 'resilient-socket/react',
    external: ['react'],
    // The hook and its helpers: lastJsonMessage, sendJson, filter, share, their option checks, the wait for the socket.
    gate: 1_990,
    target: 1_500,
  },
  {
    label: "{ useResilientSocket } from 'resilient-socket/vue'",
    names: 'useResilientSocket',
    from: 'resilient-socket/vue',
    external: ['vue'],
    gate: 2_125,
    target: 1_500,
  },
  {
    // Acknowledged delivery: its codec, outbox, store handling and de-duplication window.
    label: "{ BaseSocket, delivery } from 'resilient-socket/modular'",
    names: 'BaseSocket, delivery',
    from: 'resilient-socket/modular',
    external: [],
    // With encoding once, reliable bytes in bufferedAmount, paced resends and bounded ids, and its
    // hooks and services forwarded by one loop to the socket's delivery.
    gate: 2_500,
    target: 1_500,
  },
  {
    // The same with the persistent outbox of browsers.
    label: "{ BaseSocket, delivery, indexedDbStore } from 'resilient-socket/modular'",
    names: 'BaseSocket, delivery, indexedDbStore',
    from: 'resilient-socket/modular',
    external: [],
    gate: 3_110,
  },
  {
    label: "{ SharedSocket } from 'resilient-socket/shared'",
    names: 'SharedSocket',
    from: 'resilient-socket/shared',
    external: [],
    gate: 3_250,
    target: 3_000,
  },
];

/** What each add-on adds to `{ BaseSocket }`: gzipped bytes, whole bundle too. */
export async function addonCosts(): Promise<AddonRow[]> {
  const [, base] = await measure('BaseSocket', 'resilient-socket/modular');
  const out: AddonRow[] = [];
  for (const { label, names, from, external, gate, target } of ADDONS) {
    const [minified, gzipped] = await measure(names, from, { external });
    out.push({ label, minified, gzipped, gate, target, added: gzipped - base });
  }
  return out;
}

const kb = (n: number): string => `${(n / 1000).toFixed(2)} kB`;

/** A gate cell: the gate and whether `size` is within it. */
const gateCell = (size: number, gate: number | undefined): string =>
  gate === undefined ? '—' : `${kb(gate)} ${size <= gate ? '✓' : '✗ over'}`;

/** A target cell: the target and whether `size` meets it. */
const targetCell = (size: number, target: number | undefined): string =>
  target === undefined ? '—' : `${kb(target)} ${size <= target ? '✓ met' : '✗ not met'}`;

export function addonTable(rows: readonly AddonRow[]): string {
  return [
    'What an import adds to `{ BaseSocket }` (its bundle minus `{ BaseSocket }`, production flavour, gzipped, same run; React and Vue not counted):',
    '',
    '| import | whole bundle (gzipped) | adds to the core | gate | target |',
    '|---|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| \`${r.label}\` | ${kb(r.gzipped)} | ${kb(r.added)} | ${gateCell(r.added, r.gate)} | ${targetCell(r.added, r.target)} |`,
    ),
  ].join('\n');
}

/** What each feature adds to `{ BaseSocket }`, gzipped bytes (production flavour, the same run's baseline). */
export async function featureCosts(): Promise<{ feature: string; added: number }[]> {
  const [, base] = await measure('BaseSocket', 'resilient-socket/modular');
  const out: { feature: string; added: number }[] = [];
  for (const feature of FEATURES) {
    const [, both] = await measure(`BaseSocket, ${feature}`, 'resilient-socket/modular');
    out.push({ feature, added: both - base });
  }
  return out;
}

export function sizeTable(rows: readonly SizeRow[]): string {
  const baseline = rows.find((r) => r.baseline)?.gzipped ?? Number.NaN;
  return [
    'Bundle size per named import: esbuild (browser, ESM, minified, dependencies included), gzip -9, in one run. Ours from the built package through its `exports`: production (the default: esbuild, Vite and webpack production builds, a browser loading the file) is what the gates judge; development (the `development` condition: Vite and webpack development builds) is shown beside it. The ratio is production against partysocket.',
    '',
    '| import | minified | gzipped | development (gzipped) | vs partysocket | gate | target |',
    '|---|---:|---:|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| \`${r.label}\` | ${kb(r.minified)} | ${kb(r.gzipped)} | ${
          r.development === undefined ? '—' : kb(r.development)
        } | ${(r.gzipped / baseline).toFixed(2)}× | ${gateCell(r.gzipped, r.gate)} | ${targetCell(r.gzipped, r.target)} |`,
    ),
  ].join('\n');
}

export function featureTable(costs: readonly { feature: string; added: number }[]): string {
  return [
    'What each feature adds to `{ BaseSocket }` (`{ BaseSocket, feature }` minus `{ BaseSocket }`, production flavour, gzipped, same run):',
    '',
    '| feature | adds (gzipped) |',
    '|---|---:|',
    ...costs.map(({ feature, added }) => `| \`${feature}()\` | ${kb(added)} |`),
  ].join('\n');
}

if (isMain(import.meta.url)) {
  // On stderr: stdout is the tables.
  ensureBuilt((line) => console.error(line));
  const rows = await sizes();
  console.log(sizeTable(rows));
  console.log('');
  console.log(featureTable(await featureCosts()));
  const addons = await addonCosts();
  console.log('');
  console.log(addonTable(addons));
  const programs = await programSizes();
  console.log('');
  console.log(programTable(programs));
  const over = [
    ...programs.filter((r) => r.gzipped > r.gate).map((r) => ({ ...r, size: r.gzipped })),
    ...rows.filter((r) => r.gate !== undefined && r.gzipped > r.gate).map((r) => ({ ...r, size: r.gzipped })),
    ...addons.filter((r) => r.gate !== undefined && r.added > r.gate).map((r) => ({ ...r, size: r.added })),
  ];
  if (over.length > 0) {
    console.error(`\nsize gate exceeded: ${over.map((r) => `${r.label} ${r.size} B > ${r.gate} B`).join(', ')}`);
    process.exitCode = 1;
  }
}
