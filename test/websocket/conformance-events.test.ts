/**
 * `ResilientWebSocket`'s events and listeners against the WebSocket interface, in Node, on
 * mock-socket under fake timers: the event classes and payloads, the `on…` handler attributes
 * and `addEventListener` (order, `once`, `signal`, `this`, removal, dispatch of a user event,
 * `stopImmediatePropagation`, a listener that throws), the rest of the vocabulary as
 * `CustomEvent`s, `open`/`close` per underlying connection, and what never leaks: the events of
 * a socket that was replaced or closed, messages after `close()`.
 */
import { Server } from 'mock-socket';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isResilientSocketError } from '../../src/errors.js';
import { ResilientWebSocket as Full } from '../../src/node.js';
import { ResilientWebSocket } from '../../src/websocket-node.js';
import { inMode } from '../helpers/mode.js';
import { advance, cleanup, MOCK_DELAY, trackingWebSocket, WebSocketImpl } from '../resilient-socket/helpers.js';

const made = new Set<{ close(): void }>();
const servers = new Set<Server>();
let port = 32_000;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  vi.restoreAllMocks();
  for (const socket of made) socket.close();
  made.clear();
  for (const server of servers) server.stop();
  servers.clear();
  await cleanup();
});

/** A mock server on a fresh `ws://127.0.0.1:<port>/`; `base` has no trailing slash. */
function mockServer() {
  const base = `ws://127.0.0.1:${++port}`;
  const server = new Server(`${base}/`, { mock: false });
  servers.add(server);
  const clients: { send(data: unknown): void; close(o?: { code?: number; reason?: string }): void }[] = [];
  const closes: { code: number; reason: string }[] = [];
  server.on('connection', (client) => {
    clients.push(client as never);
    client.on('close', ((event: { code: number; reason: string }) => closes.push(event)) as never);
  });
  return { base, server, clients, closes };
}

type Options = ConstructorParameters<typeof ResilientWebSocket>[2];

/** An open socket (the Node build of resilient-socket/websocket) on a fresh mock server. */
async function openSocket(options: Options = {}) {
  const server = mockServer();
  const socket = new ResilientWebSocket(server.base, [], { WebSocket: WebSocketImpl, ...options });
  made.add(socket);
  const events: Event[] = [];
  for (const type of ['open', 'message', 'close', 'error']) socket.addEventListener(type, (e) => events.push(e));
  await advance(MOCK_DELAY);
  expect(socket.readyState).toBe(1);
  return { ...server, socket, events, types: () => events.map((e) => e.type) };
}

/** What the socket surfaces (a listener that threw): in Node, a process warning. */
function captureWarnings(): unknown[] {
  const warnings: unknown[] = [];
  vi.spyOn(process, 'emitWarning').mockImplementation(((warning: unknown) => {
    warnings.push(warning);
  }) as typeof process.emitWarning);
  return warnings;
}

const constantBackoff = (ms: number) => ({ next: () => ms, reset: () => undefined });

