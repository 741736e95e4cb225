/**
 * `waitFor(() => condition)`: for what no event announces (a server that has received N
 * messages, an app's own state), bounded, in real or fake time.
 */
import { untouchedFlakyServers } from './flaky-registry.js';
import { checkTiming, FAKE_TIMERS_HINT, fakeTimersInstalled, realSetTimeout } from './timing.js';

/** Every option of `waitFor`: any other key is refused (a misspelling would otherwise be ignored). */
const WAIT_FOR_OPTIONS: readonly (keyof WaitForOptions)[] = ['within', 'advance', 'step', 'what'];

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /**
   * Give up after this many milliseconds: of real time (timers fake-timer libraries do not patch),
   * or of fake time when `advance` is given.
   * @default 10_000
   * @example
   * ```ts
   * await waitFor(() => server.received.length === 3, { within: 2_000 })
   * ```
   */
  within?: number;
  /**
   * Moves fake time by `ms` (e.g. `vi.advanceTimersByTimeAsync` or a TestClock's `advance`); the
   * condition is checked after every step. Without it, the condition is polled every `step` ms of
   * real time.
   * @default undefined (real time)
   * @example
   * ```ts
   * await waitFor(() => app.status === 'live', { advance: vi.advanceTimersByTimeAsync })
   * ```
   */
  advance?: (ms: number) => unknown;
  /**
   * The polling period, or how far each `advance` moves time, in ms.
   * @default 1
   * @example
   * ```ts
   * await waitFor(() => feed.ready, { step: 20 }) // poll every 20 ms of real time
   * ```
   */
  step?: number;
  /**
   * Named in the error message on timeout. @default 'condition'
   * @example
   * ```ts
   * await waitFor(() => server.received.length === 2, { ...time, what: 'both subscriptions' })
   * ```
   */
  what?: string;
}

/**
 * Resolves once `condition()` returns true (checked at once, then every `step` ms), and rejects
 * with an error naming `what` if that has not happened within `within` ms (and, when it can tell,
 * why: fake timers while waiting in real time, or a `FlakyServer` no socket reached). A condition that
 * throws rejects with that error; bad arguments throw at once (TypeError or RangeError).
 *
 * ```ts
 * await waitFor(() => server.received.length === 2, { advance: vi.advanceTimersByTimeAsync });
 * ```
 */
export function waitFor(condition: () => boolean, options: WaitForOptions = {}): Promise<void> {
  if (typeof condition !== 'function') throw new TypeError('Expected `condition` to be a function');
  const { within, step, advance } = checkTiming(options, WAIT_FOR_OPTIONS, 'waitFor()');
  const what = options.what ?? 'condition';
  return (async () => {
    for (let elapsed = 0; ; elapsed += step) {
      if (condition()) return;
      if (elapsed >= within) break;
      const ms = Math.min(step, within - elapsed);
      if (advance) await advance(ms);
      else await new Promise((resolve) => realSetTimeout(resolve, ms));
    }
    throw new Error(
      `waitFor: ${what} did not hold within ${within} ms${advance ? ' of fake time' : ''}${hints(advance)}`,
    );
  })();
}

/**
 * What most likely went wrong, for the timeout message: a FlakyServer nothing ever tried to
 * reach (a socket created without its WebSocket class), or fake timers while waiting in real time.
 */
function hints(advance: ((ms: number) => unknown) | undefined): string {
  const found: string[] = [];
  const untouched = untouchedFlakyServers();
  if (untouched.length > 0) {
    found.push(
      `nothing has tried to connect to the FlakyServer at ${untouched.join(', ')}: a socket reaches it only ` +
        'when created with its WebSocket class, new ResilientSocket(server.url, { WebSocket: server.WebSocket })',
    );
  }
  if (advance === undefined && fakeTimersInstalled()) found.push(FAKE_TIMERS_HINT);
  return found.length === 0 ? '' : `; ${found.join('. ')}`;
}
