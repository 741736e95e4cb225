import { assertBackoffPolicy } from '../backoff/policy.js';
import {
  TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS,
  type TruncatedBinaryExponentialPolicy,
  truncatedBinaryExponential,
} from '../backoff/truncated-binary-exponential.js';
import type { BackoffPolicyLike } from '../backoff/types.js';
import { type BufferOptions, type ResolvedBufferOptions, resolveBufferOptions } from '../buffer/outbound-buffer.js';
import { assertClock, type Clock, systemClock } from '../clock.js';
import { type Data, isData } from '../data.js';
import { resolveWebSocket } from '../transport/resolve-websocket.js';
import type { WebSocketConstructorLike } from '../transport/websocket-like.js';
import {
  assertBoolean,
  assertFunction,
  assertNumber,
  assertObjectOrFalse,
  assertOptionsObject,
  describeReceived,
  describeValue,
  isAbortSignal,
  withDefault,
} from '../validation.js';
import { type CloseInfo, defaultShouldReconnect } from './close-codes.js';

/** A URL, or a function (sync or async) that returns one before every attempt. */
export type UrlProvider = string | URL | (() => string | URL | PromiseLike<string | URL>);
/** Subprotocols, or a function (sync or async) that returns them before every attempt. */
export type ProtocolsProvider =
  | string
  | readonly string[]
  | (() => string | readonly string[] | undefined | PromiseLike<string | readonly string[] | undefined>);

/** Dead-link detection. */
export interface HeartbeatOptions {
  /**
   * How often to probe the link, in ms (> 0).
   * @default 30_000
   * @example
   * ```ts
   * new ResilientSocket(url, { heartbeat: { interval: 15_000 } })
   * ```
   */
  interval?: number;
  /**
   * How long to wait for an answer to a probe before declaring the link dead, in ms (> 0).
   * A dead link is closed (`close` with code 1006, reason `'heartbeat timeout'`) and reconnected,
   * within `interval + timeout` of going silent.
   * @default 10_000
   * @example
   * ```ts
   * new ResilientSocket(url, { heartbeat: { interval: 15_000, timeout: 5_000 } })
   * ```
   */
  timeout?: number;
  /**
   * An application-level ping to send every `interval` when the transport has no protocol ping
   * (browsers). Without it, and without protocol ping, the heartbeat watches for silence: no
   * message for `interval + timeout` means dead. Any incoming message counts as a sign of life.
   * @default undefined (protocol ping with ws; silence detection otherwise)
   * @example
   * ```ts
   * new ResilientSocket(url, { heartbeat: { message: '{"type":"ping"}', isPong: (d) => d === '{"type":"pong"}' } })
   * ```
   */
  message?: Data | (() => Data);
  /**
   * Recognises the server's answer to `message`. Messages it accepts are consumed (not emitted
   * as `message`).
   * @default undefined (any message counts as the answer and is emitted)
   * @example
   * ```ts
   * new ResilientSocket(url, { heartbeat: { message: 'ping', isPong: (data) => data === 'pong' } })
   * ```
   */
  isPong?: (data: Data) => boolean;
}

/**
 * Resume awareness: what the socket does when the page or the process comes back, or the network
 * goes and comes back. See the `resume` option.
 */
export interface ResumeOptions {
  /**
   * How long a connection that says it is open has to answer the probe sent on a resume, in ms
   * (> 0). No answer means it died while nobody was looking: it is closed (`ERR_RS_DEAD_LINK`,
   * close reason `'probe timeout'`) and replaced.
   * @default 3_000
   * @example
   * ```ts
   * new ResilientSocket(url, { resume: { probeTimeout: 1_500 } })
   * ```
   */
  probeTimeout?: number;
  /**
   * While the browser says it is offline (`navigator.onLine === false`), make no attempt and draw
   * no delay; try at once when it is back online. Set `false` when the server may be reachable
   * without a network (the same machine).
   * @default true
   * @example
   * ```ts
   * new ResilientSocket('ws://localhost:8080', { resume: { pauseWhileOffline: false } })
   * ```
   */
  pauseWhileOffline?: boolean;
  /**
   * Where there is no page to watch (Node), find a suspended process or machine by timer drift
   * (one unref'd 1 s timer per clock, shared by all sockets) and treat the wake-up as a resume.
   * @default true
   * @example
   * ```ts
   * new ResilientSocket(url, { resume: { detectSuspend: false } })
   * ```
   */
  detectSuspend?: boolean;
}

