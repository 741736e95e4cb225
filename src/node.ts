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
  // The bundler renames this class in the build (`ResilientSocket2`: its name collides with the
  // core class it extends). A static field, not a static block, so that bundlers can still drop
  // the class when an app does not use it; scripts/check-package.mjs checks the name in every entry.
  /** `'ResilientSocket'`, the name this class is imported by (what `util.inspect` and stack traces show). */
  static override readonly name = 'ResilientSocket';

  protected static override fallbackWebSocket(): WebSocketConstructorLike | undefined {
    return loadWs();
  }
}
