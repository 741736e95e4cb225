/**
 * Compile-time checks (run by `npm run typecheck`, not by vitest): the WebSocket implementations
 * users pass must be accepted by the `WebSocket` option without casts.
 */
import { WebSocket as MockWebSocket } from 'mock-socket';
import { WebSocket as WsWebSocket } from 'ws';
import { ResilientSocket } from '../../src/index.js';

class TrackingWs extends WsWebSocket {}

export const withWs = new ResilientSocket('ws://127.0.0.1:1', { WebSocket: WsWebSocket, autoConnect: false });
export const withSubclass = new ResilientSocket('ws://127.0.0.1:1', { WebSocket: TrackingWs, autoConnect: false });
export const withMock = new ResilientSocket('ws://127.0.0.1:1', { WebSocket: MockWebSocket, autoConnect: false });
export const withGlobal = new ResilientSocket('ws://127.0.0.1:1', {
  WebSocket: globalThis.WebSocket,
  autoConnect: false,
});
