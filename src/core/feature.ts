/**
 * How a feature plugs into the core: one object with a name, a rank, the timer slots it needs,
 * and named hooks the core calls at fixed points, each feature in rank order. A feature owns its
 * options (validated by its factory), its error codes and its timer slots; it keeps what it needs
 * per socket in one data slot of that socket. One feature object serves every socket it is
 * installed on (sockets created alike share it), so a hook is told which socket (`host`, the
 * socket's machine seen through {@link Host}) and which of that socket's features it is (`index`):
 * no object and no closure per socket.
 *
 * The hooks, in the order a connection meets them:
 *
 * | hook      | when                                                                 | may                                    |
 * | --------- | -------------------------------------------------------------------- | -------------------------------------- |
 * | `check`   | the constructor, while the options are validated (nothing made yet)  | refuse its per-socket options          |
 * | `init`    | the constructor, before the first attempt                            | read its own per-socket options        |
 * | `target`  | an attempt starts                                                    | resolve the URL and subprotocols       |
 * | `gate`    | the transport opened, before the socket is `open` (each in turn)     | hold the open (a handshake, a hello)   |
 * | `flush`   | just before the queue is flushed                                     | take out stale messages (to drop)      |
 * | `open`    | the socket is `open` (queue flushed), before `open` is emitted       | start watching; add messages to deliver |
 * | `message` | a message arrived (not yet delivered)                                | consume it (a pong, a handshake reply) |
 * | `deliver` | a message is delivered, before the `message` listeners               | hand it to its own consumers           |
 * | `pong`    | a protocol pong arrived                                              | take it as an answer                   |
 * | `lost`    | an attempt or connection ended, before the decision                  | change the facts (stop, wait longer)   |
 * | `hold`    | a retry is decided, or its wait is over                              | hold it (offline: retried when back)   |
 * | `state`   | the state changed, before `state` is emitted                         | follow the state                       |
 * | `admit`   | `send()` is about to queue a message                                 | expire old ones, refuse the new one    |
 * | `buffered`| `bufferedAmount` is read (every feature's answer is summed)          | count the bytes it holds to write      |
 * | `timer`   | one of its timer slots is due                                        | anything                               |
 * | `end`     | the attempt ended (lost, replaced by `reconnect()`, or `close()`)    | stop watching it                       |
 * | `dispose` | `close()`                                                            | let go of everything it holds          |
 *
 * The core runs every hook through one loop (`Machine.run_`): a hook that returns something
 * truthy ends the loop for that call (a consumed message, a target, a refusal, a hold). Gates are the
 * exception: each runs once the one before it has passed, so that several can hold the open in turn.
 */
import type { Clock } from '../clock.js';
import type { Data } from '../data.js';
import type { ResilientSocketError } from '../errors.js';
import type { WebSocketLike } from '../transports/websocket-like.js';
import type { CloseInfo } from './close-codes.js';
import type { Connection } from './connection.js';
import type { DropReason, ResilientSocketEvents } from './events.js';
import type { ProtocolsProvider, UrlProvider } from './options.js';
import { expireQueued, type Queue } from './queue.js';
import type { Config } from './resolve.js';
import { PHASE, type SocketState } from './states.js';

/** An ended attempt or connection, on its way to being decided: what `lost` hooks may change. */
export interface Loss {
  /** The number of the attempt that ended (1 after a reset: consecutive attempts count up). */
  readonly attempt: number;
  /** What failed (none for a connection the server or network simply closed). */
  error: ResilientSocketError | undefined;
  /** How its connection closed; given exactly when it had a socket, whose `close` is then due. */
  readonly close: CloseInfo | undefined;
  /** The refused upgrade behind it (HTTP status and raw `Retry-After`), when the transport saw one. */
  readonly rejection: Rejection | undefined;
  /** A reason to stop already known (401/403 twice in a row). */
  stop: ResilientSocketError | undefined;
  /** The least wait before the retry, in ms (a capped Retry-After). */
  minimumDelay: number;
  /** Retry at once (a first 401/403: a fresh token may fix it). */
  immediate: boolean;
  /** Callbacks that failed on the way (`shouldReconnect`, the backoff policy), reported after the state change. */
  notices: ResilientSocketError[];
}

/** An upgrade the server refused with an HTTP status (seen only through `ws`). */
export interface Rejection {
  readonly status: number;
  /** The raw `Retry-After` header. */
  readonly retryAfter: unknown;
}

/** The URL and subprotocols of one attempt. */
export interface Target {
  readonly url: string;
  readonly protocols: string | string[] | undefined;
}