describe('event classes and payloads', () => {
  it('open: a plain Event, dispatched on the socket (target, currentTarget), neither bubbling nor cancelable', async () => {
    const { socket, events } = await openSocket();
    const [open] = events;
    expect(open?.constructor).toBe(Event);
    expect(open).toMatchObject({ type: 'open', target: socket, bubbles: false, cancelable: false });
  });

  it('message: a MessageEvent with the data as received, the origin of the URL, no lastEventId, source or ports', async () => {
    const { socket, clients, events, base } = await openSocket();
    const bytes = new Uint8Array([1, 2, 3]).buffer;
    clients[0]?.send('text');
    clients[0]?.send(bytes);
    const messages = events.filter((e) => e.type === 'message') as MessageEvent[];
    expect(messages.map((m) => m.constructor)).toEqual([MessageEvent, MessageEvent]);
    expect(messages.map((m) => m.data)).toEqual(['text', bytes]);
    for (const m of messages) {
      expect(m).toMatchObject({ origin: base, lastEventId: '', source: null, target: socket, cancelable: false });
      expect(m.ports).toEqual([]);
    }
  });

  it('close: a CloseEvent (a faithful stand-in where Node has none) with code, reason and wasClean', async () => {
    const { socket, clients, events } = await openSocket({ backoff: constantBackoff(1_000) });
    clients[0]?.close({ code: 4001, reason: 'kicked' });
    await advance(MOCK_DELAY);
    const close = events.find((e) => e.type === 'close') as CloseEvent;
    expect(close).toBeInstanceOf(Event);
    expect(close.constructor.name).toBe('CloseEvent');
    expect(Object.prototype.toString.call(close)).toBe('[object CloseEvent]');
    expect({ code: close.code, reason: close.reason, wasClean: close.wasClean }).toEqual({
      code: 4001,
      reason: 'kicked',
      wasClean: false, // mock-socket: clean only for 1000/1005
    });
    expect(close).toMatchObject({ type: 'close', target: socket, bubbles: false, cancelable: false });
  });

  it('error: an Event (its `error` the ResilientSocketError), before the close of a failed attempt', async () => {
    const socket = new ResilientWebSocket('ws://127.0.0.1:1/', [], {
      WebSocket: WebSocketImpl,
      backoff: constantBackoff(1_000),
    }); // no server
    made.add(socket);
    const seen: Event[] = [];
    for (const type of ['open', 'error', 'close']) socket.addEventListener(type, (e) => seen.push(e));
    await advance(MOCK_DELAY);
    expect(seen.map((e) => e.type)).toEqual(['error', 'close']);
    expect(seen[0]?.constructor).toBe(Event);
    const { error } = seen[0] as Event & { error: unknown };
    expect(isResilientSocketError(error)).toBe(true);
    expect((error as { code: string }).code).toBe('ERR_RS_CONNECTION_FAILED');
    expect(seen[1]).toMatchObject({ code: 1000, wasClean: true }); // as mock-socket reported it
  });

  it('the rest of the vocabulary: CustomEvents on the same target, their payload as `detail`', async () => {
    const socket = new Full('ws://127.0.0.1:1/', [], {
      WebSocket: WebSocketImpl,
      backoff: constantBackoff(50),
      maxRetries: 1,
    }); // no server: one attempt, one retry, then it gives up
    made.add(socket);
    const seen: CustomEvent[] = [];
    for (const type of ['state', 'connecting', 'reconnecting', 'giveup', 'drop']) {
      socket.addEventListener(type, (e) => seen.push(e as CustomEvent));
    }
    socket.send('never sent');
    await advance(MOCK_DELAY + 50 + MOCK_DELAY);
    expect(seen.every((e) => e instanceof CustomEvent && e.target === socket)).toBe(true);
    const of = (type: string) => seen.filter((e) => e.type === type).map((e) => e.detail);
    // idle→connecting happened in the constructor, before anyone could listen.
    expect(of('state').map((d) => `${d.previous}→${d.current}`)).toEqual([
      'connecting→reconnecting',
      'reconnecting→connecting',
      'connecting→closed',
    ]);
    expect(of('connecting')).toEqual([
      { attempt: 1, url: 'ws://127.0.0.1:1/' },
      { attempt: 2, url: 'ws://127.0.0.1:1/' },
    ]);
    expect(of('reconnecting')).toEqual([{ attempt: 2, delay: 50 }]);
    expect(of('drop')).toEqual([{ reason: 'closed', messages: ['never sent'] }]);
    expect(of('giveup')).toHaveLength(1);
    expect(of('giveup')[0]).toMatchObject({ attempts: 2 });
    expect([socket.readyState, socket.retryCount]).toEqual([3, 2]);
  });
});

