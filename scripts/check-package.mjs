#!/usr/bin/env node
// Checks the package as it will be published, from the tarball `npm pack` makes:
//   1. the tarball holds every entry point (`resilient-socket`, `/modular`, `/backoff`, `/websocket`,
//      `/react`, `/vue`, `/shared`, `/testing`, and the Node variants of the first two and of `/websocket`,
//      `/react`, `/vue` and `/shared`) in both formats, README.md and package.json, and no src/ or test/,
//      and no declaration file (.d.ts, .d.cts) in it points readers at a src/ file (they are not shipped);
//   2. publint (--strict) and attw (--profile node16, every problem fatal) are happy with it;
//   3. a fresh consumer project can install it, `import` it (.mjs) and `require` it (.cjs); in Node,
//      ResilientSocket, `resilient-socket/modular`'s BaseSocket and ResilientWebSocket find ws by
//      themselves (and say how to install it when it is missing); the classes are called by their
//      names (constructor.name, util.inspect) in every built entry; ResilientWebSocket's types compile
//      in a DOM project (as a `typeof WebSocket`) and in a Node one (scripts/check-package-websocket.mjs); `resilient-socket/testing` works without mock-socket (but
//      FlakyServer, which says how to install it), then with it; `resilient-socket/react` and
//      `resilient-socket/vue` render on a server (with the React and the Vue the repository tests
//      against) without a WebSocket or a timer, and their types compile in a DOM project
//      (scripts/check-package-react.mjs, scripts/check-package-vue.mjs, scripts/check-package-ssr.mjs);
//   4. esbuild can bundle it: for the browser, in both flavours (the production one by default, the
//      development one under the `development` condition; never both, never a Node entry; reporting
//      minified and gzipped sizes; the `resilient-socket/backoff` bundle must not pull in eventemitter3
//      or ws, and no browser bundle may contain ws's Node code) and as CommonJS for Node (through the
//      `node` and `require` conditions: the development flavour);
//   5. `resilient-socket/server` (scripts/check-package-server.mjs): a ReliableServer round trip
//      from the tarball (ESM and CJS) against a raw ws client, and one with ResilientSocket's
//      delivery option through a cut connection; two servers on one redisStore() against a real
//      redis-server; a browser bundle of it is refused, no browser bundle of the other entries
//      holds it, and `redis` is an optional peer no browser file names;
//   6. the flavours (scripts/check-package-modes.mjs): no browser file reads `process`; bundled for
//      the browser and run where `process` does not exist, in production mode (with and without a
//      bundler's define) and development mode, and in Node, bad input throws the same classes and
//      codes, with short messages in production and the full text in development and Node.
// It assumes `dist/` is built (`npm run build`). Temporary directories are removed at the end;
// set KEEP_TMP=1 to keep them for debugging. Exits 1 if any check fails.
//
// Usage: npm run build && node scripts/check-package.mjs

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { checkNoProcess, runModeChecks } from './check-package-modes.mjs';
import { REACT_SSR, REACT_TYPES } from './check-package-react.mjs';
import {
  checkRedisOptional,
  checkServerNotForBrowsers,
  DELIVERY_ROUND_TRIP,
  runClusterCheck,
  SERVER_ROUND_TRIP,
} from './check-package-server.mjs';
import { VUE_SSR, VUE_TYPES } from './check-package-vue.mjs';
import { checkWebSocketTypes, WEBSOCKET_CLASS_NAME, WEBSOCKET_ECHO } from './check-package-websocket.mjs';

const repoDir = fileURLToPath(new URL('..', import.meta.url));
const isWindows = process.platform === 'win32';
const keepTmp = process.env.KEEP_TMP === '1';

const ENTRY_POINTS = [
  { specifier: 'resilient-socket', file: 'index' },
  { specifier: 'resilient-socket/modular', file: 'modular' },
  { specifier: 'resilient-socket/backoff', file: 'backoff' },
  { specifier: 'resilient-socket/websocket', file: 'websocket' },
  { specifier: 'resilient-socket/react', file: 'react' },
  { specifier: 'resilient-socket/vue', file: 'vue' },
  { specifier: 'resilient-socket/shared', file: 'shared' },
];
// The Node variants of browser entries (the `node` export condition; the `browser` field maps each
// back): they add the ws transport, so no browser bundle may contain them.
const NODE_VARIANTS = ['node', 'modular-node', 'websocket-node', 'react-node', 'vue-node', 'shared-node'];
// Entry points for Node and test runners only (not bundled for the browser below).
const NODE_ENTRY_POINTS = [
  { specifier: 'resilient-socket/testing', file: 'testing' },
  // `node` condition only: a bundler (attw's `bundler` resolution, a browser build) finds its types, no code.
  { specifier: 'resilient-socket/server', file: 'server', nodeOnly: true },
];
// dist/: the production flavour of the browser entries and the one set of declarations;
// dist/dev/: the development flavour of every entry (the Node ones and the test kit only there).
const BROWSER_FILES = ENTRY_POINTS.map(({ file }) => file);
const ALL_FILES = [...BROWSER_FILES, ...NODE_ENTRY_POINTS.map(({ file }) => file), ...NODE_VARIANTS];
const REQUIRED_FILES = [
  ...BROWSER_FILES.flatMap((file) => [`dist/${file}.js`, `dist/${file}.cjs`]),
  ...ALL_FILES.flatMap((file) => [
    `dist/dev/${file}.js`,
    `dist/dev/${file}.cjs`,
    `dist/${file}.d.ts`,
    `dist/${file}.d.cts`,
  ]),
  'dist/cli.js',
  'README.md',
  'package.json',
];
const FORBIDDEN_PREFIXES = ['src/', 'test/'];
// attw runs its default (strict) profile; typesVersions in package.json lets node10 see ./modular,
// ./backoff and ./testing.
const ATTW_IGNORED_RESOLUTIONS = new Set();
const ATTW_CHECKED_RESOLUTIONS = ['node10', 'node16-cjs', 'node16-esm', 'bundler'];

/** @type {{ name: string, ok: boolean, detail?: string }[]} */
const results = [];
/** @type {string[]} */
const notes = [];
/** @type {string[]} */
const tmpDirs = [];

class CheckError extends Error {}

function fail(message) {
  throw new CheckError(message);
}

function header(title) {
  console.log(`\n--- ${title}`);
}

/**
 * Runs a command without a shell (except on Windows, where npm and npx are .cmd files).
 * `capture: true` returns stdout as a string (stderr still goes to the terminal).
 */
function run(command, args, { cwd, capture = false } = {}) {
  if (!cwd) throw new Error('run(): cwd is required');
  return execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    maxBuffer: 256 * 1024 * 1024,
    shell: isWindows,
  });
}

