/**
 * `resilient-socket/server`: the server side of acknowledged delivery, for `ws` servers in Node.
 *
 * - {@link ReliableServer}: acknowledges and de-duplicates what each client session sends
 *   reliably, and delivers to a session reliably (`send(session, data)`).
 * - {@link redisStore}: the sessions on Redis, so that several processes serve them as one
 *   (`docs/guide/cluster.md`).
 * - {@link jsonCodec}, {@link Frame}, {@link DeliveryCodec}: the protocol's frames and how they go
 *   on the wire (the same codec shape as the client's `delivery({ codec })`).
 *
 * The protocol, for servers in any language: `docs/guide/protocol.md`. Node only: no browser bundle
 * resolves this entry.
 * @packageDocumentation
 */
export { type DeliveryCodec, type Frame, jsonCodec } from './codec.js';
export type { ConnectionSource, ReliableServerEvents } from './events.js';
export type { ReliableServerOptions } from './options.js';
export {
  type RedisClientLike,
  type RedisConnectionLike,
  type RedisStoreOptions,
  redisStore,
  type ServerStore,
} from './redis-store.js';
export { ReliableServer } from './reliable-server.js';
export type { Delivery, ServerSocket, Session } from './session.js';