/** What the `handshake` hook receives: the fresh connection, before anyone else sees it. */
export interface HandshakeConnection {
  /** The URL of this attempt. */
  readonly url: string;
  /** The negotiated subprotocol ('' if none). */
  readonly protocol: string;
  /** The attempt number. */
  readonly attempt: number;
  /** Aborted when the attempt is abandoned (handshake timeout, close(), connection lost). */
  readonly signal: AbortSignal;
  /** Sends directly on this connection (bypassing the outbound buffer, which is flushed after the handshake). */
  send(data: Data): void;
  /**
   * Resolves with the next incoming message that `predicate` accepts (any message without one),
   * consuming it. Messages not consumed during the handshake are emitted as `message` after `open`.
   * Rejects if the attempt is abandoned.
   */
  nextMessage(predicate?: (data: Data) => boolean): Promise<Data>;
}

/** Options of `new ResilientSocket(url, options)`. Validated once, at construction. */
export interface ResilientSocketOptions {
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
   * `agent`, …). Ignored by browser WebSockets.
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
   * `T` of the default truncated binary exponential backoff: the widest retry window, in ms.
   * Not allowed together with `backoff`.
   * @default 10_000
   * @example
   * ```ts
   * new ResilientSocket(url, { maxDelay: 30_000 }) // spread retries over up to 30 s
   * ```
   */
  maxDelay?: number;
  /**
   * `N` of the default backoff: the failure count from which the window stops doubling.
   * Not allowed together with `backoff`.
   * @default 10
   * @example
   * ```ts
   * new ResilientSocket(url, { maxDelay: 10_000, ceiling: 5 }) // windows 625 ms … 10 s
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
   * Decides whether to reconnect after the server or network closed a connection.
   * @default stop on 1002, 1003, 1007, 1008, 1009, 1010; reconnect on everything else
   * @example
   * ```ts
   * new ResilientSocket(url, { shouldReconnect: ({ code }) => code !== 4001 }) // 4001: our server's "kicked"
   * ```
   */
  shouldReconnect?: (close: CloseInfo) => boolean;
  /**
   * Dead-link detection, or `false` to turn it off. With `ws`, protocol ping/pong is used by
   * default. With a browser WebSocket it runs only when configured: with `message` it sends an
   * app-level ping, otherwise it detects silence.
   * @default { interval: 30_000, timeout: 10_000 } (protocol ping where available)
   * @example
   * ```ts
   * new ResilientSocket(url, { heartbeat: { interval: 10_000, timeout: 5_000, message: 'ping', isPong: (d) => d === 'pong' } })
   * ```
   */
  heartbeat?: HeartbeatOptions | false;
  /**
   * The outbound buffer used while not connected.
   * @default { maxMessages: 1000, maxBytes: 1_048_576, overflow: 'drop-oldest', ttl: Infinity }
   * @example
   * ```ts
   * new ResilientSocket(url, { buffer: { maxMessages: 100, overflow: 'error' } })
   * ```
   */
  buffer?: BufferOptions;
  /**
   * Runs on every open before the buffer is flushed and before `open` is emitted: authenticate,
   * resubscribe, await the server's ack. If it throws or times out, the attempt counts as failed.
   * @default undefined (open at once)
   * @example
   * ```ts
   * new ResilientSocket(url, {
   *   async handshake(connection) {
   *     connection.send(JSON.stringify({ type: 'auth', token: await getToken() }));
   *     await connection.nextMessage((data) => data === 'authenticated');
   *   },
   * })
   * ```
   */
  handshake?: (connection: HandshakeConnection) => void | PromiseLike<void>;
  /**
   * How long `handshake` may take, in ms. `Infinity` disables the limit.
   * @default 10_000
   * @example
   * ```ts
   * new ResilientSocket(url, { handshake, handshakeTimeout: 5_000 })
   * ```
   */
  handshakeTimeout?: number;
  /**
   * `binaryType` for every underlying socket. Default: the implementation's own
   * (`'blob'` in browsers, `'nodebuffer'` in ws).
   * @default the implementation's own ('blob' in browsers, 'nodebuffer' in ws)
   * @example
   * ```ts
   * new ResilientSocket(url, { binaryType: 'arraybuffer' })
   * ```
   */
  binaryType?: string;
  /**
   * Aborting it does what `close()` does.
   * @default undefined (only close() ends the socket)
   * @example
   * ```ts
   * const controller = new AbortController();
   * new ResilientSocket(url, { signal: controller.signal });
   * controller.abort(); // closes it
   * ```
   */
  signal?: AbortSignal;
  /**
   * Keep pending timers (reconnect waits, heartbeat) from holding a Node process open.
   * @default false
   * @example
   * ```ts
   * new ResilientSocket(url, { unref: true }) // a CLI can exit while the socket waits to reconnect
   * ```
   */
  unref?: boolean;
  /**
   * Resume awareness, or `false` to turn it off. When the page becomes visible again, comes back
   * from the back/forward cache, or the network goes offline or comes back online (or, in Node,
   * the process wakes from a suspension), a connection that says it is open is probed at once (a protocol ping with
   * ws, the heartbeat's `message` otherwise; connections with no way to ask are left to the
   * heartbeat) and replaced if it does not answer within `probeTimeout`, and a socket waiting out
   * a backoff delay retries now (keeping its failure count). While offline, no attempt is made.
   * @default { probeTimeout: 3_000, pauseWhileOffline: true, detectSuspend: true }
   * @example
   * ```ts
   * new ResilientSocket(url, { resume: false }) // keep the plain backoff schedule
   * ```
   */
  resume?: ResumeOptions | false;
  /**
   * The clock for every timer and timestamp; inject one to drive time in tests.
   * @default global timers and Date.now
   * @example
   * ```ts
   * const clock = new TestClock(); // from resilient-socket/testing
   * new ResilientSocket(url, { clock, WebSocket });
   * await clock.advance(5_000);
   * ```
   */
  clock?: Clock;
}

