import type { Clock } from '../clock.js';
import { parseRetryAfter } from '../transport/retry-after.js';
import type { CloseEventLike, MessageEventLike, WebSocketLike } from '../transport/websocket-like.js';
import { ReadyState } from '../transport/websocket-like.js';
import type { CloseInfo } from './close-codes.js';

/** What a {@link Connection} reports to its owner. */
export interface ConnectionHandlers {
  open(): void;
  message(data: unknown): void;
  close(info: CloseInfo): void;
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
  once?(event: string, listener: Listener): unknown;
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
type TaggedSocket = NodeStyleSocket & { [kConnection]?: Connection | undefined };

// Module-level listeners for ws sockets: one function each for all connections, called with
// `this` = the socket, so a connection costs no closure per event.
function nativeOpen(this: TaggedSocket): void {
  this[kConnection]?.handlers.open();
}
function nativeMessage(this: TaggedSocket, data: { toString(): string }, isBinary: boolean): void {
  // ws's own event arguments: text frames arrive as a Buffer with isBinary false.
  this[kConnection]?.handlers.message(isBinary ? data : data.toString());
}
function nativeError(this: TaggedSocket, error: unknown): void {
  const connection = this[kConnection];
  if (connection) connection.socketError = error;
}
function nativeClose(this: TaggedSocket, code: number, reason: { toString(): string } | undefined): void {
  const connection = this[kConnection];
  if (!connection) return;
  connection.detach();
  connection.handlers.close({
    code: typeof code === 'number' ? code : 1006,
    reason: reason === undefined ? '' : reason.toString(),
    // What ws's own CloseEvent reports as wasClean.
    wasClean: this._closeFrameReceived === true && this._closeFrameSent === true,
  });
}
function nativePong(this: TaggedSocket): void {
  this[kConnection]?.heartbeat?.activity();
}
/**
 * A refused upgrade (non-101 response). Handling it stops ws from turning it into a generic error;
 * we record the status and Retry-After, then abort the attempt ourselves.
 */
function nativeUnexpectedResponse(
  this: TaggedSocket,
  _request: unknown,
  response: { statusCode?: number; headers?: Record<string, unknown>; resume?: () => void },
): void {
  const connection = this[kConnection];
  if (!connection) return;
  connection.rejection = {
    status: typeof response?.statusCode === 'number' ? response.statusCode : 0,
    retryAfter: parseRetryAfter(response?.headers?.['retry-after'], connection.clock.now()),
  };
  response?.resume?.();
  connection.forceClose();
}
const NATIVE_LISTENERS: readonly [string, Listener][] = [
  ['open', nativeOpen],
  ['message', nativeMessage],
  ['error', nativeError],
  ['close', nativeClose],
  ['pong', nativePong],
  ['unexpected-response', nativeUnexpectedResponse],
];

/** Swallows the late `error` of a socket we gave up on (ws throws on an unheard `error`). */
function absorbError(): void {}
function removeAbsorber(this: NodeStyleSocket): void {
  this.off('error', absorbError);
  this.off('close', removeAbsorber);
}

/** What the heartbeat needs from a connection's pongs. */
export interface PongListener {
  activity(): void;
}

/**
 * One underlying WebSocket and the listeners we put on it. It knows nothing about reconnection:
 * it forwards open/message/close (and pongs to its heartbeat), remembers the transport's error
 * and any refused upgrade, and can be detached so that late events of a socket we gave up on
 * never reach the owner.
 */
export class Connection {
  readonly socket: WebSocketLike;
  /** @internal */
  readonly handlers: ConnectionHandlers;
  /** @internal */
  readonly clock: Clock;
  /** The last `error` of the transport (browsers give no detail; ws gives an Error). */
  socketError: unknown;
  /** Set when the server refused the upgrade with an HTTP status. */
  rejection: UpgradeRejection | undefined;
  /** Told about pongs (protocol heartbeat, ws only). */
  heartbeat: PongListener | undefined;
  readonly #native: boolean;
  /** Browser-API listeners we added (the native path uses NATIVE_LISTENERS). */
  #listeners: [string, Listener][] | undefined;
  #attached = true;

  constructor(socket: WebSocketLike, handlers: ConnectionHandlers, clock: Clock) {
    this.socket = socket;
    this.handlers = handlers;
    this.clock = clock;
    this.#native = isNodeStyle(socket);
    if (isNodeStyle(socket)) {
      (socket as TaggedSocket)[kConnection] = this;
      for (const [type, listener] of NATIVE_LISTENERS) socket.on(type, listener);
      return;
    }
    const listeners: [string, Listener][] = [
      ['open', () => handlers.open()],
      ['message', (event: MessageEventLike) => handlers.message(event.data)],
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
          handlers.close({
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

  /**
   * Removes every listener we added. If the socket is not closed yet, a single error absorber stays
   * until its `close` (an EventEmitter-based socket such as ws throws on an unheard `error`).
   */
  detach(): void {
    if (!this.#attached) return;
    this.#attached = false;
    this.heartbeat = undefined;
    const open = this.socket.readyState !== ReadyState.CLOSED;
    if (this.#native) {
      const socket = this.socket as TaggedSocket;
      for (const [type, listener] of NATIVE_LISTENERS) socket.off(type, listener);
      socket[kConnection] = undefined; // not `delete`: that would push ws's object into dictionary mode
      if (open) {
        socket.on('error', absorbError);
        socket.on('close', removeAbsorber);
      }
      return;
    }
    for (const [type, listener] of this.#listeners ?? []) this.socket.removeEventListener(type, listener);
    this.#listeners = undefined;
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
