/**
 * `npm run example:shared`: builds the library if needed, starts the shared-tabs server and the
 * page on 127.0.0.1 and prints the URLs. PORT (default 8097) is the page, WS_PORT (default
 * PORT + 1) the ws server.
 *
 * Open the page in several tabs of one browser: every tab opens a `SharedSocket`
 * (`resilient-socket/shared`) to the same URL, one of them (the leader) holds the only
 * connection, and the server counts one connection however many tabs are open. Close the leader
 * tab (or press its **Leave** button): another tab takes over with one new connection. Crash the
 * server (the page's **Crash** button, or c + Enter here) and restart it (**Restart**, r + Enter):
 * the tabs reconnect with ONE new connection. q + Enter (or Ctrl-C) quits. Its Chromium test:
 * `test/browser/shared-socket.test.ts` (the "shared-tabs example" block).
 */

import { log, onKeys, portFrom } from '../lib/cli.js';
import { ensureBuilt } from '../lib/ensure-build.js';
import { startSharedTabsServer } from './server.js';

ensureBuilt();
const port = portFrom('PORT', 8097);
const server = await startSharedTabsServer({ port, wsPort: portFrom('WS_PORT', port === 0 ? 0 : port + 1), log });

console.log(`
Shared tabs:  ${server.url}   (open it in several tabs of one browser: one connection for all)
WS server:    ${server.wsUrl}

Keys (then Enter): c = crash the ws server (it stays down), r = restart it, q = quit
`);
onKeys({ c: () => server.crash(), r: () => server.restart() }, 'keys: c = crash, r = restart, q = quit', () =>
  server.stop(),
);
