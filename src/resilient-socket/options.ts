/**
 * The options of `new ResilientSocket(url, options)`: the core's, and every feature's, flat (one
 * object, each feature's options under their own names). Each is
 * validated once, at construction; `./resilient-socket.ts` turns them into the core's options and
 * features.
 */
import type { BackoffPolicyLike } from '../backoff/types.js';
import type { Clock } from '../clock.js';
import type { CloseInfo } from '../core/close-codes.js';
import type { ProtocolsProvider } from '../core/options.js';
import type { BufferOptions } from '../features/buffer-policy/buffer-policy.js';
import type { DeliveryOptions } from '../features/delivery/options.js';
import type { HandshakeConnection } from '../features/handshake/handshake.js';
import type { HeartbeatOptions } from '../features/heartbeat/heartbeat.js';
import type { ResumeOptions } from '../features/resume/resume.js';
import type { WebSocketConstructorLike } from '../transports/websocket-like.js';

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
   * Back-pressure: once `bufferedAmount` (bytes queued here plus those the WebSocket has not
   * written yet) goes above this, `writable` is false until the `drain` event, emitted once it is
   * back at or under it. `send()` still sends and queues as before: the mark only tells a producer
   * when to wait. An integer >= 0 (`0`: wait until everything is on the wire), or `Infinity` to turn
   * it off. 64 KiB is Node streams' default high-water mark (since Node 22) and oh-my-pi's
   * WebSocket watermark; it holds a producer back long before the buffer's 1 MiB evicts anything.
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
   * a backoff delay retries now (keeping its failure count); an attempt connecting for over 1 s is
   * abandoned for a fresh one. While offline, no attempt is made; with `pauseWhileHidden`, none
   * either once the page has been hidden that long.
   * @default { probeTimeout: 3_000, pauseWhileOffline: true, detectSuspend: true, pauseWhileHidden: false }
   * @example
   * ```ts
   * new ResilientSocket(url, { resume: false }) // keep the plain backoff schedule
   * ```
   */
  resume?: ResumeOptions | false;
  /**
   * Acknowledged delivery: `socket.sendReliable(data)`, kept and sent again until the peer
   * acknowledges it, and incoming reliable messages delivered once each, over the protocol of
   * `docs/guide/protocol.md` (see {@link DeliveryOptions}). Off unless given; `{}` turns it on with its
   * defaults. `ResilientWebSocket` does not take it.
   * @default undefined (off: sendReliable() throws `ERR_RS_NEEDS_FEATURE`)
   * @example
   * ```ts
   * const socket = new ResilientSocket(url, { delivery: { ackTimeout: 5_000 } });
   * await socket.sendReliable({ type: 'order', id: 42 }); // the server acknowledged it
   * ```
   */
  delivery?: DeliveryOptions;
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
}

/**
 * The option names, as a record so that the compiler reports one missing from it or one that no
 * longer exists; an option not in it is refused (with a did-you-mean).
 * @internal
 */
export const OPTION_NAMES: Readonly<Record<keyof ResilientSocketOptions, true>> = {
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
  highWaterMark: true,
  handshake: true,
  handshakeTimeout: true,
  binaryType: true,
  signal: true,
  unref: true,
  resume: true,
  delivery: true,
  clock: true,
};
