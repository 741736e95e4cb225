/**
 * The DOM events of the WebSocket-shaped facade, made with the runtime's own classes where it has
 * them (browsers, Node ≥ 18, Deno, Bun): `Event`, `MessageEvent`, `CustomEvent`, `CloseEvent`.
 * Where one is missing, no platform needs a polyfill, and a browser bundle carries no class that
 * only another platform needs:
 *
 * - no `MessageEvent`, `CustomEvent` or `CloseEvent`: an `Event` carrying the fields (`data`,
 *   `detail`, `code`…) as own properties; the Node entries install a faithful `CloseEvent` of
 *   their own for Node < 23 (`./close-event.ts`, through `BaseWebSocket.CloseEvent`);
 * - no `Event` nor `EventTarget` (React Native): a plain object with what listeners read of an
 *   event, and a target whose `dispatchEvent` hands it to the facade's own listener lists (which
 *   the facade keeps in every runtime, see `./listeners.ts`).
 *
 * Nothing here runs on import.
 */

import type { CloseEventLike, DetailEvent } from './event-map.js';

const g = globalThis as unknown as Partial<
  Record<'EventTarget' | 'Event' | 'MessageEvent' | 'CustomEvent' | 'CloseEvent', new (...args: never[]) => unknown>
>;

/**
 * The target where the runtime has no `EventTarget` (React Native): the facade's own lists hold
 * the listeners (`addEventListener` of the facade never reaches here), so dispatching is handing
 * the event to them.
 */
class StandInTarget {
  addEventListener(): void {}

  removeEventListener(): void {}

  dispatchEvent(event: Event): boolean {
    const e = event as unknown as { target: unknown; currentTarget: unknown; defaultPrevented: boolean };
    e.target = e.currentTarget = this;
    (this as unknown as { relay_(event: Event): void }).relay_(event);
    e.currentTarget = null;
    return !e.defaultPrevented;
  }
}

/** The runtime's `EventTarget`, or the stand-in. */
export const EventTargetBase: typeof EventTarget = /* @__PURE__ */ (() =>
  (g.EventTarget ?? StandInTarget) as typeof EventTarget)();

/** What `new CloseEvent(type, init)` takes. */
export interface CloseEventInit {
  code?: number;
  reason?: string;
  wasClean?: boolean;
}

/** A class of `close` events: the runtime's `CloseEvent`, or a stand-in for it. */
export type CloseEventClass = new (type: string, init: CloseEventInit) => CloseEventLike;

/**
 * An event named `type` carrying `fields` as own properties: an `Event` where the runtime has one,
 * else (React Native) a plain object with what listeners read of an event.
 */
function eventWith<E extends Event>(type: string, fields?: object): E {
  const Base = g.Event as typeof Event | undefined;
  const event = Base
    ? new Base(type)
    : {
        type,
        target: null,
        currentTarget: null,
        bubbles: false,
        cancelable: false,
        defaultPrevented: false,
        timeStamp: Date.now(),
        preventDefault() {},
        stopPropagation() {},
        stopImmediatePropagation() {},
      };
  return Object.assign(event, fields) as E;
}

/** A plain event named `type`. */
export function plainEvent(type: string): Event {
  return eventWith(type);
}

/** A `message` event carrying `data`, from `origin` (the socket URL's, as a WebSocket's). */
export function messageEvent(data: unknown, origin: string): MessageEvent {
  const Message = g.MessageEvent as typeof MessageEvent | undefined;
  return Message ? new Message('message', { data, origin }) : eventWith('message', { data, origin, lastEventId: '' });
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

/**
 * A `close` event: a `CloseEvent` where the runtime has one, else one of `fallback` (the Node
 * entries' stand-in), else an event carrying `code`, `reason` and `wasClean`.
 */
export function closeEvent(init: CloseEventInit, fallback?: CloseEventClass): CloseEventLike {
  const Close = (g.CloseEvent as CloseEventClass | undefined) ?? fallback;
  return Close ? new Close('close', init) : eventWith('close', init);
}

/**
 * An event of the socket's own vocabulary, its payload as `detail` (`null` without one, as a
 * `CustomEvent`'s): a `CustomEvent` where there is one.
 */
export function detailEvent(type: string, detail: unknown): DetailEvent {
  const Custom = g.CustomEvent as typeof CustomEvent | undefined;
  return Custom ? new Custom(type, { detail }) : eventWith(type, { detail: detail ?? null });
}