/** @internal */
export interface ResolvedHeartbeat {
  readonly interval: number;
  readonly timeout: number;
  readonly message: Data | (() => Data) | undefined;
  readonly isPong: ((data: Data) => boolean) | undefined;
  /** The user configured it explicitly (enables silence detection without protocol ping). */
  readonly explicit: boolean;
}

/** @internal */
export interface ResolvedResume {
  readonly probeTimeout: number;
  readonly pauseWhileOffline: boolean;
  readonly detectSuspend: boolean;
}

/**
 * How a socket behaves: the validated options that do not name its endpoint or its own objects
 * (backoff state, signal). Sockets created with equal options share one frozen SocketConfig
 * ({@link internConfig}), so a socket holds a pointer instead of a copy.
 * @internal
 */
export interface SocketConfig {
  readonly WebSocket: WebSocketConstructorLike;
  /** A function, a string, or our own copy of the array (compared element by element). */
  readonly protocols: ProtocolsProvider | undefined;
  /** `T` and `N` of the default backoff; `undefined` when the `backoff` option is given. */
  readonly maxDelay: number | undefined;
  readonly ceiling: number | undefined;
  readonly stableAfter: number;
  readonly connectTimeout: number;
  readonly maxRetries: number;
  readonly shouldReconnect: (close: CloseInfo) => boolean;
  readonly heartbeat: ResolvedHeartbeat | false;
  readonly buffer: ResolvedBufferOptions;
  readonly handshake: ((connection: HandshakeConnection) => void | PromiseLike<void>) | undefined;
  readonly handshakeTimeout: number;
  readonly unref: boolean;
  readonly clock: Clock;
  readonly resume: ResolvedResume | false;
}

/** Every validated option; the socket keeps `config` and the per-socket fields it needs. @internal */
export interface ResolvedSocketOptions {
  readonly url: UrlProvider;
  readonly wsOptions: Record<string, unknown> | undefined;
  readonly autoConnect: boolean;
  /** The policy from the `backoff` option; `undefined` for the default (see {@link defaultBackoff}). */
  readonly backoff: BackoffPolicyLike | undefined;
  readonly binaryType: string | undefined;
  readonly signal: AbortSignal | undefined;
  readonly config: SocketConfig;
}

export const SOCKET_DEFAULTS = Object.freeze({
  autoConnect: true,
  stableAfter: 5_000,
  connectTimeout: 10_000,
  maxRetries: Number.POSITIVE_INFINITY,
  handshakeTimeout: 10_000,
  heartbeat: Object.freeze({ interval: 30_000, timeout: 10_000 }),
  resume: Object.freeze({ probeTimeout: 3_000, pauseWhileOffline: true, detectSuspend: true }),
});

const URL_SCHEMES = new Set(['ws:', 'wss:', 'http:', 'https:']);

/**
 * Checks a concrete URL (given directly or returned by a provider) and returns it as a string.
 * @throws TypeError for a non-string/URL, RangeError for an unparsable URL or a scheme other than ws(s)/http(s).
 */
