/**
 * What makes two `useResilientSocket(url, options)` calls the same connection: the URL and the
 * options compared by value, so that an object literal written inline (a new object on every
 * render) neither reconnects nor splits the sharing.
 *
 * - Plain objects and arrays: by their entries (key order does not matter).
 * - Features (`heartbeat({ … })`, …): by name and by the options they were made with.
 * - Functions (a URL provider, `shouldReconnect`, a handshake hook, a `WebSocket` class): by their
 *   source text. An inline arrow function is a new function on every render with the same text;
 *   two calls whose functions differ only in what they close over therefore share one socket (the
 *   README says so: put what tells connections apart in the URL or in plain options).
 * - Other objects (an `AbortSignal`, a clock, a policy instance): by identity.
 */

/** The options of the hook that are not the socket's, left out of the key. */
export const HOOK_OPTIONS: readonly string[] = ['enabled', 'onMessage', 'onDrop', 'closeDelay'];

/** Ids of the objects compared by identity (held weakly). */
const ids = /* @__PURE__ */ new WeakMap<object, number>();
let nextId = 0;

/** Whether `value` is a feature made by one of the factories (a name, a rank and hooks). */
const isFeature = (value: object): value is { name: string; options_?: unknown } =>
  typeof (value as { name?: unknown }).name === 'string' &&
  typeof (value as { rank?: unknown }).rank === 'number' &&
  Object.values(value).some((member) => typeof member === 'function');

/** `#n`: the id of an object (or function) compared by identity. */
function idOf(value: object): string {
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
  if (path.has(value)) return idOf(value);
  path.add(value);
  let key: string;
  if (Array.isArray(value)) {
    const items = value.map((item) => keyOf(item, [], path));
    // Features run in a fixed order whatever their order in the list: their order does not count.
    if (items.length > 0 && value.every((item) => item && typeof item === 'object' && isFeature(item))) items.sort();
    key = `[${items}]`;
  } else if (isFeature(value)) key = `${value.name}(${keyOf(value.options_, [], path)})`;
  else if ((Object.getPrototypeOf(value) ?? Object.prototype) !== Object.prototype) {
    key = typeof URL === 'function' && value instanceof URL ? JSON.stringify(value.href) : idOf(value);
  } else {
    key = `{${Object.keys(value)
      .filter((name) => !skip.includes(name) && (value as Record<string, unknown>)[name] !== undefined)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${keyOf((value as Record<string, unknown>)[name], [], path)}`)}}`;
  }
  path.delete(value);
  return key;
}
