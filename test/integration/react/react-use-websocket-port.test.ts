// @vitest-environment jsdom
/**
 * react-use-websocket's own tests (version 4.13.0, `src/lib/*.test.ts`) asked of `useResilientSocket`,
 * rewritten for real React 19 (react-dom/client, jsdom) against real ws servers on 127.0.0.1. Their
 * hook returns `{ readyState, lastMessage, lastJsonMessage, sendMessage, sendJsonMessage,
 * getWebSocket }` and takes `onOpen`/`onClose`/`onError` options; here these are `{ state,
 * lastMessage, lastJsonMessage, send, sendJson, socket }` and the socket's own events (`open`,
 * `close`, `error`, `giveup`), which a component listens to in an effect.
 *
 * What each of their tests became (`→` the test below; `n/a` does not apply, and why):
 *
 * use-websocket.test.ts
 * - works with just a url → "connects with a URL alone …"
 * - readyState changes across readyState transitions (connect false → true) → the same test (`enabled`)
 * - a function-promise based url works the same as a string url → "an async URL provider …"
 * - … retries until it resolves if retryOnError → "a provider that rejects is retried …"
 * - … stops retrying past reconnectAttempts → "… gives up after maxRetries …"
 * - … does not retry if retryOnError is false → "maxRetries: 0 gives up at the first failure"
 * - lastMessage updates → "lastMessage is null, then the latest message"
 * - lastJsonMessage updates with a json object → "lastJsonMessage is the parsed message"
 * - lastJsonMessage with disableJson → n/a: no such option (one parse per message for all components)
 * - sendMessage sends; sendMessage before open is queued → "send …" (two tests)
 * - sendJsonMessage → "sendJson sends the value as JSON"
 * - getWebSocket returns the underlying websocket if unshared → "with share: false, socket …"
 * - getWebSocket returns a protected websocket when shared → difference: "a shared socket is not protected …"
 * - websocket is closed when the component unmounts → "unmounting closes the socket …"
 * - shared websockets receive updates as if unshared → "components sharing a socket each see every message"
 * - shared=false / shared=true websocket can re-connect after timeout → "without answers, the heartbeat …" (each)
 * - shared websockets each have callbacks invoked (onClose) → "each component's close listener …"
 * - Options#fromSocketIO → n/a: no socket.io framing here
 * - Options#queryParams → "query parameters are written in the URL"
 * - Options#protocols → "protocols reach the server …"
 * - Options#share subscribes several components to one socket → "equal URL and options share one connection"
 * - if Options#share is not true, several sockets → "share: false makes a connection per component"
 * - Options#onOpen / onClose / onMessage / onError → "the socket's open event …", "… close event …",
 *   "onMessage …", "… error event …"
 * - Options#shouldReconnect → "shouldReconnect decides …"
 * - Options#onReconnectStop → "the giveup event …"
 * - Options#filter → "filter: a refused message leaves lastMessage alone"
 * - Options#retryOnError → n/a as an option: every failure is retried alike ("maxRetries: 0 …" is the nearest)
 * - Options#eventSourceOptions → n/a: WebSocket only
 * - Options#heartbeat sends a ping at the interval (share false/true) → "the heartbeat pings …" (each)
 * - … closes if nothing within timeout (share false/true) → "without answers, the heartbeat …" (each)
 * - … does not close if a message arrives within timeout → "in silence detection, any message …" (each)
 * - … lastMessage not updated by returnMessage → "answers to pings never reach lastMessage" (each)
 * - … interval very close to timeout → "one ping for every component of a shared socket"
 * attach-listener.test.ts (their socket wiring, here through the hook)
 * - cleanup closes the websocket → "unmounting closes …"; messages reach the setter → "lastMessage …";
 *   readyState set on open → "connects with a URL alone …"
 * - reconnects up to reconnectAttempts → "retries maxRetries times, then gives up"
 * - reconnectInterval as a function → "a backoff policy of one's own sets each wait"
 * - server closes → CLOSED at once → "connects with a URL alone …" (with `shouldReconnect: () => false`)
 * - client closes → CLOSING then CLOSED → "socket.close() goes through closing to closed"
 * attach-shared-listeners.test.ts
 * - every subscriber gets messages → "components sharing a socket each see every message"
 * - every subscriber gets ready states → "every component of a shared socket sees its states"
 * create-or-join.test.ts
 * - one websocket per URL, closed when no subscriber is left → "one socket per URL, closed after its last user"
 * - every subscriber's onClose per close; onError not on a clean close → "a clean close: every component's …"
 * - every subscriber's onMessage per message → "onMessage of every component …"
 * - every subscriber's onError / onClose per error → "a failed attempt: every component's …"
 * get-url.test.ts: a function URL → "an async URL provider …"; queryParams → "query parameters …";
 *   socket.io → n/a
 * globals.test.ts, manage-subscribers.test.ts: their registry's bookkeeping → n/a (private here; what it
 *   does is observed by the sharing and unmount tests)
 * heartbeat.test.ts: their heartbeat with fake timers → our heartbeat's unit tests
 *   (test/features/heartbeat); here "a ping made by a function …"
 * proxy.test.ts: the protected shared websocket → difference ("a shared socket is not protected …")
 * socket-io.test.ts, use-event-source.test.ts → n/a
 *
 * Differences (what their users rely on that behaves otherwise here):
 * - Sharing is the default (`share: true`), theirs is `share: false`. Shared by URL and options by value.
 * - A lost connection is retried by default (`state` 'reconnecting'), with jittered exponential
 *   backoff and no limit (`maxRetries: Infinity`); theirs closes unless `shouldReconnect` says so,
 *   then retries 20 times every 5 s. `reconnectAttempts` → `maxRetries` (giving up emits `giveup`,
 *   their `onReconnectStop`), `reconnectInterval` → `maxDelay` or `backoff` (a policy, `{ next, reset }`).
 * - `shouldReconnect` is asked only about closes by the server or network, never about a failed
 *   attempt or a heartbeat timeout; there is no `retryOnError`: every failure is retried alike.
 * - No `onOpen`/`onClose`/`onError`/`onReconnectStop` options: listen to the socket (`socket.on('open' |
 *   'close' | 'error' | 'giveup')`); their payloads are plain objects, not DOM events. `onMessage`
 *   receives `{ data, timeStamp }`, and a component with it does not re-render on messages.
 * - `readyState` numbers → `state` names; `'idle'` is their UNINSTANTIATED. `connect: false` → `enabled: false`.
 * - `getWebSocket()` → `socket`: the shared socket itself, not a protected proxy: `socket.close()`
 *   closes it for every component sharing it (a component that mounts later gets a new one).
 * - `lastJsonMessage` is `undefined` before a message and for one that is not JSON (theirs: `null`
 *   and `{}`), parsed once per message for all components; there is no `disableJson`.
 * - `filter` receives the message's data (theirs, the MessageEvent); one that throws is reported
 *   (`ERR_RS_LISTENER_THREW`) and refuses the message.
 * - A component that joins a shared socket starts from its latest message (as its `filter`
 *   allows); theirs starts from `null`.
 * - `sendJson` refuses what JSON cannot write (`undefined`, a function, a symbol) with a TypeError;
 *   theirs sends whatever `JSON.stringify` returns. It returns what `send` does ('sent', 'buffered', 'dropped').
 * - `heartbeat` is a feature (`features: [heartbeat({ … })]` from resilient-socket/modular). With
 *   `message` it needs `isPong`, and only answers `isPong` accepts keep the link alive (theirs: any
 *   message) and they are consumed (theirs: hidden from `lastMessage` only). Without `message` in a
 *   browser it watches for silence: any message keeps the link alive. A dead link is reconnected.
 * - `queryParams` → write them in the URL; `fromSocketIO`, `eventSourceOptions`, `skipAssert` → none.
 * - A URL function is a URL provider (needs `providers()` in `features`), called before every attempt.
 * - Messages sent before open are queued by the socket (bounded, `buffer`), not by each component.
 */
