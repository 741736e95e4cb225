/**
 * `BaseWebSocket`, which `resilient-socket/websocket` also exports as `ResilientWebSocket` (the
 * drop-in's name): the socket in the shape of the browser `WebSocket`, on the core alone (features
 * by `features: [...]`), for code and libraries
 * written for one (y-websocket's and Hocuspocus's `WebSocketPolyfill`, vscode-ws-jsonrpc's
 * `toSocket()`, …; not graphql-ws's `webSocketImpl`, which abandons sockets without closing them:
 * give it `toRetryWait` from `resilient-socket/backoff` instead). It is the core's machine behind an
 * `EventTarget`: the constructor takes `(url, protocols?, options?)`, events are `Event`,
 * `MessageEvent` and `CloseEvent` objects, and the `on…` handler attributes work.
 *
 * Where the WHATWG spec is silent about reconnecting, it does what reconnecting-websocket and
 * partysocket users rely on (docs/guide/drop-in.md lists every
 * choice): `open` and `close` fire once per underlying connection (a failed attempt fires `error`
 * and `close`, as a WebSocket's does); `readyState` is CONNECTING while it reconnects; `send()`
 * queues while not open instead of throwing; `close()` is final; `reconnect()` and `retryCount`
 * exist; the rest of the socket's events (`state`, `reconnecting`, `giveup`, `drop`, …) are
 * dispatched on the same target with their payload as `detail`. Listeners are contained
 * (`./listeners.ts`): one that throws is reported, never fatal.
 */

import * as command from '../core/commands.js';
import { type Face, Machine } from '../core/machine.js';
import type { BaseSocketOptions, UrlProvider } from '../core/options.js';
import { resolveOptions } from '../core/resolve.js';
import { statsOf } from '../core/services.js';
import type { SocketStats } from '../core/socket.js';
import { readyStateOf, type SocketState } from '../core/states.js';
import { byteLengthOf, isData } from '../data.js';
import { browserTransport } from '../transports/browser.js';
import type { Transport } from '../transports/transport.js';
import { assertOptionsObject, inputError, typeError } from '../validation.js';
import type { CloseEventLike } from './event-map.js';
import { type CloseEventClass, closeEvent, detailEvent, messageEvent, originOf, plainEvent } from './events.js';
import { Listeners } from './listeners.js';
import { closeArgs, defineReadyStates, webSocketProtocols, webSocketUrl } from './whatwg.js';

/** `binaryType`'s values. */
export type BinaryTypeValue = 'blob' | 'arraybuffer';

/**
 * Options of `new BaseWebSocket(url, protocols, options)` (`resilient-socket/websocket`'s
 * `ResilientWebSocket`): the core socket's (`BaseSocket`'s, `features` included), except
 * `protocols` (the second argument).
 */
export type ResilientWebSocketOptions = Omit<BaseSocketOptions, 'protocols'>;

/**
 * The drop-in `WebSocket` on the core alone: what `resilient-socket/websocket` exports, as
 * `ResilientWebSocket` and as `BaseWebSocket` (its name, which says what you hold). It reconnects
 * (backoff, `connectTimeout`, `maxRetries`, the close-code policy) and queues `send()` while
 * disconnected; nothing more unless you add it: `features: [heartbeat()]` (from
 * `resilient-socket/modular`) notices a dead link, and so on for every feature. The main entry's
 * `ResilientWebSocket` is this class with every feature and `ResilientSocket`'s flat options. See
 * docs/guide/drop-in.md.
 *
 * @example
 * ```ts
 * import { heartbeat } from 'resilient-socket/modular';
 * import { ResilientWebSocket } from 'resilient-socket/websocket';
 * const ws = new ResilientWebSocket('wss://example.test/feed', [], { features: [heartbeat()] });
 * ws.onmessage = (event) => render(event.data);
 * ```
 */
