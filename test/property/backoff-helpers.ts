/**
 * What the backoff-input-*.test.ts properties share: the number of runs and the test timeout, the
 * tracker of unhandled rejections checked after every test, and options records of known keys (each
 * mostly valid) with, on request, keys that are not options.
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, expect, vi } from 'vitest';
import { anyValue, mostlyValid, unhandledTracker } from './arbitraries.js';

export const NUM_RUNS = 200;

/** Unhandled rejections and uncaught exceptions: none may happen (see setUpBackoffInput). */
export const tracker = unhandledTracker();

/**
 * Registers what every backoff-input file needs around its tests (call it once, at the top of the
 * file): the test timeout, and the unhandled-rejection tracker, checked after each test.
 */
export function setUpBackoffInput(): void {
  // A failing property shrinks its counterexample, which can take longer than the default 5 s;
  // a timeout would hide the counterexample (and leave the run going in the background).
  vi.setConfig({ testTimeout: 60_000 });
  beforeAll(() => tracker.install());
  afterAll(() => tracker.uninstall());
  afterEach(async () => {
    expect(await tracker.take()).toEqual([]);
  });
}

/**
 * Keys an options object must not have: a known key misspelt (another case, a letter dropped,
 * doubled or swapped with the next, as typos go), or any string at all.
 */
function unknownKeyArb(known: readonly string[]): fc.Arbitrary<string> {
  const misspelt = fc
    .tuple(fc.constantFrom(...known), fc.nat(), fc.constantFrom('case', 'drop', 'double', 'swap'))
    .map(([key, at, typo]) => {
      const i = at % key.length;
      switch (typo) {
        case 'case':
          return key.toUpperCase();
        case 'drop':
          return key.slice(0, i) + key.slice(i + 1);
        case 'double':
          return key.slice(0, i) + key[i] + key.slice(i);
        default:
          return key.slice(0, i) + key.slice(i + 1, i + 2) + key.slice(i, i + 1) + key.slice(i + 2);
      }
    });
  return fc.oneof(misspelt, fc.string({ maxLength: 12 })).filter((key) => !known.includes(key));
}

/**
 * An options record: each known key absent or mostly valid; with `extra`, one or two keys that are
 * not options on top (so the unknown-option check meets the value checks).
 */
export function recordArb(fields: Record<string, fc.Arbitrary<unknown>>, validWeight: number, extra: boolean) {
  const record = fc.record(
    mapValues(fields, (valid) => mostlyValid(valid, validWeight)),
    { requiredKeys: [] },
  );
  if (!extra) return record;
  const known = Object.keys(fields);
  return fc
    .tuple(record, fc.dictionary(unknownKeyArb(known), anyValue, { minKeys: 1, maxKeys: 2 }))
    .map(([options, unknown]) => ({ ...unknown, ...options }));
}

/** `record` with `f` applied to each value. */
function mapValues<V, W>(record: Record<string, V>, f: (value: V) => W): Record<string, W> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]));
}
