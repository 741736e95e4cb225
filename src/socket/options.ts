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
import { redactUrl } from '../redact.js';
import { resolveWebSocket } from '../transport/resolve-websocket.js';
import type { WebSocketConstructorLike } from '../transport/websocket-like.js';
import { checkWsOptions } from '../transport/ws-options.js';
import {
  assertBoolean,
  assertFunction,
  assertKnownKeys,
  assertNumber,
  assertObjectOrFalse,
  assertOptionsObject,
  characters,
  describeChar,
  describeReceived,
  describeValue,
  firstNonTokenChar,
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

/**
 * Dead-link detection. It runs in one of three modes, and only an answer to its own kind of probe
 * proves the link alive:
 *
 * - **protocol ping** (ws, no `message`): a ping frame every `interval`, answered only by a pong
 *   frame. Messages do not count: a server that streams data but no longer answers pings is dead.
 * - **app-level ping** (`message` with `isPong`): `message` is sent every `interval` and answered
 *   only by an incoming message that `isPong` accepts; such answers are consumed (never emitted as
 *   `message`). Other messages do not count.
 * - **silence detection** (no `message`, no protocol ping: a browser WebSocket): nothing is sent,
 *   and any incoming message counts as a sign of life. This is the only mode in which it does.
 */
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
   * How long to wait for the answer to a probe before declaring the link dead, in ms (> 0): a pong
   * frame for a protocol ping, a message `isPong` accepts for an app-level ping, any message in
   * silence detection. A dead link is closed (`close` with code 1006, reason `'heartbeat timeout'`)
   * and reconnected, within `interval + timeout` of its last answer.
   * @default 10_000
   * @example
   * ```ts
   * new ResilientSocket(url, { heartbeat: { interval: 15_000, timeout: 5_000 } })
   * ```
   */
  timeout?: number;
  /**
   * An application-level ping to send every `interval` when the transport has no protocol ping
   * (browsers), or a function returning a fresh one each time. Requires `isPong`: a heartbeat that
   * sends pings must recognise their answers (a TypeError at construction otherwise). Without it,
   * and without protocol ping, the heartbeat watches for silence: no message for
   * `interval + timeout` means dead, and any incoming message counts as a sign of life.
   * @default undefined (protocol ping with ws; silence detection otherwise)
   * @example
   * ```ts
   * new ResilientSocket(url, { heartbeat: { message: '{"type":"ping"}', isPong: (d) => d === '{"type":"pong"}' } })
   * ```
   */
  message?: Data | (() => Data);
  /**
   * Recognises the server's answer to `message`; required when `message` is set. Only messages it
   * accepts answer a ping, and they are consumed (not emitted as `message`); every other message is
   * emitted and proves nothing. It is not consulted for protocol pings (only a pong frame answers
   * those) nor in silence detection (where any message is a sign of life).
   * @default undefined (required with `message`; unused without it)
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
  /** The URL of this attempt, whole (your own code: unlike events and errors, it is not redacted). */
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
   * The longest wait a server's `Retry-After` can impose, in ms (>= 0, or `Infinity` for no cap).
   * `Retry-After` is honoured only when an upgrade is refused with 429 or 503 and that header: the
   * next attempt then waits at least that long, but never more than `maxRetryAfter`, so that a 503
   * with `Retry-After: 2147483` cannot park a client for 24.9 days. The idea is ky's
   * `retry.maxRetryAfter`. `0` ignores `Retry-After` (the backoff alone decides).
   * @default 300_000 (5 minutes)
   * @example
   * ```ts
   * new ResilientSocket(url, { maxRetryAfter: 60_000 }) // wait at most a minute, whatever the server says
   * ```
   */
  maxRetryAfter?: number;
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
   * Dead-link detection, or `false` to turn it off. With `ws`, protocol ping/pong is used by
   * default, and only a pong answers a ping. With a browser WebSocket it runs only when configured:
   * with `message` it sends an app-level ping, answered only by messages `isPong` accepts (which
   * is then required; those answers are consumed, not emitted); without `message` it detects
   * silence, the only mode in which any incoming message counts as a sign of life. See
   * {@link HeartbeatOptions}.
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
  /** The cap on a `Retry-After` wait, in ms (`Infinity`: none). */
  readonly maxRetryAfter: number;
  readonly shouldReconnect: (close: CloseInfo) => boolean | PromiseLike<boolean>;
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
  maxRetryAfter: 300_000,
  handshakeTimeout: 10_000,
  heartbeat: Object.freeze({ interval: 30_000, timeout: 10_000 }),
  resume: Object.freeze({ probeTimeout: 3_000, pauseWhileOffline: true, detectSuspend: true }),
});

