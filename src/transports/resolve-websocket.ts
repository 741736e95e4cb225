import { ResilientSocketError } from '../errors.js';
import { assertThat } from '../validation.js';
import type { WebSocketConstructorLike } from './websocket-like.js';

/**
 * Picks the WebSocket implementation: the `WebSocket` option if given, else the runtime's global
 * `WebSocket` (browsers, Deno, Bun, Node ≥ 22), else `fallback()` (the Node entry point loads the
 * optional `ws` peer dependency there; the browser build has no fallback and never imports ws).
 *
 * @throws TypeError when the option is not a constructor; ResilientSocketError `ERR_RS_NO_WEBSOCKET`
 *   when nothing is available, with a message that says how to fix it.
 */
export function resolveWebSocket(
  option: unknown,
  fallback: () => WebSocketConstructorLike | undefined,
): WebSocketConstructorLike {
  if (option !== undefined) {
    assertThat(
      typeof option === 'function' && typeof option.prototype === 'object',
      'WebSocket',
      process.env.NODE_ENV !== 'production' ? 'a WebSocket constructor' : '',
      option,
    );
    return option as WebSocketConstructorLike;
  }
  const global = (globalThis as { WebSocket?: unknown }).WebSocket;
  if (typeof global === 'function') return global as WebSocketConstructorLike;
  const loaded = fallback();
  if (loaded) return loaded;
  throw new ResilientSocketError(
    'ERR_RS_NO_WEBSOCKET',
    process.env.NODE_ENV !== 'production'
      ? 'No WebSocket implementation found: this runtime has no global WebSocket. ' +
          'In Node < 22 install the `ws` package (npm install ws), or pass one: ' +
          "new ResilientSocket(url, { WebSocket: (await import('ws')).WebSocket })"
      : '',
  );
}
