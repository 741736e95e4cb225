/**
 * `npm run bench`: every benchmark, one after the other, each printing its method and a table with
 * the ratio against a baseline measured in the same run. `--quick` shrinks every size so the whole
 * thing is a CI smoke test (it checks that the benchmarks still run, not the figures); the full
 * run is for people and writes bench/RESULTS.md.
 *
 *   npm run bench              # full: a few minutes, then bench/RESULTS.md
 *   npm run bench -- --quick   # smoke: under two minutes
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { machine } from './lib/stats.js';
import { addonCosts, addonTable, featureCosts, featureTable, sizes, sizeTable } from './size.js';

const quick = process.argv.includes('--quick');
const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs another bench script in its own process: each benchmark starts from a fresh heap and event
 * loop (the memory figures in particular depend on what ran before in the same process).
 */
function script(file: string, args: string[]): string {
  return execFileSync(process.execPath, ['--import', 'tsx', file, ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
}

const sections: string[] = [];
function section(title: string, body: string): void {
  // A script that prints its own heading (the storm does) keeps it.
  const trimmed = body.trim();
  const text = trimmed.startsWith('## ') ? `${trimmed}\n` : `## ${title}\n\n${trimmed}\n`;
  console.log(`${text}\n`);
  sections.push(text);
}

const started = Date.now();
const host = await machine();
console.log(`# Benchmarks${quick ? ' (quick smoke run)' : ''}\n\n${host}\n`);

section(
  'Herd simulator (AWS "Exponential Backoff And Jitter" model)',
  script('bench/simulate.ts', quick ? ['--clients', '10,50', '--trials', '10'] : ['--charts']),
);
section(
  'Storm model (the herd after an outage)',
  script('bench/simulate.ts', quick ? ['--storm', '--clients', '2000'] : ['--storm', '--charts']),
);
section('Reconnect storm', script('bench/storm.ts', quick ? ['--quick'] : ['--chart']));
const mode = quick ? ['--quick'] : [];
section('Throughput overhead', script('bench/throughput.ts', mode));
section('Memory per connected client', script('bench/memory.ts', mode));
section('Buffer flush', script('bench/flush.ts', mode));
section('Acknowledged delivery', script('bench/delivery.ts', mode));
section('Cluster on Redis', script('bench/cluster.ts', mode));
section(
  'Bundle size',
  `${sizeTable(await sizes())}\n\n${featureTable(await featureCosts())}\n\n${addonTable(await addonCosts())}`,
);

const elapsed = ((Date.now() - started) / 1000).toFixed(0);
console.log(`bench: done in ${elapsed} s`);
if (!quick) {
  const header = `# Benchmark results\n\nFull run of \`npm run bench\` on ${host}, ${elapsed} s in all. Each section states its method; ratios are against a baseline measured in the same run.\n`;
  const results = new URL('./RESULTS.md', import.meta.url);
  writeFileSync(results, `${header}\n${sections.join('\n')}`);
  // Formatted as the linter wants it (aligned tables), so a fresh RESULTS.md passes `npm run lint`.
  execFileSync(
    fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url)),
    ['format', '--write', fileURLToPath(results)],
    {
      cwd: root,
      stdio: 'ignore',
    },
  );
  console.log('bench: wrote bench/RESULTS.md');
}
