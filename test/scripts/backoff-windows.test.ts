import { describe, expect, it } from 'vitest';
import { formatTable, retryFlakyCall, retryLine, windowsTable } from '../../examples/backoff-windows.js';
import { constant, truncatedWindow } from '../../src/backoff/index.js';
import { TestClock } from '../../src/testing/index.js';

/** A policy that returns `delays` in turn. */
const scripted = (...delays: number[]) => {
  let i = 0;
  return {
    next: () => delays[i++] ?? Number.NaN,
    reset: () => {
      i = 0;
    },
  };
};

// `npm run demo:backoff` (examples/backoff-windows.ts). Regression, it was: console.table, with an
// "(index)" column, every number in quotes and no unit; and "attempt 1 failed (attempt 1 failed)".
describe('npm run demo:backoff', () => {
  it('the windows table: units under the titles, numbers right-aligned, no index column, no quotes', () => {
    const table = windowsTable(
      { truncated: scripted(3.24, 33.2, 1212.46), constant: constant({ delay: 1_000 }) },
      (n) => truncatedWindow(10_000, 10, n),
      3,
    );
    expect(table.split('\n')).toEqual([
      'failure  truncated window  truncated  constant',
      '         (ms)                   (ms)      (ms)',
      '───────  ────────────────  ─────────  ────────',
      '      1  [0, 19.53125)           3.2    1000.0',
      '      2  [0, 39.0625)           33.2    1000.0',
      '      3  [0, 78.125)          1212.5    1000.0',
    ]);
    expect(table).not.toMatch(/\(index\)|'/);
  });

  it('formatTable: each column as wide as its widest cell, text left, numbers right, no trailing spaces', () => {
    expect(
      formatTable(
        [{ title: 'name', align: 'left' }, { title: 'n' }, { title: 'wait', unit: 's' }],
        [
          ['a', '1', '0.5'],
          ['longer', '100', '12.25'],
        ],
      ),
    ).toBe(
      [
        'name      n   wait',
        '               (s)',
        '──────  ───  ─────',
        'a         1    0.5',
        'longer  100  12.25',
      ].join('\n'),
    );
  });

  it('retry() against the flaky call: each line says what failed once, then the wait', async () => {
    const lines: string[] = [];
    const clock = new TestClock();
    const done = retryFlakyCall((line) => lines.push(line), clock);
    await clock.advance(1_000);
    await done;
    expect(lines).toHaveLength(4);
    lines.slice(0, 3).forEach((line, i) => {
      expect(line).toMatch(
        new RegExp(
          `^retry: attempt ${i + 1} failed \\(service unavailable\\); waiting \\d+\\.\\d ms before attempt ${i + 2}$`,
        ),
      );
    });
    expect(lines[3]).toMatch(/^retry: resolved "done" after 4 calls in \d+ ms$/);
  });

  it('a retry line says what failed once, then the wait', () => {
    const line = retryLine({ attempt: 1, delay: 7.84, error: new Error('service unavailable') });
    expect(line).toBe('retry: attempt 1 failed (service unavailable); waiting 7.8 ms before attempt 2');
    expect(retryLine({ attempt: 2, delay: 10, error: 'down' })).toBe(
      'retry: attempt 2 failed (down); waiting 10.0 ms before attempt 3',
    );
  });
});
