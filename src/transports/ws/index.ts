/**
 * The `ws` transport, for server runtimes (the `node` export condition of every entry installs it;
 * Node, Bun and Deno all take it): prefers the `ws` package when it can be loaded, for its protocol
 * pings (the default heartbeat needs them), binds ws sockets natively (pongs, refused upgrades), and
 * checks `wsOptions` at construction. Without ws it takes the runtime's global WebSocket and says
 * once, in development, that the default heartbeat cannot watch it.
 */
import { warn } from '../../core/report.js';
import { BROWSER_BINARY_TYPES } from '../browser.js';
import type { Transport } from '../transport.js';
import type { WebSocketConstructorLike, WebSocketLike } from '../websocket-like.js';
import { bind, detach, isNodeStyle } from './binding.js';
import { loadWs } from './load-ws.js';
import { checkWsOptions } from './options.js';

/** Whether the missing pings were already told (once per process). */
let told = false;

/**
 * The default heartbeat cannot ping the runtime's own WebSocket (none of Node's, Bun's or Deno's
 * globals can). Said once, in development, when that global is in use because ws could not be
 * loaded; a WebSocket the app chose itself (the `WebSocket` option: a test double, say) is its
 * choice, and is left unremarked.
 */
function cannotPing(WebSocket: WebSocketConstructorLike): void {
  if (process.env.NODE_ENV === 'production' || told) return;
  if (WebSocket !== (globalThis as { WebSocket?: unknown }).WebSocket) return;
  told = true;
  warn(
    'RS_NO_PING',
    "resilient-socket: this runtime's WebSocket cannot send pings, so the default heartbeat does not watch " +
      'the connection and a dead link goes unnoticed. Install ws (npm install ws) for protocol pings, or set ' +
      '`heartbeat: { message, isPong }` for application pings the server answers, or `heartbeat: {}` to treat ' +
      'silence as death (said once)',
  );
}

/** The `binaryType` values of ws's sockets (ws's own default, `'nodebuffer'`, first). */
const WS_BINARY_TYPES: readonly string[] = ['nodebuffer', 'arraybuffer', 'fragments', 'blob'];

export const wsTransport: Transport = {
  preferred_: loadWs,
  cannotPing_: cannotPing,
  // ws, or a class made like it (a subclass): ws's values; any other WebSocket: the browser's.
  binaryTypes_: (WebSocket) =>
    typeof (WebSocket.prototype as Partial<WebSocketLike> | undefined)?.ping === 'function'
      ? WS_BINARY_TYPES
      : BROWSER_BINARY_TYPES,
  checkOptions_: checkWsOptions,
  bind_: bind,
  detach_: detach,
  canPing_: isNodeStyle,
};
