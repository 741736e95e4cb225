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
  /** The URL this attempt uses (after the URL provider, if any). */
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
  /** Whether a new attempt will follow. */
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
  /** Consecutive failed attempts when it gave up. */
  readonly attempts: number;
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
  | 'not-connected';

/** Payload of `drop`: messages that will never be sent. */
export interface DropInfo {
  /** Why they were dropped. */
  readonly reason: DropReason;
  /** The dropped messages, oldest first. */
  readonly messages: readonly Data[];
}

/**
 * The events of a {@link ResilientSocket}, for eventemitter3's typed `on`/`once`/`off`.
 * Listeners run synchronously. A listener that throws does not disturb the socket: the error is
 * reported as an `error` event (`ERR_RS_LISTENER_THREW`), or rethrown asynchronously if it came
 * from an `error` listener or nobody listens to `error`.
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
] as const satisfies readonly (keyof ResilientSocketEvents)[];
