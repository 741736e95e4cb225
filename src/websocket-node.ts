/**
 * The Node entry point of `resilient-socket/websocket` (the `node` export condition): the same,
 * with the ws transport (it finds `ws` where there is no global WebSocket). Its exports repeat
 * `./websocket.ts`'s (no re-export of it: the build would make an empty chunk of it).
 * @packageDocumentation
 */
import type { Transport } from './transports/transport.js';
import { wsTransport } from './transports/ws/index.js';
import { NodeCloseEvent } from './websocket/close-event.js';
import type { CloseEventClass } from './websocket/events.js';
import { BaseWebSocket as BrowserBaseWebSocket } from './websocket/resilient-websocket.js';
import { defineReadyStates } from './websocket/whatwg.js';

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
export type { BinaryTypeValue, ResilientWebSocketOptions } from './websocket/resilient-websocket.js';

/** {@inheritDoc BrowserBaseWebSocket} */
export class BaseWebSocket extends BrowserBaseWebSocket {
  /** `'BaseWebSocket'`: the core drop-in, whatever name it was imported by. */
  static override readonly name: string = 'BaseWebSocket';
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: its initializer defines the WebIDL constants
  static readonly #constants = /* @__PURE__ */ defineReadyStates(BaseWebSocket);
  /** @internal */
  protected static override transport: Transport = wsTransport;
  /** @internal */
  protected static override CloseEvent: CloseEventClass | undefined = NodeCloseEvent;
}

export {
  /** The drop-in's name for {@link BaseWebSocket}, the core drop-in: the same class. */
  BaseWebSocket as ResilientWebSocket,
};