export class BaseWebSocket extends Listeners {
  /** `'BaseWebSocket'`: the core drop-in, whatever name it was imported by (or a bundler renamed it to). */
  static override readonly name: string = 'BaseWebSocket';
  /** What `String(BaseWebSocket)` says: which drop-in this is. */
  static override toString(): string {
    return 'class BaseWebSocket { [the core drop-in of resilient-socket/websocket: features by `features`] }';
  }
  // The constants, on the class as on its prototype: WebIDL constants, as a WebSocket's (`defineReadyStates`).
  /** `readyState` while connecting and while waiting to reconnect (0). */
  declare static readonly CONNECTING: 0;
  /** `readyState` while a connection is open (1). */
  declare static readonly OPEN: 1;
  /** `readyState` while `close()` closes the connection (2). */
  declare static readonly CLOSING: 2;
  /** `readyState` after `close()` or a give-up (3). */
  declare static readonly CLOSED: 3;
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: its initializer defines the WebIDL constants
  static readonly #constants = /* @__PURE__ */ defineReadyStates(BaseWebSocket);

  /** How sockets of this class reach the network (the Node entries install the ws transport). @internal */
  protected static transport: Transport = browserTransport;

  /**
   * The class of `close` events where the runtime has no `CloseEvent`: the Node entries set their
   * stand-in (`./close-event.ts`, for Node < 23); elsewhere (React Native) an event carrying
   * `code`, `reason` and `wasClean`. @internal
   */
  protected static CloseEvent: CloseEventClass | undefined = undefined;

  /** Turns the constructor's options into the core's (the full entry: flat feature options into features). @internal */
  protected static prepare(options: unknown): unknown {
    return options;
  }

  readonly #machine: Machine;
  /** The latest connection's subprotocol and extensions (kept after it closes, as by a WebSocket). */
  #negotiated: [protocol: string, extensions: string] | undefined;
  /** Set while close() fails an attempt under way, until its `error` and `close` are dispatched. */
  #failing: 0 | 1 | 2 = 0;
  /** Bytes `send()` took while CLOSING or CLOSED (dropped): a WebSocket counts them in `bufferedAmount`. */
  #unsent = 0;

  /**
   * `new ResilientWebSocket(url, protocols?, options?)` (or `new BaseWebSocket(…)`: the same class).
   * @param args `url`: a `ws:`/`wss:` (or `http:`/`https:`) URL, resolved against the page's base
   *   URL in a browser; with the `providers()` feature also a function returning one before every
   *   attempt. `protocols`: one subprotocol or several, each an HTTP token, none twice. `options`:
   *   the core socket's options (backoff, buffer, `features`, …), except `protocols`.
   * @throws DOMException `SyntaxError` for a bad URL or subprotocol, as `WebSocket` throws it;
   *   TypeError / RangeError naming a bad option (`protocols` among the options:
   *   `ERR_RS_UNKNOWN_OPTION`); ResilientSocketError `ERR_RS_NO_WEBSOCKET`.
   */
  constructor(
    // A rest parameter: `new ResilientWebSocket()` is a TypeError, `new ResilientWebSocket(undefined)` a bad URL.
    ...args: [url: string | URL | UrlProvider, protocols?: string | string[], options?: ResilientWebSocketOptions]
  ) {
    super();
    if ((args as unknown[]).length === 0) {
      throw typeError(
        'url',
        process.env.NODE_ENV !== 'production'
          ? "Failed to construct 'WebSocket': 1 argument required, but only 0 present."
          : '',
      );
    }
    const [url, protocols, options] = args;
    const target = typeof url === 'function' ? url : webSocketUrl(url);
    const list = typeof protocols === 'function' ? protocols : webSocketProtocols(protocols);
    assertOptionsObject('options', options);
    if (options !== undefined && 'protocols' in options) {
      throw inputError(
        TypeError,
        'ERR_RS_UNKNOWN_OPTION',
        'protocols',
        process.env.NODE_ENV !== 'production'
          ? 'Give `protocols` as the second argument of `new ResilientWebSocket(url, protocols, options)`'
          : '',
      );
    }
    const Class = this.constructor as typeof BaseWebSocket;
    const prepared = Class.prepare({
      binaryType: 'blob',
      ...options,
      ...(typeof list === 'function' || list.length > 0 ? { protocols: list } : {}),
    });
    this.#machine = new Machine(this as unknown as Face, resolveOptions(target, prepared, Class.transport));
    this.#machine.init_(prepared);
  }

