/**
 * Shared by `until` and `waitFor`: the real timers, captured from `node:timers` at import so
 * that fake-timer libraries (which patch the globals) cannot stop a real-time bound, and the
 * validation of the timing options.
 */
import { clearTimeout, setImmediate, setTimeout } from 'node:timers';
import { assertFunction, assertNumber, assertOptionsObject, withDefault } from '../validation.js';

export { clearTimeout as realClearTimeout, setImmediate as realSetImmediate, setTimeout as realSetTimeout };

/** The timing options of `until` and `waitFor`. */
export interface TimingOptions {
  within?: number;
  advance?: (ms: number) => unknown;
  step?: number;
}

/** Validates and defaults the timing options. @throws TypeError, RangeError */
export function checkTiming(options: TimingOptions): {
  within: number;
  step: number;
  advance: ((ms: number) => unknown) | undefined;
} {
  if (options === undefined) throw new TypeError('Expected `options` to be an object, got undefined');
  assertOptionsObject('options', options);
  const within = withDefault(options.within, 10_000);
  const step = withDefault(options.step, 1);
  const { advance } = options;
  assertNumber('within', within, { min: 0, allowInfinity: true });
  assertNumber('step', step, { above: 0 });
  if (advance !== undefined) assertFunction('advance', advance);
  return { within, step, advance };
}
