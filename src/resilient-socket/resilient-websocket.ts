/**
 * `ResilientWebSocket` as the main entry exports it: the WebSocket-shaped facade with every feature
 * installed, its options `ResilientSocket`'s (flat: `heartbeat`, `resume`, `bufferPolicy: bufferPolicy(…)`, …).
 * `resilient-socket/websocket` exports the facade on the core alone, `BaseWebSocket` (features by
 * `features: [...]`).
 */
import type { UrlProvider } from '../core/options.js';
import { BaseWebSocket } from '../websocket/resilient-websocket.js';
import { defineReadyStates } from '../websocket/whatwg.js';
import type { ResilientSocketOptions } from './options.js';
import { prepareFull } from './resilient-socket.js';

/**
 * Options of the main entry's `new ResilientWebSocket(url, protocols, options)`: `ResilientSocket`'s,
 * except `protocols` and `delivery` (a WebSocket has no `sendReliable()`).
 */
export type FullResilientWebSocketOptions = Omit<ResilientSocketOptions, 'protocols' | 'delivery'>;

/**
 * The drop-in `WebSocket` with every feature: `new ResilientWebSocket(url, protocols?, options?)`,
 * with `ResilientSocket`'s features (heartbeat, resume, handshake, …) and its flat options.
 * `resilient-socket/websocket` has the same class on the core alone (`BaseWebSocket`, features by
 * `features`). See docs/guide/drop-in.md.
 *
 * @example
 * ```ts
 * const ws = new ResilientWebSocket('wss://example.test/feed', [], { maxDelay: 10_000 });
 * ws.onmessage = (event) => render(event.data);
 * ws.addEventListener('reconnecting', (event) => console.log('retry in', event.detail.delay, 'ms'));
 * ```
 */
export class ResilientWebSocket extends BaseWebSocket {
  /** `'ResilientWebSocket'`: the drop-in with every feature, whatever a bundler renamed its binding to. */
  static override readonly name: string = 'ResilientWebSocket';
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: its initializer defines the WebIDL constants
  static readonly #constants = /* @__PURE__ */ defineReadyStates(ResilientWebSocket);
  /** What `String(ResilientWebSocket)` says: which drop-in this is. */
  static override toString(): string {
    return 'class ResilientWebSocket { [the drop-in of resilient-socket with every feature] }';
  }

  /**
   * `new ResilientWebSocket(url, protocols?, options?)`.
   * @param args `url`: a `ws:`/`wss:` (or `http:`/`https:`) URL, or a function returning one before
   *   every attempt. `protocols`: one subprotocol or several, each an HTTP token, none twice.
   * `options`: `ResilientSocket`'s options, except `protocols` and `delivery`.
   * @throws DOMException `SyntaxError` for a bad URL or subprotocol, as `WebSocket` throws it;
   *   TypeError / RangeError naming a bad option.
   */
  constructor(
    // As given (a rest parameter): the base tells `new ResilientWebSocket()` from an explicit undefined.
    ...args: [url: string | URL | UrlProvider, protocols?: string | string[], options?: FullResilientWebSocketOptions]
  ) {
    super(...(args as ConstructorParameters<typeof BaseWebSocket>));
  }

  /** Flat options → the core's options and the features. @internal */
  protected static override prepare(options: unknown): unknown {
    return prepareFull(options, true);
  }
}