/** Runs one check; records its outcome instead of stopping at the first failure. */
async function check(name, fn) {
  header(name);
  try {
    const detail = await fn();
    results.push({ name, ok: true, detail });
    console.log(`OK   ${name}${detail ? ` (${detail})` : ''}`);
    return true;
  } catch (error) {
    const message = describeError(error);
    results.push({ name, ok: false, detail: message });
    console.error(`FAIL ${name}: ${message}`);
    return false;
  }
}

function describeError(error) {
  if (error instanceof CheckError) return error.message;
  // execFileSync's errors: "Command failed: <command line>" plus status / signal.
  if (error instanceof Error && 'status' in error) {
    const command = error.message.split('\n')[0].replace(/^Command failed: /, '');
    const how = error.signal ? `was killed by ${error.signal}` : `exited with status ${error.status}`;
    return `\`${command}\` ${how} (see its output above)`;
  }
  if (error instanceof Error) return error.stack ?? error.message;
  return String(error);
}

function makeTmpDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tmpDirs.push(dir);
  return dir;
}

function toPosix(path) {
  return path.replaceAll('\\', '/');
}

function formatBytes(bytes) {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(2)} KiB (${bytes} B)`;
}

// ---------------------------------------------------------------------------------------------
// The tarball

function pack() {
  const missing = ENTRY_POINTS.flatMap(({ file }) => [`dist/${file}.js`, `dist/dev/${file}.js`]).filter(
    (f) => !existsSync(join(repoDir, f)),
  );
  if (missing.length > 0) fail(`dist/ is not built (missing ${missing.join(', ')}); run \`npm run build\` first`);

  const packDir = makeTmpDir('resilient-socket-pack-');
  // --ignore-scripts: dist/ is already built, and lifecycle output would corrupt the JSON on stdout.
  const stdout = run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], {
    cwd: repoDir,
    capture: true,
  });
  const start = stdout.indexOf('[');
  if (start === -1) fail(`\`npm pack --json\` printed no JSON:\n${stdout}`);
  const [info] = JSON.parse(stdout.slice(start));
  if (!info?.filename || !Array.isArray(info.files)) fail('unexpected `npm pack --json` output');
  const tarball = join(packDir, info.filename);
  if (!existsSync(tarball)) fail(`npm pack reported ${info.filename} but ${tarball} does not exist`);
  return { tarball, info };
}

function checkTarballContents(info) {
  const paths = info.files.map((f) => toPosix(f.path));
  const present = new Set(paths);
  const problems = [];
  for (const file of REQUIRED_FILES) {
    if (!present.has(file)) problems.push(`missing ${file}`);
  }
  for (const path of paths) {
    if (FORBIDDEN_PREFIXES.some((prefix) => path.startsWith(prefix))) problems.push(`must not ship ${path}`);
  }
  console.log(`${paths.length} files, ${formatBytes(info.size)} packed, ${formatBytes(info.unpackedSize)} unpacked:`);
  for (const path of paths) console.log(`  ${path}`);
  if (problems.length > 0) fail(problems.join('; '));
  return `${paths.length} files, ${REQUIRED_FILES.length} required present`;
}

/**
 * A `src/` path (`src/core/states.ts`, `./src/x`, `../src/x`) in the text, but not the tail of a
 * longer path or URL (`https://github.com/o/r/blob/main/src/x` may be linked: it exists).
 */
const SRC_PATH = /(?<![\w/.@-])(?:\.{1,2}\/)*src\/[\w.-]/;

function checkDeclarations(info) {
  const declarations = info.files.map((f) => toPosix(f.path)).filter((path) => /\.d\.c?ts$/.test(path));
  if (declarations.length === 0) fail('the tarball has no .d.ts/.d.cts files');
  const problems = [];
  for (const path of declarations) {
    // npm pack put these very files from the working tree into the tarball.
    const lines = readFileSync(join(repoDir, path), 'utf8').split('\n');
    lines.forEach((line, index) => {
      if (SRC_PATH.test(line)) problems.push(`${path}:${index + 1}: ${line.trim()}`);
    });
  }
  if (problems.length > 0) {
    fail(
      `shipped declarations point at src/ files, which are not in the package (say what the file holds, or name the export):\n  ${problems.join('\n  ')}`,
    );
  }
  return `${declarations.length} declaration files, none mentions a src/ path`;
}

// ---------------------------------------------------------------------------------------------
// Linters

function runPublint(tarball) {
  // publint 0.3: `publint run [path]`; --strict turns warnings into errors (and a non-zero exit).
  run('npx', ['--no', '--', 'publint', 'run', tarball, '--strict'], { cwd: repoDir });
  return 'no errors or warnings';
}

function runAttw(tarball) {
  // The default profile ("strict") also checks node10 resolution, which cannot see subpath
  // exports; "node16" checks node16-cjs, node16-esm and bundler. JSON output lets us verify that
  // both entry points were analysed and that they have types (attw exits 0 on untyped packages).
  let stdout;
  let exitError;
  try {
    stdout = run('npx', ['--no', '--', 'attw', tarball, '--format', 'json'], {
      cwd: repoDir,
      capture: true,
    });
  } catch (error) {
    exitError = error;
    stdout = typeof error?.stdout === 'string' ? error.stdout : '';
  }
  let report;
  try {
    report = JSON.parse(stdout);
  } catch {
    if (exitError) throw exitError;
    fail(`attw printed invalid JSON:\n${stdout.slice(0, 2000)}`);
  }
  const { analysis } = report;
  const problems = [];
  if (analysis?.types?.kind !== 'included') problems.push(`types are "${analysis?.types?.kind}", not included`);
  for (const { specifier, nodeOnly } of [...ENTRY_POINTS, ...NODE_ENTRY_POINTS]) {
    const subpath = specifier === 'resilient-socket' ? '.' : `.${specifier.slice('resilient-socket'.length)}`;
    const entry = analysis?.entrypoints?.[subpath];
    if (!entry) {
      problems.push(`entry point "${subpath}" was not analysed`);
      continue;
    }
    if (!entry.hasTypes) problems.push(`"${subpath}" has no types`);
    for (const kind of ATTW_CHECKED_RESOLUTIONS) {
      const res = entry.resolutions?.[kind];
      const types = res?.resolution?.fileName;
      const impl = res?.implementationResolution?.fileName;
      if (nodeOnly && kind === 'bundler') {
        if (!types || impl) problems.push(`"${subpath}" (Node only) should resolve to types and no code under bundler`);
      } else if (!types || !impl) problems.push(`"${subpath}" does not resolve under ${kind}`);
      console.log(`  ${specifier.padEnd(26)} ${kind.padEnd(11)} types ${types ?? '-'}  js ${impl ?? '-'}`);
    }
  }
  for (const problem of analysis?.problems ?? []) {
    if (problem.resolutionKind && ATTW_IGNORED_RESOLUTIONS.has(problem.resolutionKind)) {
      notes.push(`attw: ${problem.kind} for "${problem.entrypoint}" under node10`);
      continue;
    }
    problems.push(
      `${problem.kind}${problem.entrypoint ? ` in "${problem.entrypoint}"` : ''}${problem.resolutionKind ? ` (${problem.resolutionKind})` : ''}`,
    );
  }
  if (problems.length > 0 || exitError) {
    // Re-run for attw's own human-readable explanation of the problems.
    try {
      run('npx', ['--no', '--', 'attw', tarball, '--format', 'table'], { cwd: repoDir });
    } catch {
      // its exit status is already accounted for
    }
    if (problems.length === 0) problems.push(describeError(exitError));
    fail(`attw: ${problems.join('; ')}`);
  }
  return `${Object.keys(analysis.entrypoints).length} entry points, no problems under node10, node16-cjs, node16-esm, bundler`;
}