  // ─── the WebSocket attributes ────────────────────────────────────────────────────────────

  /** `readyState` while connecting and while waiting to reconnect (0). */
  declare readonly CONNECTING: 0;
  /** `readyState` while a connection is open (1). */
  declare readonly OPEN: 1;
  /** `readyState` while `close()` closes the connection (2). */
  declare readonly CLOSING: 2;
  /** `readyState` after `close()` or a give-up (3). */
  declare readonly CLOSED: 3;

  /** CONNECTING (0) until open and while reconnecting, OPEN (1), CLOSING (2), CLOSED (3). */
  get readyState(): number {
    return this.#failing ? 2 : readyStateOf(this.#machine.state_);
  }

  /** The URL of the latest attempt (as given, serialized), whole: you passed it. */
  get url(): string {
    return this.#machine.url_;
  }

  /**
   * The subprotocol the server chose for the latest connection that opened ('' before the first,
   * or if it chose none); kept after that connection closed (as by a WebSocket), until the next opens.
   */
  get protocol(): string {
    return this.#negotiated?.[0] ?? '';
  }

  /**
   * The extensions the server chose for the latest connection that opened ('' before the first);
   * as `protocol`, kept after it closed, until the next one opens.
   */
  get extensions(): string {
    return this.#negotiated?.[1] ?? '';
  }

