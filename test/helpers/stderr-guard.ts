/**
 * A passing `npm test` prints nothing on stderr: this setup file (`setupFiles` of the unit,
 * integration, reliability and examples projects, vitest.config.ts) fails the test that writes
 * there. It records, in the test process, what goes to
 * - `console.error` and `console.warn` (React's `act(...)` warnings, a stray log), and
 * - `process.stderr` itself (Node prints every process warning there: `ResilientSocketWarning`s such
 *   as RS_UNHEARD_DROP or a give-up nobody hears, deprecations),
 * still lets it through (so it is seen), and fails the test in an `afterEach` (this file's hooks run
 * last) with what was written; what a `beforeAll`/`afterAll` wrote fails the file's `afterAll`.
 *
 * A test that expects such output captures it: `vi.spyOn(process, 'emitWarning').mockImplementation(…)`
 * or `vi.spyOn(console, 'error').mockImplementation(…)` (restored after), and asserts on it. A
 * `process.on('warning')` listener alone does not capture: Node still prints the warning. Child
 * processes are not watched here: their stderr is the parent test's to read and assert on.
 */

import { format } from 'node:util';
import { afterAll, afterEach } from 'vitest';

const written: string[] = [];
// The real one, taken before any test can install fake timers.
const realSetImmediate = setImmediate;

const stderrWrite = process.stderr.write;
process.stderr.write = function write(this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
  written.push(`stderr: ${typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString()}`);
  return (stderrWrite as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
} as typeof process.stderr.write;

for (const name of ['error', 'warn'] as const) {
  const original = console[name];
  console[name] = (...args: unknown[]) => {
    written.push(`console.${name}: ${format(...args)}`);
    original.apply(console, args);
  };
}

/** Throws with what was written since the last check (after one turn of the event loop: a warning is emitted on the next tick). */
async function check(where: string): Promise<void> {
  await new Promise((resolve) => realSetImmediate(resolve));
  const unexpected = written.splice(0);
  if (unexpected.length === 0) return;
  const what = unexpected.map((text) => `  ${text.trimEnd().replaceAll('\n', '\n    ')}`);
  throw new Error(
    `${where} wrote on stderr (capture and assert what you expect; see test/helpers/stderr-guard.ts):\n${what.join('\n')}`,
  );
}

afterEach(() => check('this test'));
afterAll(() => check('this file (outside its tests)'));
