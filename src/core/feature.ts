/**
 * How a feature plugs into the core: one object with a name, a rank, the timer slots it needs,
 * and named hooks the core calls at fixed points, each feature in rank order. A feature owns its
 * options (validated by its factory), its error codes and its timer slots; it keeps what it needs
 * per socket in one data slot of that socket. One feature object serves every socket it is
 * installed on (sockets created alike share it), so a hook is told which socket and which of
 * that socket's features it is (`me`): no object and no closure per socket.
 *
 * The hooks, in the order a connection meets them:
 *
 * | hook      | when                                                                 | may                                    |
 * | --------- | -------------------------------------------------------------------- | -------------------------------------- |
 * | `init`    | the constructor, before the first attempt                            | read its own per-socket options        |
 * | `target`  | an attempt starts                                                    | resolve the URL and subprotocols       |
 * | `gate`    | the transport opened, before the socket is `open`                    | hold the open (a handshake)            |
 * | `flush`   | just before the queue is flushed                                     | take out stale messages (to drop)      |
 * | `open`    | the socket is `open` (queue flushed), before `open` is emitted       | start watching the connection          |
 * | `message` | a message arrived (not yet delivered)                                | consume it (a pong, a handshake reply) |
 * | `deliver` | a message is delivered, before the `message` listeners               | hand it to its own consumers           |
 * | `pong`    | a protocol pong arrived                                              | take it as an answer                   |
 * | `lost`    | an attempt or connection ended, before the decision                  | change the facts (stop, wait, offline) |
 * | `state`   | the state changed, before `state` is emitted                         | follow the state                       |
 * | `admit`   | `send()` is about to queue a message                                 | expire old ones, refuse the new one    |
 * | `timer`   | one of its timer slots is due                                        | anything                               |
 * | `end`     | the attempt ended (lost, replaced by `reconnect()`, or `close()`)    | stop watching it                       |
 * | `dispose` | `close()`                                                            | let go of everything it holds          |
 *
 * Features reach the socket through {@link Host}: the one table of functions the core lends
 * them (the socket's own state stays private).
 */
import type { Data } from '../data.js';
import type { ResilientSocketError } from '../errors.js';
import type { WebSocketLike } from '../transports/websocket-like.js';
import type { CloseInfo } from './close-codes.js';
import type { Connection } from './connection.js';
import type { ProtocolsProvider, UrlProvider } from './options.js';
import type { DropReason, ResilientSocketEvents } from './events.js';
import type { Queue } from './queue.js';
import type { SocketState } from './states.js';

/** A socket as a feature sees it: an opaque handle the {@link Host} functions take. */
export type SocketHandle = object;

