// The package's two flavours, checked from the installed tarball (a helper of check-package.mjs):
//   - no browser file of dist/ (the production flavour, and the development flavour's browser entries
//     with the chunks they import) reads the global `process`;
//   - the same errors everywhere: a few bad inputs, bundled for the browser and run with no `process`
//     global (a vm context, as a browser loading the file directly), in production mode (esbuild's
//     own minified build; a build where nothing replaced anything; CommonJS) and in development mode
//     (the `development` condition), then in Node (ESM and CommonJS, NODE_ENV unset and
//     "production"). Each gives the same class and `code` in every mode, a message that names the
//     option; production says it short (`` `option`: CODE … ``, or a ResilientSocketError's code
//     alone), development and Node say it in full.

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';

/** The browser entries' files in each flavour's folder of dist/. */
const BROWSER_FILES = ['index', 'modular', 'websocket', 'react', 'vue', 'shared', 'backoff'];

/** The files `entry` loads, itself included: its static imports and requires of chunks, followed. */
function reachable(dir, entry) {
  const seen = new Set();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(join(dir, file), 'utf8');
    for (const [, path] of text.matchAll(/(?:from |import |require\()["']\.\/([\w.-]+\.c?js)["']/g)) queue.push(path);
  }
  return [...seen];
}

/**
 * No browser file reads the global `process`: esbuild's `define` replaces a free `process` (never a
 * property such as `globalThis.process`, nor the word in a string or a comment) with a marker.
 */
export async function checkNoProcess({ esbuild, distDir, fail }) {
  const files = new Set();
  for (const [folder, prefix] of [
    [distDir, ''],
    [join(distDir, 'dev'), 'dev/'],
  ]) {
    for (const entry of BROWSER_FILES) {
      for (const ext of ['js', 'cjs']) {
        for (const file of reachable(folder, `${entry}.${ext}`)) files.add(`${prefix}${file}`);
      }
    }
  }
  const readers = [];
  for (const file of files) {
    const { code } = await esbuild.transform(readFileSync(join(distDir, file), 'utf8'), {
      loader: 'js',
      define: { process: 'PROCESS_GLOBAL_READ' },
      logLevel: 'silent',
    });
    if (code.includes('PROCESS_GLOBAL_READ')) readers.push(file);
  }
  if (readers.length > 0) fail(`browser files of dist/ read the global \`process\`: ${readers.join(', ')}`);
  return `${files.size} browser files (both flavours), none reads \`process\``;
}

/**
 * The bad inputs: each names the option it is about, the class and code it must throw, and what
 * its development text says. `vmOnly`: where there is no WebSocket at all (the vm context).
 */
const PROBES = [
  {
    id: 'BaseSocket maxRetries: -1',
    specifier: 'resilient-socket/modular',
    names: ['BaseSocket'],
    call: "new BaseSocket('ws://127.0.0.1:9', { autoConnect: false, WebSocket: class {}, maxRetries: -1 })",
    kind: 'RangeError',
    code: 'ERR_RS_INVALID_VALUE',
    option: 'maxRetries',
    full: /^Expected `maxRetries` to be an integer/,
  },
  {
    id: 'ResilientSocket maxRetrys: 3',
    specifier: 'resilient-socket',
    names: ['ResilientSocket'],
    call: "new ResilientSocket('ws://127.0.0.1:9', { autoConnect: false, WebSocket: class {}, maxRetrys: 3 })",
    kind: 'TypeError',
    code: 'ERR_RS_UNKNOWN_OPTION',
    option: 'maxRetrys',
    full: /did you mean `maxRetries`/,
  },
  {
    id: "ResilientWebSocket maxRetries: 'x'",
    specifier: 'resilient-socket/websocket',
    names: ['ResilientWebSocket'],
    call: "new ResilientWebSocket('ws://127.0.0.1:9', undefined, { WebSocket: class {}, maxRetries: 'x' })",
    kind: 'TypeError',
    code: 'ERR_RS_INVALID_TYPE',
    option: 'maxRetries',
    full: /^Expected `maxRetries` to be a number, got string "x"/,
  },
  {
    id: 'truncatedBinaryExponential maxDelay: -5',
    specifier: 'resilient-socket/backoff',
    names: ['truncatedBinaryExponential'],
    call: 'truncatedBinaryExponential({ maxDelay: -5 })',
    kind: 'RangeError',
    code: 'ERR_RS_INVALID_VALUE',
    option: 'maxDelay',
    full: /^Expected `maxDelay` to be a finite number/,
  },
  {
    id: 'BaseSocket with no WebSocket anywhere',
    specifier: 'resilient-socket/modular',
    names: ['BaseSocket'],
    call: "new BaseSocket('ws://127.0.0.1:9', { autoConnect: false })",
    kind: 'ResilientSocketError',
    code: 'ERR_RS_NO_WEBSOCKET',
    full: /^No WebSocket implementation found/,
    vmOnly: true,
  },
];

/** A module that runs every probe and hands `report` what each threw. */
function probeSource(format, { vm: inVm }) {
  const probes = PROBES.filter((probe) => inVm || !probe.vmOnly);
  const imports = new Map([['resilient-socket', new Set(['isResilientSocketError'])]]);
  for (const { specifier, names } of probes) {
    const set = imports.get(specifier) ?? new Set();
    for (const name of names) set.add(name);
    imports.set(specifier, set);
  }
  const lines = [...imports].map(([specifier, names]) =>
    format === 'esm'
      ? `import { ${[...names].join(', ')} } from ${JSON.stringify(specifier)};`
      : `const { ${[...names].join(', ')} } = require(${JSON.stringify(specifier)});`,
  );
  lines.push('const results = [];');
  for (const { id, call } of probes) {
    lines.push(`try {
  ${call};
  results.push({ id: ${JSON.stringify(id)}, threw: false });
} catch (error) {
  results.push({
    id: ${JSON.stringify(id)},
    threw: true,
    kind: isResilientSocketError(error) ? 'ResilientSocketError' : error instanceof RangeError ? 'RangeError' : error instanceof TypeError ? 'TypeError' : String(error?.name),
    code: error?.code,
    message: String(error?.message),
  });
}`);
  }
  lines.push('(globalThis.report ?? ((r) => console.log(JSON.stringify(r))))(results);');
  return `${lines.join('\n')}\n`;
}

/** What is wrong with `results`, as lines: the full text expected in development, the short one else. */
function judge(results, development) {
  const problems = [];
  for (const result of results) {
    const probe = PROBES.find((p) => p.id === result.id);
    const where = `${result.id}`;
    if (!result.threw) {
      problems.push(`${where}: did not throw`);
      continue;
    }
    if (result.kind !== probe.kind) problems.push(`${where}: threw a ${result.kind}, expected a ${probe.kind}`);
    if (result.code !== probe.code) problems.push(`${where}: code ${result.code}, expected ${probe.code}`);
    if (probe.option && !result.message.includes(`\`${probe.option}\``)) {
      problems.push(`${where}: the message does not name \`${probe.option}\`: ${JSON.stringify(result.message)}`);
    }
    if (development && !probe.full.test(result.message)) {
      problems.push(`${where}: expected the full text (${probe.full}), got ${JSON.stringify(result.message)}`);
    }
    if (!development) {
      const short = probe.option
        ? result.message.startsWith(`\`${probe.option}\`: ${probe.code}`)
        : result.message === probe.code;
      if (!short || probe.full.test(result.message)) {
        problems.push(`${where}: expected the short production message, got ${JSON.stringify(result.message)}`);
      }
    }
  }
  return problems;
}

/** What every browser has that a vm context lacks (it has the language's built-ins alone). */
const WEB_GLOBALS = [
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'AbortController',
  'AbortSignal',
  'EventTarget',
  'Event',
  'queueMicrotask',
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'console',
];

/**
 * Runs a browser bundle (a script) in a fresh vm context as a page would, less the WebSocket: the
 * web's globals, and no `process`.
 */
function runInVm(code) {
  let reported;
  const context = vm.createContext({
    ...Object.fromEntries(WEB_GLOBALS.map((name) => [name, globalThis[name]])),
    report: (results) => (reported = JSON.parse(JSON.stringify(results))),
  });
  vm.runInContext(code, context, { timeout: 5_000 });
  if (!reported) throw new Error('the bundle ran but reported nothing');
  return reported;
}

/**
 * The browser bundles: what an app's build makes of the probe, each run where `process` does not
 * exist. `development`: the development flavour (and its full text) expected, else the production one.
 */
const BROWSER_MODES = [
  {
    label: 'browser, production: esbuild minified (it defines NODE_ENV itself), ESM imports',
    options: { platform: 'browser', minify: true },
    format: 'esm',
    development: false,
  },
  {
    label: 'browser, production: nothing replaced (no define, not minified)',
    // esbuild defines process.env.NODE_ENV for the browser platform; the neutral one leaves it.
    options: { platform: 'neutral', mainFields: ['module', 'main'] },
    format: 'esm',
    development: false,
  },
  {
    label: 'browser, production: CommonJS require()',
    options: { platform: 'browser', minify: true },
    format: 'cjs',
    development: false,
  },
  {
    label: 'browser, development: the `development` condition (Vite and webpack development builds)',
    options: { platform: 'browser', minify: true, conditions: ['development'] },
    format: 'esm',
    development: true,
  },
  {
    label: 'browser, development: the `development` condition, nothing replaced',
    options: { platform: 'neutral', mainFields: ['module', 'main'], conditions: ['development'] },
    format: 'esm',
    development: true,
  },
];

export async function runModeChecks({ esbuild, consumerDir, fail }) {
  const lines = [];
  const problems = [];
  for (const { label, options, format, development } of BROWSER_MODES) {
    const result = await esbuild.build({
      absWorkingDir: consumerDir,
      stdin: { contents: probeSource(format, { vm: true }), resolveDir: consumerDir, loader: 'js' },
      bundle: true,
      format: 'iife',
      write: false,
      metafile: true,
      logLevel: 'silent',
      ...options,
    });
    // One flavour, and no Node entry (a browser bundle never holds the ws transport).
    const ours = Object.keys(result.metafile.inputs).filter((input) =>
      input.includes('node_modules/resilient-socket/'),
    );
    const wrong = ours.filter(
      (input) => input.includes('/dist/dev/') !== development || /\/(node|[\w-]+-node|testing)\.c?js$/.test(input),
    );
    if (wrong.length > 0) problems.push(`${label}: bundled ${wrong.join(', ')}`);
    let reported;
    try {
      reported = runInVm(result.outputFiles[0].text);
    } catch (error) {
      problems.push(`${label}: the bundle failed where \`process\` does not exist: ${error}`);
      continue;
    }
    problems.push(...judge(reported, development).map((problem) => `${label}: ${problem}`));
    lines.push(`  ${label}: ${reported.length} probes, ${ours.length} files of the package`);
  }
  for (const format of ['esm', 'cjs']) {
    const file = `modes-probe.${format === 'esm' ? 'mjs' : 'cjs'}`;
    writeFileSync(join(consumerDir, file), probeSource(format, { vm: false }));
    for (const nodeEnv of [undefined, 'production']) {
      const label = `Node (${format}, NODE_ENV ${nodeEnv ?? 'unset'})`;
      const env = { ...process.env };
      if (nodeEnv === undefined) delete env.NODE_ENV;
      else env.NODE_ENV = nodeEnv;
      const out = execFileSync(process.execPath, [file], { cwd: consumerDir, env, encoding: 'utf8', timeout: 10_000 });
      const reported = JSON.parse(out.trim().split('\n').pop());
      problems.push(...judge(reported, true).map((problem) => `${label}: ${problem}`));
      lines.push(`  ${label}: ${reported.length} probes`);
    }
  }
  for (const line of lines) console.log(line);
  if (problems.length > 0) fail(`the errors differ between modes:\n  ${problems.join('\n  ')}`);
  return `${BROWSER_MODES.length} browser bundles run with no \`process\` (production short, development full) and Node (full, whatever NODE_ENV): the same classes and codes`;
}
