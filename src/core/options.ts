/**
 * The option schema of the sockets: every option declared once, here, with its TSDoc (the
 * interfaces), its default and its rule (the records below), and who reads it: the core, or the
 * feature a factory makes ({@link FEATURE_OPTIONS}). `new ResilientSocket(url, options)` takes the
 * core's; `ResilientSocketOptions` (`../resilient-socket/options.ts`) is derived from these and
 * the features' own, flat. Validated once, at construction, by `./resolve.ts`.
 */
import { DEFAULT_MAX_DELAY } from '../backoff/truncated-binary-exponential.js';
import type { BackoffPolicyLike } from '../backoff/types.js';
import type { Clock } from '../clock.js';
import type { WebSocketConstructorLike } from '../transports/websocket-like.js';
import type { NumberRule } from '../validation.js';
import type { CloseInfo } from './close-codes.js';
import type { Feature } from './feature.js';

/** A URL, or (with the `providers()` feature) a function, sync or async, that returns one before every attempt. */
export type UrlProvider = string | URL | (() => string | URL | PromiseLike<string | URL>);
/** Subprotocols, or (with the `providers()` feature) a function, sync or async, that returns them before every attempt. */
export type ProtocolsProvider =
  | string
  | readonly string[]
  | (() => string | readonly string[] | undefined | PromiseLike<string | readonly string[] | undefined>);

/** The core's outbound queue: how much it holds. */
export interface QueueOptions {
  /**
   * The most messages the queue holds: an integer >= 0 (`Infinity` is refused: the count is always
   * bounded); `0` disables queueing (every send while disconnected is dropped).
   * @default 1000
   * @example
   * ```ts
   * new ResilientSocket(url, { buffer: { maxMessages: 100 } })
   * ```
   */
  maxMessages?: number;
  /**
   * The most bytes the queue holds (an integer, or `Infinity` for no limit).
   * @default 1_048_576 (1 MiB)
   * @example
   * ```ts
   * new ResilientSocket(url, { buffer: { maxBytes: 64 * 1024 } })
   * ```
   */
  maxBytes?: number;
}

