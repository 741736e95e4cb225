import type { Data } from '../data.js';
import type { ResilientSocketError } from '../errors.js';
import type { CloseInfo } from './close-codes.js';
import type { SocketState } from './states.js';

/** Payload of `state`: every state change, from the one funnel that makes them. */
export interface StateChange {
  /** The state before the change. */
  readonly previous: SocketState;
  /** The state now. */
  readonly current: SocketState;
  /** Why, in words (e.g. `'connection lost'`, `'close() called'`, `'retries exhausted'`). */
  readonly reason: string;
}

/** Payload of `connecting`: an attempt is starting. */
export interface ConnectingInfo {
  /** The attempt number, from 1, counted since the last stable connection (or `open()`/`reconnect()`). */
  readonly attempt: number;
  /**
   * The URL this attempt uses (after the URL provider, if any), redacted: userinfo and query
   * values read `***` (they often carry tokens). `socket.url` has it whole.
   */
  readonly url: string;
}

/** Payload of `open`. */
export interface OpenInfo {
  /** The attempt that opened. */
  readonly attempt: number;
  /** False for the first connection this socket ever made, true afterwards. */
  readonly reconnected: boolean;
}

/** Payload of `close`, emitted for every underlying connection that ends. */
export interface CloseEventInfo extends CloseInfo {
  /** Whether a new attempt will follow (the socket is `reconnecting` or `connecting`, not `closed`). */
  readonly willReconnect: boolean;
}

/** Payload of `reconnecting`, emitted before each wait. */
export interface ReconnectingInfo {
  /** The number of the attempt that follows the wait. */
  readonly attempt: number;
  /** The wait, in milliseconds. */
  readonly delay: number;
}

/** Payload of `giveup`: the socket stopped reconnecting by itself and is now `closed`. */
export interface GiveUpInfo {
  /** Attempts made since the last stable connection (or `open()`/`reconnect()`), the last one included. */
  readonly attempts: number;
  /**
   * Consecutive failures when it gave up: the failed attempts, plus the loss of the connection
   * the run started from, if it started from one (what `maxRetries` and the backoff count).
   */
  readonly failures: number;
  /** Why: `ERR_RS_RETRIES_EXHAUSTED`, `ERR_RS_FATAL_CLOSE` or `ERR_RS_UNAUTHORIZED`. */
  readonly error: ResilientSocketError;
}

/** Why messages were dropped. */
export type DropReason =
  /** The outbound buffer was full (policy `drop-oldest` or `drop-newest`). */
  | 'overflow'
  /** A message waited longer than `buffer.ttl`. */
  | 'expired'
  /** The socket closed (by `close()`, its signal, or a give-up) with messages still queued, or `send()` was called after that. */
  | 'closed'
  /** `send(data, { buffer: false })` while not connected. */
  | 'not-connected'
  /**
   * The WebSocket refused the message itself while its connection stayed open (binary data that
   * was detached, e.g. transferred to a worker; a type it cannot send). It could never be written,
   * so it is dropped rather than retried; an `error` with `ERR_RS_UNSENDABLE` and the cause precedes it.
   */
  | 'unsendable'
  /**
   * A reliable message (`sendReliable`, the `delivery()` feature) was sent `maxAttempts` times and never
   * acknowledged; its promise rejected with `ERR_RS_NOT_ACKNOWLEDGED`.
   */
  | 'unacknowledged'
  /**
   * Written to the WebSocket (`send()` said `'sent'`) but still in its buffer when its connection
   * ended (`close()` after its 3 s, a lost connection, a dead link): those bytes never left. Which
   * messages they were cannot be told apart, so `messages` is empty and `bytes` says how much.
   */
  | 'unflushed';

/** Payload of `acked`: a reliable message the peer acknowledged. */
export interface AckedInfo {
  /** Its id on the wire (the sender's sequence number, as a string). */
  readonly id: string;
  /** What was sent. */
  readonly data: unknown;
}

