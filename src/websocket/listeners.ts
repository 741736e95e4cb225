/**
 * The listener half of `ResilientWebSocket`: `addEventListener`, `removeEventListener` and the
 * `on…` handler attributes, kept in lists of its own. One native listener per event type relays
 * to them, so that a listener that throws is reported (`reportError` in browsers, a warning in
 * Node) and never ends a Node process or stops the next listener, while `once`, `signal`, the
 * handler attributes' positions, `stopImmediatePropagation()` and `removeEventListener` behave as
 * on a `WebSocket`.
 */
import { listenerError, surface } from '../core/report.js';
import { typeError } from '../validation.js';
import type { ListenerOf, ResilientWebSocketEventMap } from './event-map.js';
import { EventTargetBase } from './events.js';

/** A listener of any event, as `addEventListener` takes it: a function or an object with `handleEvent`. */
export type WebSocketListener = ListenerOf<Event, unknown>;

/** The options of `addEventListener` (`AddEventListenerOptions`, also where the project has no DOM lib). */
export interface ListenerOptions {
  /**
   * Part of the listener's identity, as on any `EventTarget` (a socket has no capture phase).
   * @default false
   * @example
   * ```ts
   * ws.addEventListener('message', onMessage, { capture: true })
   * ```
   */
  capture?: boolean;
  /**
   * The listener is removed after its first call.
   * @default false
   * @example
   * ```ts
   * ws.addEventListener('open', onFirstOpen, { once: true })
   * ```
   */
  once?: boolean;
  /**
   * The listener is removed when the signal aborts (not added if it already has).
   * @default undefined
   * @example
   * ```ts
   * ws.addEventListener('message', onMessage, { signal: controller.signal })
   * ```
   */
  signal?: AbortSignal;
  /**
   * Accepted and ignored, as on a `WebSocket` (its events cannot be cancelled).
   * @default false
   * @example
   * ```ts
   * ws.addEventListener('message', onMessage, { passive: true })
   * ```
   */
  passive?: boolean;
}

/** The events of the `on…` attributes. */
type On = ResilientWebSocketEventMap;

/** One registration: a listener, or (`listener` undefined) the slot of an `on…` attribute. */
interface Entry {
  readonly listener: WebSocketListener | undefined;
  readonly capture: boolean;
  readonly once: boolean;
  removed?: boolean;
}

/** The event types of the `on…` attributes. */
type Handled = 'open' | 'message' | 'close' | 'error';

/** An `EventTarget` whose listeners are contained: the base of `ResilientWebSocket`. */
export class Listeners extends EventTargetBase {
  /** The registrations per event type (made on the first one). */
  #listeners: Map<string, Entry[]> | undefined;
  /** The `on…` attributes' values. */
  #handlers: Partial<Record<string, (event: Event) => unknown>> | undefined;

  // (No `this` type in the attributes' functions: the class stays assignable to `typeof WebSocket`.)
  /** Called with each `open` event (one per underlying connection), in the order it was first set among the listeners. */
  get onopen(): ((event: On['open']) => unknown) | null {
    return this.#handlers?.open ?? null;
  }
  /** A function (or any object) takes the slot; anything else clears it. */
  set onopen(handler: ((event: On['open']) => unknown) | null) {
    this.#handle('open', handler);
  }
  /** Called with each `message` event (a `MessageEvent`). */
  get onmessage(): ((event: On['message']) => unknown) | null {
    return this.#handlers?.message ?? null;
  }
  /** A function (or any object) takes the slot; anything else clears it. */
  set onmessage(handler: ((event: On['message']) => unknown) | null) {
    this.#handle('message', handler);
  }
  /** Called with each `close` event (a `CloseEvent`: `code`, `reason`, `wasClean`), one per underlying connection. */
  get onclose(): ((event: On['close']) => unknown) | null {
    return this.#handlers?.close ?? null;
  }
  /** A function (or any object) takes the slot; anything else clears it. */
  set onclose(handler: ((event: On['close']) => unknown) | null) {
    this.#handle('close', handler);
  }
  /** Called with each `error` event (an `Event`, with the `ResilientSocketError` as `error`). */
  get onerror(): ((event: On['error']) => unknown) | null {
    return this.#handlers?.error ?? null;
  }
  /** A function (or any object) takes the slot; anything else clears it. */
  set onerror(handler: ((event: On['error']) => unknown) | null) {
    this.#handle('error', handler);
  }

