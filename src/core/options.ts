/**
 * The core's options: validated once, at construction, into a {@link Config} that every socket
 * created alike shares (frozen; a socket holds a pointer instead of a copy). A feature validates
 * its own options in its factory; an option of a feature that is not installed is refused here,
 * naming the factory to import.
 */
import { assertBackoffPolicy } from '../backoff/policy.js';
import { checkTruncatedBinaryExponential } from '../backoff/truncated-binary-exponential.js';
import type { BackoffPolicyLike } from '../backoff/types.js';
import { assertClock, type Clock, systemClock } from '../clock.js';
import { resolveWebSocket } from '../transports/resolve-websocket.js';
import type { Transport } from '../transports/transport.js';
import type { WebSocketConstructorLike } from '../transports/websocket-like.js';
import {
  assertBoolean,
  assertFunction,
  assertKnownKeys,
  assertNumber,
  assertOptionsObject,
  describeReceived,
  type NumberRule,
} from '../validation.js';
import { type CloseInfo, defaultShouldReconnect } from './close-codes.js';
import type { Feature } from './feature.js';
import { checkProtocols, checkUrl } from './target.js';

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
   * The most messages the queue holds; `0` disables queueing (every send while disconnected is dropped).
   * @default 1000
   * @example
   * ```ts
   * new BaseSocket(url, { buffer: { maxMessages: 100 } })
   * ```
   */
  maxMessages?: number;
  /**
   * The most bytes the queue holds (an integer, or `Infinity` for no limit).
   * @default 1_048_576 (1 MiB)
   * @example
   * ```ts
   * new BaseSocket(url, { buffer: { maxBytes: 64 * 1024 } })
   * ```
   */
  maxBytes?: number;
}