export function checkUrl(name: string, value: unknown): string {
  if (typeof value !== 'string' && !(value instanceof URL)) {
    throw new TypeError(`Expected \`${name}\` to be a string, a URL or a function, got ${describeReceived(value)}`);
  }
  let parsed: URL;
  try {
    parsed = new URL(String(value));
  } catch {
    throw new RangeError(
      `Expected \`${name}\` to be an absolute ws:, wss:, http: or https: URL, got ${describeValue(String(value))}`,
    );
  }
  if (!URL_SCHEMES.has(parsed.protocol)) {
    throw new RangeError(`Expected \`${name}\` to use ws:, wss:, http: or https:, got ${describeValue(String(value))}`);
  }
  if (parsed.hash) {
    throw new RangeError(`Expected \`${name}\` to have no #fragment, got ${describeValue(String(value))}`);
  }
  return String(value);
}

/**
 * Checks concrete protocols and returns them in the form the WebSocket constructor takes.
 * @throws TypeError unless a string or an array of strings.
 */
export function checkProtocols(name: string, value: unknown): string | string[] | undefined {
  if (value === undefined || typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((p) => typeof p === 'string')) return [...value];
  throw new TypeError(`Expected \`${name}\` to be a string or an array of strings, got ${describeReceived(value)}`);
}

function resolveHeartbeat(value: unknown): ResolvedHeartbeat | false {
  assertObjectOrFalse('heartbeat', value);
  if (value === false) return false;
  const options = (value ?? {}) as HeartbeatOptions;
  const interval = withDefault(options.interval, SOCKET_DEFAULTS.heartbeat.interval);
  const timeout = withDefault(options.timeout, SOCKET_DEFAULTS.heartbeat.timeout);
  assertNumber('heartbeat.interval', interval, { above: 0 });
  assertNumber('heartbeat.timeout', timeout, { above: 0 });
  if (options.message !== undefined && typeof options.message !== 'function' && !isData(options.message)) {
    throw new TypeError(
      `Expected \`heartbeat.message\` to be a string, binary data or a function, got ${describeReceived(options.message)}`,
    );
  }
  if (options.isPong !== undefined) assertFunction('heartbeat.isPong', options.isPong);
  return { interval, timeout, message: options.message, isPong: options.isPong, explicit: value !== undefined };
}

function resolveResume(value: unknown): ResolvedResume | false {
  assertObjectOrFalse('resume', value);
  if (value === false) return false;
  if (value === undefined) return SOCKET_DEFAULTS.resume;
  const options = value as ResumeOptions;
  const probeTimeout = withDefault(options.probeTimeout, SOCKET_DEFAULTS.resume.probeTimeout);
  assertNumber('resume.probeTimeout', probeTimeout, { above: 0 });
  const pauseWhileOffline = withDefault(options.pauseWhileOffline, SOCKET_DEFAULTS.resume.pauseWhileOffline);
  assertBoolean('resume.pauseWhileOffline', pauseWhileOffline);
  const detectSuspend = withDefault(options.detectSuspend, SOCKET_DEFAULTS.resume.detectSuspend);
  assertBoolean('resume.detectSuspend', detectSuspend);
  return { probeTimeout, pauseWhileOffline, detectSuspend };
}

/** The latest config handed out, held weakly: sockets created alike share it while any of them lives. */
let latestConfig: WeakRef<SocketConfig> | undefined;

/**
 * Whether two configs behave the same: equal primitives, the same functions and clock, and
 * heartbeat, buffer and resume options (objects resolved here, all with the same keys) equal field by field.
 */
function sameConfig(a: SocketConfig, b: SocketConfig): boolean {
  return (Object.keys(a) as (keyof SocketConfig)[]).every((key) => {
    const x = a[key] as unknown as Record<string, unknown>;
    const y = b[key] as unknown as Record<string, unknown>;
    return (
      Object.is(x, y) ||
      (key === 'protocols' &&
        Array.isArray(x) &&
        Array.isArray(y) &&
        x.length === y.length &&
        x.every((p, i) => p === y[i])) ||
      ((key === 'heartbeat' || key === 'buffer' || key === 'resume') &&
        !!x &&
        !!y &&
        Object.keys(x).every((k) => Object.is(x[k], y[k])))
    );
  });
}

/**
 * Returns a config equal to `config` that sockets already share, or freezes and shares `config`.
 * An app that creates its sockets with the same options (the usual case) pays for one config.
 * @internal
 */
export function internConfig(config: SocketConfig): SocketConfig {
  const latest = latestConfig?.deref();
  if (latest && sameConfig(latest, config)) return latest;
  latestConfig = new WeakRef(Object.freeze(config));
  return config;
}

/**
 * A fresh default policy (truncated binary exponential with the config's `T` and `N`). The socket
 * creates it on its first failure and lets it go once a connection is stable: a policy that was
 * reset is indistinguishable from a new one, and a connected socket then holds none.
 * @internal
 */