describe('handler attributes and listeners', () => {
  it('on… attributes: null at first, a function kept, anything else null; `this` is the socket', async () => {
    const { socket, clients } = await openSocket();
    expect([socket.onopen, socket.onmessage, socket.onclose, socket.onerror]).toEqual([null, null, null, null]);
    const calls: unknown[] = [];
    function handler(this: unknown, event: Event) {
      calls.push([this, event.type]);
    }
    socket.onmessage = handler;
    expect(socket.onmessage).toBe(handler);
    clients[0]?.send('x');
    expect(calls).toEqual([[socket, 'message']]);
    socket.onmessage = 5 as never;
    expect(socket.onmessage).toBeNull();
    clients[0]?.send('y');
    expect(calls).toHaveLength(1);
  });

  it('an attribute takes its place where it was first set; set again it stays there; null then set again goes last', () => {
    const socket = new ResilientWebSocket('ws://127.0.0.1:1/', [], { WebSocket: WebSocketImpl, autoConnect: false });
    made.add(socket);
    const order: string[] = [];
    socket.addEventListener('message', () => order.push('listener1'));
    socket.onmessage = () => order.push('handler');
    socket.addEventListener('message', () => order.push('listener2'));
    socket.onmessage = () => order.push('handler2');
    socket.dispatchEvent(new MessageEvent('message'));
    socket.onmessage = null;
    socket.onmessage = () => order.push('handler3');
    socket.dispatchEvent(new MessageEvent('message'));
    // The order Chromium gives (checked side by side in test/browser/websocket-conformance.test.ts).
    expect(order).toEqual(['listener1', 'handler2', 'listener2', 'listener1', 'listener2', 'handler3']);
  });

  it('once, signal, duplicates, capture as part of the identity, `this` and handleEvent', () => {
    const socket = new ResilientWebSocket('ws://127.0.0.1:1/', [], { WebSocket: WebSocketImpl, autoConnect: false });
    made.add(socket);
    const calls: string[] = [];
    const fire = () => socket.dispatchEvent(new Event('ping'));
    socket.addEventListener('ping', () => calls.push('once'), { once: true });
    const aborted = new AbortController();
    aborted.abort();
    socket.addEventListener('ping', () => calls.push('aborted before'), { signal: aborted.signal });
    const later = new AbortController();
    socket.addEventListener('ping', () => calls.push('aborted later'), { signal: later.signal });
    const twice = () => calls.push('twice');
    socket.addEventListener('ping', twice);
    socket.addEventListener('ping', twice); // the same registration: ignored
    socket.addEventListener('ping', twice, true); // capture: another registration
    const object = {
      handleEvent(this: unknown) {
        calls.push(this === object ? 'handleEvent, this = the object' : 'wrong this');
      },
    };
    socket.addEventListener('ping', object);
    socket.addEventListener('ping', function (this: unknown) {
      calls.push(this === socket ? 'this = the socket' : 'wrong this');
    });
    fire();
    expect(calls.splice(0)).toEqual([
      'once',
      'aborted later',
      'twice',
      'twice',
      'handleEvent, this = the object',
      'this = the socket',
    ]);
    later.abort();
    socket.removeEventListener('ping', twice); // removes the non-capture one only
    socket.removeEventListener('ping', object, true); // wrong capture flag: nothing removed
    fire();
    expect(calls).toEqual(['twice', 'handleEvent, this = the object', 'this = the socket']);
  });

  it('listeners added during a dispatch wait for the next one; removed ones are not called', () => {
    const socket = new ResilientWebSocket('ws://127.0.0.1:1/', [], { WebSocket: WebSocketImpl, autoConnect: false });
    made.add(socket);
    const calls: string[] = [];
    const second = () => calls.push('second');
    const added = () => calls.push('added');
    socket.addEventListener('ping', () => {
      calls.push('first');
      socket.removeEventListener('ping', second);
      socket.addEventListener('ping', added);
    });
    socket.addEventListener('ping', second);
    socket.dispatchEvent(new Event('ping'));
    socket.dispatchEvent(new Event('ping'));
    expect(calls).toEqual(['first', 'first', 'added']);
  });

  it('dispatchEvent: a user event reaches the listeners and the attribute; false when a listener cancels it', () => {
    const socket = new ResilientWebSocket('ws://127.0.0.1:1/', [], { WebSocket: WebSocketImpl, autoConnect: false });
    made.add(socket);
    const seen: unknown[] = [];
    socket.onmessage = (event) => seen.push(['handler', event.data, event.target === socket]);
    socket.addEventListener('message', (event) => {
      seen.push(['listener', event.cancelable]);
      event.preventDefault();
    });
    expect(socket.dispatchEvent(new MessageEvent('message', { data: 'mine' }))).toBe(true); // not cancelable
    // (Node 20's MessageEvent drops `cancelable`: a plain Event shows the cancelation.)
    expect(socket.dispatchEvent(new Event('message', { cancelable: true }))).toBe(false);
    expect(seen).toEqual([
      ['handler', 'mine', true],
      ['listener', false],
      ['handler', undefined, true],
      ['listener', true],
    ]);
  });

  it('stopImmediatePropagation() stops the listeners after it, as on any EventTarget', () => {
    const socket = new ResilientWebSocket('ws://127.0.0.1:1/', [], { WebSocket: WebSocketImpl, autoConnect: false });
    made.add(socket);
    const calls: string[] = [];
    socket.addEventListener('ping', () => calls.push('a'));
    socket.addEventListener('ping', (event) => {
      calls.push('b');
      event.stopImmediatePropagation();
    });
    socket.addEventListener('ping', () => calls.push('c'));
    socket.dispatchEvent(new Event('ping'));
    socket.dispatchEvent(new Event('ping'));
    expect(calls).toEqual(['a', 'b', 'a', 'b']);
  });

  it('a listener or attribute that throws is reported (a process warning), never thrown; the others still run', async () => {
    const warnings = captureWarnings();
    const { socket, clients } = await openSocket();
    const calls: string[] = [];
    socket.addEventListener('message', () => {
      throw new Error('boom');
    });
    socket.onmessage = () => {
      throw new TypeError('bad handler');
    };
    socket.addEventListener('message', (e) => calls.push((e as MessageEvent).data));
    expect(() => clients[0]?.send('still delivered')).not.toThrow();
    expect(calls).toEqual(['still delivered']);
    expect(warnings.map((w) => [(w as { code: string }).code, (w as Error).message])).toEqual([
      ['ERR_RS_LISTENER_THREW', inMode('A `message` listener threw: boom', 'ERR_RS_LISTENER_THREW')],
      ['ERR_RS_LISTENER_THREW', inMode('`onmessage` threw: bad handler', 'ERR_RS_LISTENER_THREW')],
    ]);
    expect(((warnings[0] as Error).cause as Error).message).toBe('boom');
    expect(socket.readyState).toBe(1);
  });
});

