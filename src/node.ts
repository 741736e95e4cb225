/**
 * The Node entry point of `resilient-socket` (selected by the `node` export condition). Identical
 * to the default entry, except that `ResilientSocket` falls back to the `ws` package when there is
 * no global WebSocket (Node < 22). `ws` is an optional peer dependency, loaded on first use only.
 * @packageDocumentation
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { ResilientSocket as CoreResilientSocket } from './socket/resilient-socket.js';
import type { WebSocketConstructorLike } from './transport/websocket-like.js';

export * from './index.js';

let cached: WebSocketConstructorLike | null | undefined;

/** Loads `ws` once; `undefined` when it is not installed. */
function loadWs(): WebSocketConstructorLike | undefined {
  if (cached === undefined) {
    cached = null;
    // Look beside this file first, then from the app's working directory: an app bundled into a
    // folder without node_modules still finds the ws its package.json installed.
    for (const base of [import.meta.url, `${pathToFileURL(process.cwd()).href}/`]) {
      try {
        const ws = createRequire(base)('ws') as { WebSocket?: WebSocketConstructorLike } & WebSocketConstructorLike;
        cached = ws.WebSocket ?? ws;
        break;
      } catch {
        // not installed there
      }
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
