/**
 * The Node entry point of `resilient-socket` (selected by the `node` export condition). Identical
 * to the default entry, except that `ResilientSocket` falls back to the `ws` package when there is
 * no global WebSocket (Node < 22). `ws` is an optional peer dependency, loaded on first use only.
 * @packageDocumentation
 */
import { ResilientSocket as CoreResilientSocket } from './socket/resilient-socket.js';
import { loadWs } from './transport/load-ws.js';
import type { WebSocketConstructorLike } from './transport/websocket-like.js';

export * from './index.js';

/** {@inheritDoc CoreResilientSocket} */
export class ResilientSocket extends CoreResilientSocket {
  protected static override fallbackWebSocket(): WebSocketConstructorLike | undefined {
    return loadWs();
  }
}
