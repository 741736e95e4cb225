/**
 * The native binding of `ws` sockets: ws announces everything through `this.emit(...)`, so one
 * module-level function set on the socket as its own `emit` hears every event, without a listener
 * on ws's EventEmitter. Listeners there would cost a dictionary of event names per socket (about
 * 130 bytes for the events we need, measured), and ws's `addEventListener` a wrapper function per
 * listener and a `MessageEvent` per message; this costs one property (the memory budget). Whatever
 * else listens on the socket (a subclass's own listeners) still hears every event through the
 * class's `emit`. Only here do pongs and refused upgrades (HTTP status, Retry-After) reach us.
 */
import { browserTransport } from '../browser.js';
import type { Bound } from '../transport.js';
import { closeCodeOf, type WebSocketLike } from '../websocket-like.js';

/** The subset of ws's (Node EventEmitter) API the native binding uses. */
type NodeStyleSocket = WebSocketLike & {
  emit(event: string, ...args: unknown[]): boolean;
  listenerCount(event: string): number;
  _closeFrameReceived?: boolean;
  _closeFrameSent?: boolean;
  /** ws's frame parser (an EventEmitter), there from the upgrade on. */
  _receiver?: TaggedReceiver;
};

/** ws's receiver, tagged with the socket it parses for. */
interface TaggedReceiver {
  on(event: 'conclude', listener: (this: TaggedReceiver, code: unknown, reason: unknown) => void): unknown;
  [kSocket]?: TaggedSocket;
}

/**
 * Whether the socket speaks ws's EventEmitter API (`emit` and `listenerCount` with ws's event
 * arguments, `ping`, `terminate`).
 */
export function isNodeStyle(socket: WebSocketLike): socket is NodeStyleSocket {
  const s = socket as Partial<NodeStyleSocket>;
  return (
    typeof s.emit === 'function' &&
    typeof s.listenerCount === 'function' &&
    typeof socket.ping === 'function' &&
    typeof socket.terminate === 'function'
  );
}

/** Where a natively bound ws socket keeps its connection (the technique ws uses for its own listeners). */
const kConnection = /* @__PURE__ */ Symbol('resilient-socket.connection');
/** Where ws's receiver of a natively bound socket keeps that socket. */
const kSocket = /* @__PURE__ */ Symbol('resilient-socket.socket');
type TaggedSocket = NodeStyleSocket & { [kConnection]?: Bound | undefined };

/** The `binding_` of a natively bound connection. */
const NATIVE = 'native';

/**
 * Whether a ws socket still reports to a connection (bound and not detached). For tests that
 * check what a closed socket leaves behind: a ws socket carries no listener of ours to count.
 * @internal
 */
export function isBound(socket: object): boolean {
  return (socket as TaggedSocket)[kConnection] !== undefined;
}

/**
 * The `emit` of a natively bound ws socket. An `error` nobody else listens for is absorbed (ws's
 * EventEmitter would throw it), also after detach: the transport's error always ends in a
 * `close`, which the connection handles.
 */
function nativeEmit(this: TaggedSocket, type: string, a?: unknown, b?: unknown): boolean {
  const connection = this[kConnection];
  const handled = connection !== undefined && dispatch(this, connection, type, a, b);
  if (type === 'error' && this.listenerCount('error') === 0) return true;
  const classEmit = (Object.getPrototypeOf(this) as NodeStyleSocket).emit;
  return classEmit.call(this, type, a, b) || handled;
}

/** Hands one ws event (with ws's own arguments) to the connection; `true` if it was one of ours. */
function dispatch(socket: TaggedSocket, connection: Bound, type: string, a: unknown, b: unknown): boolean {
  const owner = connection.owner_;
  switch (type) {
    case 'open':
      watchCloseFrame(socket);
      owner.opened_(connection);
      return true;
    case 'message':
      // ws's own event arguments: text frames arrive as a Buffer with isBinary false.
      owner.received_(connection, b === true ? a : String(a));
      return true;
    case 'error':
      connection.error_ = a;
      owner.errored_(connection);
      return true;
    case 'close':
      detach(connection);
      owner.closed_(
        connection,
        {
          code: closeCodeOf(a),
          reason: b === undefined ? '' : String(b),
          // What ws's own CloseEvent reports as wasClean.
          wasClean: socket._closeFrameReceived === true && socket._closeFrameSent === true,
        },
        protocolError(connection.error_),
      );
      return true;
    case 'pong':
      if (owner.current_(connection)) owner.run_('pong', connection);
      return true;
    case 'unexpected-response': {
      // A refused upgrade (non-101 response). Handling it stops ws from turning it into a generic
      // error; the owner records the status and Retry-After, then the attempt is cut.
      const response = b as { statusCode?: number; headers?: Record<string, unknown>; resume?: () => void } | undefined;
      const status = typeof response?.statusCode === 'number' ? response.statusCode : 0;
      connection.rejection_ = { status, retryAfter: response?.headers?.['retry-after'] };
      response?.resume?.();
      socket.terminate?.();
      return true;
    }
    default:
      return false;
  }
}

/**
 * ws tells nobody when the server's close frame arrives: it answers it and then waits for the
 * server to close the TCP connection, up to its `closeTimeout` (30 s) before its `close` event. A
 * server or proxy that says 1001 Going Away and keeps the connection would hold the socket `open`
 * that long. Its receiver (internal, and the same throughout ws 8) announces the frame as `conclude`;
 * one listener there, a module-level function (no closure per connection), hears it. It runs
 * after ws's own, which has already answered the frame.
 */
function watchCloseFrame(socket: TaggedSocket): void {
  const receiver = socket._receiver;
  if (typeof receiver?.on !== 'function' || receiver[kSocket]) return;
  receiver[kSocket] = socket;
  receiver.on('conclude', concluded);
}

function concluded(this: TaggedReceiver, code: unknown, reason: unknown): void {
  const connection = this[kSocket]?.[kConnection];
  if (!connection) return;
  connection.owner_.closed_(
    connection,
    {
      code: typeof code === 'number' ? closeCodeOf(code) : 1005,
      reason: reason === undefined ? '' : String(reason),
      // Both close frames: the server's, and the answer ws has just sent (the TCP close may follow later).
      wasClean: true,
    },
    undefined,
    true,
  );
}

/**
 * A protocol error ws raised on an open connection before closing it (its codes start `WS_ERR_`:
 * a message over `maxPayload`, invalid UTF-8, a malformed frame): the close code alone (1006) does
 * not say so, so the owner is told.
 */
function protocolError(value: unknown): Error | undefined {
  const code = value instanceof Error ? (value as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('WS_ERR_') ? (value as Error) : undefined;
}

/** Binds ws sockets natively (anything else as the browser transport does). */
export function bind(connection: Bound, socket: WebSocketLike): void {
  if (!isNodeStyle(socket)) {
    browserTransport.bind_(connection, socket);
    return;
  }
  (socket as TaggedSocket)[kConnection] = connection;
  (socket as TaggedSocket).emit = nativeEmit;
  connection.binding_ = NATIVE;
  connection.socket = socket;
}

export function detach(connection: Bound): void {
  const socket = connection.socket;
  if (connection.binding_ !== NATIVE || !socket) {
    browserTransport.detach_(connection);
    return;
  }
  connection.binding_ = undefined;
  // Not `delete`: that would push ws's object into dictionary mode. nativeEmit stays in place and
  // absorbs the late `error` of a socket we gave up on.
  (socket as TaggedSocket)[kConnection] = undefined;
}
