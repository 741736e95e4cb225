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
import type { Bound, Transport } from '../transport.js';
import type { WebSocketLike } from '../websocket-like.js';

/** The subset of ws's (Node EventEmitter) API the native binding uses. */
type NodeStyleSocket = WebSocketLike & {
  emit(event: string, ...args: unknown[]): boolean;
  listenerCount(event: string): number;
  _closeFrameReceived?: boolean;
  _closeFrameSent?: boolean;
};

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
const kConnection = Symbol('resilient-socket.connection');
type TaggedSocket = NodeStyleSocket & { [kConnection]?: Bound | undefined };

/** The `binding` of a natively bound connection. */
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
      connection.error = a;
      return true;
    case 'close':
      detach(connection);
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
      // error; the owner records the status and Retry-After, then the attempt is cut.
      const response = b as { statusCode?: number; headers?: Record<string, unknown>; resume?: () => void } | undefined;
      const status = typeof response?.statusCode === 'number' ? response.statusCode : 0;
      events.rejected(connection, status, response?.headers?.['retry-after']);
      response?.resume?.();
      socket.terminate?.();
      return true;
    }
    default:
      return false;
  }
}

function bind(connection: Bound, socket: WebSocketLike): void {
  if (!isNodeStyle(socket)) {
    browserTransport.bind(connection, socket);
    return;
  }
  (socket as TaggedSocket)[kConnection] = connection;
  (socket as TaggedSocket).emit = nativeEmit;
  connection.binding = NATIVE;
  connection.socket = socket;
}

function detach(connection: Bound): void {
  const socket = connection.socket;
  if (connection.binding !== NATIVE || !socket) {
    browserTransport.detach(connection);
    return;
  }
  connection.binding = undefined;
  // Not `delete`: that would push ws's object into dictionary mode. nativeEmit stays in place and
  // absorbs the late `error` of a socket we gave up on.
  (socket as TaggedSocket)[kConnection] = undefined;
}

/** Binds ws sockets natively (anything else as the browser transport does). */
export const wsBinding: Pick<Transport, 'bind' | 'detach' | 'canPing'> = { bind, detach, canPing: isNodeStyle };
