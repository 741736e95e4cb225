/**
 * `resilient-socket/react`: `useResilientSocket(url, options?)`, one socket per URL and options
 * shared by the components that use it, StrictMode- and SSR-safe, on the core (features by
 * `features: [...]` from `resilient-socket/modular`). React ≥ 18 is an optional peer dependency.
 * Node resolves to `./react-node.ts` (the ws transport).
 * @packageDocumentation
 */
import { BaseSocket } from './core/socket.js';
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
