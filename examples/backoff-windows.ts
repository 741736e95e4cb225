/**
 * Prints the delay windows of every built-in strategy side by side, then runs `retry()` against
 * an operation that fails three times. Run with `npm run demo:backoff`.
 */
import {
  constant,
  decorrelatedJitter,
  equalJitter,
  exponential,
  fullJitter,
  retry,
  truncatedBinaryExponential,
  truncatedWindow,
} from '../src/backoff/index.js';

const T = 10_000;
const N = 10;
const tbe = truncatedBinaryExponential({ maxDelay: T, ceiling: N });
console.log(`Truncated binary exponential, T = ${T} ms, N = ${N}: a = T / 2^(N-1) = ${tbe.baseDelay} ms\n`);

// One row per failure; each cell is one draw (a fresh random number per call).
const policies = {
  truncated: tbe,
  full: fullJitter({ base: 100, cap: T }),
  equal: equalJitter({ base: 100, cap: T }),
  decorrelated: decorrelatedJitter({ base: 100, cap: T }),
  exponential: exponential({ base: 100, cap: T }),
  constant: constant({ delay: 1_000 }),
};
const rows = [];
for (let n = 1; n <= 12; n++) {
  const row: Record<string, string> = { failure: String(n), 'truncated window': `[0, ${truncatedWindow(T, N, n)})` };
  for (const [name, policy] of Object.entries(policies)) row[name] = policy.next().toFixed(1);
  rows.push(row);
}
console.table(rows);

let calls = 0;
const started = Date.now();
const value = await retry(
  async (attempt) => {
    calls++;
    if (attempt < 4) throw new Error(`attempt ${attempt} failed`);
    return 'done';
  },
  {
    onRetry: ({ attempt, delay, error }) =>
      console.log(`retry: attempt ${attempt} failed (${(error as Error).message}); waiting ${delay.toFixed(1)} ms`),
  },
);
console.log(`retry: resolved "${value}" after ${calls} calls in ${Date.now() - started} ms`);
