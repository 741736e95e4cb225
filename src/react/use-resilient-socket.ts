/**
 * `useResilientSocket(url, options?)`: a socket for React components, shared by every component
 * that asks for the same URL and options (compared by value), safe under StrictMode and on a
 * server. Nothing is made while rendering: the socket is acquired in an effect (so
 * `renderToString` touches no WebSocket, timer or `window`, and hydration connects once), and
 * components read its state through `useSyncExternalStore`.
 */
import { useEffect, useInsertionEffect, useState, useSyncExternalStore } from 'react';
import type { BindingOptions } from '../bindings/options.js';
import {
  checkBindingOptions,
  type Entry,
  IDLE,
  jsonOf,
  keyFor,
  type LastMessage,
  registryFor,
} from '../bindings/registry.js';
import type { BaseSocketOptions, UrlProvider } from '../core/options.js';
import type { BaseSocket, SendResult } from '../core/socket.js';
import type { SocketState } from '../core/states.js';
import type { Data } from '../data.js';

/** Options of {@link useResilientSocket}: the socket's (features included), and the hook's own. */
export interface UseResilientSocketOptions extends BaseSocketOptions, BindingOptions {}

/** What {@link useResilientSocket} returns. */
export interface ResilientSocketHook {
  /** The shared socket (`null` without a URL, while disabled, on a server and before the first effect). */
  readonly socket: BaseSocket | null;
  /** Its state; `'idle'` without a socket. Re-renders on every change. */
  readonly state: SocketState;
  /**
   * The latest message (read `.data`, as from a `MessageEvent`) this component takes (see
   * `filter`): `null` before the first one or with `onMessage`.
   */
  readonly lastMessage: LastMessage | null;
  /**
   * `lastMessage`'s data parsed as JSON (once per message, for every component), `undefined` when
   * there is none or it is binary or not JSON. Never throws.
   */
  readonly lastJsonMessage: unknown;
  /** Sends through the socket (queued until it opens); the same function on every render. `'dropped'` without a socket. */
  readonly send: (data: Data) => SendResult;
  /**
   * Sends `value` as JSON text (`JSON.stringify`); the same function on every render. A value JSON
   * cannot write (`undefined`, a function, a cycle) is a TypeError.
   */
  readonly sendJson: (value: unknown) => SendResult;
}

/** The hook for sockets of class `Socket` (the browser core, or the Node one with the ws transport). */
export function hookFor(Socket: typeof BaseSocket) {
  const sockets = registryFor(Socket, 'resilient-socket/react');

  /**
   * A socket for this component: `{ socket, state, lastMessage, lastJsonMessage, send, sendJson }`.
   * `url` `null` (or `enabled: false`) means no connection (state `'idle'`). Components asking for
   * the same URL and options (by value) share one socket, closed `closeDelay` ms after the last one
   * unmounts.
   * @example
   * ```tsx
   * function Ticker() {
   *   const { state, lastMessage, send } = useResilientSocket('wss://example.test/prices', { maxDelay: 10_000 });
   *   return <p>{state === 'open' ? lastMessage?.data : 'connecting…'}</p>;
   * }
   * ```
   */
  return function useResilientSocket(
    url: string | URL | UrlProvider | null | undefined,
    options: UseResilientSocketOptions = {},
  ): ResilientSocketHook {
    checkBindingOptions(options);
    // The callbacks (and the functions the socket calls) of the latest committed render, and what it reads.
    // With the function `useSyncExternalStore` subscribes with: made once, the same on every render.
    const [[user, subscribe]] = useState(() => {
      const made = sockets.user_();
      return [
        made,
        (notify: () => void) => {
          made.changed_ = notify;
          return () => {
            if (made.changed_ === notify) made.changed_ = undefined;
          };
        },
      ] as const;
    });
    const key = keyFor(user, url, options);
    const [held, setEntry] = useState<Entry | null>(null);
    // Until the effect below has moved to this render's key, the socket held is not this render's.
    const entry = held?.key_ === key ? held : null;
    // Before any other effect (a child's run before this component's, and may send or drop) and
    // never on a server: the latest render's callbacks, and, with a URL and no socket yet, what it
    // sends waits for the socket, taken in the effect below.
    useInsertionEffect(() => {
      user.onMessage = options.onMessage;
      user.onDrop = options.onDrop;
      user.filter = options.filter;
      if (entry) entry.latest_ = { ...options, url };
      if (key && !user.entry_) user.early_ ??= [];
    });
    // Runs when the key changes, with that render's URL and options (the insertion effect above has
    // given the user its callbacks); the key stands for them.
    // biome-ignore lint/correctness/useExhaustiveDependencies: url and options are what the key describes
    useEffect(() => {
      if (!key) return sockets.idle_(user);
      const shared = sockets.use_(user, key, url as string | URL | UrlProvider, options as Record<string, unknown>);
      setEntry(shared);
      return () => {
        sockets.letGo_(user, shared, options.closeDelay);
        setEntry(null);
      };
    }, [key, user]);
    const view = useSyncExternalStore(
      subscribe,
      () => (entry && user.view_) || IDLE,
      () => IDLE,
    );
    return {
      socket: entry?.socket_ ?? null,
      state: view.state,
      lastMessage: view.lastMessage,
      lastJsonMessage: jsonOf(view.lastMessage),
      send: user.send,
      sendJson: user.sendJson,
    };
  };
}
