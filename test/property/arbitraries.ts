/**
 * Shared generators and oracles for the input-robustness properties in test/property/.
 *
 * The oracles restate the documented validation rules (README "Options", "Edges", the TSDoc of
 * every option) independently of src/, and answer one question: which option names received a bad
 * value, and is each one a wrong *type* (TypeError) or a bad *value* (RangeError)? A thrown error
 * must name one of those options in backticks with the matching error class; a call the oracle finds
 * no problem with must succeed.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { decorrelatedJitter } from '../../src/backoff/decorrelated-jitter.js';
import { equalJitter } from '../../src/backoff/equal-jitter.js';
import { exponential } from '../../src/backoff/exponential.js';
import { fullJitter } from '../../src/backoff/full-jitter.js';
import { truncatedBinaryExponential } from '../../src/backoff/truncated-binary-exponential.js';
import { type Clock, systemClock } from '../../src/clock.js';

// ─── values ────────────────────────────────────────────────────────────────────────────────

/** The package's backoff factories, each valid with no options. */
export const POLICY_FACTORIES = [
  truncatedBinaryExponential,
  fullJitter,
  equalJitter,
  decorrelatedJitter,
  exponential,
  constant,
] as const;

/** Valid `backoff` values: a policy from every factory, or a factory returning one. */
export const validBackoff: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...POLICY_FACTORIES).map((factory) => factory()),
  fc.constantFrom(...POLICY_FACTORIES).map((factory) => () => factory()),
);

/** A fresh clock object on the (fake) global timers: the package's own system clock, copied. */
export const globalClock = (): Clock => ({ ...systemClock });

/** The real setImmediate, captured at import time, before any test installs fake timers. */
const realSetImmediate = globalThis.setImmediate;

/** Numbers chosen to break naive validation: NaN, infinities, -0, the extremes and the timer limit. */
export const EDGE_NUMBERS: readonly number[] = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  0,
  -0,
  1,
  -1,
  0.5,
  1.5,
  Number.EPSILON,
  Number.MIN_VALUE,
  -Number.MIN_VALUE,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 53,
  1e-300,
  1e300,
];

/** Any number at all, with the edges forced in often. */
export const anyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(...EDGE_NUMBERS),
  fc.double(),
  fc.integer(),
  fc.double({ min: 1e-6, max: 1e7, noNaN: true }),
);

/** fc.anything with every optional shape turned on (boxed values, typed arrays, null prototypes, …). */
export const anything: fc.Arbitrary<unknown> = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withTypedArray: true,
  withSparseArray: true,
  withUnicodeString: true,
});

/** A value of any type: what a JavaScript caller (or a bad cast) can pass to a typed parameter. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: anything },
  { weight: 3, arbitrary: anyNumber },
  { weight: 1, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, undefined, true, false, '', '10', '1e3', 'NaN', 10n, [], {}) },
  { weight: 1, arbitrary: fc.func(anything) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(Symbol('s'), () => undefined, Object, Math.random) },
);

/** `fc.oneof` of a valid generator (usually) and `anyValue` (sometimes). */
export function mostlyValid<T>(valid: fc.Arbitrary<T>, validWeight = 9): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: validWeight, arbitrary: valid as fc.Arbitrary<unknown> },
    { weight: 1, arbitrary: anyValue },
  );
}

// ─── oracle helpers ────────────────────────────────────────────────────────────────────────

export type Kind = 'type' | 'range';

/** The options an oracle found bad, each with the kind(s) of error it justifies. */
export class Problems {
  readonly #found = new Map<string, Set<Kind>>();

  add(name: string, kind: Kind): void {
    const kinds = this.#found.get(name) ?? new Set<Kind>();
    kinds.add(kind);
    this.#found.set(name, kinds);
  }

  has(name: string, kind: Kind): boolean {
    return this.#found.get(name)?.has(kind) === true;
  }

  get size(): number {
    return this.#found.size;
  }

  toString(): string {
    return [...this.#found].map(([name, kinds]) => `${name}:${[...kinds].join('|')}`).join(', ') || '(none)';
  }
}

/** A plain options bag as the package accepts it: any non-null, non-array object. */
export function isOptionsObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface NumberSpec {
  /** Exclusive lower bound. */
  above?: number;
  /** Inclusive lower bound. */
  min?: number;
  integer?: boolean;
  /** `Infinity` is allowed. */
  infinity?: boolean;
}

/** Records a problem for a numeric option (`undefined` means "use the default" and is fine). */
export function checkNumber(problems: Problems, name: string, value: unknown, spec: NumberSpec): void {
  if (value === undefined) return;
  if (typeof value !== 'number') {
    problems.add(name, 'type');
    return;
  }
  if (spec.infinity && value === Number.POSITIVE_INFINITY) return;
  const ok =
    Number.isFinite(value) &&
    (!spec.integer || Number.isInteger(value)) &&
    (spec.above === undefined || value > spec.above) &&
    (spec.min === undefined || value >= spec.min);
  if (!ok) problems.add(name, 'range');
}

export function checkFunction(problems: Problems, name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') problems.add(name, 'type');
}

export function checkBoolean(problems: Problems, name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'boolean') problems.add(name, 'type');
}

