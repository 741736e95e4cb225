/**
 * The architecture page describes the code as it is: every file of the core has its row in "The
 * core, file by file", the option schema it names exists, and the state table it says the machine
 * reads is the one the machine reads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as options from '../../src/core/options.js';
import * as services from '../../src/core/services.js';
import * as tabReplica from '../../src/core/tab-replica.js';

const page = readFileSync(new URL('../../docs/guide/architecture.md', import.meta.url), 'utf8');
const source = (file: string): string => readFileSync(new URL(`../../src/core/${file}`, import.meta.url), 'utf8');

describe('docs/guide/architecture.md', () => {
  it('has a row for every file of src/core', () => {
    const files = readdirSync(new URL('../../src/core/', import.meta.url)).filter((file) => file.endsWith('.ts'));
    const missing = files.filter((file) => !page.includes(`| \`core/${file}\``));
    expect(missing).toEqual([]);
  });

  it('names the option schema as core/options.ts exports it', () => {
    for (const name of ['CORE_DEFAULTS', 'CORE_NUMBERS', 'FEATURE_OPTIONS']) {
      expect(page, name).toContain(`\`${name}\``);
      expect(options, name).toHaveProperty(name);
    }
  });

  it('names the services and the tab API as the code exports them', () => {
    const keys = Object.entries(services).filter(([, value]) => typeof value === 'symbol');
    expect(keys.map(([name]) => name).sort()).toEqual([
      'COUNTERS',
      'LIVENESS',
      'MESSAGES',
      'SEND_RELIABLE',
      'SNAPSHOT',
    ]);
    for (const [name] of keys) expect(page, name).toContain(`\`${name}\``);
    const table = page.slice(page.indexOf('## Tab sharing'));
    for (const [name] of table.matchAll(/^\| `(\w+)`/gm)) {
      const fn = name.slice(3, -1);
      expect(tabReplica, fn).toHaveProperty(fn);
    }
  });

  it('says the machine reads RULES, as it does', () => {
    expect(page).toContain('`RULES`');
    expect(source('machine.ts')).toMatch(/RULES\[this\.state_\]\.deadline/);
    expect(source('machine.ts')).toMatch(/const \{ terminal \} = RULES\[this\.state_\]/);
    expect(source('commands.ts')).toMatch(/RULES\[machine\.state_\]\.sendsDirectly/);
    expect(source('commands.ts')).toMatch(/RULES\[machine\.state_\]\.buffersSends/);
  });
});
