/**
 * The Node entry point of `resilient-socket/react` (the `node` export condition): the same hook,
 * its sockets with the ws transport (it finds `ws` where there is no global WebSocket). Its
 * exports repeat `./react.ts`'s (no re-export: the build would make an empty chunk of it).
 * @packageDocumentation
 */
import { BaseSocket } from './modular-node.js';
import { hookFor } from './react/use-resilient-socket.js';

export type { BindingOptions } from './bindings/options.js';
export type { LastMessage } from './bindings/registry.js';
export type { ResilientSocketHook, UseResilientSocketOptions } from './react/use-resilient-socket.js';

/**
 * A socket for this component: `{ socket, state, lastMessage, lastJsonMessage, send, sendJson }`.
 * `url` `null` (or `enabled: false`) means no connection (state `'idle'`); `share: false` gives it a
 * socket of its own, `filter` chooses the messages that update it. Components asking for the same URL and
 * options share one socket, closed `closeDelay` ms after the last of them unmounts, so StrictMode
 * makes one connection. Rendering on a server makes none (state `'idle'`); hydration connects once.
 *
 * Options compare by value all the way down, so they may be written inline: plain objects and
 * arrays by their entries (a `{ next, reset }` policy too), backoff policies
 * (`constant({ delay: 500 })`) and features (`heartbeat({ … })`) by their factory and options,
 * functions by their source text (what they close over does not count), `URL`s by `href`; other
 * objects (an `AbortSignal`, a `TestClock`, an `http.Agent`) by identity: make those once.
 *
 * A fresh token: with a URL provider (`() => url`, and `providers()` in `features`) the socket and
 * its connection stay, and the next attempt calls the latest render's provider. A string URL whose
 * credentials change (`?token=`, `?access_token=`, userinfo) makes a new socket that takes over
 * the queued messages; another host, path or parameter (`?room=`) is another destination: they are
 * dropped and reported (`onDrop`) instead.
 * @example
 * ```tsx
 * import { useResilientSocket } from 'resilient-socket/react';
 *
 * function Ticker() {
 *   const { state, lastMessage, send } = useResilientSocket('wss://example.test/prices', { maxDelay: 10_000 });
 *   return <p onClick={() => send('refresh')}>{state === 'open' ? lastMessage?.data : state}</p>;
 * }
 * ```
 */
export const useResilientSocket = /* @__PURE__ */ hookFor(BaseSocket);