/** The names an error message quotes in backticks, with a trailing `()` removed (`backoff()` → `backoff`). */
export function backtickedNames(message: string): string[] {
  return [...message.matchAll(/`([^`]+)`/g)].map((m) => (m[1] as string).replace(/\(\)$/, ''));
}

/**
 * Asserts that `error` is exactly a TypeError or RangeError whose message names, in backticks, an
 * option the oracle found bad in the way the class says (TypeError: wrong type; RangeError: bad value).
 */
export function expectOptionError(error: unknown, problems: Problems): void {
  const ctor = (error as { constructor?: unknown } | null)?.constructor;
  if (!(error instanceof Error) || (ctor !== TypeError && ctor !== RangeError)) {
    throw new Error(`expected a TypeError or RangeError, got ${show(error)} (problems: ${problems})`);
  }
  const kind: Kind = ctor === TypeError ? 'type' : 'range';
  const names = backtickedNames(error.message);
  const named = names.filter((name) => problems.has(name, kind));
  expect(named, `${error.name}: ${error.message} — expected one of: ${problems}`).not.toHaveLength(0);
}

/** Asserts `error` is exactly `Type` and names `name` in backticks. */
export function expectNamed(error: unknown, Type: ErrorConstructor, name: string): void {
  expect(error).toBeInstanceOf(Type);
  expect((error as Error).constructor).toBe(Type);
  expect(backtickedNames((error as Error).message)).toContain(name);
}

/** A short, never-throwing description of any value for assertion messages. */
export function show(value: unknown): string {
  try {
    if (value instanceof Error) return `${value.constructor.name}: ${value.message}`;
    if (typeof value === 'symbol' || typeof value === 'bigint') return String(value);
    if (typeof value === 'function') return `function ${value.name}`;
    return String(JSON.stringify(value) ?? String(value)).slice(0, 200);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** Runs `fn`, returning `{ ok: true, value }` or `{ ok: false, error }`. */
export function attempt<T>(fn: () => T): { ok: true; value: T } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

// ─── unhandled errors ──────────────────────────────────────────────────────────────────────

/**
 * Collects unhandled rejections and uncaught exceptions while installed. (Vitest would fail the
 * run on them anyway, but only at the end and without saying which generated input caused them;
 * while a listener of ours is installed vitest leaves them to us.) `take()` first lets a real
 * macrotask pass so that Node has processed pending rejections.
 */
export function unhandledTracker() {
  const seen: { type: string; error: unknown }[] = [];
  const onRejection = (error: unknown): void => {
    seen.push({ type: 'unhandledRejection', error });
  };
  const onException = (error: unknown): void => {
    seen.push({ type: 'uncaughtException', error });
  };
  return {
    install(): void {
      process.on('unhandledRejection', onRejection);
      process.on('uncaughtException', onException);
    },
    uninstall(): void {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
    async take(): Promise<string[]> {
      await new Promise<void>((resolve) => realSetImmediate(resolve));
      await new Promise<void>((resolve) => realSetImmediate(resolve));
      return seen.splice(0).map(({ type, error }) => `${type}: ${show(error)}`);
    },
  };
}

/**
 * Flags `name` as a wrong type unless `value` is undefined or an object with these function
 * members (and boolean members): the documented shape of an AbortSignal or a Clock.
 */
export function checkShape(
  problems: Problems,
  name: string,
  value: unknown,
  functions: readonly string[],
  booleans: readonly string[] = [],
): void {
  if (value === undefined) return;
  const o = value as Record<string, unknown> | null;
  const ok =
    typeof o === 'object' &&
    o !== null &&
    functions.every((key) => typeof o[key] === 'function') &&
    booleans.every((key) => typeof o[key] === 'boolean');
  if (!ok) problems.add(name, 'type');
}

/** The documented AbortSignal shape (`signal` options). */
export const SIGNAL_SHAPE = [['addEventListener', 'removeEventListener'], ['aborted']] as const;
/** The documented Clock shape (`clock` options). */
export const CLOCK_SHAPE = [['setTimeout', 'clearTimeout', 'now']] as const;
