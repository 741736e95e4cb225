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
  emit(event: string, ...args: unknown[]): boolean;
  listenerCount(event: string): number;
  _closeFrameReceived?: boolean;
  _closeFrameSent?: boolean;
};

/**
 * Whether the socket speaks ws's EventEmitter API (`emit` and `listenerCount` with ws's event
 * arguments, `ping`, `terminate`). Such sockets are bound natively (see {@link nativeEmit}): ws's
 * `addEventListener` allocates a wrapper function per listener and a `MessageEvent` per message,
 * which costs memory for every connection and time for every message.
 */
function isNodeStyle(socket: WebSocketLike): socket is NodeStyleSocket {
  const s = socket as Partial<NodeStyleSocket>;
  return (
    typeof s.emit === 'function' &&
    typeof s.listenerCount === 'function' &&
    typeof socket.ping === 'function' &&
    typeof socket.terminate === 'function'
  );
}

/**
 * Whether protocol pings can watch `socket`: it sends them (`ping`) and, bound natively, we hear
 * their pongs. True for ws; browsers have no protocol ping.
 */
export function canPing(socket: WebSocketLike): boolean {
  return isNodeStyle(socket);
}

/** Where a natively bound ws socket keeps its Connection (the technique ws uses for its own listeners). */
const kConnection = Symbol('resilient-socket.connection');
type TaggedSocket = NodeStyleSocket & { [kConnection]?: Connection<unknown> | undefined };

/**
 * Whether a ws socket still reports to a connection (bound and not detached). For tests that
 * check what a closed socket leaves behind: a ws socket carries no listener of ours to count.
 * @internal
 */
export function isBound(socket: object): boolean {
  return (socket as TaggedSocket)[kConnection] !== undefined;
}

/**
 * The `emit` of a natively bound ws socket: ws announces everything through `this.emit(...)`, so
 * this one module-level function, set on the socket as its own `emit`, hears every event without
 * a listener. Listeners registered on ws's EventEmitter would cost a dictionary of event names
 * per socket (about 130 bytes for the events we need, measured); this costs one property. Whatever
 * else listens on the socket (a subclass's own listeners) still hears every event through the
 * class's `emit`. An `error` nobody else listens for is absorbed (ws's EventEmitter would throw
 * it), also after detach: the transport's error always ends in a `close`, which we handle.
 */
function nativeEmit(this: TaggedSocket, type: string, a?: unknown, b?: unknown): boolean {
  const connection = this[kConnection];
  const handled = connection !== undefined && dispatch(this, connection, type, a, b);
  if (type === 'error' && this.listenerCount('error') === 0) return true;
  const classEmit = (Object.getPrototypeOf(this) as NodeStyleSocket).emit;
  return classEmit.call(this, type, a, b) || handled;
}

/** Hands one ws event (with ws's own arguments) to the connection; `true` if it was one of ours. */
function dispatch(
  socket: TaggedSocket,
  connection: Connection<unknown>,
  type: string,
  a: unknown,
  b: unknown,
): boolean {
  const events = connection.events;
  switch (type) {
    case 'open':
      events.open(connection);
      return true;
    case 'message':
      // ws's own event arguments: text frames arrive as a Buffer with isBinary false.
      events.message(connection, b === true ? a : String(a));
      return true;
    case 'error':
      connection.socketError = a;
      return true;
    case 'close':
      connection.detach();
      events.close(connection, {
        code: typeof a === 'number' ? a : 1006,
        reason: b === undefined ? '' : String(b),
        // What ws's own CloseEvent reports as wasClean.
        wasClean: socket._closeFrameReceived === true && socket._closeFrameSent === true,
      });
      return true;
    case 'pong':
      events.pong(connection);
      return true;
    case 'unexpected-response': {
      // A refused upgrade (non-101 response). Handling it stops ws from turning it into a generic
      // error; the owner records the status and Retry-After, then we abort the attempt.
      const response = b as { statusCode?: number; headers?: Record<string, unknown>; resume?: () => void } | undefined;
      const status = typeof response?.statusCode === 'number' ? response.statusCode : 0;
      events.rejected(connection, status, response?.headers?.['retry-after']);
      response?.resume?.();
      connection.forceClose();
      return true;
    }
    default:
      return false;
  }
}

