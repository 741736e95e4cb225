/**
 * The DOM events of the WebSocket-shaped facade, made with the runtime's own classes where it has
 * them (browsers, Node ≥ 18, Deno, Bun): `Event`, `MessageEvent`, `CustomEvent`, `CloseEvent`. Where
 * one is missing (Node < 23 has no `CloseEvent`; React Native has none of them), a faithful stand-in
 * of ours takes its place, so no platform needs a polyfill. Nothing here runs on import.
 */

import type { CloseEventLike, DetailEvent } from './event-map.js';

/** What `new Event(type, init)` takes. */
interface EventInit {
  bubbles?: boolean;
  cancelable?: boolean;
  composed?: boolean;
}

/** A stand-in `Event` (React Native): what listeners read of one. */
class ShimEvent {
  readonly type: string;
  readonly bubbles: boolean;
  readonly cancelable: boolean;
  readonly timeStamp = Date.now();
  target: unknown = null;
  currentTarget: unknown = null;
  defaultPrevented = false;

  constructor(type: string, init: EventInit = {}) {
    this.type = String(type);
    this.bubbles = !!init.bubbles;
    this.cancelable = !!init.cancelable;
  }

  preventDefault(): void {
    if (this.cancelable) this.defaultPrevented = true;
  }

  stopPropagation(): void {}

  stopImmediatePropagation(): void {}
}

/** A stand-in `EventTarget` (React Native): the facade keeps its own listener lists and only dispatches through it. */
class ShimTarget {
  #listeners: Map<string, ((event: unknown) => void)[]> | undefined;

  addEventListener(type: string, listener: ((event: unknown) => void) | null): void {
    if (!listener) return;
    this.#listeners ??= new Map();
    const list = this.#listeners.get(type) ?? [];
    if (!list.includes(listener)) list.push(listener);
    this.#listeners.set(type, list);
  }

  removeEventListener(type: string, listener: ((event: unknown) => void) | null): void {
    const list = this.#listeners?.get(type);
    if (list && listener && list.includes(listener)) list.splice(list.indexOf(listener), 1);
  }

  dispatchEvent(event: ShimEvent): boolean {
    event.target = event.currentTarget = this;
    for (const listener of [...(this.#listeners?.get(event.type) ?? [])]) listener.call(this, event);
    event.currentTarget = null;
    return !event.defaultPrevented;
  }
}

const g = globalThis as unknown as Partial<
  Record<'EventTarget' | 'Event' | 'MessageEvent' | 'CustomEvent' | 'CloseEvent', new (...args: never[]) => unknown>
>;

/** The runtime's `EventTarget`, or the stand-in. */
export const EventTargetBase: typeof EventTarget = /* @__PURE__ */ (() =>
  (g.EventTarget ?? ShimTarget) as typeof EventTarget)();

/** The runtime's `Event`, or the stand-in. */
const EventBase: typeof Event = /* @__PURE__ */ (() => (g.Event ?? ShimEvent) as typeof Event)();

/** What `new CloseEvent(type, init)` takes. */
export interface CloseEventInit extends EventInit {
  code?: number;
  reason?: string;
  wasClean?: boolean;
}

/**
 * `CloseEvent`, where the runtime has none (Node < 23, React Native): a WebSocket's `close`,
 * with `code`, `reason` and `wasClean` as in browsers. Where it has one, that one is used.
 */
class FallbackCloseEvent extends EventBase {
  /** Named as the class it stands in for (`event.constructor.name`, `String(event)`). */
  static override readonly name: string = 'CloseEvent';
  readonly #code: number;
  readonly #reason: string;
  readonly #wasClean: boolean;

  constructor(type: string, init: CloseEventInit = {}) {
    super(type, init);
    this.#code = init.code ?? 0;
    this.#reason = init.reason ?? '';
    this.#wasClean = init.wasClean ?? false;
  }

  /** The close code the connection ended with. */
  get code(): number {
    return this.#code;
  }

  /** The close reason. */
  get reason(): string {
    return this.#reason;
  }

  /** Whether the closing handshake finished. */
  get wasClean(): boolean {
    return this.#wasClean;
  }

  get [Symbol.toStringTag](): string {
    return 'CloseEvent';
  }
}

/** A plain event named `type`. */
export function plainEvent(type: string): Event {
  return new EventBase(type);
}

/** A `message` event carrying `data`, from `origin` (the socket URL's, as a WebSocket's). */
export function messageEvent(data: unknown, origin: string): MessageEvent {
  const Message = g.MessageEvent as typeof MessageEvent | undefined;
  return Message
    ? new Message('message', { data, origin })
    : (Object.assign(new EventBase('message'), { data, origin, lastEventId: '' }) as MessageEvent);
}

/** The last URL {@link originOf} was asked about, and its origin (a socket asks with the same URL every time). */
let lastUrl = '';
let lastOrigin = '';

/** The serialized origin of `url` (`ws://host:port`), '' where it has none. */
export function originOf(url: string): string {
  if (url !== lastUrl) {
    try {
      lastOrigin = new URL(url).origin;
    } catch {
      lastOrigin = '';
    }
    lastUrl = url;
  }
  return lastOrigin === 'null' ? '' : lastOrigin;
}

/** A `close` event. */
export function closeEvent(init: CloseEventInit): CloseEventLike {
  const Close = (g.CloseEvent ?? FallbackCloseEvent) as new (type: string, init: CloseEventInit) => CloseEventLike;
  return new Close('close', init);
}

/**
 * An event of the socket's own vocabulary, its payload as `detail` (`null` without one, as a
 * `CustomEvent`'s): a `CustomEvent` where there is one.
 */
export function detailEvent(type: string, detail: unknown): DetailEvent {
  const Custom = g.CustomEvent as typeof CustomEvent | undefined;
  return Custom
    ? new Custom(type, { detail })
    : (Object.assign(new EventBase(type), { detail: detail ?? null }) as DetailEvent);
}
