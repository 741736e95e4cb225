import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script, without type declarations
import { checkDocsCode, programsOf } from '../../../scripts/check-docs-code.mjs';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/docs-code.md', import.meta.url));

describe('check-docs-code', () => {
  it('takes the ts and tsx blocks whose first line is an import, with the line of their first code line', () => {
    const blocks: { line: number; lang: string }[] = programsOf(readFileSync(FIXTURE, 'utf8'));
    expect(blocks.map(({ line, lang }) => ({ line, lang }))).toEqual([
      { line: 6, lang: 'ts' },
      { line: 17, lang: 'ts' },
      { line: 40, lang: 'tsx' },
      { line: 51, lang: 'ts' },
    ]);
  });

  it('type-checks them against the sources and reports the failing one at its markdown line', () => {
    const result = checkDocsCode([FIXTURE], { repo: REPO, base: REPO, out: join(REPO, '.tmp', 'docs-code-test') });
    const shown = 'test/integration/scripts/fixtures/docs-code.md';
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(
      new RegExp(`^${shown}:20:3: error TS2322: Type 'string' is not assignable to type 'number'`),
    );
    expect(result.checked).toBe(4);
  }, 60_000);
});