/** Options of `new ResilientSocket(url, options)` (the core; `ResilientSocket` adds every feature's). */
export interface BaseSocketOptions {
  /**
   * The WebSocket implementation: any constructor with the browser WebSocket shape (ws,
   * mock-socket, undici). Default: the global `WebSocket`, else (Node entry) the `ws` package.
   * @default globalThis.WebSocket, else (Node entry) the ws package
   * @example
   * ```ts
   * import { WebSocket } from 'mock-socket';
   * new ResilientSocket(url, { WebSocket })
   * ```
   */
  WebSocket?: WebSocketConstructorLike;
  /**
   * Subprotocols, or a (sync/async) function called before every attempt.
   * @default undefined (no subprotocol)
   * @example
   * ```ts
   * new ResilientSocket(url, { protocols: ['v2.json', 'v1.json'] })
   * ```
   */
  protocols?: ProtocolsProvider;
  /**
   * Passed as the third constructor argument (Node `ws` client options: `headers`, TLS `ca`/`cert`,
   * `agent`, …). Ignored by browser WebSockets. What ws (or Node's `http.request`) would refuse on
   * every attempt is refused here, at construction: header names that are not HTTP tokens, header
   * values (and `origin`) with CR, LF or other control characters, header values that are not
   * strings or numbers, a `protocolVersion` other than 8 or 13, a `handshakeTimeout` that is not a
   * finite number from 0 to 2^31 − 1, a `maxPayload` that ws would misread, and `auth`, `agent`,
   * `signal`, `finishRequest`, `maxHeaderSize`, `insecureHTTPParser` and `joinDuplicateHeaders` of
   * the wrong type. Error messages never show a header value.
   * @default undefined (nothing passed)
   * @example
   * ```ts
   * new ResilientSocket(url, { wsOptions: { headers: { Authorization: `Bearer ${token}` } } })
   * ```
   */
  wsOptions?: Record<string, unknown>;
  /**
   * Connect at construction. With `false` the socket starts `idle` until `open()`.
   * @default true
   * @example
   * ```ts
   * const socket = new ResilientSocket(url, { autoConnect: false });
   * socket.on('open', onOpen);
   * socket.open();
   * ```
   */
  autoConnect?: boolean;
  /**
   * `T` of the default truncated binary exponential backoff: the widest retry window, in ms
   * (finite, at least 1). Not allowed together with `backoff`.
   * @default 10_000
   * @example
   * ```ts
   * new ResilientSocket(url, { maxDelay: 30_000 }) // spread retries over up to 30 s
   * ```
   */
  maxDelay?: number;
  /**
   * `N` of the default backoff: a count of doublings, not milliseconds. The retry window doubles
   * with each consecutive failure until the `ceiling`-th, then stays at `maxDelay`; the first
   * window is `maxDelay / 2^(ceiling − 1)`. That first window must be at least 1 ms (a narrower
   * one would retry in a hot loop), so `ceiling` is an integer from 1 to `⌊log2 maxDelay⌋ + 1`:
   * at most 14 for the default 10 s, 15 for 30 s. A larger one is a RangeError naming both options
   * and that bound. Not allowed together with `backoff`.
   * @default 10 (for a `maxDelay` under 512 ms, the largest that keeps the first window at least 1 ms)
   * @example
   * ```ts
   * new ResilientSocket(url, { maxDelay: 10_000, ceiling: 5 }) // windows 625 ms, 1.25 s, 2.5 s, 5 s, then 10 s
   * ```
   */
  ceiling?: number;
  /**
   * Any backoff policy (from `resilient-socket/backoff` or your own `{ next, reset }`), or a
   * factory for one.
   * @default truncatedBinaryExponential({ maxDelay, ceiling })
   * @example
   * ```ts
   * new ResilientSocket(url, { backoff: decorrelatedJitter({ base: 500, cap: 20_000 }) })
   * ```
   */
  backoff?: BackoffPolicyLike | (() => BackoffPolicyLike);
  /**
   * A connection must stay open this long (ms) before the failure count and backoff reset, so a
   * server that accepts and drops at once cannot cause a tight loop. `0` resets on open.
   * @default 5_000
   * @example
   * ```ts
   * new ResilientSocket(url, { stableAfter: 30_000 }) // a server that crashes within 30 s keeps backing off
   * ```
   */
  stableAfter?: number;
  /**
   * An attempt (URL provider + WebSocket opening) not open by then is abandoned as failed, in ms.
   * `Infinity` disables it.
   * @default 10_000
   * @example
   * ```ts
   * new ResilientSocket(url, { connectTimeout: 3_000 })
   * ```
   */
  connectTimeout?: number;
  /**
   * Retries after consecutive failures before giving up (`giveup`, then `closed`): with 3, the
   * fourth consecutive failure gives up. `Infinity` never gives up.
   * @default Infinity
   * @example
   * ```ts
   * const socket = new ResilientSocket(url, { maxRetries: 5 });
   * socket.on('giveup', ({ error }) => showOffline(error));
   * ```
   */
  maxRetries?: number;
  /**
   * Decides whether to reconnect after the server or network closed a connection (never after a
   * close you caused: `close()`, `reconnect()`, a timeout). It may return a promise: the socket
   * waits for it in `reconnecting` (at most `SHOULD_RECONNECT_TIMEOUT`, 10 s), and the `close` of
   * that connection is emitted once it has decided. If it throws, rejects or does not settle in
   * time, that is reported (`ERR_RS_CALLBACK_FAILED`) and counts as `true`. `close()` or
   * `reconnect()` during the wait ends it (its late answer is ignored).
   * @default stop on 1002, 1003, 1007, 1008, 1009, 1010; reconnect on everything else
   * @example
   * ```ts
   * new ResilientSocket(url, { shouldReconnect: ({ code }) => code !== 4001 }) // 4001: our server's "kicked"
   * ```
   */
  shouldReconnect?: (close: CloseInfo) => boolean | PromiseLike<boolean>;
  /**
   * `binaryType` for every underlying socket: one the WebSocket takes (`'blob'` or `'arraybuffer'`;
   * with ws also `'nodebuffer'` and `'fragments'`). Another is a RangeError, here and from the
   * `binaryType` setter (a WebSocket would ignore it). Default: the implementation's own.
   * @default the implementation's own ('blob' in browsers, 'nodebuffer' in ws)
   * @example
   * ```ts
   * new ResilientSocket(url, { binaryType: 'arraybuffer' })
   * ```
   */
  binaryType?: string;
  /**
   * The clock for every timer and timestamp; inject one to drive time in tests. Its `now()` must
   * return a finite number (a RangeError at construction otherwise); one that returns something
   * else later is contained: the last finite reading stands in (time stops rather than timers
   * firing over and over), and it is reported once (`ERR_RS_CALLBACK_FAILED`, a process warning).
   * @default global timers and Date.now
   * @example
   * ```ts
   * const clock = new TestClock(); // from resilient-socket/testing
   * new ResilientSocket(url, { clock, WebSocket });
   * await clock.advance(5_000);
   * ```
   */
  clock?: Clock;
  /**
   * The outbound queue used while not connected: at most `maxMessages` messages and `maxBytes`
   * bytes (UTF-8 bytes for strings, `byteLength` for binary data, `size` for Blobs); the oldest are
   * evicted to make room, every eviction reported by `drop`. (Other policies, `overflow` and `ttl`,
   * come with the `bufferPolicy()` feature.)
   * @default { maxMessages: 1000, maxBytes: 1_048_576 }
   * @example
   * ```ts
   * new ResilientSocket(url, { buffer: { maxMessages: 100, maxBytes: 64 * 1024 } })
   * ```
   */
  buffer?: QueueOptions;
  /**
   * Back-pressure: once `bufferedAmount` (bytes queued here plus those the WebSocket has not
   * written yet) goes above this, `writable` is false until the `drain` event, emitted once it is
   * back at or under it. `send()` still sends and queues as before: the mark only tells a producer
   * when to wait. An integer >= 0 (`0`: wait until everything is on the wire), or `Infinity` to turn
   * it off. 64 KiB is Node streams' default high-water mark (since Node 22) and oh-my-pi's
   * WebSocket watermark; it holds a producer back long before the queue's 1 MiB evicts anything.
   * @default 65_536 (64 KiB)
   * @example
   * ```ts
   * const socket = new ResilientSocket(url, { highWaterMark: 256 * 1024 });
   * for (const chunk of chunks) {
   *   if (!socket.writable) await new Promise<void>((resolve) => socket.once('drain', resolve));
   *   socket.send(chunk);
   * }
   * ```
   */
  highWaterMark?: number;
  /**
   * The features this socket has, each from its factory (`heartbeat()`, `resume()`, …): see the
   * guide docs/guide/builds-and-size.md. An option of a feature that is not installed is a TypeError
   * naming the factory to import.
   * @default [] (the core alone)
   * @example
   * ```ts
   * new BaseSocket(url, { features: [heartbeat({ interval: 15_000, timeout: 5_000 }), resume()] })
   * ```
   */
  features?: readonly Feature[];
  /**
   * Aborting it does what `close()` does. Read by the `abortSignal()` feature (a `BaseSocket`
   * needs it in `features`; `ResilientSocket` has it).
   * @default undefined (only close() ends the socket)
   * @example
   * ```ts
   * const controller = new AbortController();
   * new ResilientSocket(url, { signal: controller.signal });
   * controller.abort(); // closes it
   * ```
   */
  signal?: AbortSignal;
}

