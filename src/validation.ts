/**
 * Shared argument validation: a TypeError for a wrong type, a RangeError for a value of the right
 * type outside its range, each with a stable `code` (`ERR_RS_INVALID_TYPE`, `ERR_RS_INVALID_VALUE`,
 * `ERR_RS_UNKNOWN_OPTION`, `ERR_RS_NEEDS_FEATURE`). Every check runs in every build.
 *
 * Development builds and Node say everything: ``Expected `maxDelay` to be a finite number >= 1,
 * got -5``, a did-you-mean, the factory to import. Production bundles say ``` `maxDelay`:
 * ERR_RS_INVALID_VALUE ```: the option and the code, which the error table of docs/guide/events-and-errors.md explains.
 * Each message site reads `process.env.NODE_ENV` where it builds its text, the exact expression
 * the package's build (and bundlers) replace, so that a production bundle carries neither the
 * text nor the code that only makes it (`describeReceived`, `closestKey`, …).
 * @internal
 */

import { redactUrls } from './redact.js';

/** The stable codes of the TypeErrors and RangeErrors the package throws for bad input. */
export type InputErrorCode =
  | 'ERR_RS_INVALID_TYPE'
  | 'ERR_RS_INVALID_VALUE'
  | 'ERR_RS_UNKNOWN_OPTION'
  | 'ERR_RS_NEEDS_FEATURE';

/**
 * A TypeError or RangeError about `name` (an option or an argument) with a stable `code`. `text` is
 * the development message; `''` (a production build) gives the short one: `` `name`: CODE ``.
 */
export function inputError<E extends TypeErrorConstructor | RangeErrorConstructor>(
  Kind: E,
  code: InputErrorCode,
  name: string,
  text: string,
): InstanceType<E> & { readonly code: InputErrorCode } {
  // No URL's secret in any message (a value shown may be a URL, or hold one). Production builds
  // give no text here (`''`): nothing to redact, and no redaction in bundles that need none.
  const shown = process.env.NODE_ENV !== 'production' ? redactUrls(text) : text;
  const error = new Kind(shown || `\`${name}\`: ${code} (development builds say more)`);
  // Not enumerable: an error compared with `new TypeError(message)` (as tests and assertion
  // libraries do) is still equal to it; `error.code` reads the same.
  Object.defineProperty(error, 'code', { value: code, configurable: true, writable: true });
  return error as InstanceType<E> & { readonly code: InputErrorCode };
}

/** A TypeError (`ERR_RS_INVALID_TYPE`) about `name`; `text` as in {@link inputError}. */
export const typeError = (name: string, text: string): TypeError =>
  inputError(TypeError, 'ERR_RS_INVALID_TYPE', name, text);

/** A RangeError (`ERR_RS_INVALID_VALUE`) about `name`; `text` as in {@link inputError}. */
export const rangeError = (name: string, text: string): RangeError =>
  inputError(RangeError, 'ERR_RS_INVALID_VALUE', name, text);

/** `1 character` / `n characters`. */
export function characters(count: number): string {
  return count === 1 ? '1 character' : `${count} characters`;
}

/** A value as messages show it: strings quoted, objects by kind (`an array of length 2`, `a Map`). */
export function describeValue(value: unknown): string {
  const type = typeof value;
  if (type === 'string') return JSON.stringify(value);
  if (type === 'bigint') return `${value}n`;
  if (type === 'function') return `function ${(value as () => void).name || '(anonymous)'}`;
  if (type !== 'object' || value === null) return String(value);
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  return tag === 'Object' ? 'an object' : `a ${tag}`;
}

/** What a TypeError says it got: the type before primitives (`number -1`, `string "x"`), objects by kind. */
export function describeReceived(value: unknown): string {
  return value == null || typeof value === 'object' || typeof value === 'function'
    ? describeValue(value)
    : `${typeof value} ${describeValue(value)}`;
}

/** What a number option accepts. */
export interface NumberRule {
  min?: number;
  above?: number;
  max?: number;
  integer?: boolean;
  allowInfinity?: boolean;
}

/**
 * Asserts `value` is a number within `rule`: a TypeError for a non-number, a RangeError (which
 * states the rule) for NaN, ±Infinity (unless allowed), a fraction where an integer is needed, or a
 * value out of bounds.
 */
export function assertNumber(name: string, value: unknown, rule: NumberRule = {}): asserts value is number {
  if (typeof value !== 'number') {
    throw typeError(
      name,
      process.env.NODE_ENV !== 'production'
        ? `Expected \`${name}\` to be a number, got ${describeReceived(value)}`
        : '',
    );
  }
  const { min, above, max, integer, allowInfinity } = rule;
  const infinite = allowInfinity && value === Number.POSITIVE_INFINITY;
  if (
    infinite
      ? (min ?? above ?? 0) > value
      : !Number.isFinite(value) ||
        (integer && !Number.isInteger(value)) ||
        (min !== undefined && value < min) ||
        (above !== undefined && value <= above) ||
        (max !== undefined && value > max)
  ) {
    throw rangeError(name, process.env.NODE_ENV !== 'production' ? numberRuleText(name, value, rule) : '');
  }
}