import { act, createElement, type ReactNode, useEffect } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BaseSocket } from '../../../src/core/socket.js';
import { heartbeat, providers } from '../../../src/modular.js';
import { type ResilientSocketHook, type UseResilientSocketOptions, useResilientSocket } from '../../../src/react.js';
import { AFTER_GRACE, mount, pass, render, startServer, type TestServer, until } from './harness.js';

type Url = string | (() => string | Promise<string>) | null;
type Events = Record<string, unknown[]>;

/** What a component saw: its latest result, renders, the states and message data in order, and the socket's events. */
interface Seen {
  renders: number;
  hook: ResilientSocketHook | null;
  states: string[];
  data: unknown[];
  /** The socket's events, by name, as its listeners got them. */
  events: Events;
  last: unknown;
}
const seen = (): Seen => ({ renders: 0, hook: null, states: [], data: [], events: {}, last: null });
const EVENTS = ['state', 'open', 'close', 'error', 'giveup', 'reconnecting', 'connecting'] as const;

/** Uses the hook, notes what it returns, and listens to the socket's events from an effect (as an app would). */
function Probe(props: { url: Url; options?: UseResilientSocketOptions | undefined; seen: Seen }): ReactNode {
  const { seen } = props;
  const hook = useResilientSocket(props.url, props.options);
  seen.renders++;
  seen.hook = hook;
  if (hook.state !== seen.states.at(-1)) seen.states.push(hook.state);
  if (hook.lastMessage && hook.lastMessage !== seen.last) seen.data.push(hook.lastMessage.data);
  seen.last = hook.lastMessage;
  const { socket } = hook;
  useEffect(() => {
    if (!socket) return;
    const offs = EVENTS.map((name) => {
      seen.events[name] ??= [];
      const listener = (payload: unknown) => {
        seen.events[name]?.push(payload);
      };
      socket.on(name, listener);
      return () => void socket.off(name, listener);
    });
    return () => {
      for (const off of offs) off();
    };
  }, [socket, seen]);
  return createElement('p', null, hook.state);
}
const probe = (url: Url, s: Seen, options?: UseResilientSocketOptions, key?: string): ReactNode =>
  createElement(Probe, { url, seen: s, options, key });

