/**
 * The assertions of the web-platform-tests `websockets/` suite (https://github.com/web-platform-tests/wpt,
 * 3-Clause BSD; each scenario names the files it ports) as scenarios that run unchanged on a
 * runtime's own WebSocket and on `ResilientWebSocket`: in Chromium next to its native WebSocket
 * (test/browser/websocket-wpt.test.ts) and in Node next to `ws` (test/integration/websocket-wpt.test.ts).
 * The runtime's own WebSocket is the control: each scenario must give there what WPT asserts.
 * The code is ours; only the assertions (inputs and expected outcomes) come from WPT.
 *
 * A scenario's `run` is sent to the page as source text: it may use only its parameters (the kit of
 * test/browser/pages/websocket/kit.js, the class under test, the server's URL) and the globals of
 * both runtimes. The server is ./echo-server.ts without permessage-deflate (WPT's echo handler
 * negotiates no extension): `/echo` echoes, `Goodbye` is echoed and then closed on, `raw:<hex>`
 * writes a malformed frame, `/slow` holds the opening handshake.
 *
 * Where ResilientWebSocket differs on purpose (it reconnects), `ours` says what it gives and why;
 * docs/guide/drop-in.md lists each difference. Not ported: what tests
 * WebIDL's plumbing rather than the WebSocket (deleting or redefining prototype properties,
 * `initCloseEvent`), wss:, workers, HTTP/2, and the tests Chromium itself fails today (a space in a
 * host, subprotocols repeated in another case, the blocked ports: Chromium accepts them).
 */
import { ATTRIBUTE_SCENARIOS } from './wpt-attributes.js';
import { CLOSE_SCENARIOS } from './wpt-close.js';
import { EVENT_SCENARIOS } from './wpt-events.js';
import { MESSAGE_SCENARIOS } from './wpt-messages.js';
import type { Scenario } from './wpt-scenario.js';

export { AS_WS, NOT_RUN, type Scenario, type ScenarioArg, UNCHECKED } from './wpt-scenario.js';

/** Every scenario, in the order they run. */
export const SCENARIOS: readonly Scenario[] = [
  ...CLOSE_SCENARIOS,
  ...MESSAGE_SCENARIOS,
  ...EVENT_SCENARIOS,
  ...ATTRIBUTE_SCENARIOS,
];