/** Options of `new BaseSocket(url, options)` (the core; `ResilientSocket` adds every feature's). */
export interface BaseSocketOptions {
  /**
   * The WebSocket implementation: any constructor with the browser WebSocket shape (ws,
   * mock-socket, undici). Default: the global `WebSocket`, else (Node entry) the `ws` package.
   * @default globalThis.WebSocket, else (Node entry) the ws package
   * @example
   * ```ts
   * import { WebSocket } from 'mock-socket';
   * new BaseSocket(url, { WebSocket })
   * ```
   */
  WebSocket?: WebSocketConstructorLike;
  /**
   * Subprotocols, or a (sync/async) function called before every attempt.
   * @default undefined (no subprotocol)
   * @example
   * ```ts
   * new BaseSocket(url, { protocols: ['v2.json', 'v1.json'] })
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
   * new BaseSocket(url, { wsOptions: { headers: { Authorization: `Bearer ${token}` } } })
   * ```
   */
  wsOptions?: Record<string, unknown>;
  /**
   * Connect at construction. With `false` the socket starts `idle` until `open()`.
   * @default true
   * @example
   * ```ts
   * const socket = new BaseSocket(url, { autoConnect: false });
   * socket.on('open', onOpen);
   * socket.open();
   * ```
   */
  autoConnect?: boolean;
  /**
   * `T` of the default truncated binary exponential backoff: the widest retry window, in ms.
   * Not allowed together with `backoff`.
   * @default 10_000
   * @example
   * ```ts
   * new BaseSocket(url, { maxDelay: 30_000 }) // spread retries over up to 30 s
   * ```
   */
  maxDelay?: number;
  /**
   * `N` of the default backoff: the failure count from which the window stops doubling.
   * Not allowed together with `backoff`.
   * @default 10
   * @example
   * ```ts
   * new BaseSocket(url, { maxDelay: 10_000, ceiling: 5 }) // windows 625 ms … 10 s
   * ```
   */
  ceiling?: number;
  /**
   * Any backoff policy (from `resilient-socket/backoff` or your own `{ next, reset }`), or a
   * factory for one.
   * @default truncatedBinaryExponential({ maxDelay, ceiling })
   * @example
   * ```ts
   * new BaseSocket(url, { backoff: decorrelatedJitter({ base: 500, cap: 20_000 }) })
   * ```
   */
  backoff?: BackoffPolicyLike | (() => BackoffPolicyLike);
  /**
   * A connection must stay open this long (ms) before the failure count and backoff reset, so a
   * server that accepts and drops at once cannot cause a tight loop. `0` resets on open.
   * @default 5_000
   * @example
   * ```ts
   * new BaseSocket(url, { stableAfter: 30_000 }) // a server that crashes within 30 s keeps backing off
   * ```
   */
  stableAfter?: number;
  /**
   * An attempt (URL provider + WebSocket opening) not open by then is abandoned as failed, in ms.
   * `Infinity` disables it.
   * @default 10_000
   * @example
   * ```ts
   * new BaseSocket(url, { connectTimeout: 3_000 })
   * ```
   */
  connectTimeout?: number;
  /**
   * Retries after consecutive failures before giving up (`giveup`, then `closed`): with 3, the
   * fourth consecutive failure gives up. `Infinity` never gives up.
   * @default Infinity
   * @example
   * ```ts
   * const socket = new BaseSocket(url, { maxRetries: 5 });
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
   * new BaseSocket(url, { shouldReconnect: ({ code }) => code !== 4001 }) // 4001: our server's "kicked"
   * ```
   */
  shouldReconnect?: (close: CloseInfo) => boolean | PromiseLike<boolean>;
  /**
   * `binaryType` for every underlying socket. Default: the implementation's own
   * (`'blob'` in browsers, `'nodebuffer'` in ws).
   * @default the implementation's own ('blob' in browsers, 'nodebuffer' in ws)
   * @example
   * ```ts
   * new BaseSocket(url, { binaryType: 'arraybuffer' })
   * ```
   */
  binaryType?: string;
  /**
   * The clock for every timer and timestamp; inject one to drive time in tests.
   * @default global timers and Date.now
   * @example
   * ```ts
   * const clock = new TestClock(); // from resilient-socket/testing
   * new BaseSocket(url, { clock, WebSocket });
   * await clock.advance(5_000);
   * ```
   */
  clock?: Clock;
  /**
   * The outbound queue used while not connected: at most `maxMessages` messages and `maxBytes`
   * bytes (UTF-8 bytes for strings, `byteLength` for binary data, `size` for Blobs); the oldest are
   * evicted to make room, every eviction reported by `drop`. (`overflow` and `ttl` come with the
   * `bufferPolicy()` feature.)
   * @default { maxMessages: 1000, maxBytes: 1_048_576 }
   * @example
   * ```ts
   * new BaseSocket(url, { buffer: { maxMessages: 100, maxBytes: 64 * 1024 } })
   * ```
   */
  buffer?: QueueOptions;
  /**
   * The features this socket has, each from its factory (`heartbeat()`, `resume()`, …): see the
   * README's "Pay for what you use". An option of a feature that is not installed is a TypeError
   * naming the factory to import.
   * @default [] (the core alone)
   * @example
   * ```ts
   * new BaseSocket(url, { features: [heartbeat({ interval: 15_000, timeout: 5_000 }), resume()] })
   * ```
   */
  features?: readonly Feature[];
  /**
   * Aborting it does what `close()` does. Needs the `abortSignal()` feature.
   * @default undefined (only close() ends the socket)
   * @example
   * ```ts
   * new BaseSocket(url, { signal: controller.signal, features: [abortSignal()] })
   * ```
   */
  signal?: AbortSignal;
}

/** The validated core options, frozen and shared by sockets created alike. @internal */
export interface Config {
  readonly WebSocket: WebSocketConstructorLike;
  /** A string, our own copy of an array (compared element by element), or a provider. */
  readonly protocols: ProtocolsProvider | undefined;
  /** `T` and `N` of the default backoff; `undefined` when the `backoff` option is given. */
  readonly maxDelay: number | undefined;
  readonly ceiling: number | undefined;
  readonly stableAfter: number;
  readonly connectTimeout: number;
  readonly maxRetries: number;
  readonly shouldReconnect: (close: CloseInfo) => boolean | PromiseLike<boolean>;
  readonly maxMessages: number;
  readonly maxBytes: number;
  readonly clock: Clock;
  readonly unref: boolean;
  /** The features, in rank order. */
  readonly features: readonly Feature[];
  /** Per feature: its first timer slot (the core's slots come first). */
  readonly slotBase: readonly number[];
  /** Per timer slot: the feature that owns it, or -1 for the core's. */
  readonly slotOwner: readonly number[];
  /** How connections listen, and what else the runtime offers (per socket class). */
  readonly transport: Transport;
}