/** Payload of `drop`: messages that will never be sent. */
export interface DropInfo {
  /** Why they were dropped. */
  readonly reason: DropReason;
  /** The dropped messages, oldest first (none for `'unflushed'`: see `bytes`). */
  readonly messages: readonly Data[];
  /** For `'unflushed'`: how many bytes the WebSocket still held (its `bufferedAmount`) when the connection ended. */
  readonly bytes?: number;
}

/**
 * The events of a {@link ResilientSocket}, for eventemitter3's typed `on`/`once`/`off`.
 * Listeners run synchronously. A listener that throws does not disturb the socket: the error is
 * reported as an `error` event (`ERR_RS_LISTENER_THREW`), or rethrown asynchronously if it came
 * from an `error` listener or nobody listens to `error`.
 *
 * **Order.** The state changes first, then the events that tell about the change, so inside every
 * listener `state` and `readyState` already show where the socket is going (as with a browser
 * WebSocket, whose `readyState` is CLOSED inside its `error` and `close` listeners):
 *
 * | what happens | events, in order |
 * | --- | --- |
 * | an attempt starts | `state` (→ `connecting`), then `connecting` once the URL provider resolved |
 * | it opens | `state` (→ `open`), `drop` (`expired`, queued messages past their ttl), `open`; `stable` after `stableAfter` |
 * | a connection ends or an attempt fails; a retry follows | `state` (→ `reconnecting`), `error` (if something failed), `close` (if a socket existed; `willReconnect: true`, `readyState` CONNECTING), `reconnecting` |
 * | the same, but the socket gives up | `state` (→ `closed`), `error` (if something failed), `error` (why it gives up), `close` (`willReconnect: false`, `readyState` CLOSED), `drop` (`closed`), `giveup` |
 * | `close()` on an open connection | `state` (→ `closing`), `drop` (`closed`); once the server answered (at most 3 s): `state` (→ `closed`), `close` |
 * | `close()` otherwise | `state` (→ `closed`), `close` (if a socket existed), `drop` (`closed`) |
 * | `reconnect()` | `state` (→ `connecting`), `close` (if a socket existed; `willReconnect: true`), then as when an attempt starts |
 *
 * An async `shouldReconnect` delays the `close` of the connection it decides about until it has
 * decided (the socket waits in `reconnecting`). A listener that changes the state (calls `close()`
 * or `reconnect()`) takes over: the events already due still follow, but not a `reconnecting` or
 * `giveup` that no longer holds.
 */
export interface ResilientSocketEvents {
  /** Every state change. */
  state: [change: StateChange];
  /** An attempt starts (after the URL provider resolved). */
  connecting: [info: ConnectingInfo];
  /** A connection opened (and the handshake, if any, succeeded); the buffer has been flushed. */
  open: [info: OpenInfo];
  /** A message arrived. */
  message: [data: Data];
  /** An underlying connection ended (also for attempts that failed after creating a socket). */
  close: [info: CloseEventInfo];
  /** A retry was scheduled. */
  reconnecting: [info: ReconnectingInfo];
  /** The connection has stayed open for `stableAfter` ms: the backoff was reset. */
  stable: [];
  /** Something failed; the socket handles it (retrying or giving up). Always a ResilientSocketError. */
  error: [error: ResilientSocketError];
  /** Reconnecting stopped by itself; the socket is `closed`. */
  giveup: [info: GiveUpInfo];
  /** Messages were dropped and will never be sent. */
  drop: [info: DropInfo];
  /** The peer acknowledged a reliable message (`sendReliable`, the `delivery()` feature); its promise resolved. */
  acked: [info: AckedInfo];
  /**
   * `bufferedAmount` is back at or under `highWaterMark` after it went above it (`writable` is true
   * again): once per crossing, within 20 ms while a connection is open, else when the next opens or
   * the connection is lost. Never once the socket is `closed`.
   */
  drain: [];
}

/**
 * Every event name, in declaration order (for recorders and `until`).
 * @internal
 */
export const EVENT_NAMES = [
  'state',
  'connecting',
  'open',
  'message',
  'close',
  'reconnecting',
  'stable',
  'error',
  'giveup',
  'drop',
  'acked',
  'drain',
] as const satisfies readonly (keyof ResilientSocketEvents)[];
