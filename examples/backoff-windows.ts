/**
 * Prints the delay windows of every built-in strategy side by side, then runs `retry()` against
 * an operation that fails three times. Run with `npm run demo:backoff`.
 */
import { pathToFileURL } from 'node:url';
import {
  type BackoffPolicyLike,
  type Clock,
  constant,
  decorrelatedJitter,
  equalJitter,
  exponential,
  fullJitter,
  type RetryInfo,
  retry,
  systemClock,
  truncatedBinaryExponential,
  truncatedWindow,
} from '../src/backoff/index.js';

/** A column of {@link formatTable}: its title, the unit printed under it, how its cells line up. */
export interface Column {
  readonly title: string;
  readonly unit?: string;
  /** Numbers go right (the default), text left. */
  readonly align?: 'left' | 'right';
}

/**
 * A plain-text table: the titles, the units under them, a rule, then one line per row; columns two
 * spaces apart, each as wide as its widest cell.
 */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const header = [columns.map((c) => c.title), columns.map((c) => (c.unit === undefined ? '' : `(${c.unit})`))];
  const widths = columns.map((_, i) => Math.max(...[...header, ...rows].map((cells) => (cells[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => {
        const width = widths[i] ?? 0;
        return columns[i]?.align === 'left' ? cell.padEnd(width) : cell.padStart(width);
      })
      .join('  ')
      .trimEnd();
  return [...header, widths.map((width) => '─'.repeat(width)), ...rows].map(line).join('\n');
}

/**
 * The windows table: one row per failure (1…`failures`) with the truncated binary exponential window
 * after it, `window(n)`, and one draw from each policy (each call draws a fresh random number).
 */
export function windowsTable(
  policies: Readonly<Record<string, BackoffPolicyLike>>,
  window: (failure: number) => number,
  failures: number,
): string {
  const columns: Column[] = [
    { title: 'failure' },
    { title: 'truncated window', unit: 'ms', align: 'left' },
    ...Object.keys(policies).map((title) => ({ title, unit: 'ms' })),
  ];
  const rows: string[][] = [];
  for (let n = 1; n <= failures; n++) {
    // A window is exact (a power of two times a), a draw is shown to 0.1 ms.
    const draws = Object.values(policies).map((policy) => policy.next().toFixed(1));
    rows.push([String(n), `[0, ${window(n)})`, ...draws]);
  }
  return formatTable(columns, rows);
}

/** What `onRetry` prints: the attempt that failed, why, and the wait before the next one. */
export function retryLine({ attempt, delay, error }: RetryInfo): string {
  const why = error instanceof Error ? error.message : String(error);
  return `retry: attempt ${attempt} failed (${why}); waiting ${delay.toFixed(1)} ms before attempt ${attempt + 1}`;
}

/** Runs `retry()` against a call that fails three times: a line per retry, then the result. */
export async function retryFlakyCall(print: (line: string) => void, clock: Clock = systemClock): Promise<void> {
  let calls = 0;
  const started = clock.now();
  const value = await retry(
    async (attempt) => {
      calls++;
      if (attempt < 4) throw new Error('service unavailable');
      return 'done';
    },
    { onRetry: (info) => print(retryLine(info)), clock },
  );
  print(`retry: resolved "${value}" after ${calls} calls in ${Math.round(clock.now() - started)} ms`);
}

async function main(): Promise<void> {
  const T = 10_000;
  const N = 10;
  const tbe = truncatedBinaryExponential({ maxDelay: T, ceiling: N });
  console.log(`Truncated binary exponential, T = ${T} ms, N = ${N}: a = T / 2^(N-1) = ${tbe.baseDelay} ms\n`);
  const policies = {
    truncated: tbe,
    full: fullJitter({ base: 100, cap: T }),
    equal: equalJitter({ base: 100, cap: T }),
    decorrelated: decorrelatedJitter({ base: 100, cap: T }),
    exponential: exponential({ base: 100, cap: T }),
    constant: constant({ delay: 1_000 }),
  };
  console.log(`${windowsTable(policies, (n) => truncatedWindow(T, N, n), 12)}\n`);
  await retryFlakyCall((line) => console.log(line));
}

const script = process.argv[1];
if (script !== undefined && import.meta.url === pathToFileURL(script).href) await main();
