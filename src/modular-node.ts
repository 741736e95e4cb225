/**
 * The Node entry point of `resilient-socket/modular` (selected by the `node` export condition):
 * the same exports, except that `BaseSocket` uses the ws transport, finding the `ws` package the
 * way the main entry does (see `./node.ts`). The list repeats `./modular.ts`'s rather than
 * re-exporting it, so that the build makes no empty chunk of it (`test/modular-entries.test.ts`
 * checks that the two lists agree).
 * @packageDocumentation
 */
import { BaseSocket as BrowserBaseSocket } from './core/socket.js';
import type { Transport } from './transports/transport.js';
import { wsTransport } from './transports/ws/index.js';

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
export type { SendOptions, SendResult, SocketStats } from './core/socket.js';
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

/** {@inheritDoc BrowserBaseSocket} */
export class BaseSocket extends BrowserBaseSocket {
  /** `'BaseSocket'`, the name this class is imported by. */
  static override readonly name: string = 'BaseSocket';
  /** @internal */
  protected static override transport: Transport = wsTransport;
}