/** The `#listeners` of a natively bound connection (ws needs none: see {@link nativeEmit}). */
const NATIVE: readonly (readonly [string, Listener])[] = [];

/**
 * One underlying WebSocket (bound once it exists) and how we listen to it. It knows nothing
 * about reconnection: it forwards open/message/close/pong to its owner, remembers the transport's
 * error, and can be detached so that late events of a socket we gave up on never reach the owner.
 * The socket's attempt extends it (`src/socket/attempt.ts`): one object per attempt.
 */
export class Connection<Owner> {
  /** The WebSocket once bound (see {@link bind}); the owner sets it back to `undefined` when it lets go. */
  socket: WebSocketLike | undefined;
  /** @internal */
  readonly owner: Owner;
  /** @internal */
  readonly events: ConnectionEvents<Owner>;
  /** The last `error` of the transport (browsers give no detail; ws gives an Error). */
  socketError: unknown;
  /** Set by the owner when the server refused the upgrade with an HTTP status. */
  rejection: UpgradeRejection | undefined;
  /**
   * How we listen: `NATIVE` for ws (its own `emit` reports to us), per-connection closures for
   * the browser API (whose implementations need not call a listener with `this` = the socket);
   * `undefined` once detached.
   */
  #listeners: readonly (readonly [string, Listener])[] | undefined;

  constructor(owner: Owner, events: ConnectionEvents<Owner>) {
    this.socket = undefined;
    this.owner = owner;
    this.events = events;
    this.socketError = undefined;
    this.rejection = undefined;
    this.#listeners = undefined;
  }

  /**
   * Starts listening to `socket`, which becomes this connection's. Its events are reported to the
   * owner from now on, until {@link detach}.
   */
  bind(socket: WebSocketLike): void {
    const events = this.events;
    if (isNodeStyle(socket)) {
      (socket as TaggedSocket)[kConnection] = this as Connection<unknown>;
      (socket as TaggedSocket).emit = nativeEmit;
      this.#listeners = NATIVE;
      this.socket = socket;
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
    this.socket = socket;
  }

  /**
   * Removes every listener we added. If the socket is not closed yet, a single error absorber stays
   * until its `close` (an EventEmitter-based socket such as ws throws on an unheard `error`; a
   * natively bound ws socket absorbs it in {@link nativeEmit}).
   */
  detach(): void {
    const listeners = this.#listeners;
    const socket = this.socket;
    if (listeners === undefined || socket === undefined) return;
    this.#listeners = undefined;
    if (listeners === NATIVE) {
      // Not `delete`: that would push ws's object into dictionary mode. nativeEmit stays in place
      // and absorbs the late `error` of a socket we gave up on.
      (socket as TaggedSocket)[kConnection] = undefined;
      return;
    }
    for (const [type, listener] of listeners) socket.removeEventListener(type, listener);
    if (socket.readyState !== ReadyState.CLOSED) {
      const absorb = (): void => undefined;
      const cleanup = (): void => {
        socket.removeEventListener('error', absorb);
        socket.removeEventListener('close', cleanup);
      };
      socket.addEventListener('error', absorb);
      socket.addEventListener('close', cleanup);
    }
  }

  /** Detaches and closes the socket without waiting for anything (terminate where available). */
  abort(code = 1000, reason = ''): void {
    this.detach();
    this.forceClose(code, reason);
  }

  /** Closes the socket at once (terminate where available), listeners left as they are. @internal */
  forceClose(code = 1000, reason = ''): void {
    const socket = this.socket;
    try {
      if (socket === undefined) return;
      if (typeof socket.terminate === 'function') socket.terminate();
      else if (socket.readyState === ReadyState.CONNECTING) socket.close();
      else if (socket.readyState === ReadyState.OPEN) socket.close(code, reason);
    } catch {
      // Closing a socket that is already closing or broken may throw in some implementations.
    }
  }
}
