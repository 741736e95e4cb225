/**
 * The facade's events where the runtime lacks some of the DOM's event classes: an `Event` carrying
 * the fields where `CloseEvent` (or `MessageEvent`, `CustomEvent`) is missing, the Node entries'
 * faithful `CloseEvent` for Node < 23, and plain objects with a target that hands them to the
 * facade's listener lists where there is no `Event` nor `EventTarget` at all (React Native).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NodeCloseEvent } from '../../src/websocket/close-event.js';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

/** `../../src/websocket/events.ts` loaded afresh (its `EventTarget` is chosen when it loads), without `missing`. */
async function eventsWithout(...missing: string[]) {
  // Read each first: Node 22 loads some lazily (`CloseEvent`, `MessageEvent`), and loading one
  // after `EventTarget` is gone would fail.
  for (const name of missing) void (globalThis as Record<string, unknown>)[name];
  for (const name of missing) vi.stubGlobal(name, undefined);
  vi.resetModules();
  return import('../../src/websocket/events.js');
}

describe('without CloseEvent (Node < 23 with a browser entry)', () => {
  it('a close event is an Event carrying code, reason and wasClean', async () => {
    const { closeEvent } = await eventsWithout('CloseEvent');
    const event = closeEvent({ code: 4000, reason: 'bye', wasClean: true });
    expect(event).toBeInstanceOf(Event);
    expect(event).toMatchObject({ type: 'close', code: 4000, reason: 'bye', wasClean: true });
  });

  it('with the stand-in the Node entries give: a CloseEvent in name and tag, read-only fields', async () => {
    const { closeEvent } = await eventsWithout('CloseEvent');
    const event = closeEvent({ code: 1006, reason: '', wasClean: false }, NodeCloseEvent);
    expect(event).toBeInstanceOf(NodeCloseEvent);
    expect(event).toBeInstanceOf(Event);
    expect(event.constructor.name).toBe('CloseEvent');
    expect(Object.prototype.toString.call(event)).toBe('[object CloseEvent]');
    expect({ code: event.code, reason: event.reason, wasClean: event.wasClean }).toEqual({
      code: 1006,
      reason: '',
      wasClean: false,
    });
    expect(() => {
      (event as { code: number }).code = 1000;
    }).toThrow(TypeError);
  });

  it("the runtime's own CloseEvent wins over the stand-in where there is one", async () => {
    class RuntimeCloseEvent extends Event {
      constructor(
        type: string,
        readonly init: object,
      ) {
        super(type);
      }
    }
    vi.stubGlobal('CloseEvent', RuntimeCloseEvent);
    vi.resetModules();
    const { closeEvent } = await import('../../src/websocket/events.js');
    expect(closeEvent({ code: 1000 }, NodeCloseEvent)).toBeInstanceOf(RuntimeCloseEvent);
  });
});

describe('without Event and EventTarget (React Native)', () => {
  const ALL = ['EventTarget', 'Event', 'MessageEvent', 'CustomEvent', 'CloseEvent'];

  it('events are plain objects with what listeners read of an event, and their fields', async () => {
    const { plainEvent, messageEvent, closeEvent, detailEvent } = await eventsWithout(...ALL);
    const open = plainEvent('open');
    expect(open).toMatchObject({
      type: 'open',
      target: null,
      currentTarget: null,
      bubbles: false,
      cancelable: false,
      defaultPrevented: false,
    });
    expect(typeof open.timeStamp).toBe('number');
    for (const method of ['preventDefault', 'stopPropagation', 'stopImmediatePropagation'] as const) {
      expect(() => open[method]()).not.toThrow();
    }
    expect(messageEvent('hi', 'ws://h')).toMatchObject({
      type: 'message',
      data: 'hi',
      origin: 'ws://h',
      lastEventId: '',
    });
    expect(closeEvent({ code: 4000, reason: 'r', wasClean: true })).toMatchObject({
      type: 'close',
      code: 4000,
      reason: 'r',
      wasClean: true,
    });
    expect(detailEvent('state', undefined)).toMatchObject({ type: 'state', detail: null });
  });

  it("the target hands a dispatched event to the facade's lists, as its target", async () => {
    const { EventTargetBase, plainEvent } = await eventsWithout(...ALL);
    const seen: unknown[] = [];
    class Facade extends EventTargetBase {
      relay_(event: Event): void {
        seen.push([event.type, event.target === this, event.currentTarget === this]);
        event.preventDefault();
      }
    }
    const facade = new Facade();
    const event = plainEvent('open');
    expect(() => facade.addEventListener('open', () => {})).not.toThrow();
    expect(() => facade.removeEventListener('open', () => {})).not.toThrow();
    expect(facade.dispatchEvent(event)).toBe(true); // not cancelable: preventDefault does nothing
    expect(seen).toEqual([['open', true, true]]);
    expect(event.currentTarget).toBeNull();
    expect(event.target).toBe(facade);
  });
});
