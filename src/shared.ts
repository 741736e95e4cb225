/**
 * `resilient-socket/shared`: `SharedSocket`, one connection shared by every tab of an origin (Web
 * Locks + BroadcastChannel). Node resolves to `./shared-node.ts` (the ws transport).
 * @packageDocumentation
 */
export {
  type BroadcastChannelConstructorLike,
  type BroadcastChannelLike,
  type LockManagerLike,
  type Role,
  SharedSocket,
  type SharedSocketEvents,
  type SharedSocketOptions,
} from './tabs/shared-socket.js';
