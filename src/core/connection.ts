/**
 * One connection attempt and the underlying WebSocket it creates: its number, the socket once it
 * exists (listened to by the socket's transport), and how far it got. A socket replaces it
 * wholesale for every attempt, so callbacks that outlive theirs (a URL provider, a handshake)
 * compare identity. It knows nothing of reconnection.
 */
import type { Bound, ConnectionEvents, Transport } from '../transports/transport.js';
import { ReadyState, type WebSocketLike } from '../transports/websocket-like.js';
import type { Rejection } from './feature.js';

/** What a connection needs from the socket class that makes it: where to report, how to listen. */
export interface Wiring {
  readonly events: ConnectionEvents;
  readonly transport: Transport;
}

export class Connection implements Bound {
  /** The WebSocket once bound; set back to `undefined` when the socket lets go of it. */
  socket: WebSocketLike | undefined = undefined;
  /** The connection is usable (opened, and the `gate` hooks passed): set once. */
  opened = false;
  /** The last `error` of the transport (browsers give no detail; ws gives an Error). */
  error: unknown = undefined;
  /** The refused upgrade, when the transport saw one (ws). */
  rejection: Rejection | undefined = undefined;
  /** @internal the transport's */
  binding: unknown = undefined;

  /**
   * @param owner the socket (handles hold no closure over it: the events table gets it back from here)
   * @param wiring shared by every connection of a socket class
   * @param number 1 for the first attempt after a reset, counting up
   */
  constructor(
    readonly owner: object,
    readonly wiring: Wiring,
    readonly number: number,
  ) {}

  /** @internal for the transport */
  get events(): ConnectionEvents {
    return this.wiring.events;
  }

  /** Starts listening to `socket`, which becomes this connection's. */
  bind(socket: WebSocketLike): void {
    this.wiring.transport.bind(this, socket);
  }

  /** Stops listening (late events of a socket we let go never reach the owner). */
  detach(): void {
    this.wiring.transport.detach(this);
  }

  /** Detaches and closes the socket without waiting for anything (terminate where available). */
  abort(code = 1000, reason = ''): void {
    this.detach();
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
