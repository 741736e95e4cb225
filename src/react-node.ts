/**
 * The Node entry point of `resilient-socket/react` (the `node` export condition): the same hook,
 * its sockets with the ws transport (it finds `ws` where there is no global WebSocket). Its
 * exports repeat `./react.ts`'s (no re-export: the build would make an empty chunk of it).
 * @packageDocumentation
 */
import { BaseSocket } from './modular-node.js';
import { hookFor } from './react/use-resilient-socket.js';

export type { LastMessage } from './react/shared.js';
export type { ResilientSocketHook, UseResilientSocketOptions } from './react/use-resilient-socket.js';

/**
 * A socket for this component: `{ socket, state, lastMessage, send }`. `url` `null` (or
 * `enabled: false`) means no connection (state `'idle'`). Components asking for the same URL and
 * options (compared by value: an inline object literal is fine) share one socket, closed
 * `closeDelay` ms after the last of them unmounts, so StrictMode makes one connection. Rendering on
 * a server makes none (state `'idle'`); hydration connects once.
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