  /** How binary messages arrive: `'blob'` (the default) or `'arraybuffer'`; kept across reconnects. */
  get binaryType(): BinaryTypeValue {
    return (this.#machine.binaryType_ ?? 'blob') as BinaryTypeValue;
  }

  /** Sets it for the current connection and every later one; another value is ignored, as by a WebSocket. */
  set binaryType(value: BinaryTypeValue) {
    // An enumerated attribute: any other value is ignored, as by WebSocket.
    if (value !== 'blob' && value !== 'arraybuffer') return;
    this.#machine.binaryType_ = value;
    const ws = this.#machine.attempt_?.socket;
    if (ws) ws.binaryType = value;
  }

  /**
   * Bytes waiting to be sent: those queued while not connected plus the current socket's; and, as
   * by a WebSocket, those `send()` took while CLOSING or CLOSED, which are never sent.
   */
  get bufferedAmount(): number {
    return this.#unsent + this.#machine.buffered_();
  }

  // ─── beyond WebSocket ────────────────────────────────────────────────────────────────────

  /** The socket's state (`idle`, `connecting`, `open`, `reconnecting`, `closing`, `closed`). */
  get state(): SocketState {
    return this.#machine.state_;
  }

  /** Consecutive failures since the last stable connection (reconnecting-websocket's `retryCount`). */
  get retryCount(): number {
    return this.#machine.failures_;
  }

  /** Counters and timings (with the `stats()` feature; the full entry has it). */
  get stats(): SocketStats {
    return statsOf(this.#machine);
  }

  // ─── what the user asks ──────────────────────────────────────────────────────────────────

  /**
   * Sends now when open; otherwise queues it until the next connection opens (a `WebSocket` would
   * throw while CONNECTING). Anything that is not binary is sent as a string, as by `WebSocket`.
   * Messages that can never be sent (after `close()`, or evicted from a full queue) are reported
   * by a `drop` event.
   */
  send(...args: [data: string | ArrayBufferLike | Blob | ArrayBufferView]): void {
    if ((args as unknown[]).length === 0) {
      throw typeError(
        'data',
        process.env.NODE_ENV !== 'production'
          ? "Failed to execute 'send' on 'WebSocket': 1 argument required, but only 0 present."
          : '',
      );
    }
    const [data] = args as unknown[];
    const message = isData(data) ? data : String(data);
    if (this.readyState > 1) this.#unsent += byteLengthOf(message);
    command.send(this.#machine, message, true);
  }

  /**
   * Closes for good: no more reconnecting; the connection closes with `code` and `reason`
   * (without a code, none is sent, as by `WebSocket`).
   * @throws DOMException `InvalidAccessError` for a code other than 1000 or 3000–4999,
   *   `SyntaxError` for a reason over 123 UTF-8 bytes, as `WebSocket` throws them.
   */
  close(code?: number, reason?: string): void {
    const [number, text] = closeArgs(code, reason);
    const m = this.#machine;
    // The failed attempt's `error` and `close` are due: CLOSING until then, as a WebSocket.
    if (this.#failing) return;
    // An attempt under way (its WebSocket made or about to be) fails, as a WebSocket's does:
    // readyState CLOSING, then `error` and `close` (1006) once this call has returned, so that a
    // listener added next still hears them. (In a handshake gate it closes politely instead.)
    this.#failing = m.state_ === 'connecting' && !m.disposed_ ? 1 : 0;
    try {
      command.close(m, number, text);
    } finally {
      if (this.#failing && m.state_ === 'closed') {
        this.#failing = 2;
        queueMicrotask(() => {
          this.#failing = 0;
          this.dispatchEvent(plainEvent('error'));
          this.dispatchEvent(this.#closeEvent(1006, '', false));
        });
      } else this.#failing = 0;
    }
  }

  /**
   * Lets the current connection go (politely, with `code` and `reason`) and connects again now.
   * From `closed` after a give-up it starts afresh.
   * @throws the same as `close()` for its arguments; ResilientSocketError `ERR_RS_CLOSED` after `close()`.
   */
  reconnect(code?: number, reason?: string): void {
    const [number, text] = closeArgs(code, reason, 'reconnect');
    command.reconnect(this.#machine.alive_('reconnect'), number, text);
    this.#unsent = 0;
  }

  /** Starts connecting, when made with `autoConnect: false` or after a give-up. */
  open(): void {
    command.open(this.#machine.alive_('open'));
    this.#unsent = 0;
  }

  /** A `close` event (see {@link BaseWebSocket.CloseEvent}). */
  #closeEvent(code: number, reason: string, wasClean: boolean): Event {
    return closeEvent({ code, reason, wasClean }, (this.constructor as typeof BaseWebSocket).CloseEvent);
  }

  /** @internal how the machine tells the users (see `Face` in `../core/machine.ts`). */
  emit_(type: string, payload?: unknown): void {
    let event: Event;
    if (type === 'open') {
      const socket = this.#machine.attempt_?.socket as { protocol?: unknown; extensions?: unknown } | undefined;
      this.#negotiated = [String(socket?.protocol ?? ''), String(socket?.extensions ?? '')];
      event = plainEvent('open');
    } else if (type === 'close' && this.#failing) {
      return; // close() dispatches the failed connection's own `error` and `close`
    } else if (type === 'message') {
      // A WebSocket delivers no message once close() was called (readyState CLOSING).
      if (this.#machine.state_ === 'closing') return;
      event = messageEvent(payload, originOf(this.#machine.url_));
    } else if (type === 'close') {
      const { code, reason, wasClean } = payload as CloseEventLike;
      event = this.#closeEvent(code, reason, wasClean);
    } else if (type === 'error') event = Object.assign(plainEvent('error'), { error: payload });
    else event = detailEvent(type, payload);
    this.dispatchEvent(event);
  }
}