/** The development message of a number outside `rule`: what it must be, and what it got. */
function numberRuleText(name: string, value: number, { min, above, max, integer, allowInfinity }: NumberRule): string {
  const bounds = [
    above === undefined ? '' : `> ${above}`,
    min === undefined ? '' : `>= ${min}`,
    max === undefined ? '' : `<= ${max}`,
  ];
  const wanted = [integer ? 'an integer' : 'a finite number', ...bounds.filter(Boolean)].join(' ');
  return `Expected \`${name}\` to be ${wanted}${allowInfinity ? ' or Infinity' : ''}, got ${describeValue(value)}`;
}

/** The development message of a value of the wrong type: ``Expected `name` to be <wanted>, got <received>``. */
export function expectedText(name: string, wanted: string, value: unknown): string {
  return `Expected \`${name}\` to be ${wanted}, got ${describeReceived(value)}`;
}

/** A TypeError unless `ok`: ``Expected `name` to be <wanted>, got <received>`` (development builds). */
export function assertThat(ok: boolean, name: string, wanted: string, value: unknown): void {
  if (!ok) throw typeError(name, process.env.NODE_ENV !== 'production' ? expectedText(name, wanted, value) : '');
}

/**
 * `value` as one of `allowed` (an enumerated string: `binaryType`).
 * @throws TypeError for a value that is not a string; RangeError for another string.
 */
export function assertOneOf(name: string, value: unknown, allowed: readonly string[]): void {
  assertThat(typeof value === 'string', name, process.env.NODE_ENV !== 'production' ? 'a string' : '', value);
  if (!allowed.includes(value as string)) {
    throw rangeError(
      name,
      process.env.NODE_ENV !== 'production'
        ? `Expected \`${name}\` to be one of ${allowed.map((v) => `'${v}'`).join(', ')}, got ${describeValue(value)}`
        : '',
    );
  }
}

// The checks below build their text where they throw, so that a production bundle drops what they
// want (`'a function'`, …) with the rest of the text.

export function assertFunction(name: string, value: unknown): asserts value is (...args: never[]) => unknown {
  if (typeof value !== 'function') {
    throw typeError(name, process.env.NODE_ENV !== 'production' ? expectedText(name, 'a function', value) : '');
  }
}

export function assertBoolean(name: string, value: unknown): asserts value is boolean {
  if (typeof value !== 'boolean') {
    throw typeError(name, process.env.NODE_ENV !== 'production' ? expectedText(name, 'a boolean', value) : '');
  }
}

/** Whether `value` is a plain options object (not null, not an array). */
const isObject = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Asserts an options object: `undefined` (all defaults) or an object that is not null or an array. */
export function assertOptionsObject(name: string, value: unknown): asserts value is object | undefined {
  if (value !== undefined && !isObject(value)) {
    throw typeError(name, process.env.NODE_ENV !== 'production' ? expectedText(name, 'an object', value) : '');
  }
}

/** Like {@link assertOptionsObject}, also accepting `false` (a feature turned off). */
export function assertObjectOrFalse(name: string, value: unknown): asserts value is object | false | undefined {
  if (value !== undefined && value !== false && !isObject(value)) {
    throw typeError(name, process.env.NODE_ENV !== 'production' ? expectedText(name, 'an object or false', value) : '');
  }
}

/** The option's value, or `fallback` when it is `undefined`. Only `undefined` means "use the default". */
export function withDefault<T>(value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value;
}

/** A thrown value's message, for error messages (never throws itself, whatever was thrown). */
export function describeThrown(thrown: unknown): string {
  try {
    return thrown instanceof Error ? thrown.message : String(thrown);
  } catch {
    return Object.prototype.toString.call(thrown);
  }
}

/** Key names longer than this are cut in messages. */
const MAX_KEY_SHOWN = 64;

