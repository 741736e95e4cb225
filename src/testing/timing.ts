/**
 * Shared by `until` and `waitFor`: the real timers, captured from `node:timers` at import so
 * that fake-timer libraries (which patch the globals) cannot stop a real-time bound, and the
 * validation of the timing options.
 */
import { clearTimeout, setImmediate, setTimeout } from 'node:timers';
import { assertFunction, assertKnownKeys, assertNumber, assertOptionsObject, withDefault } from '../validation.js';

export { clearTimeout as realClearTimeout, setImmediate as realSetImmediate, setTimeout as realSetTimeout };

/**
 * Whether a fake-timer library (vitest, jest, sinon) has replaced the global `setTimeout`: then a
 * wait in real time sees nothing happen, since the socket's timers only run when the test moves
 * fake time.
 */
export function fakeTimersInstalled(): boolean {
  return globalThis.setTimeout !== setTimeout;
}

/** The hint for a real-time wait that ran out while fake timers were installed. */
export const FAKE_TIMERS_HINT =
  'fake timers are installed, so nothing moves while this waits in real time: pass `advance` (e.g. { advance: vi.advanceTimersByTimeAsync })';

/** The timing options of `until` and `waitFor`. */
export interface TimingOptions {
  within?: number;
  advance?: (ms: number) => unknown;
  step?: number;
}

/**
 * Validates and defaults the timing options; `known` are all the option names `owner` (`'until()'`,
 * `'waitFor()'`) takes, so a misspelt one is refused rather than ignored.
 * @throws TypeError (a wrong type, an unknown option), RangeError (a bad value)
 */
export function checkTiming(
  options: TimingOptions,
  known: readonly string[],
  owner: string,
): {
  within: number;
  step: number;
  advance: ((ms: number) => unknown) | undefined;
} {
  if (options === undefined) throw new TypeError('Expected `options` to be an object, got undefined');
  assertOptionsObject('options', options);
  assertKnownKeys('', options, known, owner);
  const within = withDefault(options.within, 10_000);
  const step = withDefault(options.step, 1);
  const { advance } = options;
  assertNumber('within', within, { min: 0, allowInfinity: true });
  assertNumber('step', step, { above: 0 });
  if (advance !== undefined) assertFunction('advance', advance);
  return { within, step, advance };
}
