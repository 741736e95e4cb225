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

/** `1 character`, `12 characters`. */
export function characters(count: number): string {
  return count === 1 ? '1 character' : `${count} characters`;
}

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

// ─── unknown options ─────────────────────────────────────────────────────────────────────

/** Longer keys are cut in messages: a key is shown to be found, and a long one may be pasted data. */
const MAX_KEY_SHOWN = 64;

/** A key that reads as is after a dot (`heartbeat.interval`); any other is shown quoted (`["max delay"]`). */
const PLAIN_KEY = /^[A-Za-z_$][\w$]*$/;

/**
 * `key` as a message shows it inside backticks: quoted (JSON, with backticks escaped so that the
 * message's own backticks still delimit names) unless it is a plain identifier, and cut after
 * {@link MAX_KEY_SHOWN} characters.
 */
export function quoteKey(key: string): string {
  const cut = key.length > MAX_KEY_SHOWN ? `${key.slice(0, MAX_KEY_SHOWN)}…` : key;
  return JSON.stringify(cut).replace(/`/g, '\\u0060');
}

/** The path of option `key` inside the options object `parent` ('' for a top-level options argument). */
export function optionPath(parent: string, key: string): string {
  if (PLAIN_KEY.test(key) && key.length <= MAX_KEY_SHOWN) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${quoteKey(key)}]`;
}

/**
 * The optimal string alignment distance (Levenshtein plus the swap of two neighbours, each edit
 * counted once) between `a` and `b`, or `limit` as soon as it is known to be at least that.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  // Three rows of the dynamic programme: two back (for swaps), the previous one and the current one.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, (before[j - 2] as number) + 1);
      }
      current[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin >= limit) return limit;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length] as number, limit);
}

/** Names shorter than this get a suggestion only when they differ from a known one in case alone. */
const MIN_FUZZY_LENGTH = 4;
/** The most edits between a misspelt option and the one suggested. */
const MAX_EDITS = 2;

/**
 * The known key `key` was most likely meant to be: one equal to it but for case, else the closest
 * within {@link MAX_EDITS} edits (ignoring case) when `key` has at least {@link MIN_FUZZY_LENGTH}
 * characters; the first in `known` wins a tie.
 */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = MAX_EDITS + 1;
  for (const candidate of known) {
    const other = candidate.toLowerCase();
    if (other === lower) return candidate;
    if (key.length < MIN_FUZZY_LENGTH) continue;
    const distance = editDistance(lower, other, bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Rejects options nobody reads, so that a misspelt one (`maxDelays`) fails loudly instead of being
 * ignored. Every own enumerable string key of `value` must be in `known`; symbol keys, inherited
 * and non-enumerable properties are not looked at. `undefined` (no options) passes.
 *
 * @param name the path of the options object inside the user's options, prefixed to every key in
 *   the message: `'heartbeat'` for `options.heartbeat` (``Unknown option `heartbeat.intervall`: did
 *   you mean `heartbeat.interval`?``), `''` for an options argument of its own (``Unknown option
 *   `maxDelays`: did you mean `maxDelay`?``).
 * @param known the option names `value` may have.
 * @param owner what takes these options, for the message that lists them when nothing is close
 *   (e.g. `'fullJitter()'`); by default `name` in backticks, or nothing for `''`.
 * @throws TypeError naming the first unknown key and suggesting the closest known one (see
 *   {@link closestKey}), or, when none is close, listing the known ones. The value is never shown.
 */
export function assertKnownKeys(
  name: string,
  value: object | undefined,
  known: readonly string[],
  owner?: string,
): void {
  if (value === undefined) return;
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new TypeError(unknownKeyMessage(name, key, known, owner));
  }
}

function unknownKeyMessage(name: string, key: string, known: readonly string[], owner: string | undefined): string {
  const head = `Unknown option \`${optionPath(name, key)}\``;
  const suggestion = closestKey(key, known);
  if (suggestion !== undefined) return `${head}: did you mean \`${optionPath(name, suggestion)}\`?`;
  const of = owner ?? (name === '' ? undefined : `\`${name}\``);
  if (known.length === 0) return `${head}: ${of ?? 'it'} takes no options`;
  const list = known.map((k) => `\`${k}\``).join(', ');
  return `${head}: the options${of === undefined ? '' : ` of ${of}`} are ${list}`;
}

// ─── text that may carry a secret ────────────────────────────────────────────────────────

/** RFC 7230 `token` (one or more `tchar`): what header names and WebSocket subprotocols must be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The first character that is not a `tchar`. */
const NOT_TCHAR = /[^!#$%&'*+\-.^_`|~0-9A-Za-z]/;

/** True when `value` is an RFC 7230 token: non-empty, letters, digits and ``!#$%&'*+-.^_`|~`` only. */
export function isToken(value: string): boolean {
  return TOKEN.test(value);
}

/** The index of the first character of `value` that may not appear in a token, or -1. */
export function firstNonTokenChar(value: string): number {
  return value.search(NOT_TCHAR);
}

const CHAR_NAMES: Readonly<Record<string, string>> = {
  '\0': 'NUL',
  '\t': 'TAB',
  '\n': 'LF',
  '\r': 'CR',
  ' ': 'a space',
};

/**
 * Names the character at `index` of `text` for a message without showing the text around it:
 * `LF`, `CR`, `NUL`, `TAB`, `a space`, `":"` (printable ASCII), or `U+2603` (anything else).
 */
export function describeChar(text: string, index: number): string {
  const code = text.codePointAt(index) ?? 0;
  const char = String.fromCodePoint(code);
  const named = CHAR_NAMES[char];
  if (named !== undefined) return named;
  if (code > 0x20 && code < 0x7f) return JSON.stringify(char).replace(/`/g, '\\u0060');
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
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
