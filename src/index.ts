/**
 * `resilient-socket`: everything the package offers. Importing it has no side effects. This is
 * the build browsers and bundlers get; it never imports `ws`. Node resolves to `./node.ts`, which
 * adds `ws` as the fallback WebSocket.
 * @packageDocumentation
 */
export * from './backoff/index.js';
export type { BufferOptions, OverflowPolicy } from './buffer/outbound-buffer.js';
export type { Data } from './data.js';
export {
  type ErrorCode,
  ErrorCodes,
  type ErrorDetails,
  isResilientSocketError,
  ResilientSocketError,
} from './errors.js';
export {
  assertCloseArgs,
  CloseCodes,
  type CloseInfo,
  defaultShouldReconnect,
  FATAL_CLOSE_CODES,
} from './socket/close-codes.js';
export type {
  CloseEventInfo,
  ConnectingInfo,
  DropInfo,
  DropReason,
  GiveUpInfo,
  OpenInfo,
  ReconnectingInfo,
  ResilientSocketEvents,
  StateChange,
} from './socket/events.js';
export type {
  HandshakeConnection,
  HeartbeatOptions,
  ProtocolsProvider,
  ResilientSocketOptions,
  ResumeOptions,
  UrlProvider,
} from './socket/options.js';
export {
  CLOSE_TIMEOUT,
  ResilientSocket,
  type SendOptions,
  type SendResult,
  SHOULD_RECONNECT_TIMEOUT,
  type SocketStats,
} from './socket/resilient-socket.js';
export { type SocketState, STATES, type StateBehaviour } from './socket/states.js';
export {
  type AnyListener,
  ReadyState,
  type WebSocketConstructorLike,
  type WebSocketLike,
} from './transport/websocket-like.js';