/**
 * A socket as its features see it: its machine's state and the few actions the core lends them.
 * Every member ends in `_` (the build shortens those names); it is the machine itself, typed down
 * to what features may touch, so it costs nothing at run time.
 */
export interface Host {
  readonly config_: Config;
  /** The socket its users hold (events are emitted on it). */
  readonly socket_: object;
  readonly state_: SocketState;
  /** The current attempt (its connection), if any. */
  readonly attempt_: Connection | undefined;
  /** A loss an async `shouldReconnect` is deciding about (present only while it decides). */
  readonly deciding_: Loss | undefined;
  /** The URL of the latest attempt, whole (for user code only: events and errors show it redacted). */
  readonly url_: string;
  /** The outbound queue, while it holds messages. */
  readonly queue_: Queue | undefined;
  /** Messages written to the socket (a feature's own pings count too: see {@link Host.write_}). */
  readonly messagesOut_: number;
  /** Counters, read by `stats()`: attempts started, connections opened, messages dropped and received. */
  readonly attempts_: number;
  readonly connects_: number;
  readonly dropped_: number;
  readonly messagesIn_: number;
  /** When the current state (open, or without an open connection) began, on the clock. */
  readonly since_: number;
  /** The last error reported. */
  readonly lastError_: ResilientSocketError | undefined;
  /** When the pending retry starts, on the clock. */
  readonly nextRetryAt_: number | undefined;
  /** `bufferedAmount` went above the high-water mark and `drain` has not come since. */
  readonly above_: boolean;
  /** Back-pressure looks again, after a feature wrote to the socket or took a message to write later. */
  pressure_(): void;
  /** `close()` ended the socket for good. */
  readonly disposed_: boolean;
  /** The features' per-socket data (see {@link getData}). */
  readonly data_: unknown[] | undefined;
  /** Whether timer `slot` is pending (see {@link hasTimer}). */
  timerPending_(slot: number): boolean;
  /** Arms timer `slot` to fire after `ms`, replacing what it held. */
  arm_(slot: number, ms: number): void;
  /** Cancels timer `slot` if it is pending. */
  disarm_(slot: number): void;
  /** Writes `data` on `ws` (the current attempt's socket) and counts it in `messagesOut_`; a refusal throws, to the caller. */
  write_(ws: WebSocketLike, data: unknown): void;
  /** Hands an incoming message to the features that consume it in order (async iterators), then to `message` listeners. */
  deliver_(data: Data): void;
  /** Emits an event (a throwing listener is reported, never rethrown). */
  emit_<E extends keyof ResilientSocketEvents>(event: E, ...args: ResilientSocketEvents[E]): void;
  /** Reports a failure of the socket (`error`, and `stats.lastError`). */
  report_(error: ResilientSocketError): void;
  /** Reports a failure of user code (a callback): an `error` event, or, unheard, never fatal. */
  reportUserError_(error: ResilientSocketError): void;
  /** Reports messages that will never be sent. */
  drop_(reason: DropReason, messages: Data[]): void;
  /** Gives up on `attempt` (a dead link, a timeout): it is closed with 1006 and `reason`, then decided. */
  fail_(attempt: Connection, code: string, message: string, reason: string, cause?: unknown): void;
  /** Starts an attempt now (from `reconnecting`: a resume signal). */
  startAttempt_(reason: string): void;
  /**
   * Enters `next` (the state funnel); `wait` is the `retry` deadline (none: no timer, a feature
   * starts the next attempt). A `replica` (a tab following another's connection) takes the state
   * without a deadline or a `state` event: its leader's machine keeps the deadlines and tells.
   */
  enter_(next: SocketState, reason: string, wait?: number, replica?: boolean): void;
  /** Ends `attempt` (`abort`: cut now; `retire`: its close handshake finishes in the background); whether it had a socket. */
  endAttempt_(attempt: Connection, how: 'abort' | 'release' | 'retire', reason?: string): boolean;
  /** Emits the `close` of a connection that ended (`willReconnect` follows the state). */
  emitClose_(close: CloseInfo): void;
}

/**
 * A feature, made by its factory (`heartbeat()`, `resume()`, …): give it to the `features` option.
 * How it plugs in (its rank, timer slots and hooks) is internal. Every hook is optional; `index` is
 * the feature's position on that socket (its data slot), so one feature object can serve many
 * sockets.
 */
