/**
 * One connection attempt and the underlying WebSocket it creates: its number, the socket once it
 * exists (listened to by the socket's transport, which reports to the owner), and how far it got.
 * A socket replaces it wholesale for every attempt, so callbacks that outlive theirs (a URL
 * provider, a handshake) compare identity. It knows nothing of reconnection.
 */
import type { Bound, Owner } from '../transports/transport.js';
import type { WebSocketLike } from '../transports/websocket-like.js';
import type { Rejection } from './feature.js';

export class Connection implements Bound {
  /** The WebSocket once bound; set back to `undefined` when the socket lets go of it. */
  socket: WebSocketLike | undefined = undefined;
  /** The connection is usable (opened, and the `gate` hooks passed): set once. */
  opened_ = false;
  /** The last `error` of the transport (browsers give no detail; ws gives an Error). */
  error_: unknown = undefined;
  /** The refused upgrade, when the transport saw one (ws). */
  rejection_: Rejection | undefined = undefined;
  /** @internal the transport's */
  binding_: unknown = undefined;

  /** The socket's machine: the transport reports there, and its config names the transport. */
  declare readonly owner_: Owner;
  /** 1 for the first attempt after a reset, counting up. */
  declare readonly number: number;

  // (Fields assigned here rather than as parameter properties: the build shortens `owner_` only so.)
  constructor(owner: Owner, number: number) {
    this.owner_ = owner;
    this.number = number;
  }

  /**
   * Stops listening and lets the socket go: it closed, or is closing by itself. One that never said
   * so (an `error` without `close`) is closed here, so that none is left connecting or open.
   * Returns the bytes it still held unwritten (see {@link unflushed}).
   */
  release_(): number {
    const socket = this.socket;
    const left = unflushed(socket);
    this.owner_.config_.transport.detach_(this);
    this.socket = undefined;
    try {
      if (socket && socket.readyState < 2) socket.close();
    } catch {
      // already failed: nothing to close
    }
    return left;
  }

  /**
   * Stops listening, closes the socket without waiting for anything (terminate where available)
   * and lets it go. Returns the bytes it still held unwritten (see {@link unflushed}).
   */
  abort_(code = 1000, reason = ''): number {
    this.owner_.config_.transport.detach_(this);
    const socket = this.socket;
    const left = unflushed(socket);
    this.socket = undefined;
    try {
      // CONNECTING (0): close() without arguments; OPEN (1): with them; closing or closed: nothing.
      if (socket?.terminate) socket.terminate();
      else if (socket?.readyState === 0) socket.close();
      else if (socket?.readyState === 1) socket.close(code, reason);
    } catch {
      // Closing a socket that is already closing or broken may throw in some implementations.
    }
    return left;
  }
}

/**
 * What `socket` still holds of what it was given to send (`bufferedAmount`): bytes that never
 * left, once its connection is over. 0 for none, or for a value that is not a count.
 */
function unflushed(socket: WebSocketLike | undefined): number {
  const bytes = socket?.bufferedAmount;
  return Number.isFinite(bytes) && (bytes as number) > 0 ? (bytes as number) : 0;
}

/**
 * Starts the closing handshake of `socket`, as `WebSocket.close(code, reason)` with `code` left out
 * when there is none: an empty close frame (the peer reports 1005). A reason goes only with a code
 * (a close frame cannot carry one alone; Firefox, undici and ws drop it too). Never `close(undefined,
 * …)`: Chromium converts that `undefined` to 0 and throws.
 * @throws what the socket's own `close()` throws.
 */
export function closeSocket(socket: WebSocketLike, code: number | undefined, reason: string): void {
  if (code === undefined) socket.close();
  else socket.close(code, reason);
}
