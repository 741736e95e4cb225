/**
 * `ResilientWebSocket`: the socket in the shape of the browser `WebSocket`, for code and libraries
 * written for one (y-websocket's and Hocuspocus's `WebSocketPolyfill`, vscode-ws-jsonrpc's
 * `toSocket()`, …; not graphql-ws's `webSocketImpl`, which abandons sockets without closing them:
 * give it `toRetryWait` from `resilient-socket/backoff` instead). It is the core's machine behind an
 * `EventTarget`: the constructor takes `(url, protocols?, options?)`, events are `Event`,
 * `MessageEvent` and `CloseEvent` objects, and the `on…` handler attributes work.
 *
 * Where the WHATWG spec is silent about reconnecting, it does what reconnecting-websocket and
 * partysocket users rely on (the README's "Use it where a WebSocket is expected" lists every
 * choice): `open` and `close` fire once per underlying connection (a failed attempt fires `error`
 * and `close`, as a WebSocket's does); `readyState` is CONNECTING
 * while it reconnects; `send()` queues while not open instead of throwing; `close()` is final;
 * `reconnect()` and `retryCount` exist; the rest of the socket's events (`state`, `reconnecting`,
 * `giveup`, `drop`, …) are dispatched on the same target with their payload as `detail`.
 *
 * Listeners are kept in lists of its own (one native listener per event type relays to them), so
 * that one that throws is reported (`reportError` in browsers, a warning in Node) and never ends a
 * Node process, and `once`, `signal`, the handler attributes' positions and `removeEventListener`
 * behave as on a `WebSocket`.
 */

import { alive, close, create, need, open, reconnect, send, start } from '../core/actions.js';
import type { Face, Machine } from '../core/machine.js';
import type { BaseSocketOptions, UrlProvider } from '../core/options.js';
import { listenerError, surface } from '../core/report.js';
import type { SocketStats } from '../core/socket.js';
import type { SocketState } from '../core/states.js';
import { isData } from '../data.js';
import { browserTransport } from '../transports/browser.js';
import type { Transport } from '../transports/transport.js';
import { assertOptionsObject } from '../validation.js';
import {
  type CloseEventLike,
  closeEvent,
  detailEvent,
  EventTargetBase,
  messageEvent,
  originOf,
  plainEvent,
} from './events.js';
import { closeArgs, webSocketProtocols, webSocketUrl } from './whatwg.js';

/** `binaryType`'s values. */
export type BinaryTypeValue = 'blob' | 'arraybuffer';

/** A listener as `addEventListener` takes it. */
type Listener = ((event: Event) => unknown) | { handleEvent(event: Event): unknown };

/** One registration: a listener, or (`handler`) the slot of an `on…` attribute. */
interface Entry {
  readonly listener: Listener | undefined;
  readonly capture: boolean;
  readonly once: boolean;
  removed?: boolean;
}

/** Options of `new ResilientWebSocket(url, protocols, options)`: the socket's, except `protocols` (the second argument). */
export type ResilientWebSocketOptions = Omit<BaseSocketOptions, 'protocols'>;

/** The event types of the `on…` attributes. */
type Handled = 'open' | 'message' | 'close' | 'error';

export class ResilientWebSocket extends EventTargetBase {
  /** The class's name, whatever a bundler renamed its binding to. */
  static override readonly name: string = 'ResilientWebSocket';
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;

  /** How sockets of this class reach the network (the Node entries install the ws transport). @internal */
  protected static transport: Transport = browserTransport;

  /** Turns the constructor's options into the core's (the full entry: flat feature options into features). @internal */
  protected static prepare(options: unknown): unknown {
    return options;
  }

  readonly #m: Machine;
  /** The registrations per event type (made on the first one). */
  #listeners: Map<string, Entry[]> | undefined;
  /** The `on…` attributes' values. */
  #handlers: Partial<Record<string, (event: Event) => unknown>> | undefined;
  /** The latest connection's subprotocol and extensions (kept after it closes, as by a WebSocket). */
  #negotiated: [protocol: string, extensions: string] | undefined;
  /** Set while close() fails an attempt under way, until its `error` and `close` are dispatched. */
  #failing: 0 | 1 | 2 = 0;

