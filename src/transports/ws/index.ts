/**
 * The `ws` transport, for Node (the `node` export condition of every entry installs it): finds
 * the optional `ws` peer dependency when there is no global WebSocket, binds ws sockets natively
 * (pongs, refused upgrades), and checks `wsOptions` at construction.
 */
import type { Transport } from '../transport.js';
import { bind, detach, isNodeStyle } from './binding.js';
import { loadWs } from './load-ws.js';
import { checkWsOptions } from './options.js';

export const wsTransport: Transport = {
  fallback: loadWs,
  checkOptions: checkWsOptions,
  bind,
  detach,
  canPing: isNodeStyle,
};
