import { ResilientSocketError } from '../errors.js';
import { assertThat } from '../validation.js';
import type { WebSocketConstructorLike } from './websocket-like.js';

/**
 * Picks the WebSocket implementation: the `WebSocket` option if given, else the transport's
 * `preferred()` one (on server runtimes the Node entry loads the optional `ws` peer dependency,
 * whose sockets can send the pings the default heartbeat needs; Bun always has its own ws), else
 * the runtime's global `WebSocket` (browsers, Node ≥ 22, Bun, Deno). The browser build prefers
 * nothing and never imports ws.
 *
 * @throws TypeError when the option is not a constructor; ResilientSocketError `ERR_RS_NO_WEBSOCKET`
 *   when nothing is available, with a message that says how to fix it.
 */
export function resolveWebSocket(
  option: unknown,
  preferred: () => WebSocketConstructorLike | undefined,
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
  const chosen = preferred() ?? (globalThis as { WebSocket?: unknown }).WebSocket;
  if (typeof chosen === 'function') return chosen as WebSocketConstructorLike;
  throw new ResilientSocketError(
    'ERR_RS_NO_WEBSOCKET',
    process.env.NODE_ENV !== 'production'
      ? 'No WebSocket implementation found: this runtime has no global WebSocket and `ws` could not be ' +
          'loaded. In Node install the `ws` package (npm install ws), or pass one: ' +
          "new ResilientSocket(url, { WebSocket: (await import('ws')).WebSocket })"
      : '',
  );
}