/** A key as a quoted string literal, cut at 64 characters, backquotes escaped (messages use them as delimiters). */
export function quoteKey(key: string): string {
  return JSON.stringify(key.length > MAX_KEY_SHOWN ? `${key.slice(0, MAX_KEY_SHOWN)}…` : key).replace(/`/g, '\\u0060');
}

/**
 * `parent.key`, or `parent["odd key"]` for a key that is not a plain identifier of at most
 * {@link MAX_KEY_SHOWN} (64) characters.
 */
export function optionPath(parent: string, key: string): string {
  return /^[A-Za-z_$][\w$]{0,63}$/.test(key) ? (parent && `${parent}.`) + key : `${parent}[${quoteKey(key)}]`;
}

/**
 * The edit distance between `a` and `b` (Levenshtein with adjacent swaps: optimal string
 * alignment), or `limit` if it is at least that. Row by row, stopping early once a row's minimum
 * reaches the limit.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
        i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1] ? (before[j - 2] as number) + 1 : limit,
      );
    }
    if (Math.min(...current) >= limit) return limit;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length] as number, limit);
}

/** Words that mean the opposite of each other in option names: never suggested for one another. */
const OPPOSITES = [
  'min max',
  'start stop',
  'open close',
  'enable disable',
  'first last',
  'lower upper',
  'before after',
];

/** The lower-case words of a camelCase, kebab-case or snake_case name. */
const wordsOf = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_-]+/)
    .filter(Boolean);

/** Whether `a` and `b` differ in exactly one word and those two words are opposites (`minDelay`, `maxDelay`). */
function opposite(a: string, b: string): boolean {
  const [x, y] = [wordsOf(a), wordsOf(b)];
  if (x.length !== y.length) return false;
  const differ = x.flatMap((word, i) => (word === y[i] ? [] : [`${word} ${y[i]}`]));
  return (
    differ.length === 1 &&
    OPPOSITES.some((pair) => pair === differ[0] || pair === (differ[0] as string).split(' ').reverse().join(' '))
  );
}

/**
 * The known key `key` most likely meant: one that differs in case alone, else (for keys of at least
 * 4 characters) the closest within 2 edits, the first on a tie; never one that means the opposite
 * (`minDelay` is not a misspelt `maxDelay`).
 */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let distance = 3; // two edits at most
  for (const candidate of known) {
    const other = candidate.toLowerCase();
    if (other === lower) return candidate;
    const d = key.length < 4 || opposite(key, candidate) ? 3 : editDistance(lower, other, distance);
    if (d < distance) [best, distance] = [candidate, d];
  }
  return best;
}

/**
 * Refuses keys of `value` not in `known` with a TypeError (`ERR_RS_UNKNOWN_OPTION`) naming the
 * option. Development builds say more: what `explain` says of it (another library's option and
 * its equivalent here), else ``Unknown option `maxDelays`: did you mean `maxDelay`?``, or, without
 * a close match, the known ones (of `owner`, or of the option `name`).
 */
export function assertKnownKeys(
  name: string,
  value: object | undefined,
  known: readonly string[],
  owner?: string,
  explain?: (key: string) => string | undefined,
): void {
  for (const key of Object.keys(value ?? {})) {
    if (known.includes(key)) continue;
    throw inputError(
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      // The same name in every build: an odd key quoted, a long one cut.
      optionPath(name, key),
      process.env.NODE_ENV !== 'production' ? unknownKeyText(name, key, known, owner, explain) : '',
    );
  }
}

/** The development message of an unknown option (see {@link assertKnownKeys}). */
function unknownKeyText(
  name: string,
  key: string,
  known: readonly string[],
  owner: string | undefined,
  explain: ((key: string) => string | undefined) | undefined,
): string {
  const head = `Unknown option \`${optionPath(name, key)}\``;
  const explained = explain?.(key);
  if (explained) return `${head}: ${explained}`;
  const suggestion = closestKey(key, known);
  const of = owner ?? (name && `\`${name}\``);
  return suggestion !== undefined
    ? `${head}: did you mean \`${optionPath(name, suggestion)}\`?`
    : known.length === 0
      ? `${head}: ${of || 'it'} takes no options`
      : `${head}: the options${of ? ` of ${of}` : ''} are ${known.map((k) => `\`${k}\``).join(', ')}`;
}

/** RFC 7230 `tchar`: what header names and WebSocket subprotocols are made of. */
const NOT_TCHAR = /[^!#$%&'*+\-.^_`|~0-9A-Za-z]/;

/** Whether `value` is an HTTP token (one or more `tchar`). */
export function isToken(value: string): boolean {
  return value !== '' && !NOT_TCHAR.test(value);
}

/** The index of the first character that is not a `tchar`, or -1. */
export function firstNonTokenChar(value: string): number {
  return value.search(NOT_TCHAR);
}

/** The character at `index` as a message shows it: a name for controls and spaces, quoted if printable, else `U+XXXX`. */
export function describeChar(text: string, index: number): string {
  const code = text.codePointAt(index) ?? 0;
  const named = ({ 0: 'NUL', 9: 'TAB', 10: 'LF', 13: 'CR', 32: 'a space' } as Record<number, string>)[code];
  if (named) return named;
  if (code > 0x20 && code < 0x7f) return JSON.stringify(String.fromCodePoint(code)).replace(/`/g, '\\u0060');
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Whether `value` looks like an AbortSignal (duck-typed: signals from another realm or polyfill count). */
export function isAbortSignal(value: unknown): value is AbortSignal {
  const signal = value as Partial<AbortSignal> | null;
  return (
    typeof signal?.aborted === 'boolean' &&
    typeof signal.addEventListener === 'function' &&
    typeof signal.removeEventListener === 'function'
  );
}
