/**
 * What a scenario of the web-platform-tests `websockets/` port is (./wpt.ts gathers them all), and
 * the values the scenarios share.
 */
import type { Kit, SocketClass } from '../browser/pages/websocket/kit.js';

/** What a scenario is given besides the kit and the class: the server's base URL (`ws://127.0.0.1:<port>`). */
export interface ScenarioArg {
  readonly url: string;
}

/** A value a runner leaves unchecked for a control that is not a browser's WebSocket. */
export const UNCHECKED = 'unchecked';
/** A scenario not run on a control that is not a browser's WebSocket (it cannot run there). */
export const NOT_RUN = 'not run';
/** ResilientWebSocket in Node gives what `ws`, the control there, gives. */
export const AS_WS = 'as ws';

export interface Scenario {
  readonly title: string;
  /** The WPT files (under `websockets/`) whose assertions it ports. */
  readonly wpt: readonly string[];
  readonly run: (t: Kit, WS: SocketClass, arg: ScenarioArg) => unknown;
  /** What a browser's WebSocket gives (Chromium's is checked against it), and so what ours must give. */
  readonly expected: unknown;
  /** Where ResilientWebSocket differs on purpose: what it gives, and why. */
  readonly ours?: { readonly expected: unknown; readonly why: string };
  /** In Node, where `ws` is not a browser's WebSocket: what it gives ({@link UNCHECKED}, {@link NOT_RUN}), and why. */
  readonly ws?: { readonly expected: unknown; readonly why: string };
  /** In Node, where ours follows the runtime rather than the browser (or {@link AS_WS}), and why. */
  readonly oursInNode?: { readonly expected: unknown; readonly why: string };
  /** Why it runs only in a browser (no runner in Node). */
  readonly browserOnly?: string;
}

export const IAE = 'InvalidAccessError';
/** How the runtime's own `MessageEvent` prints: `[object Event]` in Node 20, `[object MessageEvent]` elsewhere. */
export const RUNTIME_MESSAGE_EVENT = typeof MessageEvent === 'function' ? String(new MessageEvent('message')) : '';
export const RECONNECTS =
  'it reconnects: CONNECTING (0) in the error and close of a connection it did not close itself';
