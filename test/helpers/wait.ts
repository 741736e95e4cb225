/**
 * Real-time waiting for integration tests: every wait is bounded and fails with a message that
 * says what it was waiting for (and, optionally, what the world looked like at the deadline).
 */

/** Resolves after `ms` of real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Poll period in ms. @default 5 */
  interval?: number;
  /** Called at the deadline; its result is appended to the error message (diagnostics). */
  describe?: () => unknown;
}

/**
 * Polls `predicate` every 5 ms (real time) until it returns true, and rejects with
 * `waitFor timed out after <timeoutMs> ms: <what>` if it has not by `timeoutMs`.
 * A predicate that throws fails the wait at once with that error.
 * @returns the elapsed time in ms.
 */
export async function waitFor(
  predicate: () => boolean,
  timeoutMs: number,
  what = 'condition',
  options: WaitForOptions = {},
): Promise<number> {
  const started = performance.now();
  const interval = options.interval ?? 5;
  for (;;) {
    if (predicate()) return performance.now() - started;
    const elapsed = performance.now() - started;
    if (elapsed >= timeoutMs) {
      let detail = '';
      if (options.describe) {
        try {
          detail = `\n  state at the deadline: ${JSON.stringify(options.describe())}`;
        } catch (error) {
          detail = `\n  (describe() threw: ${String(error)})`;
        }
      }
      throw new Error(`waitFor timed out after ${timeoutMs} ms: ${what}${detail}`);
    }
    await sleep(Math.min(interval, Math.max(1, timeoutMs - elapsed)));
  }
}

/** Runs registered cleanups (newest first) in `afterEach`; one failing cleanup does not skip the others. */
export class Cleanup {
  #tasks: (() => unknown)[] = [];

  /** Registers `task` and returns `value` (so creation and registration are one expression). */
  add<T>(value: T, task: (value: T) => unknown): T {
    this.#tasks.push(() => task(value));
    return value;
  }

  async run(): Promise<void> {
    const tasks = this.#tasks.splice(0).reverse();
    const errors: unknown[] = [];
    for (const task of tasks) {
      try {
        await task();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, `${errors.length} cleanup task(s) failed`);
  }
}