describe('connections, reconnects and what never leaks', () => {
  it('open and close once per underlying connection; CONNECTING in between; retryCount until `stable`', async () => {
    const { socket, clients, types } = await openSocket({ backoff: constantBackoff(100), stableAfter: 500 });
    const states: number[] = [];
    socket.onclose = () => states.push(socket.readyState);
    const stable: unknown[] = [];
    socket.addEventListener('stable', (e) => stable.push([e instanceof CustomEvent, (e as CustomEvent).detail]));
    clients[0]?.close({ code: 1012, reason: 'restart' });
    await advance(MOCK_DELAY);
    expect([socket.readyState, socket.retryCount]).toEqual([0, 1]);
    await advance(100 + MOCK_DELAY);
    expect(types()).toEqual(['open', 'close', 'open']);
    expect(states).toEqual([0]); // reconnecting: CONNECTING, not CLOSED, in the close handler
    expect(clients).toHaveLength(2);
    expect(socket.retryCount).toBe(1);
    await advance(500);
    expect([socket.retryCount, stable]).toEqual([0, [[true, null]]]);
  });

  it('reconnect(code, reason): the old connection closes with them, a new one opens; the old socket is never heard again', async () => {
    const tracking = trackingWebSocket();
    const { socket, clients, closes, events } = await openSocket({ WebSocket: tracking.WebSocket });
    socket.reconnect(4000, 'switch');
    expect(socket.readyState).toBe(0);
    const close = events.at(-1) as CloseEvent;
    expect([close.type, close.code, close.reason, close.wasClean]).toEqual(['close', 4000, 'switch', false]);
    await advance(MOCK_DELAY);
    expect([socket.readyState, events.map((e) => e.type)]).toEqual([1, ['open', 'close', 'open']]);
    expect(closes[0]).toMatchObject({ code: 4000, reason: 'switch' });
    // The replaced socket's late events go nowhere.
    const stale = tracking.instances[0];
    stale?.dispatchEvent(new MessageEvent('message', { data: 'late' }) as never);
    stale?.dispatchEvent(new Event('open') as never);
    stale?.dispatchEvent(new Event('close') as never);
    clients[1]?.send('fresh');
    expect(events.map((e) => e.type)).toEqual(['open', 'close', 'open', 'message']);
    expect((events[3] as MessageEvent).data).toBe('fresh');
  });

  it('close() is final: CLOSING, no message after it, one close, no reconnect; reconnect() then throws ERR_RS_CLOSED', async () => {
    const tracking = trackingWebSocket();
    const { socket, clients, closes, types } = await openSocket({ WebSocket: tracking.WebSocket });
    socket.close(1000, 'done');
    expect(socket.readyState).toBe(2);
    clients[0]?.send('after close()'); // WebSocket delivers no message once CLOSING
    await advance(MOCK_DELAY);
    expect(socket.readyState).toBe(3);
    expect(closes).toEqual([expect.objectContaining({ code: 1000, reason: 'done' })]);
    tracking.instances[0]?.dispatchEvent(new MessageEvent('message', { data: 'late' }) as never);
    await advance(60_000);
    expect(types()).toEqual(['open', 'close']);
    expect(tracking.instances).toHaveLength(1);
    expect(() => socket.reconnect()).toThrow(expect.objectContaining({ code: 'ERR_RS_CLOSED' }));
    const drops: unknown[] = [];
    socket.addEventListener('drop', (e) => drops.push((e as CustomEvent).detail));
    socket.send('too late'); // reported as dropped (a WebSocket discards it silently)
    expect(drops).toEqual([{ reason: 'closed', messages: ['too late'] }]);
  });
});
