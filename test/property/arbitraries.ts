/**
 * Shared generators and oracles for the input-robustness properties in test/property/.
 *
 * The oracles restate the documented validation rules (docs/guide/getting-started.md "Options", docs/guide/backoff.md "Edges", the TSDoc of
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
import { phasedBinaryExponential } from '../../src/backoff/phased-binary-exponential.js';
import { truncatedBinaryExponential } from '../../src/backoff/truncated-binary-exponential.js';
import { type Clock, systemClock } from '../../src/clock.js';
import { redactUrls } from '../../src/redact.js';

// ─── values ────────────────────────────────────────────────────────────────────────────────

/** The package's backoff factories, each valid with no options. */
export const POLICY_FACTORIES = [
  truncatedBinaryExponential,
  phasedBinaryExponential,
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

/** The options of `new ResilientSocket()` and of its nested option objects, as docs/guide/getting-started.md lists them. */
export const SOCKET_OPTIONS: readonly string[] = [
  'WebSocket',
  'protocols',
  'wsOptions',
  'autoConnect',
  'maxDelay',
  'ceiling',
  'backoff',
  'stableAfter',
  'connectTimeout',
  'maxRetries',
  'maxRetryAfter',
  'shouldReconnect',
  'heartbeat',
  'buffer',
  'handshake',
  'binaryType',
  'signal',
  'unref',
  'resume',
  'clock',
  'delivery',
  'bufferPolicy',
];
export const HEARTBEAT_OPTIONS: readonly string[] = ['interval', 'timeout', 'message', 'isPong'];
export const BUFFER_OPTIONS: readonly string[] = ['maxMessages', 'maxBytes'];
/** The options of `bufferPolicy(…)` (named `buffer.overflow`, `buffer.ttl` in its errors). */
export const BUFFER_POLICY_OPTIONS: readonly string[] = ['overflow', 'ttl'];
export const RESUME_OPTIONS: readonly string[] = ['probeTimeout', 'pauseWhileOffline', 'detectSuspend'];

/** Valid subprotocol names: RFC 7230 tokens. */
export const tokenArb: fc.Arbitrary<string> = fc.stringMatching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,12}$/);

