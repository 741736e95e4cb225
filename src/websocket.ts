/**
 * `resilient-socket/websocket`: `ResilientWebSocket`, the socket in the shape of the browser
 * `WebSocket`, on the core alone: the class `BaseWebSocket`, exported under both names (features
 * by `features: [...]`, from `resilient-socket/modular`: `heartbeat()` for dead links), so that an
 * app that only needs a WebSocket that reconnects pays for that. Node resolves to
 * `./websocket-node.ts` (the ws transport). The main entry's `ResilientWebSocket` has every feature.
 * @packageDocumentation
 */
export type {
  CloseEventLike,
  CloseEventOf,
  DetailEvent,
  DetailEventShape,
  ListenerOf,
  ResilientWebSocketEventMap,
  SocketErrorEvent,
} from './websocket/event-map.js';
export type { ListenerOptions, WebSocketListener } from './websocket/listeners.js';
export {
  BaseWebSocket,
  /** The drop-in's name for {@link BaseWebSocket}, the core drop-in: the same class. */
  BaseWebSocket as ResilientWebSocket,
  type BinaryTypeValue,
  type ResilientWebSocketOptions,
} from './websocket/resilient-websocket.js';
