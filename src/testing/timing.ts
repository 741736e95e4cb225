/**
 * Shared by `until` and `waitFor`: the real timers, captured from `node:timers` at import so
 * that fake-timer libraries (which patch the globals) cannot stop a real-time bound, and the
 * validation of the timing options.
 */
import { clearTimeout, setImmediate, setTimeout } from 'node:timers';

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
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected \`options\` to be an object, got ${options === null ? 'null' : typeof options}`);
  }
  const within = options.within ?? 10_000;
  const step = options.step ?? 1;
  const { advance } = options;
  if (typeof within !== 'number') throw new TypeError(`Expected \`within\` to be a number, got ${typeof within}`);
  if (!(within >= 0)) throw new RangeError(`Expected \`within\` to be >= 0, got ${within}`);
  if (typeof step !== 'number') throw new TypeError(`Expected \`step\` to be a number, got ${typeof step}`);
  if (!(step > 0) || !Number.isFinite(step))
    throw new RangeError(`Expected \`step\` to be a finite number > 0, got ${step}`);
  if (advance !== undefined && typeof advance !== 'function') {
    throw new TypeError(`Expected \`advance\` to be a function, got ${typeof advance}`);
  }
  return { within, step, advance };
}