/** What a socket keeps of its options besides the shared config. @internal */
export interface Resolved {
  readonly config: Config;
  /** The `url` argument: a URL string, or a provider. */
  readonly url: UrlProvider;
  readonly autoConnect: boolean;
  /** The `backoff` option's policy; `undefined` for the default (a formula, no object). */
  readonly backoff: BackoffPolicyLike | undefined;
  readonly binaryType: string | undefined;
  /** Per socket (not in the shared config): a header may carry this socket's own token. */
  readonly wsOptions: Record<string, unknown> | undefined;
}

/** The core's timer slots: the deadline of the current state, and `reconnect()`'s background close. */
export const CORE_SLOTS = 2;

/** The defaults of the core's options. */
export const CORE_DEFAULTS = {
  autoConnect: true,
  stableAfter: 5_000,
  connectTimeout: 10_000,
  maxRetries: Number.POSITIVE_INFINITY,
  maxMessages: 1000,
  maxBytes: 1_048_576,
} as const;

/** The core's number options: name, default, rule (one loop validates them all). */
const NUMBERS: readonly [name: 'stableAfter' | 'connectTimeout' | 'maxRetries', rule: NumberRule][] = [
  ['stableAfter', { min: 0 }],
  ['connectTimeout', { above: 0, allowInfinity: true }],
  ['maxRetries', { integer: true, min: 0, allowInfinity: true }],
];

const CORE_OPTIONS = [
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
  'shouldReconnect',
  'buffer',
  'binaryType',
  'clock',
  'features',
];

/** Options that belong to a feature, and the factory that brings it. */
const FEATURE_OPTIONS: Readonly<Record<string, string>> = {
  heartbeat: 'heartbeat',
  resume: 'resume',
  handshake: 'handshake',
  handshakeTimeout: 'handshake',
  maxRetryAfter: 'upgradeRejection',
  signal: 'abortSignal',
  unref: 'unref',
  overflow: 'bufferPolicy',
  ttl: 'bufferPolicy',
};

/**
 * A TypeError for `name`, an option of the `factory()` feature: it is not installed (import it and
 * add it), or it is and takes its options itself.
 */
function needs(name: string, factory: string, features: readonly Feature[] = []): TypeError {
  return new TypeError(
    features.some((f) => f.name === factory)
      ? `\`${name}\` is not an option of the socket: give it to the ${factory}() factory itself`
      : `\`${name}\` belongs to the ${factory}() feature: import { ${factory} } from 'resilient-socket/modular' and add ${factory}(…) to \`features\``,
  );
}

/** The latest config handed out, held weakly: sockets created alike share it while any of them lives. */
let latest: WeakRef<Config> | undefined;

/**
 * Validates the core options and the features, and returns what the socket keeps. Sockets created
 * alike share one frozen config (the memory budget): it is compared with the latest one handed out,
 * value by value (arrays element by element; features by identity, their factories intern them).
 * @throws TypeError / RangeError naming the option; ResilientSocketError `ERR_RS_NO_WEBSOCKET`.
 * @internal
 */