  /**
   * @param url a `ws:`/`wss:` (or `http:`/`https:`) URL, resolved against the page's base URL in
   *   a browser; with the `providers()` feature also a function returning one before every attempt.
   * @param protocols one subprotocol or several, each an HTTP token, none twice.
   * @param options the socket's options (backoff, buffer, heartbeat, …), except `protocols`.
   * @throws DOMException `SyntaxError` for a bad URL or subprotocol, as `WebSocket` throws it;
   *   TypeError / RangeError naming a bad option; ResilientSocketError `ERR_RS_NO_WEBSOCKET`.
   */
  constructor(
    // A rest parameter: `new ResilientWebSocket()` is a TypeError, `new ResilientWebSocket(undefined)` a bad URL.
    ...args: [url: string | URL | UrlProvider, protocols?: string | string[], options?: ResilientWebSocketOptions]
  ) {
    super();
    if ((args as unknown[]).length === 0) {
      throw new TypeError("Failed to construct 'WebSocket': 1 argument required, but only 0 present.");
    }
    const [url, protocols, options] = args;
    const target = typeof url === 'function' ? url : webSocketUrl(url);
    const list = typeof protocols === 'function' ? protocols : webSocketProtocols(protocols);
    assertOptionsObject('options', options);
    if (options !== undefined && 'protocols' in options) {
      throw new TypeError(
        'Give `protocols` as the second argument of `new ResilientWebSocket(url, protocols, options)`',
      );
    }
    const Class = this.constructor as typeof ResilientWebSocket;
    const prepared = Class.prepare({
      binaryType: 'blob',
      ...options,
      ...(typeof list === 'function' || list.length > 0 ? { protocols: list } : {}),
    });
    this.#m = create(this as unknown as Face, target, prepared, Class.transport);
    start(this.#m, prepared);
  }

  // ─── the WebSocket attributes ────────────────────────────────────────────────────────────

  get CONNECTING(): 0 {
    return 0;
  }
  get OPEN(): 1 {
    return 1;
  }
  get CLOSING(): 2 {
    return 2;
  }
  get CLOSED(): 3 {
    return 3;
  }

  /** CONNECTING (0) until open and while reconnecting, OPEN (1), CLOSING (2), CLOSED (3). */
  get readyState(): number {
    if (this.#failing) return 2;
    return Math.max(0, ['open', 'closing', 'closed'].indexOf(this.#m.state_) + 1);
  }

  /** The URL of the latest attempt (as given, serialized), whole: you passed it. */
  get url(): string {
    return this.#m.url_;
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
    return (this.#m.binaryType_ ?? 'blob') as BinaryTypeValue;
  }

  set binaryType(value: BinaryTypeValue) {
    // An enumerated attribute: any other value is ignored, as by WebSocket.
    if (value !== 'blob' && value !== 'arraybuffer') return;
    this.#m.binaryType_ = value;
    const ws = this.#m.attempt_?.socket;
    if (ws) ws.binaryType = value;
  }

  /** Bytes waiting to be sent: those queued while not connected plus the current socket's. */
  get bufferedAmount(): number {
    return (
      (this.#m.queue_?.bytes ?? 0) +
      ((this.#m.attempt_?.socket as { bufferedAmount?: number } | undefined)?.bufferedAmount ?? 0)
    );
  }

  get onopen(): ((event: Event) => unknown) | null {
    return this.#handlers?.open ?? null;
  }
  set onopen(handler: ((event: Event) => unknown) | null) {
    this.#handle('open', handler);
  }
  get onmessage(): ((event: MessageEvent) => unknown) | null {
    return this.#handlers?.message ?? null;
  }
  set onmessage(handler: ((event: MessageEvent) => unknown) | null) {
    this.#handle('message', handler as ((event: Event) => unknown) | null);
  }
  get onclose(): ((event: CloseEventLike) => unknown) | null {
    return this.#handlers?.close ?? null;
  }
  set onclose(handler: ((event: CloseEventLike) => unknown) | null) {
    this.#handle('close', handler as ((event: Event) => unknown) | null);
  }
  get onerror(): ((event: Event) => unknown) | null {
    return this.#handlers?.error ?? null;
  }
  set onerror(handler: ((event: Event) => unknown) | null) {
    this.#handle('error', handler);
  }

  // ─── beyond WebSocket ────────────────────────────────────────────────────────────────────

  /** The socket's state (`idle`, `connecting`, `open`, `reconnecting`, `closing`, `closed`). */
  get state(): SocketState {
    return this.#m.state_;
  }

  /** Consecutive failures since the last stable connection (reconnecting-websocket's `retryCount`). */
  get retryCount(): number {
    return this.#m.failures_;
  }

  /** Counters and timings (with the `stats()` feature; the full entry has it). */
  get stats(): SocketStats {
    const [feature] = need(this.#m, 'stats');
    return (feature as unknown as { snapshot(m: Machine): SocketStats }).snapshot(this.#m);
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
      throw new TypeError("Failed to execute 'send' on 'WebSocket': 1 argument required, but only 0 present.");
    }
    const [data] = args as unknown[];
    send(this.#m, isData(data) ? data : String(data), true);
  }

  /**
   * Closes for good: no more reconnecting; the connection closes with `code` and `reason`
   * (without a code, none is sent, as by `WebSocket`).
   * @throws DOMException `InvalidAccessError` for a code other than 1000 or 3000–4999,
   *   `SyntaxError` for a reason over 123 UTF-8 bytes, as `WebSocket` throws them.
   */
  close(code?: number, reason?: string): void {
    const [number, text] = closeArgs(code, reason);
    const m = this.#m;
    // An attempt under way (its WebSocket made or about to be) fails, as a WebSocket's does:
    // readyState CLOSING, then `error` and `close` (1006) once this call has returned, so that a
    // listener added next still hears them. (In a handshake gate it closes politely instead.)
    this.#failing = m.state_ === 'connecting' && !m.disposed_ ? 1 : 0;
    try {
      close(m, number, text);
    } finally {
      if (this.#failing && m.state_ === 'closed') {
        this.#failing = 2;
        queueMicrotask(() => {
          this.#failing = 0;
          this.dispatchEvent(plainEvent('error'));
          this.dispatchEvent(closeEvent({ code: 1006, reason: '', wasClean: false }));
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
    reconnect(alive(this.#m, 'reconnect'), number, text);
  }

  /** Starts connecting, when made with `autoConnect: false` or after a give-up. */
  open(): void {
    open(alive(this.#m, 'open'));
  }

  // ─── listeners ───────────────────────────────────────────────────────────────────────────

  override addEventListener(
    type: string,
    listener: Listener | null,
    options?: boolean | { capture?: boolean; once?: boolean; signal?: AbortSignal; passive?: boolean },
  ): void {
    // WebIDL counts the arguments given: a listener left out is an error, `undefined` or `null` is not.
    // biome-ignore lint/complexity/noArguments: a rest parameter would change the EventTarget signature.
    const given = arguments.length;
    if (given < 2) {
      throw new TypeError(
        `Failed to execute 'addEventListener' on 'EventTarget': 2 arguments required, but only ${given} present.`,
      );
    }
    if (!listener) return;
    if (typeof listener !== 'function' && typeof listener !== 'object') {
      throw new TypeError(
        "Failed to execute 'addEventListener' on 'EventTarget': parameter 2 is not of type 'Object'.",
      );
    }
    const capture = typeof options === 'boolean' ? options : !!options?.capture;
    const { once = false, signal } = typeof options === 'object' ? options : {};
    if (signal?.aborted) return;
    const list = this.#list(String(type));
    if (list.some((entry) => entry.listener === listener && entry.capture === capture)) return;
    const entry: Entry = { listener, capture, once };
    list.push(entry);
    signal?.addEventListener('abort', () => this.#remove(String(type), entry), { once: true });
  }

  override removeEventListener(
    type: string,
    listener: Listener | null,
    options?: boolean | { capture?: boolean },
  ): void {
    const capture = typeof options === 'boolean' ? options : !!options?.capture;
    const entry = this.#listeners?.get(String(type))?.find((e) => e.listener === listener && e.capture === capture);
    if (listener && entry) this.#remove(String(type), entry);
  }

  /** @internal relays an event of `type` to the registrations (the one native listener per type). */
  relay_(event: Event): void {
    // One native listener calls them all: stopImmediatePropagation() must end this loop too.
    let stopped = false;
    const stop = event.stopImmediatePropagation;
    event.stopImmediatePropagation = () => {
      stopped = true;
      stop.call(event);
    };
    for (const entry of [...(this.#listeners?.get(event.type) ?? [])]) {
      if (stopped) break;
      if (entry.removed) continue;
      if (entry.once) this.#remove(event.type, entry);
      const listener = entry.listener ?? this.#handlers?.[event.type];
      try {
        if (typeof listener === 'function') listener.call(this, event);
        else listener?.handleEvent(event);
      } catch (thrown) {
        // Reported as a browser reports what a listener throws, never thrown on (it would end a Node process).
        surface(listenerError(entry.listener ? `A \`${event.type}\` listener` : `\`on${event.type}\``, thrown));
      }
    }
    delete (event as Partial<Event>).stopImmediatePropagation;
  }

  /** @internal how the machine tells the users (see `Face` in `../core/machine.ts`). */
  emit_(type: string, payload?: unknown): void {
    let event: Event;
    if (type === 'open') {
      const socket = this.#m.attempt_?.socket as { protocol?: unknown; extensions?: unknown } | undefined;
      this.#negotiated = [String(socket?.protocol ?? ''), String(socket?.extensions ?? '')];
      event = plainEvent('open');
    } else if (type === 'close' && this.#failing) {
      return; // close() dispatches the failed connection's own `error` and `close`
    } else if (type === 'message') {
      // A WebSocket delivers no message once close() was called (readyState CLOSING).
      if (this.#m.state_ === 'closing') return;
      event = messageEvent(payload, originOf(this.#m.url_));
    } else if (type === 'close') {
      const { code, reason, wasClean } = payload as CloseEventLike;
      event = closeEvent({ code, reason, wasClean });
    } else if (type === 'error') event = Object.assign(plainEvent('error'), { error: payload });
    else event = detailEvent(type, payload);
    this.dispatchEvent(event);
  }

  /** @internal */
  listens_(type: 'error'): boolean {
    return (this.#listeners?.get(type)?.length ?? 0) > 0;
  }

  /** The registrations of `type`; the first one starts the native relay. */
  #list(type: string): Entry[] {
    this.#listeners ??= new Map();
    let list = this.#listeners.get(type);
    if (!list) {
      list = [];
      this.#listeners.set(type, list);
      super.addEventListener(type, ResilientWebSocket.prototype.relay_ as EventListener);
    }
    return list;
  }

  #remove(type: string, entry: Entry): void {
    const list = this.#listeners?.get(type);
    const at = list?.indexOf(entry) ?? -1;
    if (!list || at < 0) return;
    entry.removed = true;
    list.splice(at, 1);
    if (list.length === 0) {
      this.#listeners?.delete(type);
      super.removeEventListener(type, ResilientWebSocket.prototype.relay_ as EventListener);
    }
  }

  /**
   * Sets an `on…` attribute: a function takes the slot (where it was first set, as in browsers);
   * anything else clears it.
   */
  #handle(type: Handled, handler: unknown): void {
    const value = typeof handler === 'function' ? (handler as (event: Event) => unknown) : undefined;
    const had = this.#handlers?.[type] !== undefined;
    this.#handlers ??= {};
    this.#handlers[type] = value;
    if (value && !had) this.#list(type).push({ listener: undefined, capture: false, once: false });
    if (!value && had) {
      const entry = this.#listeners?.get(type)?.find((e) => e.listener === undefined);
      if (entry) this.#remove(type, entry);
    }
  }
}
