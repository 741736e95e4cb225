/**
 * Finds the `ws` package (an optional peer dependency) for Node: beside this file first, then
 * from the app's working directory, so an app bundled into a folder without node_modules still
 * finds the ws its package.json installed. Node only (uses `node:module`).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { WebSocketConstructorLike } from '../websocket-like.js';

let cached: WebSocketConstructorLike | null | undefined;

/**
 * Loads `ws` once and returns its WebSocket class; `undefined` when it is not installed.
 * @internal
 */
export function loadWs(): WebSocketConstructorLike | undefined {
  if (cached === undefined) {
    cached = null;
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
