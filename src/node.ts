/**
 * The Node entry point of `resilient-socket` (selected by the `node` export condition). Identical
 * to the default entry, except that `ResilientSocket` uses the ws transport: it falls back to the
 * `ws` package when there is no global WebSocket (Node < 22), binds ws sockets natively (protocol
 * pings and pongs, refused upgrades with their status) and checks ws's client options. `ws` is an
 * optional peer dependency, loaded on first use only.
 * @packageDocumentation
 */
import { ResilientSocket as BrowserResilientSocket } from './resilient-socket/resilient-socket.js';
import { ResilientWebSocket as BrowserResilientWebSocket } from './resilient-socket/resilient-websocket.js';
import type { Transport } from './transports/transport.js';
import { wsTransport } from './transports/ws/index.js';
import { NodeCloseEvent } from './websocket/close-event.js';
import type { CloseEventClass } from './websocket/events.js';
import { defineReadyStates } from './websocket/whatwg.js';

export * from './index.js';

/** {@inheritDoc BrowserResilientSocket} */
export class ResilientSocket extends BrowserResilientSocket {
  // The bundler renames this class in the build (`ResilientSocket2`: its name collides with the
  // class it extends). Static fields, not a static block, so that bundlers can still drop the
  // class when an app does not use it; scripts/check-package.mjs checks the name in every entry.
  /** `'ResilientSocket'`, the name this class is imported by (what `util.inspect` and stack traces show). */
  static override readonly name: string = 'ResilientSocket';
  /** @internal */
  protected static override transport: Transport = wsTransport;
}

/** {@inheritDoc BrowserResilientWebSocket} */
export class ResilientWebSocket extends BrowserResilientWebSocket {
  /** `'ResilientWebSocket'`, the name this class is imported by. */
  static override readonly name: string = 'ResilientWebSocket';
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: its initializer defines the WebIDL constants
  static readonly #constants = /* @__PURE__ */ defineReadyStates(ResilientWebSocket);
  /** @internal */
  protected static override transport: Transport = wsTransport;
  /** @internal */
  protected static override CloseEvent: CloseEventClass | undefined = NodeCloseEvent;
}
