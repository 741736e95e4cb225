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
  typeof (value as { name?: unknown }).name === 'string' && typeof (value as { rank?: unknown }).rank === 'number';

/** A string equal for values equal as described above. */
export function keyOf(value: unknown, skip: readonly string[] = []): string {
  if (typeof value === 'function') return `f:${String(value)}`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[${value.map((item) => keyOf(item)).join(',')}]`;
  if (isFeature(value)) return `${value.name}(${keyOf(value.options_)})`;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    if (typeof URL === 'function' && value instanceof URL) return JSON.stringify(value.href);
    let id = ids.get(value);
    if (id === undefined) {
      id = ++nextId;
      ids.set(value, id);
    }
    return `#${id}`;
  }
  const entries = Object.keys(value)
    .filter((key) => !skip.includes(key) && (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${keyOf((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}