// ---------------------------------------------------------------------------------------------
// A consumer project

function createConsumer(tarball) {
  const dir = makeTmpDir('resilient-socket-consumer-');
  // No "type": the test files use explicit .mjs / .cjs extensions.
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'resilient-socket-consumer', version: '0.0.0', private: true }, null, 2)}\n`,
  );
  // Not --offline: runtime dependencies (e.g. eventemitter3) come from the registry.
  run('npm', ['install', tarball, '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: dir });
  return dir;
}

const FUNCTIONS = [
  'truncatedBinaryExponential',
  'phasedBinaryExponential',
  'toRetryWait',
  'fullJitter',
  'equalJitter',
  'decorrelatedJitter',
  'exponential',
  'constant',
  'retry',
];

// `resilient-socket/modular`'s feature factories (beside BaseSocket).
const FEATURES = [
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

// The body shared by test.mjs and test.cjs; `root`, `m` and `b` are the entry points' namespaces.
const CONSUMER_TEST_BODY = `
let failures = 0;
function ok(message) {
  console.log(\`OK   [\${FORMAT}] \${message}\`);
}
function bad(message) {
  failures++;
  console.error(\`FAIL [\${FORMAT}] \${message}\`);
}
for (const [label, mod] of [['resilient-socket', root], ['resilient-socket/backoff', b]]) {
  const missing = ${JSON.stringify(FUNCTIONS)}.filter((name) => typeof mod[name] !== 'function');
  if (missing.length === 0) ok(\`\${label}: ${FUNCTIONS.join(', ')} are functions\`);
  else bad(\`\${label}: not functions: \${missing.join(', ')}\`);
  try {
    const baseDelay = mod.truncatedBinaryExponential().baseDelay;
    if (baseDelay === 19.53125) ok(\`\${label}: truncatedBinaryExponential().baseDelay === 19.53125\`);
    else bad(\`\${label}: truncatedBinaryExponential().baseDelay is \${baseDelay}, expected 19.53125\`);
  } catch (error) {
    bad(\`\${label}: truncatedBinaryExponential() threw \${error?.stack ?? error}\`);
  }
  try {
    const value = await mod.retry((a) => (a < 3 ? Promise.reject(new Error('x')) : 'ok'), {
      backoff: b.constant({ delay: 0 }),
    });
    if (value === 'ok') ok(\`\${label}: retry() resolved 'ok' on the third attempt\`);
    else bad(\`\${label}: retry() resolved \${JSON.stringify(value)}, expected 'ok'\`);
  } catch (error) {
    bad(\`\${label}: retry() rejected: \${error?.stack ?? error}\`);
  }
}
// Both entry points share one chunk, so they hand out the very same functions.
if (root.retry === b.retry && root.constant === b.constant) ok('both entry points export the same retry/constant');
else bad('resilient-socket and resilient-socket/backoff export different retry/constant objects');
{
  const label = 'resilient-socket/modular';
  const missing = ['BaseSocket', ...${JSON.stringify(FEATURES)}].filter((name) => typeof m[name] !== 'function');
  if (missing.length === 0) ok(\`\${label}: BaseSocket, ${FEATURES.join(', ')} are functions\`);
  else bad(\`\${label}: not functions: \${missing.join(', ')}\`);
  try {
    // Every feature at once; no connection (a stand-in WebSocket class, and autoConnect off).
    const features = [
      m.heartbeat(),
      m.resume(),
      m.handshake(() => {}),
      m.upgradeRejection(),
      m.bufferPolicy(),
      m.providers(),
      m.stats(),
      m.asyncIteration(),
      m.abortSignal(),
      m.unref(),
      m.delivery(),
    ];
    const socket = new m.BaseSocket('ws://127.0.0.1:9', { autoConnect: false, WebSocket: class {}, features });
    if (socket.state === 'idle') ok(\`\${label}: new BaseSocket() with every feature is idle\`);
    else bad(\`\${label}: new BaseSocket() with every feature is \${socket.state}, expected idle\`);
  } catch (error) {
    bad(\`\${label}: new BaseSocket() with every feature threw \${error?.stack ?? error}\`);
  }
}
if (failures > 0) {
  console.error(\`[\${FORMAT}] \${failures} check(s) failed\`);
  process.exitCode = 1;
}
`;

const CONSUMER_TEST_MJS = `const FORMAT = 'esm';
import * as root from 'resilient-socket';
import * as m from 'resilient-socket/modular';
import * as b from 'resilient-socket/backoff';
${CONSUMER_TEST_BODY}`;

const CONSUMER_TEST_CJS = `'use strict';
const FORMAT = 'cjs';
const root = require('resilient-socket');
const m = require('resilient-socket/modular');
const b = require('resilient-socket/backoff');
const pkg = require('resilient-socket/package.json');
console.log(\`OK   [cjs] require('resilient-socket/package.json') is version \${pkg.version}\`);
(async () => {
${CONSUMER_TEST_BODY}
})().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;

function runConsumerTest(consumerDir, fileName, source) {
  writeFileSync(join(consumerDir, fileName), source);
  run(process.execPath, [fileName], { cwd: consumerDir });
  return `node ${fileName} passed`;
}

// ---------------------------------------------------------------------------------------------
// ResilientSocket and `resilient-socket/modular`'s BaseSocket from the tarball, in Node: first
// without ws (a helpful error), then with ws installed, against a real ws server on 127.0.0.1.

/** The socket classes whose Node entries install the ws transport; `file` names their check scripts. */
const SOCKET_CLASSES = [
  { className: 'ResilientSocket', specifier: 'resilient-socket', file: 'socket' },
  { className: 'BaseSocket', specifier: 'resilient-socket/modular', file: 'base-socket' },
  { className: 'ResilientWebSocket', specifier: 'resilient-socket/websocket', file: 'websocket', echo: WEBSOCKET_ECHO },
  { className: 'ResilientWebSocket', specifier: 'resilient-socket', file: 'full-websocket', echo: WEBSOCKET_ECHO },
];

/** `import { a, b } from 'x';` (esm) or `const { a, b } = require('x');` (cjs). */
const importNames = (format, names, specifier) =>
  format === 'esm'
    ? `import { ${names.join(', ')} } from ${JSON.stringify(specifier)};`
    : `const { ${names.join(', ')} } = require(${JSON.stringify(specifier)});`;

const SOCKET_NO_WS = (format, { className, specifier }) => `${
  specifier === 'resilient-socket'
    ? importNames(format, [className, 'isResilientSocketError'], specifier)
    : `${importNames(format, [className], specifier)}\n${importNames(format, ['isResilientSocketError'], 'resilient-socket')}`
}
if (typeof globalThis.WebSocket === 'function') {
  console.log('OK   [${format}] ${className}: this Node has a global WebSocket; the no-ws error does not apply');
} else {
  try {
    new ${className}('ws://127.0.0.1:9');
    console.error('FAIL [${format}] ${className}: constructing without ws did not throw');
    process.exitCode = 1;
  } catch (error) {
    if (isResilientSocketError(error) && error.code === 'ERR_RS_NO_WEBSOCKET' && /npm install ws/.test(error.message)) {
      console.log('OK   [${format}] ${className} without ws: ' + error.message.split('.')[0]);
    } else {
      console.error('FAIL [${format}] ${className}: unexpected error without ws:', error);
      process.exitCode = 1;
    }
  }
}
`;

const SOCKET_ECHO = (format, { className, specifier }) => `${importNames(format, [className], specifier)}
${importNames(format, ['WebSocketServer'], 'ws')}
const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
server.on('connection', (ws) => ws.on('message', (data) => ws.send('echo:' + data)));
server.on('listening', () => {
  const { port } = server.address();
  // No WebSocket option: the Node entry must find ws by itself.
  const socket = new ${className}('ws://127.0.0.1:' + port);
  const deadline = setTimeout(() => {
    console.error('FAIL [${format}] ${className}: no echo within 5 s; state ' + socket.state);
    process.exit(1);
  }, 5000);
  socket.on('message', (data) => {
    if (String(data) !== 'echo:hello') return;
    clearTimeout(deadline);
    socket.on('state', ({ current }) => {
      if (current !== 'closed') return;
      server.close();
      console.log('OK   [${format}] ${className}: sent before open, echoed, closed; the process must now exit by itself');
    });
    socket.close();
  });
  if (socket.send('hello') !== 'buffered') {
    console.error('FAIL [${format}] ${className}: send() before open did not buffer');
    process.exitCode = 1;
  }
});
`;

function runSocketChecks(consumerDir) {
  for (const entry of SOCKET_CLASSES) {
    runConsumerTest(consumerDir, `${entry.file}-no-ws.mjs`, SOCKET_NO_WS('esm', entry));
    runConsumerTest(consumerDir, `${entry.file}-no-ws.cjs`, SOCKET_NO_WS('cjs', entry));
  }
  run('npm', ['install', 'ws@8', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: consumerDir });
  for (const entry of SOCKET_CLASSES) {
    for (const [file, format] of [
      [`${entry.file}-echo.mjs`, 'esm'],
      [`${entry.file}-echo.cjs`, 'cjs'],
    ]) {
      writeFileSync(join(consumerDir, file), (entry.echo ?? SOCKET_ECHO)(format, entry));
      const started = Date.now();
      execFileSync(process.execPath, [file], { cwd: consumerDir, stdio: 'inherit', timeout: 10_000 });
      console.log(`  ${file}: exited by itself after ${Date.now() - started} ms`);
    }
  }
  return `${SOCKET_CLASSES.map(({ className, specifier }) => `${className} (${specifier})`).join(', ')}: no ws → ERR_RS_NO_WEBSOCKET; with ws → echo over a real server; process exits after close()`;
}

/** `resilient-socket/server` from the tarball (ws is installed by runSocketChecks), ESM and CJS. */
function runServerChecks(consumerDir) {
  for (const format of ['esm', 'cjs']) {
    const file = `server-round-trip.${format === 'esm' ? 'mjs' : 'cjs'}`;
    writeFileSync(join(consumerDir, file), SERVER_ROUND_TRIP(format));
    const started = Date.now();
    execFileSync(process.execPath, [file], { cwd: consumerDir, stdio: 'inherit', timeout: 10_000 });
    console.log(`  ${file}: exited by itself after ${Date.now() - started} ms`);
  }
  writeFileSync(join(consumerDir, 'delivery-round-trip.mjs'), DELIVERY_ROUND_TRIP);
  const started = Date.now();
  execFileSync(process.execPath, ['delivery-round-trip.mjs'], { cwd: consumerDir, stdio: 'inherit', timeout: 15_000 });
  console.log(`  delivery-round-trip.mjs: exited by itself after ${Date.now() - started} ms`);
  return 'import and require; delivered once, acknowledged, send() resolved; with ResilientSocket delivery through a cut connection; the process exits after close()';
}

// ---------------------------------------------------------------------------------------------
// ResilientSocket's and BaseSocket's names in every built entry: the bundler renames classes whose
// names collide (the Node entries' subclasses became `ResilientSocket2` and `BaseSocket2`), and
// users see `constructor.name` in util.inspect, console.log and stack traces. The browser entries
// (index, modular, websocket, shared) are loaded by file path, as a browser bundle or a
// `browser`-field resolver would pick them: the production flavour (dist/), then the development
// one (dist/dev/), which the Node entries share their chunks with.

const CLASS_NAME = (format, label, specifier, className) => `${importNames(format, [className], specifier)}
${importNames(format, ['inspect'], 'node:util')}
// No connection: a stand-in WebSocket class, and autoConnect off.
const socket = new ${className}('ws://127.0.0.1:9', { autoConnect: false, WebSocket: class {} });
const seen = { class: ${className}.name, constructor: socket.constructor.name, inspect: inspect(socket).slice(0, 20) };
if (seen.class === '${className}' && seen.constructor === '${className}' && /^${className} {/.test(seen.inspect)) {
  console.log('OK   [${format}] ${label}: ${className}.name, constructor.name and util.inspect say ${className}');
} else {
  console.error('FAIL [${format}] ${label}: ${className} is named ' + JSON.stringify(seen));
  process.exitCode = 1;
}
`;

/**
 * SharedSocket in Node: with no Web Locks API it refuses clearly (ERR_RS_NO_SHARING); with stand-ins
 * for the lock manager and Node's own BroadcastChannel, its name, constructor.name and util.inspect.
 */
const SHARED_CLASS_NAME = (format, label, specifier, className) => `${importNames(format, [className], specifier)}
${importNames(format, ['inspect'], 'node:util')}
let refused;
try {
  new ${className}('ws://127.0.0.1:9', { autoConnect: false });
} catch (error) {
  refused = error.code;
}
const locks = { request: () => new Promise(() => {}) };
const socket = new ${className}('ws://127.0.0.1:9', { autoConnect: false, WebSocket: class {}, locks });
const seen = { refused, class: ${className}.name, constructor: socket.constructor.name, inspect: inspect(socket).slice(0, 20) };
socket.close();
if (refused === 'ERR_RS_NO_SHARING' && seen.class === '${className}' && seen.constructor === '${className}' && /^${className} {/.test(seen.inspect)) {
  console.log('OK   [${format}] ${label}: without Web Locks ERR_RS_NO_SHARING; ${className}.name, constructor.name and util.inspect say ${className}');
} else {
  console.error('FAIL [${format}] ${label}: ' + JSON.stringify(seen));
  process.exitCode = 1;
}
`;

function runClassNameChecks(consumerDir) {
  const dist = join(consumerDir, 'node_modules', 'resilient-socket', 'dist');
  const devFile = (file) => pathToFileURL(join(dist, 'dev', file)).href;
  const cases = [
    ['esm', 'node entry (resilient-socket)', 'resilient-socket', 'ResilientSocket'],
    ['cjs', 'node entry (resilient-socket)', 'resilient-socket', 'ResilientSocket'],
    ['esm', 'index entry (dist/index.js)', pathToFileURL(join(dist, 'index.js')).href, 'ResilientSocket'],
    ['cjs', 'index entry (dist/index.cjs)', join(dist, 'index.cjs'), 'ResilientSocket'],
    ['esm', 'modular node entry (resilient-socket/modular)', 'resilient-socket/modular', 'BaseSocket'],
    ['cjs', 'modular node entry (resilient-socket/modular)', 'resilient-socket/modular', 'BaseSocket'],
    ['esm', 'modular entry (dist/modular.js)', pathToFileURL(join(dist, 'modular.js')).href, 'BaseSocket'],
    ['cjs', 'modular entry (dist/modular.cjs)', join(dist, 'modular.cjs'), 'BaseSocket'],
    // resilient-socket/websocket's ResilientWebSocket is BaseWebSocket (the core drop-in), under both names.
    [
      'esm',
      'websocket node entry (resilient-socket/websocket)',
      'resilient-socket/websocket',
      'ResilientWebSocket',
      'BaseWebSocket',
    ],
    [
      'cjs',
      'websocket node entry (resilient-socket/websocket)',
      'resilient-socket/websocket',
      'ResilientWebSocket',
      'BaseWebSocket',
    ],
    ['esm', 'websocket node entry (resilient-socket/websocket)', 'resilient-socket/websocket', 'BaseWebSocket'],
    [
      'esm',
      'websocket entry (dist/websocket.js)',
      pathToFileURL(join(dist, 'websocket.js')).href,
      'ResilientWebSocket',
      'BaseWebSocket',
    ],
    ['cjs', 'websocket entry (dist/websocket.cjs)', join(dist, 'websocket.cjs'), 'ResilientWebSocket', 'BaseWebSocket'],
    ['esm', 'node entry (resilient-socket)', 'resilient-socket', 'ResilientWebSocket'],
    ['cjs', 'index entry (dist/index.cjs)', join(dist, 'index.cjs'), 'ResilientWebSocket'],
    ['esm', 'shared node entry (resilient-socket/shared)', 'resilient-socket/shared', 'SharedSocket'],
    ['cjs', 'shared node entry (resilient-socket/shared)', 'resilient-socket/shared', 'SharedSocket'],
    ['esm', 'shared entry (dist/shared.js)', pathToFileURL(join(dist, 'shared.js')).href, 'SharedSocket'],
    ['cjs', 'shared entry (dist/shared.cjs)', join(dist, 'shared.cjs'), 'SharedSocket'],
    ['esm', 'development index entry (dist/dev/index.js)', devFile('index.js'), 'ResilientSocket'],
    ['cjs', 'development modular entry (dist/dev/modular.cjs)', join(dist, 'dev', 'modular.cjs'), 'BaseSocket'],
    [
      'esm',
      'development websocket entry (dist/dev/websocket.js)',
      devFile('websocket.js'),
      'ResilientWebSocket',
      'BaseWebSocket',
    ],
    ['esm', 'development shared entry (dist/dev/shared.js)', devFile('shared.js'), 'SharedSocket'],
  ];
  const failed = [];
  cases.forEach(([format, label, specifier, className, name = className], i) => {
    try {
      runConsumerTest(
        consumerDir,
        `class-name-${i}.${format === 'esm' ? 'mjs' : 'cjs'}`,
        className.endsWith('WebSocket')
          ? WEBSOCKET_CLASS_NAME(format, label, specifier, className, name)
          : (className === 'SharedSocket' ? SHARED_CLASS_NAME : CLASS_NAME)(format, label, specifier, className),
      );
    } catch {
      failed.push(`${className} in ${label} (${format})`);
    }
  });
  if (failed.length > 0) fail(`a class is not called by its name: ${failed.join(', ')} (see above)`);
  return 'ResilientSocket in the node and index entries, BaseSocket in the modular ones, BaseWebSocket (also imported as ResilientWebSocket) in the websocket ones, ResilientWebSocket in the main ones, SharedSocket in the shared ones (and ERR_RS_NO_SHARING without Web Locks), ESM and CJS';
}

// ---------------------------------------------------------------------------------------------
// resilient-socket/react and resilient-socket/vue from the tarball, with the React and the Vue the
// repository tests against.

/**
 * Installs `packages` in the consumer project at the versions in the repository's node_modules,
 * runs the binding's SSR script (`ssr`) in both formats and compiles its DOM project (`types`)
 * with skipLibCheck off. Returns the installed version of the first package.
 */
function runBindingChecks(consumerDir, name, { packages, ssr, types }) {
  const versionOf = (pkg) =>
    JSON.parse(readFileSync(join(repoDir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  run(
    'npm',
    ['install', ...packages.map((pkg) => `${pkg}@${versionOf(pkg)}`), '--no-audit', '--no-fund', '--ignore-scripts'],
    { cwd: consumerDir },
  );
  runConsumerTest(consumerDir, `${name}-ssr.mjs`, ssr('esm'));
  runConsumerTest(consumerDir, `${name}-ssr.cjs`, ssr('cjs'));
  writeFileSync(join(consumerDir, `${name}-types.mts`), types);
  writeFileSync(
    join(consumerDir, `tsconfig.${name}.json`),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022', 'DOM'],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: [],
      },
      files: [`${name}-types.mts`],
    }),
  );
  run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', `tsconfig.${name}.json`], { cwd: consumerDir });
  return versionOf(packages[0]);
}

function runReactChecks(consumerDir) {
  const version = runBindingChecks(consumerDir, 'react', {
    packages: ['react', 'react-dom', '@types/react'],
    ssr: REACT_SSR,
    types: REACT_TYPES,
  });
  return `renderToString with the hook: 'idle', no WebSocket, no timer (ESM and CJS); a DOM project with the hook compiles (react ${version})`;
}

function runVueChecks(consumerDir) {
  const version = runBindingChecks(consumerDir, 'vue', { packages: ['vue'], ssr: VUE_SSR, types: VUE_TYPES });
  return `renderToString with the composable: 'idle', no WebSocket, no timer (ESM and CJS); a DOM project with it compiles (vue ${version})`;
}

// ---------------------------------------------------------------------------------------------
// The test kit without mock-socket (an optional peer): everything but FlakyServer works, and
// `new FlakyServer()` says how to install it. Runs before runTestKitAndCli installs mock-socket.

const TEST_KIT_NO_MOCK_SOCKET = (format) => `${
  format === 'esm'
    ? "import { createRequire } from 'node:module';\nimport { ResilientSocket } from 'resilient-socket';\nimport { FlakyServer, TestClock, until, waitFor } from 'resilient-socket/testing';\nconst require = createRequire(import.meta.url);"
    : "const { ResilientSocket } = require('resilient-socket');\nconst { FlakyServer, TestClock, until, waitFor } = require('resilient-socket/testing');"
}
(async () => {
  let installed = true;
  try {
    require.resolve('mock-socket');
  } catch {
    installed = false;
  }
  if (installed) throw new Error('mock-socket is installed in the consumer project; this check needs it absent');
  const clock = new TestClock();
  let fired = 0;
  clock.setTimeout(() => fired++, 10);
  await waitFor(() => fired === 1, { advance: (ms) => clock.advance(ms), within: 100 });
  const socket = new ResilientSocket('ws://127.0.0.1:9', { autoConnect: false, clock, WebSocket: class {} });
  const idle = await until(socket, 'idle', { within: 0 });
  if (idle.state !== 'idle') throw new Error('until(socket, "idle") resolved ' + JSON.stringify(idle));
  let error;
  try {
    new FlakyServer();
  } catch (thrown) {
    error = thrown;
  }
  if (!(error instanceof Error) || !error.message.includes('npm i -D mock-socket')) {
    throw new Error('new FlakyServer() without mock-socket: expected an error saying \`npm i -D mock-socket\`, got ' + (error?.stack ?? error));
  }
  console.log('OK   [${format}] TestClock, waitFor and until work without mock-socket; new FlakyServer(): ' + error.message);
})().catch((error) => {
  console.error('FAIL [${format}]', error);
  process.exitCode = 1;
});
`;

function runTestKitWithoutMockSocket(consumerDir) {
  runConsumerTest(consumerDir, 'test-kit-no-mock-socket.mjs', TEST_KIT_NO_MOCK_SOCKET('esm'));
  runConsumerTest(consumerDir, 'test-kit-no-mock-socket.cjs', TEST_KIT_NO_MOCK_SOCKET('cjs'));
  return 'import and require work; new FlakyServer() says `npm i -D mock-socket`';
}

// ---------------------------------------------------------------------------------------------
// The test kit and the CLI from the tarball, as a user's project would run them (ws is installed
// by runSocketChecks; mock-socket is added here).

const TEST_KIT = (format) => `${
  format === 'esm'
    ? "import { ResilientSocket } from 'resilient-socket';\nimport { ECHO, FlakyServer, TestClock, TestWsServer, until } from 'resilient-socket/testing';"
    : "const { ResilientSocket } = require('resilient-socket');\nconst { ECHO, FlakyServer, TestClock, TestWsServer, until } = require('resilient-socket/testing');"
}
(async () => {
  const flaky = new FlakyServer({ echo: true });
  const socket = new ResilientSocket(flaky.url, { WebSocket: flaky.WebSocket });
  await until(socket, 'open', { within: 2000 });
  socket.send('ping');
  const echoed = await until(socket, 'message', { within: 2000 });
  if (echoed !== 'ping') throw new Error('FlakyServer echo: ' + echoed);
  flaky.drop();
  await until(socket, 'open', { within: 5000, where: (info) => info.reconnected });
  socket.close();
  flaky.stop();
  const clock = new TestClock();
  let fired = 0;
  clock.setTimeout(() => fired++, 10);
  await clock.advance(10);
  if (fired !== 1) throw new Error('TestClock did not fire');
  const server = await TestWsServer.start(ECHO);
  const real = new ResilientSocket(server.url);
  real.send('hello');
  const reply = await until(real, 'message', { within: 5000 });
  if (String(reply) !== 'hello') throw new Error('TestWsServer echo: ' + reply);
  real.close();
  await until(real, 'closed', { within: 5000 });
  await server.stop();
  console.log('OK   [${format}] FlakyServer, until, TestClock and TestWsServer work from the tarball');
})().catch((error) => {
  console.error('FAIL [${format}]', error);
  process.exitCode = 1;
});
`;

const CLI_CHECK = `import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ECHO, TestWsServer } from 'resilient-socket/testing';
const bin = 'node_modules/.bin/resilient-socket';
const { version } = JSON.parse(readFileSync('node_modules/resilient-socket/package.json', 'utf8'));
const check = (label, ok, detail) => {
  if (ok) console.log('OK   [cli] ' + label);
  else { console.error('FAIL [cli] ' + label + ': ' + detail); process.exitCode = 1; }
};
const v = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 10000 });
check('--version prints ' + version, v.status === 0 && v.stdout.trim() === version, JSON.stringify(v));
const server = await TestWsServer.start(ECHO);
const run = (args) => new Promise((resolve) => {
  import('node:child_process').then(({ execFile }) => {
    execFile(bin, args, { timeout: 15000 }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
});
const echo = await run([server.url, '--send', 'one', '--send', 'two', '-n', '2']);
check('--send echoes in order, exit 0', echo.code === 0 && echo.stdout === 'one\\ntwo\\n', JSON.stringify(echo));
const port = server.port;
await server.stop();
const refused = await run(['ws://127.0.0.1:' + port, '--send', 'x', '--max-retries', '1']);
check('a dead server with --max-retries 1 exits 1', refused.code === 1, JSON.stringify(refused));
const usage = await run(['http://nope']);
check('a bad URL exits 2', usage.code === 2 && /ws:\\/\\//.test(usage.stderr), JSON.stringify(usage));
`;

function runTestKitAndCli(consumerDir) {
  run('npm', ['install', 'mock-socket@9', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: consumerDir });
  runConsumerTest(consumerDir, 'test-kit.mjs', TEST_KIT('esm'));
  runConsumerTest(consumerDir, 'test-kit.cjs', TEST_KIT('cjs'));
  runConsumerTest(consumerDir, 'cli-check.mjs', CLI_CHECK);
  return 'test kit (ESM and CJS) and the resilient-socket bin work from the installed tarball';
}

// ---------------------------------------------------------------------------------------------
// Bundlers

async function bundle(consumerDir, name, source, options) {
  const result = await esbuild.build({
    absWorkingDir: consumerDir,
    stdin: { contents: source, resolveDir: consumerDir, sourcefile: `${name}.entry.js`, loader: 'js' },
    bundle: true,
    minify: true,
    metafile: true,
    write: false,
    logLevel: 'silent',
    ...options,
  });
  if (result.warnings.length > 0) {
    const text = await esbuild.formatMessages(result.warnings, { kind: 'warning' });
    fail(`esbuild warned while bundling ${name}:\n${text.join('\n')}`);
  }
  const inputs = Object.keys(result.metafile.inputs).map(toPosix);
  const code = result.outputFiles[0].contents;
  return { inputs, code };
}

function assertFromPackage(name, inputs, files) {
  for (const file of files) {
    if (!inputs.some((input) => input.endsWith(`node_modules/resilient-socket/${file}`))) {
      fail(`${name}: expected input node_modules/resilient-socket/${file}; got\n  ${inputs.join('\n  ')}`);
    }
  }
}

/**
 * Whether a file of the package holds the ws transport (src/transports/ws/: Node only), which only
 * the Node variants import. The built files are not minified: esbuild marks each source module
 * with a `// src/...` comment.
 */
function isWsTransport(consumerDir, input) {
  if (!input.includes('node_modules/resilient-socket/dist/')) return false;
  return readFileSync(join(consumerDir, input), 'utf8').includes('// src/transports/ws/');
}

/**
 * What is wrong with a browser bundle's inputs: a file of the other flavour (`dist/dev/` is the
 * development one), a Node entry or the test kit, the ws transport or ws itself.
 */
function wrongFlavour(consumerDir, inputs, development) {
  return inputs.filter(
    (input) =>
      input.includes('node_modules/ws/') ||
      (input.includes('node_modules/resilient-socket/dist/') &&
        (input.includes('/dist/dev/') !== development ||
          [...NODE_VARIANTS, 'testing', 'server'].some(
            (name) => /\/dist\/dev\/[\w-]+\.c?js$/.test(input) && input.includes(`/dist/dev/${name}.`),
          ) ||
          isWsTransport(consumerDir, input))),
  );
}

async function browserBundles(consumerDir) {
  const sizes = [];
  for (const { specifier, file } of ENTRY_POINTS) {
    for (const development of [false, true]) {
      const label = `${specifier} (browser, esm, ${development ? 'development' : 'production'})`;
      // Re-export everything so tree-shaking (the package has "sideEffects": false) keeps it all.
      const { inputs, code } = await bundle(consumerDir, specifier, `export * from '${specifier}';\n`, {
        platform: 'browser',
        format: 'esm',
        // The app has React or Vue already (a peer dependency): not counted.
        external: ['react', 'vue'],
        ...(development ? { conditions: ['development'] } : {}),
      });
      assertFromPackage(label, inputs, [`dist/${development ? 'dev/' : ''}${file}.js`]);
      const wrong = wrongFlavour(consumerDir, inputs, development);
      if (wrong.length > 0) fail(`${label} bundle holds Node-only code or the other flavour: ${wrong.join(', ')}`);
      if (Buffer.from(code).toString('utf8').includes('node:module')) fail(`${label} bundle imports node:module`);
      if (file === 'backoff') {
        const banned = inputs.filter((input) => input.includes('eventemitter3') || input.includes('node_modules/ws/'));
        if (banned.length > 0) {
          fail(`${specifier} must not depend on eventemitter3 or ws, but bundles ${banned.join(', ')}`);
        }
      }
      const gzipped = gzipSync(code).length;
      if (!development) sizes.push(`${specifier}: ${code.length} B min, ${gzipped} B gzip`);
      console.log(`  ${label}: ${inputs.length} inputs`);
      for (const input of inputs) console.log(`    ${input}`);
      console.log(`    minified ${formatBytes(code.length)}, gzipped ${formatBytes(gzipped)}`);
    }
  }
  // Every browser entry in one app: one flavour throughout, whichever the conditions pick.
  const everything = ENTRY_POINTS.map(({ specifier }, i) => `export * as e${i} from '${specifier}';`).join('\n');
  for (const development of [false, true]) {
    const { inputs } = await bundle(consumerDir, 'every entry', everything, {
      platform: 'browser',
      format: 'esm',
      external: ['react', 'vue'],
      ...(development ? { conditions: ['development'] } : {}),
    });
    const wrong = wrongFlavour(consumerDir, inputs, development);
    if (wrong.length > 0)
      fail(`every entry at once (${development ? 'development' : 'production'}): ${wrong.join(', ')}`);
  }
  return `production by default, development under the \`development\` condition, never mixed; ${sizes.join('; ')}`;
}

async function nodeCjsBundle(consumerDir) {
  const name = 'node-cjs';
  const source = `'use strict';
const root = require('resilient-socket');
const m = require('resilient-socket/modular');
const b = require('resilient-socket/backoff');
const names = ${JSON.stringify(FUNCTIONS)};
const missing = names.filter((n) => typeof root[n] !== 'function' || typeof b[n] !== 'function');
if (missing.length > 0) throw new Error('not functions: ' + missing.join(', '));
const missingModular = ['BaseSocket', ...${JSON.stringify(FEATURES)}].filter((n) => typeof m[n] !== 'function');
if (missingModular.length > 0) throw new Error('resilient-socket/modular: not functions: ' + missingModular.join(', '));
if (m.BaseSocket.name !== 'BaseSocket') throw new Error('BaseSocket.name is ' + m.BaseSocket.name);
if (b.truncatedBinaryExponential().baseDelay !== 19.53125) throw new Error('wrong baseDelay');
b.retry((a) => (a < 3 ? Promise.reject(new Error('x')) : 'ok'), { backoff: b.constant({ delay: 0 }) }).then(
  (value) => {
    if (value !== 'ok') throw new Error('retry() resolved ' + JSON.stringify(value));
    console.log('OK   [bundled cjs] exports (resilient-socket/modular too), baseDelay and retry() work');
  },
);
`;
  const { inputs, code } = await bundle(consumerDir, name, source, {
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    // ws's optional native add-ons, if ws is ever bundled here.
    external: ['bufferutil', 'utf-8-validate'],
  });
  // The require() calls must have gone through the "require" condition.
  // platform 'node' selects the "node" condition: the Node entries (with the ws fallback), and
  // the development flavour of `resilient-socket/backoff`.
  assertFromPackage(name, inputs, ['dist/dev/node.cjs', 'dist/dev/modular-node.cjs', 'dist/dev/backoff.cjs']);
  const production = inputs.filter((input) => /node_modules\/resilient-socket\/dist\/[\w-]+\.c?js$/.test(input));
  if (production.length > 0) fail(`${name}: the Node bundle holds the production flavour: ${production.join(', ')}`);
  const esm = inputs.filter((input) => /node_modules\/resilient-socket\/dist\/.*\.js$/.test(input));
  if (esm.length > 0) fail(`${name}: require() resolved to ESM files: ${esm.join(', ')}`);
  console.log(`  ${name}: ${inputs.length} inputs`);
  for (const input of inputs) console.log(`    ${input}`);
  const outFile = join(consumerDir, 'bundle.node.cjs');
  writeFileSync(outFile, code);
  run(process.execPath, [outFile], { cwd: consumerDir });
  return `require() resolved to dist/dev/*.cjs; ${formatBytes(code.length)}; the bundle runs under node`;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  console.log(`check-package: ${repoDir}`);
  let packed;
  await check('npm pack', () => {
    packed = pack();
    return packed.tarball;
  });
  if (packed) {
    const { tarball, info } = packed;
    await check('tarball contents', () => checkTarballContents(info));
    await check('declarations do not point at src/', () => checkDeclarations(info));
    await check('publint --strict', () => runPublint(tarball));
    await check('attw (strict profile, node10 included)', () => runAttw(tarball));

    let consumerDir;
    await check('install the tarball in a consumer project', () => {
      consumerDir = createConsumer(tarball);
      return consumerDir;
    });
    if (consumerDir) {
      await check('consumer: import (test.mjs)', () => runConsumerTest(consumerDir, 'test.mjs', CONSUMER_TEST_MJS));
      await check('consumer: require (test.cjs)', () => runConsumerTest(consumerDir, 'test.cjs', CONSUMER_TEST_CJS));
      await check('consumer: ResilientSocket, BaseSocket and ResilientWebSocket in Node (no ws, then ws)', () =>
        runSocketChecks(consumerDir),
      );
      await check('consumer: resilient-socket/server (a ReliableServer round trip, ESM and CJS)', () =>
        runServerChecks(consumerDir),
      );
      await check('consumer: resilient-socket/server on Redis (two servers, one store, a real redis-server)', () =>
        runClusterCheck({
          consumerDir,
          install: (specs) =>
            run('npm', ['install', ...specs, '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: consumerDir }),
          redisVersion: JSON.parse(readFileSync(join(repoDir, 'node_modules/redis/package.json'), 'utf8')).version,
          fail,
        }),
      );
      await check('consumer: redis is an optional peer of the server entry, named by no browser file', () =>
        checkRedisOptional({
          packageJson: JSON.parse(
            readFileSync(join(consumerDir, 'node_modules/resilient-socket/package.json'), 'utf8'),
          ),
          distDir: join(consumerDir, 'node_modules/resilient-socket'),
          browserFiles: [
            ...BROWSER_FILES.map((file) => `dist/${file}.js`),
            ...BROWSER_FILES.map((file) => `dist/dev/${file}.js`),
          ],
          fail,
        }),
      );
      await check('consumer: the class names in every entry (ESM and CJS)', () => runClassNameChecks(consumerDir));
      await check('consumer: ResilientWebSocket types (DOM and Node projects, skipLibCheck off)', () =>
        checkWebSocketTypes({
          write: (file, text) => writeFileSync(join(consumerDir, file), text),
          install: (specs) =>
            run('npm', ['install', ...specs, '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: consumerDir }),
          run: (command, args) => run(command, args, { cwd: consumerDir }),
          typescript: JSON.parse(readFileSync(join(repoDir, 'node_modules/typescript/package.json'), 'utf8')).version,
          typesNode: JSON.parse(readFileSync(join(repoDir, 'node_modules/@types/node/package.json'), 'utf8')).version,
        }),
      );
      await check('consumer: resilient-socket/react (SSR in Node, ESM and CJS; types in a DOM project)', () =>
        runReactChecks(consumerDir),
      );
      await check('consumer: resilient-socket/vue (SSR in Node, ESM and CJS; types in a DOM project)', () =>
        runVueChecks(consumerDir),
      );
      await check('consumer: test kit without mock-socket', () => runTestKitWithoutMockSocket(consumerDir));
      await check('consumer: test kit and CLI (resilient-socket/testing, bin)', () => runTestKitAndCli(consumerDir));
      await check('esbuild: browser bundles', () => browserBundles(consumerDir));
      await check('esbuild: resilient-socket/server stays out of browser bundles', () =>
        checkServerNotForBrowsers({ bundle, consumerDir, entries: ENTRY_POINTS, fail }),
      );
      await check('esbuild: node CJS bundle', () => nodeCjsBundle(consumerDir));
      await check('no browser file of dist/ reads `process`', () =>
        checkNoProcess({ esbuild, distDir: join(consumerDir, 'node_modules', 'resilient-socket', 'dist'), fail }),
      );
      await check('the same errors in production, development and Node (browser bundles run with no `process`)', () =>
        runModeChecks({ esbuild, consumerDir, fail }),
      );
    }
  }

  header('summary');
  for (const { name, ok, detail } of results) {
    const firstLine = detail?.split('\n')[0];
    console.log(`${ok ? 'OK  ' : 'FAIL'} ${name}${firstLine ? `: ${firstLine}` : ''}`);
  }
  for (const note of notes) console.log(`note: ${note}`);
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) {
    console.error(`\ncheck-package: ${failed.length} of ${results.length} checks FAILED`);
    return 1;
  }
  console.log(`\ncheck-package: all ${results.length} checks passed`);
  return 0;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  console.error(`check-package: unexpected error: ${describeError(error)}`);
} finally {
  if (keepTmp) {
    for (const dir of tmpDirs) console.log(`kept ${dir}`);
  } else {
    for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
  }
}
// esbuild's service process is unref'd, so the event loop drains on its own and output is flushed.
process.exitCode = exitCode;
