import type { CloseEventLike, MessageEventLike, WebSocketLike } from '../transport/websocket-like.js';
import { ReadyState } from '../transport/websocket-like.js';
import type { CloseInfo } from './close-codes.js';

/**
 * What a {@link Connection} reports to its owner (`connection.owner`). One table serves every
 * connection of an owner type: the connection passes itself, so it needs no closure over its owner
 * (a closure per event and connection costs about 100 bytes each).
 */
export interface ConnectionEvents<Owner> {
  open(connection: Connection<Owner>): void;
  message(connection: Connection<Owner>, data: unknown): void;
  close(connection: Connection<Owner>, info: CloseInfo): void;
  /** A protocol pong (ws only). */
  pong(connection: Connection<Owner>): void;
  /**
   * The server refused the upgrade with an HTTP status (ws only); `retryAfter` is the raw header.
   * The connection closes itself right after; `close` follows.
   */
  rejected(connection: Connection<Owner>, status: number, retryAfter: unknown): void;
}

/** An upgrade the server refused with an HTTP status (only visible with `ws`). */
export interface UpgradeRejection {
  readonly status: number;
  /** `Retry-After`, in ms, when the server sent one. */
  readonly retryAfter: number | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: listeners of foreign WebSocket implementations take their own event types.
type Listener = (...args: any[]) => void;

/** The subset of ws's (Node EventEmitter) API the native binding uses. */
type NodeStyleSocket = WebSocketLike & {
  on(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
  _closeFrameReceived?: boolean;
  _closeFrameSent?: boolean;
};

/**
 * Whether the socket speaks ws's EventEmitter API (`on`/`off` with ws's event arguments, `ping`,
 * `terminate`). Such sockets are bound natively: ws's `addEventListener` allocates a wrapper
 * function per listener and a `MessageEvent` per message, which costs memory for every connection
 * and time for every message.
 */
function isNodeStyle(socket: WebSocketLike): socket is NodeStyleSocket {
  return (
    typeof socket.on === 'function' &&
    typeof socket.off === 'function' &&
    typeof socket.ping === 'function' &&
    typeof socket.terminate === 'function'
  );
}

/** Where a natively bound ws socket keeps its Connection (the technique ws uses for its own listeners). */
const kConnection = Symbol('resilient-socket.connection');
type TaggedSocket = NodeStyleSocket & { [kConnection]?: Connection<unknown> | undefined };

// Module-level listeners for ws sockets: one function each for all connections, called with
// `this` = the socket, so a connection costs no closure per event.
function nativeOpen(this: TaggedSocket): void {
  const connection = this[kConnection];
  if (!connection) return;
  connection.bindOpen();
  connection.events.open(connection);
}
function nativeMessage(this: TaggedSocket, data: { toString(): string }, isBinary: boolean): void {
  const connection = this[kConnection];
  // ws's own event arguments: text frames arrive as a Buffer with isBinary false.
  connection?.events.message(connection, isBinary ? data : data.toString());
}
function nativeError(this: TaggedSocket, error: unknown): void {
  const connection = this[kConnection];
  if (connection) connection.socketError = error;
}
function nativeClose(this: TaggedSocket, code: number, reason: { toString(): string } | undefined): void {
  const connection = this[kConnection];
  if (!connection) return;
  connection.detach();
  connection.events.close(connection, {
    code: typeof code === 'number' ? code : 1006,
    reason: reason === undefined ? '' : reason.toString(),
    // What ws's own CloseEvent reports as wasClean.
    wasClean: this._closeFrameReceived === true && this._closeFrameSent === true,
  });
}
function nativePong(this: TaggedSocket): void {
  const connection = this[kConnection];
  connection?.events.pong(connection);
}
/**
 * A refused upgrade (non-101 response). Handling it stops ws from turning it into a generic error;
 * the owner records the status and Retry-After, then we abort the attempt.
 */
function nativeUnexpectedResponse(
  this: TaggedSocket,
  _request: unknown,
  response: { statusCode?: number; headers?: Record<string, unknown>; resume?: () => void },
): void {
  const connection = this[kConnection];
  if (!connection) return;
  const status = typeof response?.statusCode === 'number' ? response.statusCode : 0;
  connection.events.rejected(connection, status, response?.headers?.['retry-after']);
  response?.resume?.();
  connection.forceClose();
}

/**
 * The listeners of each phase. ws keeps a socket's listeners in a dictionary-mode object whose
 * table grows from 8 to 16 entries (192 bytes more per socket) at the sixth event name, so a
 * socket never carries more than four of ours: `message` and `pong` cannot happen before `open`,
 * and `open` and `unexpected-response` cannot happen after it.
 */
const NATIVE_CONNECTING: readonly (readonly [string, Listener])[] = [
  ['open', nativeOpen],
  ['error', nativeError],
  ['close', nativeClose],
  ['unexpected-response', nativeUnexpectedResponse],
];
const NATIVE_OPEN: readonly (readonly [string, Listener])[] = [
  ['error', nativeError],
  ['close', nativeClose],
  ['message', nativeMessage],
  ['pong', nativePong],
];

/** Swallows the late `error` of a socket we gave up on (ws throws on an unheard `error`). */
function absorbError(): void {}
function removeAbsorber(this: NodeStyleSocket): void {
  this.off('error', absorbError);
  this.off('close', removeAbsorber);
}

/**
 * One underlying WebSocket and the listeners we put on it. It knows nothing about reconnection:
 * it forwards open/message/close/pong to its owner, remembers the transport's error, and can be
 * detached so that late events of a socket we gave up on never reach the owner.
 */
export class Connection<Owner> {
  readonly socket: WebSocketLike;
  /** @internal */
  readonly owner: Owner;
  /** @internal */
  readonly events: ConnectionEvents<Owner>;
  /** The last `error` of the transport (browsers give no detail; ws gives an Error). */
  socketError: unknown;
  /** Set by the owner when the server refused the upgrade with an HTTP status. */
  rejection: UpgradeRejection | undefined;
  /**
   * The listeners in place: one of the shared native tables for ws, per-connection closures for
   * the browser API (whose implementations need not call a listener with `this` = the socket);
   * `undefined` once detached.
   */
  #listeners: readonly (readonly [string, Listener])[] | undefined;

  constructor(socket: WebSocketLike, owner: Owner, events: ConnectionEvents<Owner>) {
    this.socket = socket;
    this.owner = owner;
    this.events = events;
    if (isNodeStyle(socket)) {
      (socket as TaggedSocket)[kConnection] = this as Connection<unknown>;
      this.#listeners = NATIVE_CONNECTING;
      for (const [type, listener] of NATIVE_CONNECTING) socket.on(type, listener);
      return;
    }
    const listeners: [string, Listener][] = [
      ['open', () => events.open(this)],
      ['message', (event: MessageEventLike) => events.message(this, event.data)],
      [
        'error',
        (event: { error?: unknown } | undefined) => {
          this.socketError = event?.error ?? event;
        },
      ],
      [
        'close',
        (event: CloseEventLike | undefined) => {
          this.detach();
          events.close(this, {
            code: typeof event?.code === 'number' ? event.code : 1006,
            reason: typeof event?.reason === 'string' ? event.reason : '',
            wasClean: event?.wasClean === true,
          });
        },
      ],
    ];
    for (const [type, listener] of listeners) socket.addEventListener(type, listener);
    this.#listeners = listeners;
  }

  /** The ws socket opened: swaps the connecting listeners for the open ones. @internal */
  bindOpen(): void {
    if (this.#listeners !== NATIVE_CONNECTING) return;
    const socket = this.socket as NodeStyleSocket;
    socket.off('open', nativeOpen);
    socket.off('unexpected-response', nativeUnexpectedResponse);
    socket.on('message', nativeMessage);
    socket.on('pong', nativePong);
    this.#listeners = NATIVE_OPEN;
  }

  /**
   * Removes every listener we added. If the socket is not closed yet, a single error absorber stays
   * until its `close` (an EventEmitter-based socket such as ws throws on an unheard `error`).
   */
  detach(): void {
    const listeners = this.#listeners;
    if (listeners === undefined) return;
    this.#listeners = undefined;
    const open = this.socket.readyState !== ReadyState.CLOSED;
    if (listeners === NATIVE_CONNECTING || listeners === NATIVE_OPEN) {
      const socket = this.socket as TaggedSocket;
      for (const [type, listener] of listeners) socket.off(type, listener);
      socket[kConnection] = undefined; // not `delete`: that would push ws's object into dictionary mode
      if (open) {
        socket.on('error', absorbError);
        socket.on('close', removeAbsorber);
      }
      return;
    }
    for (const [type, listener] of listeners) this.socket.removeEventListener(type, listener);
    if (open) {
      const absorb = (): void => undefined;
      const cleanup = (): void => {
        this.socket.removeEventListener('error', absorb);
        this.socket.removeEventListener('close', cleanup);
      };
      this.socket.addEventListener('error', absorb);
      this.socket.addEventListener('close', cleanup);
    }
  }

  /** Detaches and closes the socket without waiting for anything (terminate where available). */
  abort(code = 1000, reason = ''): void {
    this.detach();
    this.forceClose(code, reason);
  }

  /** Closes the socket at once (terminate where available), listeners left as they are. @internal */
  forceClose(code = 1000, reason = ''): void {
    try {
      if (typeof this.socket.terminate === 'function') this.socket.terminate();
      else if (this.socket.readyState === ReadyState.CONNECTING) this.socket.close();
      else if (this.socket.readyState === ReadyState.OPEN) this.socket.close(code, reason);
    } catch {
      // Closing a socket that is already closing or broken may throw in some implementations.
    }
  }
}