/** An ended attempt or connection, on its way to being decided: what `lost` hooks may change. */
export interface Loss {
  /** What failed (none for a connection the server or network simply closed). */
  error: ResilientSocketError | undefined;
  /** How its connection closed; given exactly when it had a socket, whose `close` is then due. */
  readonly close: CloseInfo | undefined;
  /** The refused upgrade behind it (HTTP status and raw `Retry-After`), when the transport saw one. */
  readonly rejection: Rejection | undefined;
  /** Ask `shouldReconnect` about this close (not when a feature already decided). */
  ask: boolean;
  /** A reason to stop already known (401/403 twice in a row). */
  stop: ResilientSocketError | undefined;
  /** The least wait before the retry, in ms (a capped Retry-After). */
  minimumDelay: number;
  /** Retry at once (a first 401/403: a fresh token may fix it). */
  immediate: boolean;
  /** The network is down: make no attempt until it is back (resume awareness). */
  offline: boolean;
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
 * What the core lends its features: one table of functions for every socket, each taking the
 * socket first (no closure per socket).
 */
export interface Host {
  /** The current state. */
  state(socket: SocketHandle): SocketState;
  /** The current attempt (its connection), if any. */
  attempt(socket: SocketHandle): Connection | undefined;
  /** The socket's clock. */
  now(socket: SocketHandle): number;
  /** This feature's per-socket data (`undefined` until it sets some). */
  data(socket: SocketHandle, me: number): unknown;
  setData(socket: SocketHandle, me: number, value: unknown): void;
  /** Arms this feature's timer slot `local` (0-based among its own) to fire after `ms`. */
  setTimer(socket: SocketHandle, me: number, local: number, ms: number): void;
  clearTimer(socket: SocketHandle, me: number, local: number): void;
  hasTimer(socket: SocketHandle, me: number, local: number): boolean;
  /** Emits an event (a throwing listener is reported, never rethrown). */
  emit<E extends keyof ResilientSocketEvents>(socket: SocketHandle, event: E, ...args: ResilientSocketEvents[E]): void;
  /** Reports a failure of the socket (`error`, and `stats.lastError`). */
  report(socket: SocketHandle, error: ResilientSocketError): void;
  /** Reports a failure of user code (a callback): an `error` event, or, unheard, never fatal. */
  reportUserError(socket: SocketHandle, error: ResilientSocketError): void;
  /** Reports messages that will never be sent. */
  drop(socket: SocketHandle, reason: DropReason, messages: Data[]): void;
  /** The messages waiting in the outbound buffer (oldest first); `expire` takes out those queued before `before`. */
  expire(socket: SocketHandle, before: number): Data[];
  /** When the oldest queued message was queued, if any. */
  oldest(socket: SocketHandle): number | undefined;
  /** Gives up on `attempt` (a dead link, a timeout): it is closed with 1006 and `reason`, then decided. */
  fail(socket: SocketHandle, attempt: Connection, code: string, message: string, reason: string, cause?: unknown): void;
  /** Starts an attempt now (from `reconnecting`: a resume signal). */
  retryNow(socket: SocketHandle, reason: string): void;
  /** While `reconnecting`, stops waiting for the retry timer (the network is down). */
  pauseRetry(socket: SocketHandle): void;
  /** Whether the socket is `reconnecting` with a retry pending or paused (not deciding). */
  waiting(socket: SocketHandle): boolean;
  /** Counts a message written to the socket that is not a user message (an app-level ping). */
  wrote(socket: SocketHandle): void;
  /** Another feature installed on the socket (by name), with its position, for its services. */
  find(socket: SocketHandle, name: string): [feature: Feature, me: number] | undefined;
  /** Whether the transport can send protocol pings on this socket and hear their pongs (ws). */
  canPing(socket: SocketHandle, ws: WebSocketLike): boolean;
  /** The socket as its users see it. */
  user(socket: SocketHandle): unknown;
  /** The counters the `stats()` feature reports. */
  counters(socket: SocketHandle): Counters;
}

/** What the core counts (for the `stats()` feature): the machine's own fields, read as they are. */
export interface Counters {
  readonly state_: SocketState;
  readonly attempt_: { readonly opened: boolean } | undefined;
  readonly deciding_: unknown;
  readonly timers_: { has(slot: number): boolean };
  readonly attempts_: number;
  readonly connects_: number;
  readonly dropped_: number;
  readonly messagesIn_: number;
  readonly messagesOut_: number;
  readonly since_: number;
  readonly lastError_: ResilientSocketError | undefined;
  readonly nextRetryAt_: number | undefined;
}

/**
 * A feature. Every hook is optional; `me` is the feature's position on that socket (its data
 * slot), so one feature object can serve many sockets.
 */
export interface Feature {
  /** The name errors and {@link Host.find} use, e.g. `'heartbeat'`. */
  readonly name: string;
  /** Hooks run in ascending rank (see the table above for what each rank is for). */
  readonly rank: number;
  /** How many timer slots it needs (numbered from 0 in its own calls). @default 0 */
  readonly slots?: number;
  /** The per-socket options it takes from the socket's options object (e.g. `signal`). */
  readonly options?: readonly string[];
  /** Keep the socket's timers from holding a Node process open. */
  readonly unref?: boolean;
  init?(host: Host, socket: SocketHandle, me: number, options: Record<string, unknown>): void;
  target?(
    host: Host,
    socket: SocketHandle,
    me: number,
    url: UrlProvider,
    protocols: ProtocolsProvider | undefined,
  ): Target | PromiseLike<Target> | undefined;
  gate?(host: Host, socket: SocketHandle, me: number, attempt: Connection): PromiseLike<unknown> | undefined;
  flush?(host: Host, socket: SocketHandle, me: number): Data[] | undefined;
  open?(host: Host, socket: SocketHandle, me: number, attempt: Connection, ws: WebSocketLike): Data[] | undefined;
  message?(host: Host, socket: SocketHandle, me: number, attempt: Connection, data: Data): boolean;
  deliver?(host: Host, socket: SocketHandle, me: number, data: Data): void;
  pong?(host: Host, socket: SocketHandle, me: number, attempt: Connection): void;
  lost?(host: Host, socket: SocketHandle, me: number, loss: Loss): void;
  state?(host: Host, socket: SocketHandle, me: number, previous: SocketState, next: SocketState): void;
  admit?(host: Host, socket: SocketHandle, me: number, queue: Queue | undefined, bytes: number): 'dropped' | undefined;
  timer?(host: Host, socket: SocketHandle, me: number, local: number): void;
  end?(host: Host, socket: SocketHandle, me: number, attempt: Connection): void;
  dispose?(host: Host, socket: SocketHandle, me: number): void;
}