export interface Feature {
  /** Its name, as errors give it, e.g. `'heartbeat'`. */
  readonly name: string;
  /**
   * Hooks run in ascending rank: providers 10, delivery 15 (its hello before a handshake's first
   * frame), handshake 20, heartbeat 30, resume 40, upgrade rejection 50, buffer policy 60, abort
   * signal 70, unref 80, stats 90, async iteration 100. @internal
   */
  readonly rank: number;
  /** How many timer slots it needs (numbered from 0 in its own calls). @default 0 @internal */
  readonly slots?: number;
  /** The per-socket options it takes from the socket's options object (e.g. `signal`). @internal */
  readonly options?: readonly string[];
  /** Keep the socket's timers from holding a Node process open. @internal */
  readonly unref?: boolean;
  /** Validates the per-socket options it takes (see `options`): throw a TypeError / RangeError naming one. @internal */
  check?(options: Record<string, unknown>): void;
  /** @internal */
  init?(host: Host, index: number, options: Record<string, unknown>): void;
  /** @internal */
  target?(
    host: Host,
    index: number,
    url: UrlProvider,
    protocols: ProtocolsProvider | undefined,
  ): Target | PromiseLike<Target> | undefined;
  /** @internal */
  gate?(host: Host, index: number, attempt: Connection): PromiseLike<unknown> | undefined;
  /** Pushes the messages that must not be sent any more (to be dropped as `expired`). @internal */
  flush?(host: Host, index: number, stale: Data[]): void;
  /** Pushes messages to deliver after `open` (a handshake's inbox). @internal */
  open?(host: Host, index: number, attempt: Connection, ws: WebSocketLike, later: Data[]): void;
  /** Returns true to consume the message. @internal */
  message?(host: Host, index: number, attempt: Connection, data: Data): boolean;
  /** @internal */
  deliver?(host: Host, index: number, data: Data): void;
  /** @internal */
  pong?(host: Host, index: number, attempt: Connection): void;
  /** @internal */
  lost?(host: Host, index: number, loss: Loss): void;
  /**
   * Whether retries wait for it (the network is down, the page hidden); it starts the retry itself
   * later. A string is also the reason the `state` event gives (`true`: waiting for the network). @internal
   */
  hold?(host: Host, index: number): boolean | string | undefined;
  /** @internal */
  state?(host: Host, index: number, previous: SocketState, next: SocketState): void;
  /** Returns `'dropped'` to refuse the message (may throw: `send()` throws it). @internal */
  admit?(host: Host, index: number, bytes: number): 'dropped' | undefined;
  /**
   * The bytes it holds to write on the next connection (delivery's outbox): they count in
   * `bufferedAmount`. Every feature's is summed (not the hook loop's first answer). @internal
   */
  buffered?(host: Host, index: number): number;
  /** @internal */
  timer?(host: Host, index: number, local: number): void;
  /** @internal */
  end?(host: Host, index: number, attempt: Connection): void;
  /** @internal */
  dispose?(host: Host, index: number): void;
}

/** A hook's name. @internal */
export type HookName = {
  [K in keyof Feature]-?: NonNullable<Feature[K]> extends (...args: never[]) => unknown ? K : never;
}[keyof Feature];

export type { Clock };

// ─── what the core lends its features, as functions (a socket without features carries none) ──

/** This feature's (`index`'s) per-socket data. */
export function getData(host: Host, index: number): unknown {
  return host.data_?.[index];
}

/** Sets this feature's per-socket data (the array is made, at its exact length, on first need). */
export function setData(host: Host, index: number, value: unknown): void {
  const own = host as { data_: unknown[] | undefined }; // written here only: features read it through getData
  if (value === undefined && !own.data_) return;
  own.data_ ??= new Array(host.config_.features.length);
  own.data_[index] = value;
}

/** Arms this feature's timer slot `local` (0-based among its own) to fire after `ms`; nothing after close(). */
export function setTimer(host: Host, index: number, local: number, ms: number): void {
  // Nothing runs after close() (a drop listener may close the socket while a feature works).
  if (!host.disposed_) host.arm_((host.config_.slotBase[index] as number) + local, ms);
}

export function clearTimer(host: Host, index: number, local: number): void {
  host.disarm_((host.config_.slotBase[index] as number) + local);
}

export function hasTimer(host: Host, index: number, local: number): boolean {
  return host.timerPending_((host.config_.slotBase[index] as number) + local);
}

/** While `reconnecting`, stops waiting for the retry timer (the network is down; `startAttempt_` later). */
export function pauseRetry(host: Host): void {
  host.disarm_(PHASE);
}

/** Takes out of the queue (oldest first) the messages queued at or before `before`. */
export function expire(host: Host & { queue_: Queue | undefined }, before: number): Data[] {
  const out = host.queue_ ? expireQueued(host.queue_, before) : [];
  if (!host.queue_?.length) host.queue_ = undefined;
  return out;
}