  /**
   * Adds `listener` for `type` (any of the socket's events), as `EventTarget` does: once per
   * listener and capture flag; `once` and `signal` honoured. A listener that throws is reported and
   * never stops the others. The event's type follows `type` ({@link ResilientWebSocketEventMap}).
   */
  override addEventListener<K extends keyof ResilientWebSocketEventMap>(
    type: K,
    listener: ListenerOf<ResilientWebSocketEventMap[K], this> | null,
    options?: boolean | ListenerOptions,
  ): void;
  override addEventListener(
    type: string,
    listener: WebSocketListener | null,
    options?: boolean | ListenerOptions,
  ): void;
  override addEventListener(
    type: string,
    listener: WebSocketListener | null,
    options?: boolean | ListenerOptions,
  ): void {
    // WebIDL counts the arguments given: a listener left out is an error, `undefined` or `null` is not.
    // biome-ignore lint/complexity/noArguments: a rest parameter would change the EventTarget signature.
    const given = arguments.length;
    if (given < 2) {
      throw typeError(
        given ? 'listener' : 'type',
        process.env.NODE_ENV !== 'production'
          ? `Failed to execute 'addEventListener' on 'EventTarget': 2 arguments required, but only ${given} present.`
          : '',
      );
    }
    if (!listener) return;
    if (typeof listener !== 'function' && typeof listener !== 'object') {
      throw typeError(
        'listener',
        process.env.NODE_ENV !== 'production'
          ? "Failed to execute 'addEventListener' on 'EventTarget': parameter 2 is not of type 'Object'."
          : '',
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

  /** Removes `listener` for `type` (with the same capture flag), as `EventTarget` does. */
  override removeEventListener<K extends keyof ResilientWebSocketEventMap>(
    type: K,
    listener: ListenerOf<ResilientWebSocketEventMap[K], this> | null,
    options?: boolean | { capture?: boolean },
  ): void;
  override removeEventListener(
    type: string,
    listener: WebSocketListener | null,
    options?: boolean | { capture?: boolean },
  ): void;
  override removeEventListener(
    type: string,
    listener: WebSocketListener | null,
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
        // An attribute set to an object that is not a function is kept and not called, as in browsers.
        else if (entry.listener) (listener as { handleEvent(event: Event): unknown }).handleEvent(event);
      } catch (thrown) {
        // Reported as a browser reports what a listener throws, never thrown on (it would end a Node process).
        surface(
          listenerError(
            process.env.NODE_ENV !== 'production'
              ? entry.listener
                ? `A \`${event.type}\` listener`
                : `\`on${event.type}\``
              : '',
            thrown,
          ),
        );
      }
    }
    delete (event as Partial<Event>).stopImmediatePropagation;
  }

  /** @internal */
  listens_(type: string): boolean {
    return (this.#listeners?.get(type)?.length ?? 0) > 0;
  }

  /** The registrations of `type`; the first one starts the native relay. */
  #list(type: string): Entry[] {
    this.#listeners ??= new Map();
    let list = this.#listeners.get(type);
    if (!list) {
      list = [];
      this.#listeners.set(type, list);
      super.addEventListener(type, Listeners.prototype.relay_ as (event: Event) => void);
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
      super.removeEventListener(type, Listeners.prototype.relay_ as (event: Event) => void);
    }
  }

  /**
   * Sets an `on…` attribute: a function (or any object: WebIDL's `[LegacyTreatNonObjectAsNull]`, as
   * in browsers) takes the slot, where it was first set; anything else clears it.
   */
  #handle(type: Handled, handler: unknown): void {
    const value =
      typeof handler === 'function' || (typeof handler === 'object' && handler !== null)
        ? (handler as (event: Event) => unknown)
        : undefined;
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
