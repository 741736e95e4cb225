/**
 * Option validation shared by every factory and constructor in the package.
 *
 * The split follows ws and p-retry: a value of the wrong *type* is a `TypeError`,
 * a value of the right type but outside the allowed range is a `RangeError`. Every
 * message names the option and shows the value received, e.g.
 * ``Expected `ceiling` to be an integer >= 1, got 0.5``.
 *
 * @internal
 */

/** Renders a received value for an error message without throwing on odd inputs. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return value.toString();
  if (typeof value === 'function') return `function ${value.name || '(anonymous)'}`;
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  return tag === 'Object' ? 'an object' : `a ${tag}`;
}

/**
 * Describes a value of the wrong type: its type and, for primitives, the value itself
 * (`string "10"`, `number 5`, `null`, `an array of length 2`, `an object`, `function foo`).
 */
export function describeReceived(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object' || typeof value === 'function') return describeValue(value);
  return `${typeof value} ${describeValue(value)}`;
}

export interface NumberRule {
  /** Inclusive lower bound. */
  min?: number;
  /** Exclusive lower bound (`value > above`). */
  above?: number;
  /** Inclusive upper bound. */
  max?: number;
  /** Require an integer. */
  integer?: boolean;
  /** Accept `Infinity` (only meaningful with `integer` or without `max`). */
  allowInfinity?: boolean;
}

function describeRule(rule: NumberRule): string {
  const parts: string[] = [];
  parts.push(rule.integer ? 'an integer' : 'a finite number');
  if (rule.above !== undefined) parts.push(`> ${rule.above}`);
  if (rule.min !== undefined) parts.push(`>= ${rule.min}`);
  if (rule.max !== undefined) parts.push(`<= ${rule.max}`);
  let text = parts.join(' ');
  if (rule.allowInfinity) text += ' or Infinity';
  return text;
}

/**
 * Asserts that `value` is a number satisfying `rule`.
 * @throws TypeError when `value` is not a number; RangeError when it breaks the rule.
 */
export function assertNumber(name: string, value: unknown, rule: NumberRule = {}): asserts value is number {
  if (typeof value !== 'number') {
    throw new TypeError(`Expected \`${name}\` to be a number, got ${describeReceived(value)}`);
  }
  const infiniteOk = rule.allowInfinity === true && value === Number.POSITIVE_INFINITY;
  const ok =
    !Number.isNaN(value) &&
    (infiniteOk || Number.isFinite(value)) &&
    (infiniteOk || !rule.integer || Number.isInteger(value)) &&
    (rule.min === undefined || value >= rule.min) &&
    (rule.above === undefined || value > rule.above) &&
    (rule.max === undefined || infiniteOk || value <= rule.max);
  if (!ok) {
    throw new RangeError(`Expected \`${name}\` to be ${describeRule(rule)}, got ${describeValue(value)}`);
  }
}

/** @throws TypeError unless `value` is a function. */
export function assertFunction(name: string, value: unknown): asserts value is (...args: never[]) => unknown {
  if (typeof value !== 'function') {
    throw new TypeError(`Expected \`${name}\` to be a function, got ${describeReceived(value)}`);
  }
}

/** @throws TypeError unless `value` is a boolean. */
export function assertBoolean(name: string, value: unknown): asserts value is boolean {
  if (typeof value !== 'boolean') {
    throw new TypeError(`Expected \`${name}\` to be a boolean, got ${describeReceived(value)}`);
  }
}

/**
 * Asserts that an options argument is a plain object (or `undefined`, meaning "all defaults").
 * @throws TypeError for `null`, arrays, primitives and functions.
 */
export function assertOptionsObject(name: string, value: unknown): asserts value is object | undefined {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`Expected \`${name}\` to be an object, got ${describeReceived(value)}`);
  }
}

/** @throws TypeError unless `value` is `false`, `undefined` or a plain object (not an array). */
export function assertObjectOrFalse(name: string, value: unknown): asserts value is object | false | undefined {
  if (value === false || value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`Expected \`${name}\` to be an object or false, got ${describeReceived(value)}`);
  }
}

/**
 * The option's value, or `fallback` when it is `undefined`. Only `undefined` means "use the
 * default": `null` is passed through so that validation rejects it as a wrong type instead of
 * silently defaulting (which `??` would do).
 */
export function withDefault<T>(value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value;
}

/**
 * A message for anything thrown, which never throws itself: `String(x)` does for a null-prototype
 * object or a value whose `toString` throws, and user code can throw anything.
 */
export function describeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error) return thrown.message;
    return String(thrown);
  } catch {
    return Object.prototype.toString.call(thrown);
  }
}

/** True for an `AbortSignal`, or anything with its shape (`aborted`, `addEventListener`, `removeEventListener`). */
export function isAbortSignal(value: unknown): value is AbortSignal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AbortSignal).aborted === 'boolean' &&
    typeof (value as AbortSignal).addEventListener === 'function' &&
    typeof (value as AbortSignal).removeEventListener === 'function'
  );
}
