// The page of the WebSocket conformance tests (test/browser/websocket-conformance.test.ts and
// websocket-wpt.test.ts): `ResilientWebSocket` from the browser builds (resilient-socket/websocket
// and the main entry's), next to the native `WebSocket`. The tests run the same code on each class
// (`wsTest.both(fn, arg)`, `wsTest.all(fn, arg)`) and compare what each did, as JSON: what a call
// threw, and every event described (its class, payload, target and the readyState at that moment).
// The helpers are kit.js's, which the Node runner uses too.
import { ResilientWebSocket as FullResilientWebSocket } from 'resilient-socket';
import { ResilientWebSocket } from 'resilient-socket/websocket';
import { createKit } from './kit.js';

const kit = createKit();

window.wsTest = {
  ...kit,
  ResilientWebSocket,
  FullResilientWebSocket,

  /** Runs `fn(wsTest, WS, arg)` for the native WebSocket and for ResilientWebSocket (resilient-socket/websocket). */
  async both(fn, arg) {
    return {
      native: await fn(window.wsTest, WebSocket, arg),
      ours: await fn(window.wsTest, ResilientWebSocket, arg),
    };
  },

  /** As `both`, and for the main entry's ResilientWebSocket (every feature) as `full`. */
  async all(fn, arg) {
    const { native, ours } = await window.wsTest.both(fn, arg);
    return { native, ours, full: await fn(window.wsTest, FullResilientWebSocket, arg) };
  },
};
