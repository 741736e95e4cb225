/**
 * `npm run example:chat`: builds the library if needed, starts the chat server and the page on
 * 127.0.0.1 and prints the URLs. PORT (default 8090) is the page, WS_PORT (default PORT + 1) the
 * chat server. Show recovery with the page's buttons or here: c + Enter crashes the chat server
 * (it stays down), r + Enter restarts it, q + Enter (or Ctrl-C) quits.
 */

import { log, onKeys, portFrom } from '../lib/cli.js';
import { ensureBuilt } from '../lib/ensure-build.js';
import { startChatServer } from './server.js';

ensureBuilt();
const port = portFrom('PORT', 8090);
const server = await startChatServer({ port, wsPort: portFrom('WS_PORT', port === 0 ? 0 : port + 1), log });

console.log(`
Chat page:    ${server.url}?name=alice   (open a second tab with ?name=bob)
Chat server:  ${server.wsUrl}
Terminal:     npm run cli -- "${server.wsUrl}?name=carol"

Keys (then Enter): c = crash the chat server (it stays down), r = restart it, q = quit
`);
onKeys({ c: () => server.crash(), r: () => server.restart() }, 'keys: c = crash, r = restart, q = quit', () =>
  server.stop(),
);