/** Valid `protocols`: a token, or an array of distinct tokens (possibly empty). */
export const validProtocols: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>('chat', ['a', 'b'], []),
  tokenArb,
  fc.uniqueArray(tokenArb, { maxLength: 3 }),
);

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

  /**
   * Whether `name` (as a message shows it) is a problem of `kind`. Messages never show a secret
   * from a URL: a name shaped like one (`a:b@c`) is shown redacted, and is matched as shown.
   */
  has(name: string, kind: Kind): boolean {
    if (this.#found.get(name)?.has(kind) === true) return true;
    return [...this.#found].some(([found, kinds]) => kinds.has(kind) && redactUrls(found) === name);
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

/**
 * `maxDelay` and `ceiling` of the default backoff (the socket's) and of truncatedBinaryExponential
 * and phasedBinaryExponential, as docs/guide "Options" states them: `maxDelay` finite and at least 1 ms,
 * `ceiling` an integer >= 1 whose first window `maxDelay / 2^(ceiling − 1)` is at least 1 ms (one
 * left out fits itself to `maxDelay`). A ceiling too large for the maxDelay is the ceiling's problem.
 */
export function checkWindows(problems: Problems, maxDelay: unknown, ceiling: unknown): void {
  checkNumber(problems, 'maxDelay', maxDelay, { min: 1 });
  checkNumber(problems, 'ceiling', ceiling, { integer: true, min: 1 });
  const flagged = ['maxDelay', 'ceiling'].some((name) => problems.has(name, 'type') || problems.has(name, 'range'));
  if (flagged || ceiling === undefined) return;
  // 2^(ceiling − 1) is exact (Infinity from 2^1024 on), so this compares without rounding.
  if ((maxDelay === undefined ? 10_000 : (maxDelay as number)) < 2 ** ((ceiling as number) - 1)) {
    problems.add('ceiling', 'range');
  }
}

export function checkFunction(problems: Problems, name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') problems.add(name, 'type');
}

/**
 * The values the generators got from the opt-in features' factories (`handshake(…)`,
 * `delivery(…)`, `bufferPolicy(…)`), by the factory's name: what {@link checkFeature} accepts.
 */
export const FEATURES_MADE = new WeakMap<object, string>();

/** Records `feature` as made by the factory `name` (see {@link FEATURES_MADE}), and returns it. */
export function madeBy<T extends object>(name: string, feature: T): T {
  FEATURES_MADE.set(feature, name);
  return feature;
}

/**
 * The option `name` of an opt-in feature (`handshake`, `delivery`, `bufferPolicy`): `undefined`, or the value its
 * factory of the same name made; anything else (a plain hook or options object, the other feature)
 * is a wrong type.
 */
export function checkFeature(problems: Problems, name: string, value: unknown): void {
  if (value === undefined) return;
  const isObject = (typeof value === 'object' || typeof value === 'function') && value !== null;
  if (!isObject || FEATURES_MADE.get(value) !== name) problems.add(name, 'type');
}

export function checkBoolean(problems: Problems, name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'boolean') problems.add(name, 'type');
}

/**
 * How an error message names key `key` of the options object at `parent` ('' for an options
 * argument of its own), as the "Options" of docs/guide/getting-started.md state it: `heartbeat.interval`; a key
 * that is not a plain identifier quoted as JSON (backticks escaped, cut after 64 characters):
 * `heartbeat["x y"]`, `["0"]`.
 */
export function optionName(parent: string, key: string): string {
  if (/^[A-Za-z_$][\w$]*$/.test(key) && key.length <= 64) return parent === '' ? key : `${parent}.${key}`;
  const cut = key.length > 64 ? `${key.slice(0, 64)}…` : key;
  return `${parent}[${JSON.stringify(cut).replace(/`/g, '\\u0060')}]`;
}

/**
 * Unknown options are refused: every own enumerable string key of `options` not in `known` is a
 * problem of type (a TypeError naming it). Symbol keys and inherited properties are not options.
 */
export function checkKnownKeys(problems: Problems, parent: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) problems.add(optionName(parent, key), 'type');
  }
}

/** RFC 7230 tchar: what a subprotocol name (and a header name) is made of. */
const TCHARS = new Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");

/** A non-empty RFC 7230 token. */
export function isToken(value: string): boolean {
  return value.length > 0 && [...value].every((char) => TCHARS.has(char));
}

/**
 * `protocols` (or a provider's result, named `protocols()`): `undefined`, a token, or an array of
 * distinct tokens (RFC 6455 §4.1). A wrong type is a TypeError, an empty, non-token or repeated
 * name a RangeError.
 */
export function checkProtocols(problems: Problems, name: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value === 'string') {
    if (!isToken(value)) problems.add(name, 'range');
    return;
  }
  if (!Array.isArray(value) || !value.every((p) => typeof p === 'string')) {
    problems.add(name, 'type');
    return;
  }
  if (!value.every(isToken) || new Set(value).size !== value.length) problems.add(name, 'range');
}

/**
 * The heartbeat rule: `message` needs `isPong` (a heartbeat that sends pings must recognise their
 * answers). Flags `heartbeat.isPong` as a wrong type when `message` is set and `isPong` is not a
 * function.
 */
export function checkPingNeedsPong(problems: Problems, heartbeat: Record<string, unknown>): void {
  if (heartbeat.message !== undefined && typeof heartbeat.isPong !== 'function') {
    problems.add('heartbeat.isPong', 'type');
  }
}

/** Header text as Node's http.request accepts it: tab, 0x20–0x7E and 0x80–0xFF only. */
function isHeaderText(text: string): boolean {
  return [...text].every((char) => {
    const code = char.codePointAt(0) as number;
    return code === 0x09 || (code >= 0x20 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
  });
}

/**
 * What `wsOptions` may hold, restated from the TSDoc of the option (itself what ws 8's
 * initAsClient and Node's http.request throw for): names each bad entry as `wsOptions.<name>`
 * (header values as `wsOptions.headers[…]`, any header name problem as `wsOptions.headers`).
 */
export function checkWsOptions(problems: Problems, value: unknown): void {
  if (value === undefined) return;
  if (!isOptionsObject(value)) {
    problems.add('wsOptions', 'type');
    return;
  }
  const { headers } = value;
  if (headers !== undefined) {
    if (!isOptionsObject(headers)) {
      problems.add('wsOptions.headers', 'type');
    } else {
      for (const [headerName, headerValue] of Object.entries(headers)) {
        if (!isToken(headerName)) problems.add('wsOptions.headers', 'range');
        const path = `wsOptions.headers[${JSON.stringify(headerName.length > 64 ? `${headerName.slice(0, 64)}…` : headerName).replace(/`/g, '\\u0060')}]`;
        const items = Array.isArray(headerValue) ? headerValue : [headerValue];
        items.forEach((item, i) => {
          const where = Array.isArray(headerValue) ? `${path}[${i}]` : path;
          if (typeof item === 'string') {
            if (!isHeaderText(item)) problems.add(where, 'range');
          } else if (typeof item !== 'number') {
            problems.add(where, 'type');
            problems.add(path, 'type');
          }
        });
      }
    }
  }
  const { origin } = value;
  if (origin !== undefined) {
    if (typeof origin !== 'string') problems.add('wsOptions.origin', 'type');
    else if (!isHeaderText(origin)) problems.add('wsOptions.origin', 'range');
  }
  const version = value.protocolVersion;
  if (version !== undefined) {
    if (typeof version !== 'number') problems.add('wsOptions.protocolVersion', 'type');
    else if (version !== 8 && version !== 13) problems.add('wsOptions.protocolVersion', 'range');
  }
  const timeout = value.handshakeTimeout;
  checkNumber(problems, 'wsOptions.handshakeTimeout', timeout, { min: 0 });
  if (typeof timeout === 'number' && timeout > 2 ** 31 - 1) problems.add('wsOptions.handshakeTimeout', 'range');
  const payload = value.maxPayload;
  checkNumber(problems, 'wsOptions.maxPayload', payload, { integer: true, min: 0, infinity: true });
  if (typeof payload === 'number' && payload > 2 ** 31 - 1 && payload !== Number.POSITIVE_INFINITY) {
    problems.add('wsOptions.maxPayload', 'range');
  }
  if (value.auth !== undefined && typeof value.auth !== 'string') problems.add('wsOptions.auth', 'type');
  const { agent } = value;
  if (
    agent !== undefined &&
    agent !== null &&
    agent !== false &&
    !(typeof agent === 'object' && typeof (agent as { addRequest?: unknown }).addRequest === 'function')
  ) {
    problems.add('wsOptions.agent', 'type');
  }
  checkShape(problems, 'wsOptions.signal', value.signal, ...SIGNAL_SHAPE);
  if (value.finishRequest !== null) checkFunction(problems, 'wsOptions.finishRequest', value.finishRequest);
  const headerSize = value.maxHeaderSize;
  checkNumber(problems, 'wsOptions.maxHeaderSize', headerSize, { integer: true, min: 0 });
  if (typeof headerSize === 'number' && headerSize > Number.MAX_SAFE_INTEGER) {
    problems.add('wsOptions.maxHeaderSize', 'range');
  }
  checkBoolean(problems, 'wsOptions.insecureHTTPParser', value.insecureHTTPParser);
  checkBoolean(problems, 'wsOptions.joinDuplicateHeaders', value.joinDuplicateHeaders);
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
