/**
 * `resilient-socket`: `ResilientSocket` (the core with every feature) and everything it takes and
 * reports. Importing it has no side effects. This is the build browsers and bundlers get; it never
 * imports `ws`. Node resolves to `./node.ts`, which adds the ws transport. The core alone and the
 * features one by one: `resilient-socket/modular`.
 * @packageDocumentation
 */
export * from './backoff/index.js';
export {
  assertCloseArgs,
  CloseCodes,
  type CloseInfo,
  defaultShouldReconnect,
  FATAL_CLOSE_CODES,
} from './core/close-codes.js';
export type {
  AckedInfo,
  CloseEventInfo,
  ConnectingInfo,
  DropInfo,
  DropReason,
  GiveUpInfo,
  OpenInfo,
  ReconnectingInfo,
  ResilientSocketEvents,
  StateChange,
} from './core/events.js';
export type { BaseSocketOptions, ProtocolsProvider, QueueOptions, UrlProvider } from './core/options.js';
export type { SendOptions, SendResult, SocketStats } from './core/socket.js';
export {
  CLOSE_TIMEOUT,
  type Deadline,
  ERROR_GRACE,
  SHOULD_RECONNECT_TIMEOUT,
  type SocketState,
  STATES,
  type StateBehaviour,
} from './core/states.js';
export type { Data } from './data.js';
export {
  type ErrorCode,
  ErrorCodes,
  type ErrorDetails,
  isResilientSocketError,
  ResilientSocketError,
} from './errors.js';
export {
  type BufferPolicyFeature,
  type BufferPolicyOptions,
  bufferPolicy,
  type OverflowPolicy,
} from './features/buffer-policy/buffer-policy.js';
export { type DeliveryCodec, type Frame, jsonCodec } from './features/delivery/codec.js';
export { type DeliveryFeature, delivery } from './features/delivery/delivery.js';
export type { DeliveryStats } from './features/delivery/handed.js';
export {
  type IndexedDbFactoryLike,
  type IndexedDbStoreOptions,
  indexedDbStore,
} from './features/delivery/indexed-db.js';
export type { DeliveryOptions } from './features/delivery/options.js';
export { type DeliveryStore, memoryStore } from './features/delivery/store.js';
export {
  type HandshakeConnection,
  type HandshakeFeature,
  type HandshakeHook,
  type HandshakeOptions,
  handshake,
} from './features/handshake/handshake.js';
export type { HeartbeatOptions } from './features/heartbeat/heartbeat.js';
export type { ResumeOptions } from './features/resume/resume.js';
export type { ResilientSocketOptions } from './resilient-socket/options.js';
export { ResilientSocket } from './resilient-socket/resilient-socket.js';
export { type FullResilientWebSocketOptions, ResilientWebSocket } from './resilient-socket/resilient-websocket.js';
export {
  type AnyListener,
  ReadyState,
  type WebSocketConstructorLike,
  type WebSocketLike,
} from './transports/websocket-like.js';
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
export type { BinaryTypeValue } from './websocket/resilient-websocket.js';
