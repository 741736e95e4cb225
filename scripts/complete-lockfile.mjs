#!/usr/bin/env node
/**
 * Completes package-lock.json with the platform-specific optional packages that the npm mirror
 * reachable from our build machines does not serve (e.g. @biomejs/cli-darwin-arm64, the musl and
 * Windows builds of rollup). Without their entries `npm ci` refuses the lockfile as "out of sync",
 * although npm would skip those packages on Linux x64 anyway.
 *
 * For each optional dependency that a locked package declares but the lockfile lacks, it adds an
 * entry with the version, the registry tarball URL and the os/cpu/libc read off the package name,
 * so npm skips it on every other platform exactly as it would with the real manifest.
 * Run it after every `npm install` that changes the lockfile: `node scripts/complete-lockfile.mjs`.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['android', 'darwin', 'freebsd', 'linux', 'netbsd', 'openbsd', 'openharmony', 'sunos', 'win32', 'aix'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el'];

function platformOf(name) {
  const tokens = name.split('/').pop().split('-');
  const os = tokens.find((t) => OS.includes(t));
  const cpu = tokens.find((t) => CPU.includes(t));
  if (!os || !cpu) return undefined;
  const entry = { os: [os], cpu: [cpu] };
  if (os === 'linux') entry.libc = [tokens.some((t) => t.startsWith('musl')) ? 'musl' : 'glibc'];
  return entry;
}

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const added = [];
const unknown = [];
for (const [key, pkg] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    if (lock.packages[`node_modules/${dep}`] || lock.packages[`${key}/node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) {
      unknown.push(dep);
      continue;
    }
    const base = dep.split('/').pop();
    lock.packages[`node_modules/${dep}`] = {
      version,
      resolved: `https://registry.npmjs.org/${dep}/-/${base}-${version}.tgz`,
      ...(pkg.dev ? { dev: true } : {}),
      optional: true,
      ...platform,
    };
    added.push(`${dep}@${version}`);
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : a < b ? -1 : 1)));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added.length} platform entries`);
if (unknown.length) {
  console.error(`complete-lockfile: cannot infer the platform of ${unknown.join(', ')}`);
  process.exitCode = 1;
}
