/**
 * The Node entry point of `resilient-socket` (selected by the `node` export condition). Identical
 * to the default entry, except that `ResilientSocket` falls back to the `ws` package when there is
 * no global WebSocket (Node < 22). `ws` is an optional peer dependency, loaded on first use only.
 * @packageDocumentation
 */
import { createRequire } from 'node:module';
import { ResilientSocket as CoreResilientSocket } from './socket/resilient-socket.js';
import type { WebSocketConstructorLike } from './transport/websocket-like.js';

export * from './index.js';

let cached: WebSocketConstructorLike | null | undefined;

/** Loads `ws` once; `undefined` when it is not installed. */
function loadWs(): WebSocketConstructorLike | undefined {
  if (cached === undefined) {
    try {
      const require = createRequire(import.meta.url);
      const ws = require('ws') as { WebSocket?: WebSocketConstructorLike } & WebSocketConstructorLike;
      cached = ws.WebSocket ?? ws;
    } catch {
      cached = null;
    }
  }
  return cached ?? undefined;
}

/** {@inheritDoc CoreResilientSocket} */
export class ResilientSocket extends CoreResilientSocket {
  protected static override fallbackWebSocket(): WebSocketConstructorLike | undefined {
    return loadWs();
  }
}
