/**
 * `npm run example:dashboard`: builds the library if needed, starts the metrics feed and the page
 * on 127.0.0.1 and prints the URL. PORT (default 8080) is the page, WS_PORT (default PORT + 1) the
 * feed. Simulate outages with the page's button or here: c + Enter crashes the feed (it stays
 * down), r + Enter restarts it, o + Enter is a 5 s outage, q + Enter (or Ctrl-C) quits.
 */

import { log, onKeys, portFrom } from '../lib/cli.js';
import { ensureBuilt } from '../lib/ensure-build.js';
import { startDashboardServer } from './server.js';

ensureBuilt();
const port = portFrom('PORT', 8080);
const server = await startDashboardServer({ port, wsPort: portFrom('WS_PORT', port === 0 ? 0 : port + 1), log });

console.log(`
Dashboard:  ${server.url}
Feed:       ${server.wsUrl}

Keys (then Enter): c = crash the feed (it stays down), r = restart it, o = 5 s outage, q = quit
`);
onKeys(
  { c: () => server.crash(), r: () => server.restart(), o: () => server.outage(5_000) },
  'keys: c = crash, r = restart, o = 5 s outage, q = quit',
  () => server.stop(),
);