/**
 * The options of `new ResilientSocket()`, as a record so that the compiler reports one missing
 * from it or one that no longer exists; an option not in it is refused (assertKnownKeys).
 */
const SOCKET_OPTION_NAMES: Readonly<Record<keyof ResilientSocketOptions, true>> = {
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
  maxRetryAfter: true,
  shouldReconnect: true,
  heartbeat: true,
  buffer: true,
  handshake: true,
  handshakeTimeout: true,
  binaryType: true,
  signal: true,
  unref: true,
  resume: true,
  clock: true,
};
const HEARTBEAT_OPTION_NAMES: Readonly<Record<keyof HeartbeatOptions, true>> = {
  interval: true,
  timeout: true,
  message: true,
  isPong: true,
};
const RESUME_OPTION_NAMES: Readonly<Record<keyof ResumeOptions, true>> = {
  probeTimeout: true,
  pauseWhileOffline: true,
  detectSuspend: true,
};

const URL_SCHEMES = new Set(['ws:', 'wss:', 'http:', 'https:']);

/** A `scheme://` prefix: where {@link redactUrl} finds the authority, and with it the userinfo. */
/** A URL as an error message shows it: redacted (userinfo, query values and fragment become `***`). */
function showUrl(text: string): string {
  return describeValue(redactUrl(text));
}

/**
 * Checks a concrete URL (given directly or returned by a provider) and returns it as a string.
 * Error messages show it redacted: a URL's userinfo and query often carry credentials.
 * @throws TypeError for a non-string/URL, RangeError for an unparsable URL or a scheme other than ws(s)/http(s).
 */
export function checkUrl(name: string, value: unknown): string {
  if (typeof value !== 'string' && !(value instanceof URL)) {
    throw new TypeError(`Expected \`${name}\` to be a string, a URL or a function, got ${describeReceived(value)}`);
  }
  const text = String(value);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new RangeError(`Expected \`${name}\` to be an absolute ws:, wss:, http: or https: URL, got ${showUrl(text)}`);
  }
  if (!URL_SCHEMES.has(parsed.protocol)) {
    throw new RangeError(`Expected \`${name}\` to use ws:, wss:, http: or https:, got ${showUrl(text)}`);
  }
  if (parsed.hash) {
    // "#hash" (the URL API's name for it) rather than "fragment", so that no word of the message
    // can be mistaken for a leaked part of the URL, whose fragment is shown as `#***`.
    throw new RangeError(
      `Expected \`${name}\` to have no #hash (a WebSocket URL cannot carry one), got ${showUrl(text)}`,
    );
  }
  return text;
}

/** Subprotocol names up to this length are shown whole in messages; a longer one may be a token. */
const MAX_PROTOCOL_SHOWN = 32;

/**
 * A subprotocol for an error message. Names are short (`graphql-ws`, `v2.json`); where browsers
 * cannot send headers, credentials travel as subprotocols (`base64url.bearer.authorization.k8s.io.…`),
 * so a long one is shown only by its first 8 characters and its length.
 */
function showProtocol(protocol: string, note?: string): string {
  const notes = note === undefined ? [] : [note];
  let shown = protocol;
  if (protocol.length > MAX_PROTOCOL_SHOWN) {
    shown = `${protocol.slice(0, 8)}…`;
    notes.unshift(characters(protocol.length));
  }
  return notes.length === 0 ? describeValue(shown) : `${describeValue(shown)} (${notes.join(', ')})`;
}

/** Why `protocol` is not a subprotocol name, or undefined when it is one. */
function protocolProblem(protocol: string): string | undefined {
  if (protocol === '') return 'an empty string';
  const bad = firstNonTokenChar(protocol);
  return bad === -1 ? undefined : showProtocol(protocol, `${describeChar(protocol, bad)} is not allowed`);
}

const PROTOCOL_RULE = "an HTTP token (RFC 6455 §4.1: letters, digits and !#$%&'*+-.^_|~ or the backquote)";

/**
 * Checks concrete protocols and returns them in the form the WebSocket constructor takes. Each
 * must be a non-empty RFC 7230 token, and a list must not name one twice (RFC 6455 §4.1; the rule
 * of ws's `subprotocolRegex` and of browsers, which throw a SyntaxError otherwise). `undefined` and
 * `[]` mean no subprotocol.
 * @throws TypeError unless a string or an array of strings; RangeError for a name that is not a
 *   token, or a name listed twice.
 */
