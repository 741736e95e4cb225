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

/**
 * One underlying WebSocket and the listeners we put on it. It knows nothing about reconnection:
 * it forwards open/message/close, remembers the transport's error and any refused upgrade, and
 * can be detached so that late events of a socket we gave up on never reach the owner.
 */
export class Connection {
  readonly socket: WebSocketLike;
  /** The last `error` of the transport (browsers give no detail; ws gives an Error). */
  socketError: unknown;
  /** Set when the server refused the upgrade with an HTTP status. */
  rejection: UpgradeRejection | undefined;
  readonly #native: boolean;
  /** [event, listener] pairs we added, to remove them all in `detach()`. */
  #listeners: [string, Listener][] = [];
  #attached = true;

  constructor(socket: WebSocketLike, handlers: ConnectionHandlers, now: () => number) {
    this.socket = socket;
    this.#native = isNodeStyle(socket);
    if (isNodeStyle(socket)) {
      // ws's own event arguments: text frames arrive as a Buffer with isBinary false.
      this.#listen('open', () => handlers.open());
      this.#listen('message', (data: { toString(): string }, isBinary: boolean) =>
        handlers.message(isBinary ? data : data.toString()),
      );
      this.#listen('error', (error: unknown) => {
        this.socketError = error;
      });
      this.#listen('close', (code: number, reason: { toString(): string } | undefined) => {
        this.detach();
        // What ws's own CloseEvent reports as wasClean.
        handlers.close({
          code: typeof code === 'number' ? code : 1006,
          reason: reason === undefined ? '' : reason.toString(),
          wasClean: socket._closeFrameReceived === true && socket._closeFrameSent === true,
        });
      });
      // A refused upgrade (non-101 response). Handling it stops ws from turning it into a generic
      // error; we record the status and Retry-After, then abort the attempt ourselves.
      this.#listen(
        'unexpected-response',
        (
          _request: unknown,
          response: { statusCode?: number; headers?: Record<string, unknown>; resume?: () => void },
        ) => {
          this.rejection = {
            status: typeof response?.statusCode === 'number' ? response.statusCode : 0,
            retryAfter: parseRetryAfter(response?.headers?.['retry-after'], now()),
          };
          response?.resume?.();
          this.#forceClose();
        },
      );
    } else {
      this.#listen('open', () => handlers.open());
      this.#listen('message', (event: MessageEventLike) => handlers.message(event.data));
      this.#listen('error', (event: { error?: unknown } | undefined) => {
        this.socketError = event?.error ?? event;
      });
      this.#listen('close', (event: CloseEventLike | undefined) => {
        this.detach();
        handlers.close({
          code: typeof event?.code === 'number' ? event.code : 1006,
          reason: typeof event?.reason === 'string' ? event.reason : '',
          wasClean: event?.wasClean === true,
        });
      });
    }
  }

  /** Whether our listeners are still on the socket. */
  get attached(): boolean {
    return this.#attached;
  }

  /**
   * Removes every listener we added. If the socket is not closed yet, a single error absorber stays
   * until its `close` (an EventEmitter-based socket such as ws throws on an unheard `error`).
   */
  detach(): void {
    if (!this.#attached) return;
    this.#attached = false;
    for (const [type, listener] of this.#listeners) this.#remove(type, listener);
    this.#listeners = [];
    if (this.socket.readyState !== ReadyState.CLOSED) {
      const absorb = (): void => undefined;
      const cleanup = (): void => {
        this.#remove('error', absorb);
        this.#remove('close', cleanup);
      };
      this.#add('error', absorb);
      this.#add('close', cleanup);
    }
  }

  /** Detaches and closes the socket without waiting for anything (terminate where available). */
  abort(code = 1000, reason = ''): void {
    this.detach();
    this.#forceClose(code, reason);
  }

  #forceClose(code = 1000, reason = ''): void {
    try {
      if (typeof this.socket.terminate === 'function') this.socket.terminate();
      else if (this.socket.readyState === ReadyState.CONNECTING) this.socket.close();
      else if (this.socket.readyState === ReadyState.OPEN) this.socket.close(code, reason);
    } catch {
      // Closing a socket that is already closing or broken may throw in some implementations.
    }
  }

  #listen(type: string, listener: Listener): void {
    this.#add(type, listener);
    this.#listeners.push([type, listener]);
  }

  #add(type: string, listener: Listener): void {
    if (this.#native) (this.socket as NodeStyleSocket).on(type, listener);
    else this.socket.addEventListener(type, listener);
  }

  #remove(type: string, listener: Listener): void {
    if (this.#native) (this.socket as NodeStyleSocket).off(type, listener);
    else this.socket.removeEventListener(type, listener);
  }
}
