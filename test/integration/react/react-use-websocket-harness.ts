/**
 * react-use-websocket's own tests (version 4.13.0, `src/lib/*.test.ts`) asked of `useResilientSocket`,
 * rewritten for real React 19 (react-dom/client, jsdom) against real ws servers on 127.0.0.1. Their
 * hook returns `{ readyState, lastMessage, lastJsonMessage, sendMessage, sendJsonMessage,
 * getWebSocket }` and takes `onOpen`/`onClose`/`onError` options; here these are `{ state,
 * lastMessage, lastJsonMessage, send, sendJson, socket }` and the socket's own events (`open`,
 * `close`, `error`, `giveup`), which a component listens to in an effect.
 *
 * What each of their tests became (`→` the test in one of the react-use-websocket-*.test.ts files;
 * `n/a` does not apply, and why):
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
 *
 * This module gives those test files their probe (a component that uses the hook and notes what it
 * sees) and what they read of it and of the server; importing it restores every mock after each
 * test.
 */
import { createElement, type ReactNode, useEffect } from 'react';
import { afterEach, vi } from 'vitest';
import { type ResilientSocketHook, type UseResilientSocketOptions, useResilientSocket } from '../../../src/react.js';
import type { TestServer } from './harness.js';

type Url = string | (() => string | Promise<string>) | null;
type Events = Record<string, unknown[]>;

/** What a component saw: its latest result, renders, the states and message data in order, and the socket's events. */
export interface Seen {
  renders: number;
  hook: ResilientSocketHook | null;
  states: string[];
  data: unknown[];
  /** The socket's events, by name, as its listeners got them. */
  events: Events;
  last: unknown;
}
export const seen = (): Seen => ({ renders: 0, hook: null, states: [], data: [], events: {}, last: null });
const EVENTS = ['state', 'open', 'close', 'error', 'giveup', 'reconnecting', 'connecting'] as const;

/** Uses the hook, notes what it returns, and listens to the socket's events from an effect (as an app would). */
export function Probe(props: { url: Url; options?: UseResilientSocketOptions | undefined; seen: Seen }): ReactNode {
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
export const probe = (url: Url, s: Seen, options?: UseResilientSocketOptions, key?: string): ReactNode =>
  createElement(Probe, { url, seen: s, options, key });

export const heard = (s: Seen, name: string): unknown[] => s.events[name] ?? [];
export const codeOf = (error: unknown): unknown => (error as { code?: unknown }).code;
/** Every message the server receives, with the time it came. */
export function timed(server: TestServer): { data: string; at: number }[] {
  const log: { data: string; at: number }[] = [];
  server.wss.on('connection', (ws) =>
    ws.on('message', (data) => log.push({ data: String(data), at: performance.now() })),
  );
  return log;
}
/** The server answers each `ping` with `pong`. */
export const answerPings = (server: TestServer): void =>
  void server.wss.on('connection', (ws) => ws.on('message', (data) => String(data) === 'ping' && ws.send('pong')));

afterEach(() => {
  vi.restoreAllMocks();
});