/**
 * The options of {@link BaseSocketOptions} the core reads itself (the rest are features'), as a
 * record so that the compiler reports one missing or one that no longer exists.
 */
const CORE_OPTION_NAMES: Readonly<Record<Exclude<keyof BaseSocketOptions, keyof typeof FEATURE_OPTIONS>, true>> = {
  WebSocket: true,
  protocols: true,
  wsOptions: true,
  autoConnect: true,
  maxDelay: true,
  ceiling: true,
  backoff: true,
  stableAfter: true,
  connectTimeout: true,
  maxRetries: true,
  shouldReconnect: true,
  buffer: true,
  highWaterMark: true,
  binaryType: true,
  clock: true,
  features: true,
};

/** The names of the options the core reads itself. @internal */
export const CORE_OPTIONS: readonly string[] = /* @__PURE__ */ Object.keys(CORE_OPTION_NAMES);

/**
 * The features' options a socket takes by name (flat on `ResilientSocket`), each with the factory
 * of the feature that reads it. On a `BaseSocket` without that feature, one is refused with a
 * TypeError naming the factory to import.
 * @internal
 */
export const FEATURE_OPTIONS = {
  heartbeat: 'heartbeat',
  resume: 'resume',
  handshake: 'handshake',
  maxRetryAfter: 'upgradeRejection',
  signal: 'abortSignal',
  unref: 'unref',
  delivery: 'delivery',
  bufferPolicy: 'bufferPolicy',
} as const;

/**
 * The defaults of the core's options that are plain values (`T` and `N` of the default backoff
 * are `truncatedBinaryExponential()`'s; `N` is lowered to fit a `maxDelay` under 512 ms, see
 * `resolveCeiling`).
 * @internal
 */
export const CORE_DEFAULTS = {
  autoConnect: true,
  stableAfter: 5_000,
  connectTimeout: 10_000,
  maxRetries: Infinity,
  maxMessages: 1000,
  maxBytes: 1_048_576,
  highWaterMark: 65_536,
  maxDelay: DEFAULT_MAX_DELAY,
} as const;

/**
 * The rules of the core's number options (one loop in `./resolve.ts` checks them all); the default
 * backoff's `maxDelay` and `ceiling`, checked together, and `buffer`'s follow their own.
 * @internal
 */
export const CORE_NUMBERS: readonly [name: keyof typeof CORE_DEFAULTS, rule: NumberRule][] = [
  ['stableAfter', { min: 0 }],
  ['connectTimeout', { above: 0, allowInfinity: true }],
  ['maxRetries', { integer: true, min: 0, allowInfinity: true }],
  ['highWaterMark', { integer: true, min: 0, allowInfinity: true }],
];
