/**
 * `resilient-socket/vue`: `useResilientSocket(url, options?)`, a composable for Vue ≥ 3.3 (an
 * optional peer dependency): one socket per URL and options shared by the components and effect
 * scopes that use it, SSR-safe, on the core (features by `features: [...]` from
 * `resilient-socket/modular`). Node resolves to `./vue-node.ts` (the ws transport).
 * @packageDocumentation
 */
import { BaseSocket } from './core/socket.js';
import { composableFor } from './vue/use-resilient-socket.js';

export type { BindingOptions } from './bindings/options.js';
export type { LastMessage } from './bindings/registry.js';
export type { ResilientSocketRefs, UseResilientSocketOptions } from './vue/use-resilient-socket.js';

/**
 * A socket for this component or effect scope, as read-only refs: `{ state, lastMessage,
 * lastJsonMessage, socket }`, and `send`, `sendJson`. `url` `null` (or `enabled: false`) means no
 * connection (state `'idle'`). Users asking for the same URL and options share one socket, closed
 * `closeDelay` ms after the last of them let go (its component unmounted, its effect scope
 * stopped), so a hot reload or a route change keeps one connection and `<KeepAlive>` keeps it.
 *
 * Inside a component (call it in `setup()`, before any `await`) the socket is taken when it is
 * mounted: rendering on a server (`renderToString`) makes none (state `'idle'`) and hydration
 * connects once; `send` before then drops. In an effect scope of its own (`effectScope().run(…)`,
 * a store) it is taken at once; called outside any scope nothing lets go of it (development builds
 * warn).
 *
 * `url` and `options` may be plain values, refs or getters: a change moves to the socket of the new
 * URL and options, compared by value as the React hook compares them (plain objects and arrays by
 * their entries, policies and features by their factory and options, functions by their source
 * text, `URL`s by `href`; other objects by identity; a nested object changed in place keeps the
 * value it had: give a new one). A function given as `url` is a getter: to give a URL provider
 * (called at each attempt, with `providers()` in `features`), return it from the getter
 * (`() => provider`) or hold it in a ref.
 *
 * A fresh token: a URL whose credentials change (`?token=`, `?access_token=`, userinfo) makes a new
 * socket that takes over the queued messages; another host, path or parameter (`?room=`) is
 * another destination: they are dropped and reported (`onDrop`) instead.
 * @example
 * ```ts
 * import { ref } from 'vue';
 * import { useResilientSocket } from 'resilient-socket/vue';
 *
 * const room = ref('lobby');
 * const { state, lastJsonMessage, sendJson } = useResilientSocket(() => `wss://example.test/rooms/${room.value}`, {
 *   maxDelay: 10_000,
 * });
 * sendJson({ type: 'hello' }); // queued until the socket opens
 * ```
 */
export const useResilientSocket = /* @__PURE__ */ composableFor(BaseSocket);
