/**
 * The types of `ResilientWebSocket`'s events, by name, as `WebSocketEventMap` types a WebSocket's:
 * `open`, `message` (a `MessageEvent`), `error` and `close` (a `CloseEvent`), and the rest of the
 * socket's vocabulary (`state`, `connecting`, `reconnecting`, `stable`, `giveup`, `drop`) as
 * `CustomEvent`s with their payload as `detail`. They compile with and without the DOM lib: where
 * the project's types declare `CustomEvent` or `CloseEvent` (lib DOM; @types/node declares
 * `CustomEvent`), the events are typed as those; where they do not, as the shapes below.
 * Types only: nothing here exists at run time.
 */
import type { ConnectingInfo, DropInfo, GiveUpInfo, ReconnectingInfo, StateChange } from '../core/events.js';
import type { ResilientSocketError } from '../errors.js';

/** A `close` event as the facade dispatches it (a `CloseEvent`, or ours where the runtime has none). */
export interface CloseEventLike extends Event {
  /** The close code (1005 when none was sent, 1006 when the connection failed). */
  readonly code: number;
  /** The close reason (may be empty). */
  readonly reason: string;
  /** Whether the closing handshake finished. */
  readonly wasClean: boolean;
}

/** An event with a payload as `detail`, where the project's types have no `CustomEvent`. */
export interface DetailEventShape<T> extends Event {
  /** The event's payload, as `ResilientSocket` emits it. */
  readonly detail: T;
}

/**
 * The two constructors, as the project's global types declare them, else as these shapes. An
 * intersection's last construct signature wins in `InstanceType`: the global one where it exists.
 */
type Fallbacks = {
  CustomEvent: new <T>(type: string, init?: { detail?: T }) => DetailEventShape<T>;
  CloseEvent: new (type: string) => CloseEventLike;
};
declare const customEvent: (Fallbacks & typeof globalThis)['CustomEvent'];
declare const closeEventClass: (Fallbacks & typeof globalThis)['CloseEvent'];

/**
 * An event of the rest of the socket's vocabulary (`state`, `reconnecting`, `drop`, …), its payload
 * `T` as `detail`: a `CustomEvent<T>` (typed so wherever the project's types declare `CustomEvent`).
 * {@link ResilientWebSocketEventMap} says which payload each event name has.
 */
export type DetailEvent<T = unknown> = InstanceType<typeof customEvent<T>>;

/** A `close` event: a `CloseEvent` (typed so wherever the project's types declare it), else {@link CloseEventLike}. */
export type CloseEventOf = InstanceType<typeof closeEventClass>;

/** The `error` event: an `Event`, as a WebSocket's (which carries nothing), with what failed as `error`. */
export interface SocketErrorEvent extends Event {
  /** What failed (absent on an `error` event dispatched by script). */
  readonly error?: ResilientSocketError;
}

/** Each event of `ResilientWebSocket`, by name, as `addEventListener` hands it over (as `WebSocketEventMap`). */
export interface ResilientWebSocketEventMap {
  /** A connection opened (one per underlying connection). */
  open: Event;
  /** A message arrived: `data` is a string, or a `Blob` / `ArrayBuffer` per `binaryType`. */
  message: MessageEvent;
  /** Something failed (before the `close` of a connection that failed). */
  error: SocketErrorEvent;
  /** An underlying connection closed: `code`, `reason`, `wasClean`. */
  close: CloseEventOf;
  /** Every state change. */
  state: DetailEvent<StateChange>;
  /** An attempt starts. */
  connecting: DetailEvent<ConnectingInfo>;
  /** A retry was scheduled: `detail.delay` ms from now. */
  reconnecting: DetailEvent<ReconnectingInfo>;
  /** The connection stayed open for `stableAfter` ms (`detail` is null). */
  stable: DetailEvent<null>;
  /** Reconnecting stopped by itself. */
  giveup: DetailEvent<GiveUpInfo>;
  /** Messages were dropped and will never be sent. */
  drop: DetailEvent<DropInfo>;
  /** `bufferedAmount` is back at or under `highWaterMark` after it went above it (`detail` is null). */
  drain: DetailEvent<null>;
}

/** A listener of an event `E`, as `addEventListener` takes it: a function (`this` the socket) or an object with `handleEvent`. */
export type ListenerOf<E, This> =
  | ((this: This, event: E) => unknown)
  | {
      /** Called with the event, `this` being the object. */
      handleEvent(event: E): unknown;
    };