export function checkProtocols(name: string, value: unknown): string | string[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    const problem = protocolProblem(value);
    if (problem !== undefined) {
      let hint = '';
      if (value === '') {
        hint = name.endsWith('()')
          ? ' (for no subprotocol, return [] or undefined)'
          : ` (for no subprotocol, leave \`${name}\` out or pass [])`;
      }
      throw new RangeError(`Expected \`${name}\` to be ${PROTOCOL_RULE}, got ${problem}${hint}`);
    }
    return value;
  }
  if (!Array.isArray(value)) {
    throw new TypeError(`Expected \`${name}\` to be a string or an array of strings, got ${describeReceived(value)}`);
  }
  // Types first, then values: a wrong type anywhere is a TypeError, whatever comes before it.
  value.forEach((protocol: unknown, index) => {
    if (typeof protocol !== 'string') {
      throw new TypeError(
        `Expected \`${name}\` to be a string or an array of strings, got ${describeReceived(protocol)} at index ${index}`,
      );
    }
  });
  const seen = new Map<string, number>();
  (value as string[]).forEach((protocol, index) => {
    const problem = protocolProblem(protocol);
    if (problem !== undefined) {
      throw new RangeError(
        `Expected every entry of \`${name}\` to be ${PROTOCOL_RULE}, got ${problem} at index ${index}`,
      );
    }
    const first = seen.get(protocol);
    if (first !== undefined) {
      throw new RangeError(
        `Expected \`${name}\` to name each subprotocol once, got ${showProtocol(protocol)} at index ${first} and ${index}`,
      );
    }
    seen.set(protocol, index);
  });
  return [...value];
}

function resolveHeartbeat(value: unknown): ResolvedHeartbeat | false {
  assertObjectOrFalse('heartbeat', value);
  if (value === false) return false;
  assertKnownKeys('heartbeat', value, Object.keys(HEARTBEAT_OPTION_NAMES));
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
  if (options.message !== undefined && typeof options.isPong !== 'function') {
    // Otherwise any message would count as the answer: a server that streams data but no longer
    // handles pings would never be found dead, and its pongs would be emitted as messages.
    throw new TypeError(
      'Expected `heartbeat.isPong` to be a function when `heartbeat.message` is set (a heartbeat that ' +
        'sends pings must recognise their answers; leave out `message` for silence detection), ' +
        `got ${describeReceived(options.isPong)}`,
    );
  }
  if (options.isPong !== undefined) assertFunction('heartbeat.isPong', options.isPong);
  return { interval, timeout, message: options.message, isPong: options.isPong, explicit: value !== undefined };
}

function resolveResume(value: unknown): ResolvedResume | false {
  assertObjectOrFalse('resume', value);
  if (value === false) return false;
  if (value === undefined) return SOCKET_DEFAULTS.resume;
  assertKnownKeys('resume', value, Object.keys(RESUME_OPTION_NAMES));
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
  // Both are set when there is no `backoff` option, the only case this is called in. Only these
  // two are passed: the factory refuses options it does not know, and the config has many.
  const { maxDelay, ceiling } = config as { readonly maxDelay: number; readonly ceiling: number };
  return truncatedBinaryExponential({ maxDelay, ceiling });
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
  assertKnownKeys('', options, Object.keys(SOCKET_OPTION_NAMES));
  const o = (options ?? {}) as ResilientSocketOptions;

  const protocols = typeof o.protocols === 'function' ? o.protocols : checkProtocols('protocols', o.protocols);
  const wsOptions = checkWsOptions(o.wsOptions);
  const autoConnect = withDefault(o.autoConnect, SOCKET_DEFAULTS.autoConnect);
  assertBoolean('autoConnect', autoConnect);
  const stableAfter = withDefault(o.stableAfter, SOCKET_DEFAULTS.stableAfter);
  assertNumber('stableAfter', stableAfter, { min: 0 });
  const connectTimeout = withDefault(o.connectTimeout, SOCKET_DEFAULTS.connectTimeout);
  assertNumber('connectTimeout', connectTimeout, { above: 0, allowInfinity: true });
  const maxRetries = withDefault(o.maxRetries, SOCKET_DEFAULTS.maxRetries);
  assertNumber('maxRetries', maxRetries, { integer: true, min: 0, allowInfinity: true });
  const maxRetryAfter = withDefault(o.maxRetryAfter, SOCKET_DEFAULTS.maxRetryAfter);
  assertNumber('maxRetryAfter', maxRetryAfter, { min: 0, allowInfinity: true });
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
    wsOptions,
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
      maxRetryAfter,
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
