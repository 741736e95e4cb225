/**
 * The Node entry point of `resilient-socket/shared` (the `node` export condition): the same, with
 * the ws transport (it finds `ws` where there is no global WebSocket). Its exports repeat
 * `./shared.ts`'s (no re-export of it: the build would make an empty chunk of it).
 * @packageDocumentation
 */
import { SharedSocket as BrowserSharedSocket } from './tabs/shared-socket.js';
import type { Transport } from './transports/transport.js';
import { wsTransport } from './transports/ws/index.js';

export type {
  BroadcastChannelConstructorLike,
  BroadcastChannelLike,
  LockManagerLike,
  Role,
  SharedSocketEvents,
  SharedSocketOptions,
} from './tabs/shared-socket.js';

/** {@inheritDoc BrowserSharedSocket} */
export class SharedSocket extends BrowserSharedSocket {
  /** `'SharedSocket'`, the name this class is imported by. */
  static override readonly name: string = 'SharedSocket';
  /** @internal */
  protected static override transport: Transport = wsTransport;
}
