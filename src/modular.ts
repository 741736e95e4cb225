/**
 * `resilient-socket/modular`: the core socket alone (`BaseSocket`) and one factory per feature,
 * installed with `features: [...]`, so that a browser bundle holds only what it imports. The
 * guide docs/guide/builds-and-size.md lists each feature's cost. Node resolves to
 * `./modular-node.ts`, which adds the ws transport.
 *
 * ```ts
 * import { BaseSocket, heartbeat, resume } from 'resilient-socket/modular';
 * const socket = new BaseSocket(url, { features: [heartbeat({ interval: 15_000, timeout: 5_000 }), resume()] });
 * ```
 * @packageDocumentation
 */
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
export type { Feature } from './core/feature.js';
export type { BaseSocketOptions, ProtocolsProvider, QueueOptions, UrlProvider } from './core/options.js';
export { BaseSocket, type SendOptions, type SendResult, type SocketStats } from './core/socket.js';
export type { SocketState } from './core/states.js';
export type { Data } from './data.js';
export { abortSignal } from './features/abort-signal/abort-signal.js';
export { asyncIteration } from './features/async-iteration/async-iteration.js';
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
export { type HeartbeatOptions, heartbeat } from './features/heartbeat/heartbeat.js';
export { providers } from './features/providers/providers.js';
export { type ResumeOptions, resume } from './features/resume/resume.js';
export { stats } from './features/stats/stats.js';
export { unref } from './features/unref/unref.js';
export { type UpgradeRejectionOptions, upgradeRejection } from './features/upgrade-rejection/upgrade-rejection.js';
