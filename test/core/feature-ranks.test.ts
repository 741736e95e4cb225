/**
 * The rank order `src/core/feature.ts` states (on `Feature.rank`) and the architecture page lists is
 * the order the factories give: a reader who trusts either is not misled.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  abortSignal,
  asyncIteration,
  bufferPolicy,
  delivery,
  handshake,
  heartbeat,
  providers,
  resume,
  stats,
  unref,
  upgradeRejection,
} from '../../src/modular.js';

describe('feature ranks', () => {
  it('feature.ts and the architecture page name every feature with the rank its factory gives', () => {
    const text = readFileSync(new URL('../../src/core/feature.ts', import.meta.url), 'utf8');
    const comment = /Hooks run in ascending rank: ([^@]+)@internal/.exec(text)?.[1]?.replace(/\s*\*\s*/g, ' ') ?? '';
    const stated = new Map(
      [...comment.matchAll(/([a-z][a-z ]*?)\s(\d+)/g)].map((m) => [
        (m[1] as string).trim().replace(/ /g, ''),
        Number(m[2]),
      ]),
    );
    const factories = {
      providers: providers(),
      delivery: delivery(),
      handshake: handshake(() => undefined),
      heartbeat: heartbeat(),
      resume: resume(),
      upgraderejection: upgradeRejection(),
      bufferpolicy: bufferPolicy(),
      abortsignal: abortSignal(),
      unref: unref(),
      stats: stats(),
      asynciteration: asyncIteration(),
    };
    const given = new Map(Object.entries(factories).map(([name, feature]) => [name, feature.rank]));
    expect(Object.fromEntries(stated)).toEqual(Object.fromEntries(given));
    // The architecture page says the same.
    const page = readFileSync(new URL('../../docs/guide/architecture.md', import.meta.url), 'utf8');
    const line = /\bRanks: ([^.]+)\./.exec(page.replace(/\n(?=\w)/g, ' '))?.[1] ?? '';
    const documented = new Map(
      [...line.matchAll(/(\w+) (\d+)/g)].map((m) => [(m[1] as string).toLowerCase(), Number(m[2])]),
    );
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(given));
  });
});
