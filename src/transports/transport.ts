/**
 * A transport: how a socket finds its WebSocket implementation and listens to one underlying
 * WebSocket. The browser transport (`./browser.ts`) listens with `addEventListener`; the `ws`
 * transport (`./ws/`) binds ws natively, hears pongs and refused upgrades, checks ws's client
 * options, and finds the `ws` package in Node. The core knows only this interface, so the browser
 * build never contains the ws-only code.
 */
import type { CloseInfo } from '../core/close-codes.js';
import type { WebSocketConstructorLike, WebSocketLike } from './websocket-like.js';

/**
 * What one underlying WebSocket reports to the connection that listens to it. One table serves
 * every connection of a socket class: the connection passes itself (no closure per connection).
 */
export interface ConnectionEvents {
  open(connection: Bound): void;
  message(connection: Bound, data: unknown): void;
  close(connection: Bound, info: CloseInfo): void;
  /** A protocol pong (ws only). */
  pong(connection: Bound): void;
  /** The server refused the upgrade with an HTTP status (ws only); the connection closes right after. */
  rejected(connection: Bound, status: number, retryAfter: unknown): void;
}

/** The part of a connection a transport works with. */
export interface Bound {
  /** The WebSocket once bound. */
  socket: WebSocketLike | undefined;
  /** The last `error` of the transport (browsers give no detail; ws gives an Error). */
  error: unknown;
  /** How the transport listens (its own business), `undefined` once detached. */
  binding: unknown;
  /** Where to report. */
  readonly events: ConnectionEvents;
}

/** How a socket reaches the network. */
export interface Transport {
  /** The implementation to use when neither the `WebSocket` option nor a global one exists. */
  fallback(): WebSocketConstructorLike | undefined;
  /** Checks `wsOptions` at construction (the ws transport refuses what ws would refuse on every attempt). */
  checkOptions(wsOptions: Record<string, unknown>): void;
  /** Starts listening to `socket` for `connection`, which reports through `connection.events`. */
  bind(connection: Bound, socket: WebSocketLike): void;
  /** Stops listening; an unheard late `error` of a socket still closing is absorbed. */
  detach(connection: Bound): void;
  /** Whether protocol pings can watch `socket` (it sends them and we hear the pongs). */
  canPing(socket: WebSocketLike): boolean;
}
