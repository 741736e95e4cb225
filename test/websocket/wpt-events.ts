/**
 * The web-platform-tests `websockets/` scenarios of events: listener order, a failed connection's
 * events, the on… attributes and dispatchEvent (./wpt.ts gathers every group; its header says how
 * they run).
 */
import { RECONNECTS, RUNTIME_MESSAGE_EVENT, type Scenario, UNCHECKED } from './wpt-scenario.js';

export const EVENT_SCENARIOS: readonly Scenario[] = [
  {
    title: 'listeners and on… attributes are called in the order they were added, for open, message and close',
    wpt: ['interfaces/WebSocket/events/016.html'],
    run: async (t, WS, { url }) => {
      const ws = t.make(WS, `${url}/echo`);
      const order: string[] = [];
      ws.addEventListener('open', () => {
        order.push('open 1');
        ws.send('Goodbye');
      });
      ws.onopen = () => order.push('onopen');
      ws.addEventListener('open', () => order.push('open 2'));
      ws.addEventListener('message', () => order.push('message 1'));
      ws.onmessage = () => order.push('onmessage');
      ws.addEventListener('message', () => order.push('message 2'));
      ws.addEventListener('close', () => order.push('close 1'));
      ws.onclose = () => order.push('onclose');
      ws.addEventListener('close', () => order.push('close 2'));
      await t.next(ws, 'close');
      ws.close();
      return order;
    },
    expected: ['open 1', 'onopen', 'open 2', 'message 1', 'onmessage', 'message 2', 'close 1', 'onclose', 'close 2'],
  },
  {
    title: 'a malformed frame fails the connection: open, message, error, close; this, target, phase, class, bubbles',
    wpt: [
      'interfaces/WebSocket/events/015.html',
      'interfaces/WebSocket/events/017.html',
      'interfaces/WebSocket/events/018.html',
    ],
    run: async (t, WS, { url }) => {
      const ws = t.make(WS, `${url}/echo`);
      const seen: unknown[] = [];
      for (const type of ['open', 'message', 'error', 'close']) {
        ws.addEventListener(type, function (this: unknown, event: Event) {
          const { target, currentTarget, eventPhase, bubbles, cancelable } = event;
          const sameTargets = [this === ws, target === ws, currentTarget === ws];
          seen.push([type, ...sameTargets, eventPhase, String(event), bubbles, cancelable, ws.readyState]);
        });
      }
      await t.next(ws, 'open');
      // A text frame "test", then a frame with the reserved opcode 3: the client must fail the connection.
      ws.send('raw:81047465737483034c4f4c');
      await t.next(ws, 'close');
      ws.close();
      return seen;
    },
    expected: [
      ['open', true, true, true, 2, '[object Event]', false, false, 1],
      ['message', true, true, true, 2, '[object MessageEvent]', false, false, 1],
      ['error', true, true, true, 2, '[object Event]', false, false, 3],
      ['close', true, true, true, 2, '[object CloseEvent]', false, false, 3],
    ],
    ours: {
      expected: [
        ['open', true, true, true, 2, '[object Event]', false, false, 1],
        ['message', true, true, true, 2, '[object MessageEvent]', false, false, 1],
        ['error', true, true, true, 2, '[object Event]', false, false, 0],
        ['close', true, true, true, 2, '[object CloseEvent]', false, false, 0],
      ],
      why: RECONNECTS,
    },
    ws: { expected: UNCHECKED, why: "ws's events are its own classes, not DOM events (no currentTarget, eventPhase)" },
    oursInNode: {
      expected: [
        ['open', true, true, true, 2, '[object Event]', false, false, 1],
        ['message', true, true, true, 2, RUNTIME_MESSAGE_EVENT, false, false, 1],
        ['error', true, true, true, 2, '[object Event]', false, false, 0],
        ['close', true, true, true, 2, '[object CloseEvent]', false, false, 0],
      ],
      why: "ours dispatches the runtime's own MessageEvent: Node 20's has no Symbol.toStringTag (Node ≥ 22's has)",
    },
  },
  {
    title:
      'on… attributes: null at first; a function is kept, and any object; anything else (2, ";", undefined) is null',
    // events/013.html expects an object to be refused; browsers keep it (WebIDL's
    // [LegacyTreatNonObjectAsNull]) and never call it: checked here as Chromium does it.
    wpt: [
      'eventhandlers.any.js',
      'interfaces/WebSocket/events/010.html',
      'interfaces/WebSocket/events/011.html',
      'interfaces/WebSocket/events/012.html',
      'interfaces/WebSocket/events/014.html',
    ],
    run: (t, WS, { url }) => {
      const ws = t.make(WS, `${url}/echo`) as unknown as Record<string, unknown>;
      return ['onopen', 'onmessage', 'onerror', 'onclose'].map((name) => {
        const handler = () => undefined;
        const values = [ws[name] === null];
        for (const other of [2, ';', { handleEvent() {} }, undefined, null]) {
          ws[name] = handler;
          values.push(ws[name] === handler);
          ws[name] = other;
          values.push(ws[name] === (typeof other === 'object' && other !== null ? other : null));
        }
        return values;
      });
    },
    expected: Array.from({ length: 4 }, () => Array.from({ length: 11 }, () => true)),
    ws: { expected: UNCHECKED, why: 'ws keeps only a function in an on… attribute' },
  },
  {
    title: 'dispatchEvent: an event made by script reaches the on… attribute; a removed listener is not called',
    wpt: [
      'interfaces/WebSocket/events/007.html',
      'interfaces/WebSocket/events/008.html',
      'interfaces/WebSocket/events/019.html',
    ],
    browserOnly: 'ws, the control in Node, is no EventTarget (it has no dispatchEvent)',
    run: (t, WS, { url }) => {
      const ws = t.make(WS, `${url}/echo`);
      ws.close();
      const got: unknown[] = [];
      ws.onmessage = (event) => got.push(['onmessage', (event as unknown as CustomEvent).detail]);
      ws.dispatchEvent(new CustomEvent('message', { detail: 5 }));
      ws.onerror = (event) => got.push(['onerror', (event as CustomEvent).detail]);
      ws.dispatchEvent(new CustomEvent('error', { detail: 5 }));
      ws.onmessage = null;
      ws.onerror = null;
      for (const type of ['open', 'message', 'error', 'close']) {
        const listener = (event: Event) => got.push(['a removed listener', event.type]);
        ws.addEventListener(type, listener);
        ws.removeEventListener(type, listener);
        ws.dispatchEvent(new Event(type));
      }
      return got;
    },
    expected: [
      ['onmessage', 5],
      ['onerror', 5],
    ],
  },
];
