/**
 * What makes two `useResilientSocket(url, options)` calls (React's hook or Vue's composable) the
 * same connection: the URL and the options compared by value, all the way down, so that options
 * written inline (new objects on every render, a policy or a feature made afresh by its factory)
 * neither reconnect nor split the sharing.
 *
 * - Plain objects and arrays: by their entries (key order does not matter; `undefined` entries
 *   do not count). A `{ next, reset }` policy of your own is one: by its functions and fields.
 * - Backoff policies (`constant({ … })`, `decorrelatedJitter({ … })`, every factory of
 *   `resilient-socket/backoff`): by their strategy and the options they were made with, defaults
 *   filled in (`constant()` and `constant({ delay: 1_000 })` are the same), `random` included.
 *   Their state (the attempt count) does not count.
 * - Features (`heartbeat({ … })`, …): by name and by the options they were made with.
 * - Functions (a URL provider, `shouldReconnect`, a handshake hook, a `WebSocket` class, a
 *   `random` source): by their source text. An inline arrow function is a new function on every
 *   render with the same text; two calls whose functions differ only in what they close over
 *   therefore share one socket (a seeded random source's seed does not count either; put what
 *   tells connections apart in the URL or in plain options). Bound and native functions
 *   (`Math.random`) say nothing in their source text: by identity.
 * - `URL` objects: by `href`.
 * - Other objects (an `AbortSignal`, a `TestClock`, an `http.Agent` in `wsOptions`, an instance of
 *   your own class): by identity. These are things you hold and act on (abort, advance, pool), so
 *   two of them are two different things: make them once (at module scope, in `useState` or
 *   `useRef`), never inline in render.
 *
 * An object the binding has already seen keeps the key it had then: changing it in place later (as
 * the socket does with the counters of a `{ next, reset }` object it is given) does not make it
 * another connection. A `URL` object is read afresh (its `href`): one given as the `url`
 * is its value on every render.
 */
import { MADE_FROM } from '../backoff/policy.js';
import { assertBoolean, assertFunction, assertNumber } from '../validation.js';

/**
 * The options of the bindings that are not the socket's (left out of the key), each with the
 * check of its value, in the order they are checked: the callbacks, the switches, `closeDelay`.
 */
export const BINDING_CHECKS = {
  onMessage: assertFunction,
  onDrop: assertFunction,
  filter: assertFunction,
  enabled: assertBoolean,
  share: assertBoolean,
  closeDelay: assertNumber,
} as const;

/** The options of the bindings that are not the socket's, left out of the key. */
export const BINDING_OPTIONS: readonly string[] = /* @__PURE__ */ Object.keys(BINDING_CHECKS);

/** Ids of the objects compared by identity (held weakly). */
const ids = /* @__PURE__ */ new WeakMap<object, number>();
let nextId = 0;

/** The key of each object already described (held weakly): it keeps the key it had when first seen. */
const seen = /* @__PURE__ */ new WeakMap<object, string>();
/** How many times an object was met again inside itself: a key that depends on where it was met is not kept. */
let cycles = 0;

/** Whether `value` is a feature made by one of the factories (a name, a rank and hooks). */
const isFeature = (value: object): value is { name: string; options_?: unknown } =>
  typeof (value as { name?: unknown }).name === 'string' &&
  typeof (value as { rank?: unknown }).rank === 'number' &&
  Object.values(value).some((member) => typeof member === 'function');

/** `#n`: the id of an object (or function) compared by identity. */
export function idOf(value: object): string {
  let id = ids.get(value);
  if (id === undefined) {
    id = ++nextId;
    ids.set(value, id);
  }
  return `#${id}`;
}

/**
 * A string equal for values equal as described above. `skip`: keys of the top level left out;
 * `path`: the objects being described (one met again is compared by identity: no endless loop).
 */
export function keyOf(value: unknown, skip: readonly string[] = [], path = new Set<object>()): string {
  if (typeof value === 'function') {
    const source = String(value);
    // Bound and native functions all read `function () { [native code] }`: by identity.
    return source.endsWith('{ [native code] }') ? idOf(value) : `f:${source}`;
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  // Read afresh every time: a URL's value is its `href`.
  if (typeof URL === 'function' && value instanceof URL) return JSON.stringify(value.href);
  if (path.has(value)) {
    cycles++;
    return idOf(value);
  }
  // The top level (with `skip`) is the options object itself: described afresh every time.
  let key = skip.length > 0 ? undefined : seen.get(value);
  // (A key is never empty.)
  if (key) return key;
  const before = cycles;
  path.add(value);
  // A feature's or a backoff policy's factory and options: `name(options)` (no plain object's key looks like this).
  const made = isFeature(value) ? [value.name, value.options_] : (value as Record<string, unknown>)[MADE_FROM];
  if (Array.isArray(value)) {
    const items = value.map((item) => keyOf(item, [], path));
    // Features run in a fixed order whatever their order in the list: their order does not count.
    if (value.every((item) => item && typeof item === 'object' && isFeature(item))) items.sort();
    key = `[${items}]`;
  } else if (Array.isArray(made)) key = `${made[0]}(${keyOf(made[1], [], path)})`;
  else if (![null, Object.prototype].includes(Object.getPrototypeOf(value))) key = idOf(value);
  else {
    key = `{${Object.keys(value)
      .filter((name) => !skip.includes(name) && (value as Record<string, unknown>)[name] !== undefined)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${keyOf((value as Record<string, unknown>)[name], [], path)}`)}}`;
  }
  path.delete(value);
  if (skip.length === 0 && cycles === before) seen.set(value, key);
  return key;
}