export function defaultBackoff(config: SocketConfig): BackoffPolicyLike {
  // The config has them under the option names: `maxDelay` and `ceiling` (and no `random`).
  return truncatedBinaryExponential(config as { maxDelay: number; ceiling: number });
}

function resolveBackoff(options: ResilientSocketOptions): BackoffPolicyLike {
  const { backoff, maxDelay, ceiling } = options;
  if (backoff === undefined) {
    return truncatedBinaryExponential({
      maxDelay: withDefault(maxDelay, TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS.maxDelay),
      ceiling: withDefault(ceiling, TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS.ceiling),
    });
  }
  if (maxDelay !== undefined || ceiling !== undefined) {
    throw new TypeError(
      '`maxDelay` and `ceiling` configure the default backoff; they cannot be combined with `backoff`',
    );
  }
  const policy = typeof backoff === 'function' ? (backoff as () => unknown)() : backoff;
  assertBackoffPolicy(typeof backoff === 'function' ? 'backoff()' : 'backoff', policy);
  return policy;
}

/** Validates everything once and returns the fully defaulted options. @internal */
export function resolveSocketOptions(
  url: unknown,
  options: unknown,
  fallbackWebSocket: () => WebSocketConstructorLike | undefined,
): ResolvedSocketOptions {
  if (typeof url === 'function') {
    // checked when called, before every attempt
  } else {
    checkUrl('url', url);
  }
  assertOptionsObject('options', options);
  const o = (options ?? {}) as ResilientSocketOptions;

  const protocols = typeof o.protocols === 'function' ? o.protocols : checkProtocols('protocols', o.protocols);
  if (o.wsOptions !== undefined) assertOptionsObject('wsOptions', o.wsOptions);
  const autoConnect = withDefault(o.autoConnect, SOCKET_DEFAULTS.autoConnect);
  assertBoolean('autoConnect', autoConnect);
  const stableAfter = withDefault(o.stableAfter, SOCKET_DEFAULTS.stableAfter);
  assertNumber('stableAfter', stableAfter, { min: 0 });
  const connectTimeout = withDefault(o.connectTimeout, SOCKET_DEFAULTS.connectTimeout);
  assertNumber('connectTimeout', connectTimeout, { above: 0, allowInfinity: true });
  const maxRetries = withDefault(o.maxRetries, SOCKET_DEFAULTS.maxRetries);
  assertNumber('maxRetries', maxRetries, { integer: true, min: 0, allowInfinity: true });
  const shouldReconnect = withDefault(o.shouldReconnect, defaultShouldReconnect);
  assertFunction('shouldReconnect', shouldReconnect);
  const handshakeTimeout = withDefault(o.handshakeTimeout, SOCKET_DEFAULTS.handshakeTimeout);
  assertNumber('handshakeTimeout', handshakeTimeout, { above: 0, allowInfinity: true });
  if (o.handshake !== undefined) assertFunction('handshake', o.handshake);
  if (o.binaryType !== undefined && typeof o.binaryType !== 'string') {
    throw new TypeError(`Expected \`binaryType\` to be a string, got ${describeReceived(o.binaryType)}`);
  }
  if (o.signal !== undefined && !isAbortSignal(o.signal)) {
    throw new TypeError(`Expected \`signal\` to be an AbortSignal, got ${describeReceived(o.signal)}`);
  }
  const unref = withDefault(o.unref, false);
  assertBoolean('unref', unref);
  const clock = withDefault(o.clock, systemClock);
  assertClock('clock', clock);

  // The default policy is made here only to validate `maxDelay` and `ceiling` (see defaultBackoff).
  const backoff = resolveBackoff(o);
  const byDefault = o.backoff === undefined ? (backoff as TruncatedBinaryExponentialPolicy) : undefined;
  return {
    url: url as UrlProvider,
    wsOptions: o.wsOptions,
    autoConnect,
    backoff: byDefault ? undefined : backoff,
    binaryType: o.binaryType,
    signal: o.signal,
    config: internConfig({
      protocols,
      maxDelay: byDefault?.maxDelay,
      ceiling: byDefault?.ceiling,
      stableAfter,
      connectTimeout,
      maxRetries,
      shouldReconnect,
      heartbeat: resolveHeartbeat(o.heartbeat),
      buffer: resolveBufferOptions(o.buffer),
      handshake: o.handshake,
      handshakeTimeout,
      unref,
      clock,
      resume: resolveResume(o.resume),
      // Last: a missing implementation is reported only for otherwise valid options.
      WebSocket: resolveWebSocket(o.WebSocket, fallbackWebSocket),
    }),
  };
}
