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
 * Where one underlying WebSocket reports: the socket's machine. Its methods take the connection
 * (no closure per connection); their names end in `_` (the build shortens them).
 */
export interface Owner {
  /** The socket's settings: the transport that listens to its connections. */
  readonly config_: { readonly transport: Transport };
  opened_(connection: Bound): void;
  received_(connection: Bound, data: unknown): void;
  /**
   * The socket closed; `fault` says the client failed the connection (ws: a `WS_ERR_*` protocol
   * error; a browser WebSocket: an `error` event before `close`). With `frameOnly` (ws only), the
   * server's close frame arrived: the connection is over, though its TCP connection may close
   * later (or never, until cut); the close without `frameOnly` follows for the same connection.
   */
  closed_(connection: Bound, info: CloseInfo, fault?: Error, frameOnly?: boolean): void;
  /**
   * Whether `connection` is the owner's current one, still holding its socket (what it reports of
   * any other is stale).
   */
  current_(connection: Bound): unknown;
  /**
   * Runs the features' hook: `pong` for a protocol pong on the current connection (ws only; the
   * transport reports it this way so that browser bundles carry no code for it).
   */
  run_(hook: 'pong', connection: Bound): unknown;
  /**
   * The WebSocket reported an `error`. Its `close` normally follows at once; one that never opened
   * may not send any (Node 22's WebSocket after a refused connection), so the owner ends such an
   * attempt itself after a short grace.
   */
  errored_(connection: Bound): void;
}

/** The part of a connection a transport works with. */
export interface Bound {
  /** The WebSocket once bound. */
  socket: WebSocketLike | undefined;
  /** The last `error` of the transport (browsers give no detail; ws gives an Error). */
  error_: unknown;
  /** How the transport listens (its own business), `undefined` once detached. */
  binding_: unknown;
  /** The server refused the upgrade with an HTTP status (ws only); the connection closes right after. */
  rejection_: { readonly status: number; readonly retryAfter: unknown } | undefined;
  /** Where to report. */
  readonly owner_: Owner;
}

export interface Transport {
  /**
   * The WebSocket to use when the `WebSocket` option is not given, before the runtime's global one:
   * on a server runtime, one that can send protocol pings (Node, Bun, Deno: the `ws` package, when
   * it can be loaded). `undefined` leaves the choice to the global `WebSocket`.
   */
  preferred_(): WebSocketConstructorLike | undefined;
  /**
   * The default heartbeat watches nothing on this connection: its socket cannot ping (`WebSocket`,
   * the implementation in use). A server runtime says once what to do about it; browsers, which
   * can do nothing about it, say nothing.
   */
  cannotPing_(WebSocket: WebSocketConstructorLike): void;
  /** Refuses `wsOptions` that would fail every attempt (ws); the browser ignores them. */
  checkOptions_(value: Record<string, unknown>): void;
  /** Starts listening to `socket`, which becomes the connection's. */
  bind_(connection: Bound, socket: WebSocketLike): void;
  /** Stops listening (late events of a socket we let go never reach the owner). */
  detach_(connection: Bound): void;
  /** Whether the socket can send protocol pings and hear their pongs (ws). */
  canPing_(socket: WebSocketLike): boolean;
  /** The `binaryType` values sockets of `WebSocket` take (any other is refused: they would ignore it). */
  binaryTypes_(WebSocket: WebSocketConstructorLike): readonly string[];
}