export function resolveOptions(url: unknown, options: unknown, transport: Transport): Resolved {
  assertOptionsObject('options', options);
  const o = (options ?? {}) as BaseSocketOptions & Record<string, unknown>;
  const features = resolveFeatures(o.features);
  const owned = features.flatMap((f) => f.options ?? []);
  const known = [...CORE_OPTIONS, ...owned];
  for (const key of Object.keys(o)) {
    if (!known.includes(key) && FEATURE_OPTIONS[key]) throw needs(key, FEATURE_OPTIONS[key] as string, features);
  }
  assertKnownKeys('', o, [...known, ...Object.keys(FEATURE_OPTIONS)]);
  for (const feature of features) feature.check?.(o);
  const providers = features.some((f) => f.target);
  const { protocols: given, buffer = {}, backoff, maxDelay, ceiling, binaryType, wsOptions } = o;
  if (typeof url === 'function' && !providers) throw needs('url', 'providers');
  if (typeof given === 'function' && !providers) throw needs('protocols', 'providers');
  if (typeof url !== 'function') checkUrl('url', url);
  const protocols = typeof given === 'function' ? given : checkProtocols('protocols', given);
  if (wsOptions !== undefined) {
    assertOptionsObject('wsOptions', wsOptions);
    transport.checkOptions(wsOptions);
  }
  // Only `undefined` means "the default" (`null` is refused, as any other wrong type).
  const { autoConnect = CORE_DEFAULTS.autoConnect, shouldReconnect = defaultShouldReconnect, clock = systemClock } = o;
  assertBoolean('autoConnect', autoConnect);
  const numbers = { ...CORE_DEFAULTS } as Record<string, unknown>;
  for (const [name, rule] of NUMBERS) {
    if (o[name] !== undefined) numbers[name] = o[name];
    assertNumber(name, numbers[name], rule);
  }
  assertFunction('shouldReconnect', shouldReconnect);
  if (binaryType !== undefined && typeof binaryType !== 'string') {
    throw new TypeError(`Expected \`binaryType\` to be a string, got ${describeReceived(binaryType)}`);
  }
  assertClock('clock', clock);
  assertOptionsObject('buffer', buffer);
  for (const key of Object.keys(buffer)) if (FEATURE_OPTIONS[key]) throw needs(`buffer.${key}`, 'bufferPolicy', features);
  assertKnownKeys('buffer', buffer, ['maxMessages', 'maxBytes']);
  const { maxMessages = CORE_DEFAULTS.maxMessages, maxBytes = CORE_DEFAULTS.maxBytes } = buffer as QueueOptions;
  assertNumber('buffer.maxMessages', maxMessages, { integer: true, min: 0 });
  assertNumber('buffer.maxBytes', maxBytes, { integer: true, min: 0, allowInfinity: true });
  let policy: BackoffPolicyLike | undefined;
  let tbe: { readonly maxDelay: number; readonly ceiling: number } | undefined;
  if (backoff === undefined) tbe = checkTruncatedBinaryExponential(maxDelay, ceiling);
  else {
    if (maxDelay !== undefined || ceiling !== undefined) {
      throw new TypeError('`maxDelay` and `ceiling` configure the default backoff; they cannot be combined with `backoff`');
    }
    policy = typeof backoff === 'function' ? backoff() : backoff;
    assertBackoffPolicy(typeof backoff === 'function' ? 'backoff()' : 'backoff', policy);
  }
  const slotBase: number[] = [];
  const slotOwner: number[] = [-1, -1]; // CORE_SLOTS
  features.forEach((feature, me) => {
    slotBase.push(slotOwner.length);
    for (let n = 0; n < (feature.slots ?? 0); n++) slotOwner.push(me);
  });
  let config: Config = {
    protocols,
    maxDelay: tbe?.maxDelay,
    ceiling: tbe?.ceiling,
    stableAfter: numbers.stableAfter as number,
    connectTimeout: numbers.connectTimeout as number,
    maxRetries: numbers.maxRetries as number,
    shouldReconnect,
    maxMessages,
    maxBytes,
    clock,
    unref: features.some((f) => f.unref),
    features,
    slotBase,
    slotOwner,
    transport,
    // Last: a missing implementation is reported only for otherwise valid options.
    WebSocket: resolveWebSocket(o.WebSocket, transport.fallback),
  };
  const shared = latest?.deref();
  if (
    shared &&
    (Object.keys(config) as (keyof Config)[]).every((key) => {
      const [a, b] = [config[key] as unknown, shared[key] as unknown];
      return Object.is(a, b) || (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => Object.is(v, b[i])));
    })
  ) {
    config = shared;
  } else latest = new WeakRef(Object.freeze(config));
  return { config, url: url as UrlProvider, autoConnect, backoff: policy, binaryType, wsOptions };
}

/** The `features` option: feature objects, each at most once, sorted by rank (the hooks' order). */
function resolveFeatures(value: unknown): readonly Feature[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new TypeError(`Expected \`features\` to be an array of features, got ${describeReceived(value)}`);
  }
  value.forEach((feature: Partial<Feature> | null, i) => {
    if (typeof feature?.name !== 'string' || typeof feature.rank !== 'number') {
      throw new TypeError(
        `Expected \`features[${i}]\` to be a feature (from heartbeat(), resume(), …), got ${describeReceived(feature)}`,
      );
    }
    if (value.findIndex((other: Feature) => other.name === feature.name) !== i) {
      throw new RangeError(`Expected \`features\` to have each feature once, got ${feature.name}() twice`);
    }
  });
  return [...(value as Feature[])].sort((a, b) => a.rank - b.rank);
}