const heard = (s: Seen, name: string): unknown[] => s.events[name] ?? [];
const codeOf = (error: unknown): unknown => (error as { code?: unknown }).code;
/** Every message the server receives, with the time it came. */
function timed(server: TestServer): { data: string; at: number }[] {
  const log: { data: string; at: number }[] = [];
  server.wss.on('connection', (ws) =>
    ws.on('message', (data) => log.push({ data: String(data), at: performance.now() })),
  );
  return log;
}
/** The server answers each `ping` with `pong`. */
const answerPings = (server: TestServer): void =>
  void server.wss.on('connection', (ws) => ws.on('message', (data) => String(data) === 'ping' && ws.send('pong')));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('use-websocket.test.ts: the hook', () => {
  it('connects with a URL alone; idle while disabled, then connecting, open, and closed when the server closes', async () => {
    const server = await startServer();
    const s = seen();
    const options = { shouldReconnect: () => false };
    const root = await mount(probe(server.url, s, { ...options, enabled: false }));
    await pass(50);
    expect(s.hook?.state).toBe('idle');
    expect(server.connections).toBe(0);
    await render(root, probe(server.url, s, options));
    await until(() => s.hook?.state === 'open', 'open');
    for (const client of server.wss.clients) client.close(1000, 'done');
    await until(() => s.hook?.state === 'closed', 'closed');
    expect(s.states).toEqual(['idle', 'connecting', 'open', 'closed']);
    // As theirs: from open straight to closed (no closing) when the server ends it.
    const changes = heard(s, 'state').map((change) => (change as { current: string }).current);
    expect(changes).toEqual(['open', 'closed']);
    expect(server.connections).toBe(1);
  });

  it('an async URL provider connects as the string does', async () => {
    const server = await startServer();
    const s = seen();
    const url = () => new Promise<string>((resolve) => setTimeout(() => resolve(server.url), 50));
    await mount(probe(url, s, { features: [providers()] }));
    await until(() => s.hook?.state === 'open', 'open');
    expect(s.states).toEqual(['idle', 'connecting', 'open']);
    expect(server.connections).toBe(1);
  });

  it('a provider that rejects is retried with backoff until it resolves', async () => {
    const server = await startServer();
    const s = seen();
    let calls = 0;
    const url = () =>
      new Promise<string>((resolve, reject) =>
        setTimeout(() => (++calls <= 2 ? reject(new Error('no url yet')) : resolve(server.url)), 20),
      );
    await mount(probe(url, s, { features: [providers()], maxRetries: 3, maxDelay: 50 }));
    await until(() => s.hook?.state === 'open', 'open');
    expect(calls).toBe(3);
    expect(heard(s, 'giveup')).toEqual([]);
    expect(heard(s, 'error').map(codeOf)).toEqual(['ERR_RS_PROVIDER_FAILED', 'ERR_RS_PROVIDER_FAILED']);
  });

  it('a provider that keeps rejecting: the socket gives up after maxRetries (the giveup event), closed', async () => {
    const s = seen();
    let calls = 0;
    const url = () => new Promise<string>((_, reject) => setTimeout(() => reject(new Error(`no url ${++calls}`)), 20));
    await mount(probe(url, s, { features: [providers()], maxRetries: 2, maxDelay: 50 }));
    await until(() => s.hook?.state === 'closed', 'gave up');
    expect(calls).toBe(3);
    expect(heard(s, 'giveup')).toHaveLength(1);
    expect(heard(s, 'giveup')[0]).toMatchObject({ attempts: 3, failures: 3 });
  });

  it('maxRetries: 0 gives up at the first failure', async () => {
    const s = seen();
    let calls = 0;
    const url = () => new Promise<string>((_, reject) => setTimeout(() => reject(new Error(`no url ${++calls}`)), 20));
    await mount(probe(url, s, { features: [providers()], maxRetries: 0 }));
    await until(() => s.hook?.state === 'closed', 'gave up');
    await pass(100);
    expect(calls).toBe(1);
    expect(heard(s, 'giveup')[0]).toMatchObject({ attempts: 1, failures: 1 });
  });

  it('lastMessage is null, then the latest message', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s));
    await until(() => s.hook?.state === 'open', 'open');
    expect(s.hook?.lastMessage).toBeNull();
    server.broadcast('Hello');
    await until(() => s.hook?.lastMessage?.data === 'Hello', 'Hello');
    server.broadcast('There');
    server.broadcast('Friend');
    await until(() => s.hook?.lastMessage?.data === 'Friend', 'Friend');
    expect(typeof s.hook?.lastMessage?.timeStamp).toBe('number');
  });

  it('lastJsonMessage is the parsed message (JSON.parse called with its text)', async () => {
    const server = await startServer();
    const parse = vi.spyOn(JSON, 'parse');
    const s = seen();
    await mount(probe(server.url, s));
    await until(() => s.hook?.state === 'open', 'open');
    expect(s.hook?.lastJsonMessage).toBeUndefined();
    const text = JSON.stringify({ name: 'Bob' });
    server.broadcast(text);
    await until(() => s.hook?.lastMessage?.data === text, 'the message');
    expect(s.hook?.lastJsonMessage).toEqual({ name: 'Bob' });
    expect(parse).toHaveBeenCalledWith(text);
  });

  it('send delivers once open', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s));
    await until(() => s.hook?.state === 'open', 'open');
    expect(s.hook?.send('Hello')).toBe('sent');
    await until(() => server.received.includes('Hello'), 'the server receives it');
  });

  it('send before the socket opens is queued and sent when it opens', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s));
    expect(s.hook?.state).not.toBe('open');
    expect(s.hook?.send('Hello')).toBe('buffered');
    await until(() => server.received.includes('Hello'), 'the server receives it');
    expect(server.received).toEqual(['Hello']);
  });

  it('sendJson sends the value as JSON', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s));
    await until(() => s.hook?.state === 'open', 'open');
    s.hook?.sendJson({ name: 'Bob' });
    await until(() => server.received.length > 0, 'the server receives it');
    expect(server.received).toEqual([JSON.stringify({ name: 'Bob' })]);
  });

  it('with share: false, socket is its own socket, and closing it closes it for the component', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s, { share: false }));
    await until(() => s.hook?.state === 'open', 'open');
    const socket = s.hook?.socket as BaseSocket;
    expect(socket.url).toBe(server.url);
    await act(async () => socket.close()); // it sets the component's state: inside act, as any update
    await until(() => s.hook?.state === 'closed' && server.closes === 1, 'closed');
    await pass(AFTER_GRACE);
    expect(server.connections).toBe(1);
  });

  it('a shared socket is not protected: socket.close() closes it for every component sharing it, not for one with share: false', async () => {
    const server = await startServer();
    const [a, b, own] = [seen(), seen(), seen()];
    await mount([
      probe(server.url, a, {}, 'a'),
      probe(server.url, b, {}, 'b'),
      probe(server.url, own, { share: false }, 'o'),
    ]);
    await until(() => [a, b, own].every((s) => s.hook?.state === 'open'), 'all open');
    expect(server.connections).toBe(2);
    await act(async () => a.hook?.socket?.close());
    await until(() => a.hook?.state === 'closed' && b.hook?.state === 'closed', 'closed for both sharers');
    await pass(100);
    expect(own.hook?.state).toBe('open');
    expect(server.closes).toBe(1);
  });

  it('unmounting closes the socket once closeDelay has passed', async () => {
    const server = await startServer();
    const s = seen();
    const root = await mount(probe(server.url, s, { closeDelay: 100 }));
    await until(() => s.hook?.state === 'open', 'open');
    const socket = s.hook?.socket as BaseSocket;
    await render(root, null);
    expect(socket.state).toBe('open'); // the grace period (StrictMode, route changes)
    await until(() => socket.state === 'closed' && server.closes === 1, 'closed after the grace period');
  });

  it('components sharing a socket each see every message, as if alone', async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    for (const s of all) {
      await mount(probe(server.url, s));
      await until(() => s.hook?.state === 'open', 'open');
    }
    server.broadcast('Hello all');
    await until(() => all.every((s) => s.hook?.lastMessage?.data === 'Hello all'), 'all see it');
    expect(server.connections).toBe(1);
    // Unlike theirs (null), a component that joins later starts from the socket's latest message.
    const late = seen();
    await mount(probe(server.url, late));
    await until(() => late.hook?.state === 'open', 'the latecomer open');
    expect(late.hook?.lastMessage?.data).toBe('Hello all');
    expect(server.connections).toBe(1);
  });

  it.each([false, true])(
    'without answers, the heartbeat ends the connection and the socket reconnects (share: %s)',
    async (share) => {
      const server = await startServer();
      const s = seen();
      const options = {
        share,
        maxDelay: 50,
        features: [heartbeat({ message: 'ping', isPong: (data) => data === 'pong', interval: 30, timeout: 100 })],
      };
      await mount(probe(server.url, s, options));
      await until(() => heard(s, 'close').length > 0, 'the heartbeat gives up on the link');
      expect(heard(s, 'close')[0]).toMatchObject({ code: 1006, reason: 'heartbeat timeout', willReconnect: true });
      await until(() => server.connections === 2 && s.hook?.state === 'open', 'open again');
      expect(new Set(server.received)).toEqual(new Set(['ping']));
    },
  );

  it("each component's close listener hears each close once", async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    for (const s of all) {
      await mount(probe(server.url, s));
      await until(() => s.hook?.state === 'open', 'open');
    }
    for (const s of all) expect(heard(s, 'close')).toEqual([]);
    for (const client of server.wss.clients) client.close(4000, 'bye');
    await until(() => all.every((s) => heard(s, 'close').length > 0), 'every listener hears it');
    await pass(50);
    for (const s of all)
      expect(heard(s, 'close')).toEqual([{ code: 4000, reason: 'bye', wasClean: true, willReconnect: true }]);
  });

  it('query parameters are written in the URL', async () => {
    const server = await startServer();
    const paths: string[] = [];
    server.wss.on('connection', (_ws, request) => paths.push(request.url ?? ''));
    const s = seen();
    const url = `${server.url}?${new URLSearchParams({ type: 'user', id: '5' })}`;
    await mount(probe(url, s));
    await until(() => s.hook?.state === 'open', 'open');
    expect(paths).toEqual(['/?type=user&id=5']);
    expect(s.hook?.socket?.url).toBe(url);
  });

  it('protocols reach the server, and socket.protocol is the one it chose', async () => {
    const server = await startServer();
    server.wss.options.handleProtocols = (offered: Set<string>) => (offered.has('chat') ? 'chat' : false);
    const s = seen();
    await mount(probe(server.url, s, { protocols: 'chat' }));
    await until(() => s.hook?.state === 'open', 'open');
    expect(s.hook?.socket?.protocol).toBe('chat');
  });

  it('equal URL and options share one connection (share: true is the default)', async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    await mount(all.map((s, i) => probe(server.url, s, i === 0 ? { share: true } : {}, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open'), 'all open');
    await pass(100);
    expect(server.connections).toBe(1);
  });

  it('share: false makes a connection per component', async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    await mount(all.map((s, i) => probe(server.url, s, { share: false }, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open'), 'all open');
    await pass(100);
    expect(server.connections).toBe(3);
    expect(new Set(all.map((s) => s.hook?.socket)).size).toBe(3);
  });

  it("the socket's open event tells the attempt that opened", async () => {
    const server = await startServer();
    server.down = true; // so that the listener is there before it opens
    const s = seen();
    await mount(probe(server.url, s, { maxDelay: 50 }));
    await until(() => s.hook?.socket !== null && heard(s, 'error').length > 0, 'a refused attempt');
    server.down = false;
    await until(() => heard(s, 'open').length > 0, 'open');
    expect(heard(s, 'open')).toHaveLength(1);
    expect(heard(s, 'open')[0]).toMatchObject({ reconnected: false });
  });

  it("the socket's close event tells the code, the reason and whether it reconnects", async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s, { maxDelay: 50 }));
    await until(() => s.hook?.state === 'open', 'open');
    for (const client of server.wss.clients) client.close(4001, 'later');
    await until(() => heard(s, 'close').length === 1, 'the close');
    expect(heard(s, 'close')[0]).toEqual({ code: 4001, reason: 'later', wasClean: true, willReconnect: true });
  });

  it('onMessage receives each message as { data, timeStamp }', async () => {
    const server = await startServer();
    const got: unknown[] = [];
    const s = seen();
    await mount(probe(server.url, s, { onMessage: (message) => got.push(message) }));
    await until(() => s.hook?.state === 'open', 'open');
    server.broadcast('Hello');
    await until(() => got.length === 1, 'onMessage');
    expect(got[0]).toEqual({ data: 'Hello', timeStamp: expect.any(Number) });
  });

  it("the socket's error event tells a failed attempt", async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s, { maxDelay: 50 }));
    await until(() => s.hook?.state === 'open', 'open');
    server.crash();
    await until(() => heard(s, 'error').length > 0, 'an error');
    expect(codeOf(heard(s, 'error')[0])).toBe('ERR_RS_CONNECTION_FAILED');
  });

  it('shouldReconnect decides whether a connection the server closed is made again', async () => {
    const server = await startServer();
    server.wss.on('connection', (ws) => ws.close(4000, 'go'));
    const never = seen();
    await mount(probe(server.url, never, { maxDelay: 50, shouldReconnect: () => false }));
    await until(() => never.hook?.state === 'closed', 'closed');
    await pass(200);
    expect(server.connections).toBe(1);
    const always = seen();
    await mount(probe(server.url, always, { maxDelay: 50, shouldReconnect: () => true }));
    await until(() => server.connections >= 3, 'two connections more');
  });

  it('the giveup event (their onReconnectStop) comes once maxRetries retries failed', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s, { maxRetries: 3, maxDelay: 50 }));
    await until(() => s.hook?.state === 'open', 'open');
    server.crash();
    expect(heard(s, 'giveup')).toEqual([]);
    await until(() => s.hook?.state === 'closed', 'gave up');
    expect(heard(s, 'giveup')).toHaveLength(1);
    const info = heard(s, 'giveup')[0] as { failures: number; error: unknown };
    expect(info.failures).toBe(4); // the loss, then 3 failed retries
    expect(codeOf(info.error)).toBe('ERR_RS_RETRIES_EXHAUSTED');
  });

  it('filter: a refused message leaves lastMessage alone', async () => {
    const server = await startServer();
    const [picky, plain] = [seen(), seen()];
    await mount([probe(server.url, picky, { filter: () => false }, 'f'), probe(server.url, plain, {}, 'p')]);
    await until(() => picky.hook?.state === 'open' && plain.hook?.state === 'open', 'open');
    server.broadcast('Hello');
    await until(() => plain.hook?.lastMessage?.data === 'Hello', 'the message arrived');
    await pass(50);
    expect(picky.hook?.lastMessage).toBeNull();
  });

  it.each([false, true])('the heartbeat pings every interval, once per socket (share: %s)', async (share) => {
    const server = await startServer();
    answerPings(server);
    const log = timed(server);
    const options = {
      share,
      features: [heartbeat({ message: 'ping', isPong: (data) => data === 'pong', interval: 100, timeout: 1_000 })],
    };
    const all = share ? [seen(), seen()] : [seen()];
    await mount(all.map((s, i) => probe(server.url, s, options, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open'), 'open');
    const opened = performance.now();
    await until(() => log.length >= 3, 'three pings');
    const elapsed = performance.now() - opened;
    expect(server.connections).toBe(1);
    expect(new Set(log.map((m) => m.data))).toEqual(new Set(['ping']));
    expect(log.length).toBeLessThanOrEqual(Math.floor(elapsed / 100) + 1); // not one timer per component
  });

  it.each([false, true])(
    'in silence detection, any message within the timeout keeps the link (share: %s)',
    async (share) => {
      const server = await startServer();
      const all = share ? [seen(), seen()] : [seen()];
      const options = { share, features: [heartbeat({ interval: 200, timeout: 200 })] };
      await mount(all.map((s, i) => probe(server.url, s, options, String(i))));
      await until(() => all.every((s) => s.hook?.state === 'open'), 'open');
      for (let i = 0; i < 10; i++) {
        server.broadcast('ping'); // 600 ms in all, longer than interval + timeout
        await pass(60);
      }
      expect(server.connections).toBe(1);
      expect(server.closes).toBe(0);
      expect(all[0]?.hook?.state).toBe('open');
    },
  );

  it.each([false, true])('answers to pings never reach lastMessage; other messages do (share: %s)', async (share) => {
    const server = await startServer();
    answerPings(server);
    const all = share ? [seen(), seen()] : [seen()];
    const options = {
      share,
      features: [heartbeat({ message: 'ping', isPong: (data) => data === 'pong', interval: 50, timeout: 1_000 })],
    };
    await mount(all.map((s, i) => probe(server.url, s, options, String(i))));
    await until(() => server.received.filter((m) => m === 'ping').length >= 2, 'two pings answered');
    server.broadcast('hello');
    await until(() => all.every((s) => s.hook?.lastMessage?.data === 'hello'), 'hello');
    for (const s of all) expect(s.data).toEqual(['hello']);
  });

  it('one ping for every component of a shared socket, with an interval close to the timeout', async () => {
    const server = await startServer();
    const [a, b] = [seen(), seen()];
    const options = {
      features: [heartbeat({ message: 'ping', isPong: (data) => data === 'pong', interval: 500, timeout: 600 })],
    };
    await mount([probe(server.url, a, options, 'a'), probe(server.url, b, options, 'b')]);
    await until(() => a.hook?.state === 'open' && b.hook?.state === 'open', 'open');
    a.hook?.send('token');
    server.broadcast('authorized');
    await until(() => a.hook?.lastMessage?.data === 'authorized', 'authorized');
    await until(() => server.received.includes('ping'), 'a ping');
    expect(server.received).toEqual(['token', 'ping']);
    server.broadcast('pong');
    await pass(50);
    expect(a.hook?.state).toBe('open');
    expect(server.connections).toBe(1);
  });
});

describe('attach-listener.test.ts: the socket under the hook', () => {
  it('retries maxRetries times, then gives up', async () => {
    const server = await startServer();
    server.down = true;
    const s = seen();
    await mount(probe(server.url, s, { maxRetries: 5, maxDelay: 20 }));
    await until(() => s.hook?.state === 'closed', 'gave up');
    expect(heard(s, 'reconnecting')).toHaveLength(5);
    expect(heard(s, 'giveup')[0]).toMatchObject({ attempts: 6, failures: 6 });
  });

  it('a backoff policy of its own sets each wait', async () => {
    const server = await startServer();
    server.down = true;
    const s = seen();
    // Their reconnectInterval function, as a policy: 10 ms times the square of the attempt.
    const backoff = {
      n: 0,
      next: () => {
        backoff.n++;
        return backoff.n ** 2 * 10;
      },
      reset: () => {
        backoff.n = 0;
      },
    };
    const started = performance.now();
    await mount(probe(server.url, s, { maxRetries: 3, backoff }));
    await until(() => s.hook?.state === 'closed', 'gave up');
    expect(heard(s, 'reconnecting').map((r) => (r as { delay: number }).delay)).toEqual([10, 40, 90]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('socket.close() goes through closing to closed', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s));
    await until(() => s.hook?.state === 'open', 'open');
    await act(async () => s.hook?.socket?.close());
    await until(() => s.hook?.state === 'closed', 'closed');
    const changes = heard(s, 'state').map((change) => (change as { current: string }).current);
    expect(changes).toEqual(['open', 'closing', 'closed']);
  });
});

describe('attach-shared-listeners.test.ts and create-or-join.test.ts: one socket, many components', () => {
  it('every component of a shared socket sees its states', async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    const options = { shouldReconnect: () => false };
    await mount(all.map((s, i) => probe(server.url, s, options, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open'), 'all open');
    for (const client of server.wss.clients) client.close(1000);
    await until(() => all.every((s) => s.hook?.state === 'closed'), 'all closed');
    for (const s of all) expect(s.states).toEqual(['idle', 'connecting', 'open', 'closed']);
  });

  it('one socket per URL, closed after its last user unmounts', async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    const roots: Root[] = [];
    for (const s of all) roots.push(await mount(probe(server.url, s)));
    await until(() => all.every((s) => s.hook?.state === 'open'), 'all open');
    const socket = all[0]?.hook?.socket as BaseSocket;
    await render(roots[0] as Root, null);
    await render(roots[1] as Root, null);
    await pass(AFTER_GRACE);
    expect(socket.state).toBe('open');
    await render(roots[2] as Root, null);
    await until(() => socket.state === 'closed' && server.closes === 1, 'closed');
    expect(server.connections).toBe(1);
  });

  it("a clean close: every component's close listener hears it once, no error listener hears anything", async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    await mount(all.map((s, i) => probe(server.url, s, { maxDelay: 50 }, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open' && s.events.state), 'all open and listening');
    for (const client of server.wss.clients) client.close(1000);
    await until(() => all.every((s) => heard(s, 'close').length === 1), 'all hear the close');
    await until(() => all.every((s) => s.hook?.state === 'open'), 'reconnected');
    for (const s of all) expect(heard(s, 'error')).toEqual([]);
  });

  it('onMessage of every component is called for each message', async () => {
    const server = await startServer();
    const got: unknown[][] = [[], [], []];
    const all = [seen(), seen(), seen()];
    await mount(all.map((s, i) => probe(server.url, s, { onMessage: (m) => got[i]?.push(m.data) }, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open'), 'all open');
    server.broadcast('one');
    server.broadcast('two');
    await until(() => got.every((g) => g.length === 2), 'all get both');
    expect(got).toEqual([
      ['one', 'two'],
      ['one', 'two'],
      ['one', 'two'],
    ]);
  });

  it("a failed attempt: every component's error and close listeners hear it", async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    await mount(all.map((s, i) => probe(server.url, s, { maxDelay: 50 }, String(i))));
    await until(() => all.every((s) => s.hook?.state === 'open' && s.events.state), 'all open and listening');
    server.crash();
    await until(() => all.every((s) => heard(s, 'error').length > 0 && heard(s, 'close').length > 1), 'heard');
    for (const s of all) {
      expect(codeOf(heard(s, 'error')[0])).toBe('ERR_RS_CONNECTION_FAILED');
      expect(heard(s, 'close')[1]).toMatchObject({ wasClean: false, willReconnect: true });
    }
    const [first, ...rest] = all;
    for (const s of rest) expect(heard(s, 'error').slice(0, 1)).toEqual(heard(first as Seen, 'error').slice(0, 1));
  });
});

describe('heartbeat.test.ts: what their unit tests check, end to end', () => {
  it('a ping made by a function is sent as it returns', async () => {
    const server = await startServer();
    server.wss.on('connection', (ws) => ws.on('message', () => ws.send('pong')));
    const s = seen();
    const message = () => `msg${33}`;
    await mount(
      probe(server.url, s, { features: [heartbeat({ message, isPong: (d) => d === 'pong', interval: 50 })] }),
    );
    await until(() => server.received.length >= 2, 'two pings');
    expect(new Set(server.received)).toEqual(new Set(['msg33']));
  });
});
