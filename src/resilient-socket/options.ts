/**
 * The options of `new ResilientSocket(url, options)`: the core's, declared in
 * `../core/options.ts`, and the options of the features it installs, declared here, flat (one
 * object). Validated once, at construction; `./resilient-socket.ts` turns them into the core's
 * options and features.
 */
import { type BaseSocketOptions, CORE_OPTIONS, FEATURE_OPTIONS } from '../core/options.js';
import type { BufferPolicyFeature } from '../features/buffer-policy/buffer-policy.js';
import type { DeliveryFeature } from '../features/delivery/delivery.js';
import type { HandshakeFeature } from '../features/handshake/handshake.js';
import type { HeartbeatOptions } from '../features/heartbeat/heartbeat.js';
import type { ResumeOptions } from '../features/resume/resume.js';

/**
 * Options of `new ResilientSocket(url, options)`: the core's ({@link BaseSocketOptions}, but
 * `features`: every feature is installed) and every feature's, flat. Validated once, at
 * construction.
 */
export interface ResilientSocketOptions extends Omit<BaseSocketOptions, 'features'> {
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
   * The outbound queue's policies: what to do with a message that does not fit (`overflow`:
   * `'drop-newest'`, or `'error'` to throw `ERR_RS_BUFFER_OVERFLOW`), and how long a message may
   * wait before it is dropped as stale (`ttl`). The value is `bufferPolicy(options)`'s, imported
   * from `resilient-socket`, so that a program without one does not carry its code; the queue's
   * limits are `buffer`'s (`maxMessages`, `maxBytes`).
   * @default undefined ('drop-oldest', no ttl)
   * @example
   * ```ts
   * import { bufferPolicy, ResilientSocket } from 'resilient-socket';
   * new ResilientSocket(url, { buffer: { maxMessages: 100 }, bufferPolicy: bufferPolicy({ overflow: 'error' }) })
   * ```
   */
  bufferPolicy?: BufferPolicyFeature;
  /**
   * Runs a hook on every open before the buffer is flushed and before `open` is emitted:
   * authenticate, resubscribe, await the server's ack. If it throws or outlasts its `timeout`
   * (10 s by default), the attempt counts as failed. The value is `handshake(hook, options)`'s,
   * imported from `resilient-socket`, so that a program without one does not carry its code.
   * @default undefined (open at once)
   * @example
   * ```ts
   * import { handshake, ResilientSocket } from 'resilient-socket';
   * new ResilientSocket(url, {
   *   handshake: handshake(async (connection) => {
   *     connection.send(JSON.stringify({ type: 'auth', token: await getToken() }));
   *     await connection.nextMessage((data) => data === 'authenticated');
   *   }, { timeout: 5_000 }),
   * })
   * ```
   */
  handshake?: HandshakeFeature;
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
   * `docs/guide/protocol.md`. The value is `delivery(options)`'s (see `DeliveryOptions`), imported
   * from `resilient-socket`, so that a program without it does not carry its code. Off unless
   * given. `ResilientWebSocket` does not take it.
   * @default undefined (off: sendReliable() throws `ERR_RS_NEEDS_FEATURE`)
   * @example
   * ```ts
   * import { delivery, ResilientSocket } from 'resilient-socket';
   * const socket = new ResilientSocket(url, { delivery: delivery({ ackTimeout: 5_000 }) });
   * await socket.sendReliable({ type: 'order', id: 42 }); // the server acknowledged it
   * ```
   */
  delivery?: DeliveryFeature;
}

/**
 * The option names `ResilientSocket` takes: the core's own but `features`, and the features'. An
 * option not among them is refused (with a did-you-mean).
 * @internal
 */
export function optionNames(): readonly (keyof ResilientSocketOptions)[] {
  names ??= [
    ...CORE_OPTIONS.filter((name) => name !== 'features'),
    ...Object.keys(FEATURE_OPTIONS),
  ] as (keyof ResilientSocketOptions)[];
  return names;
}
/** Made on first use (a module-level array built from others would stay in every bundle). */
let names: readonly (keyof ResilientSocketOptions)[] | undefined;

/** The compiler's check that {@link optionNames} are the interface's keys, neither more nor fewer. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const sameNames: Same<
  keyof ResilientSocketOptions,
  Exclude<keyof BaseSocketOptions, 'features'> | keyof typeof FEATURE_OPTIONS
> = true;
void sameNames;
