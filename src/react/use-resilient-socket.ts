/**
 * `useResilientSocket(url, options?)`: a socket for React components, shared by every component
 * that asks for the same URL and options (compared by value), safe under StrictMode and on a
 * server. Nothing is made while rendering: the socket is acquired in an effect (so
 * `renderToString` touches no WebSocket, timer or `window`, and hydration connects once), and
 * components read its state through `useSyncExternalStore`.
 */
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { DropInfo } from '../core/events.js';
import type { BaseSocketOptions, UrlProvider } from '../core/options.js';
import type { BaseSocket, SendResult } from '../core/socket.js';
import type { SocketState } from '../core/states.js';
import type { Data } from '../data.js';
import { destinationOf } from './destination.js';
import { HOOK_OPTIONS, keyOf } from './key.js';
import {
  type Entry,
  handOver,
  hold,
  IDLE,
  type LastMessage,
  letGo,
  open,
  type Snapshot,
  tellDropped,
  type User,
} from './shared.js';

/** Options of {@link useResilientSocket}: the socket's (features included), and the hook's own. */
export interface UseResilientSocketOptions extends BaseSocketOptions {
  /**
   * Connect only while true (as `url: null` does when false): the state is then `'idle'`.
   * @default true
   * @example
   * ```ts
   * useResilientSocket(url, { enabled: loggedIn })
   * ```
   */
  enabled?: boolean;
  /**
   * Receives every message; with it, this component does not re-render on messages (for
   * high-rate feeds) and its `lastMessage` stays `null`. The latest render's function is called.
   * @default undefined (each message re-renders, as `lastMessage`)
   * @example
   * ```ts
   * useResilientSocket(url, { onMessage: (message) => chart.push(JSON.parse(String(message.data))) })
   * ```
   */
  onMessage?: (message: LastMessage) => void;
  /**
   * Told about messages that will never be sent (the socket's `drop` event), also those still
   * queued when the last component using the socket unmounted. Without it they are reported by a
   * console warning.
   * @default undefined (a console warning)
   * @example
   * ```ts
   * useResilientSocket(url, { onDrop: ({ reason, messages }) => toast(`${messages.length} not sent (${reason})`) })
   * ```
   */
  onDrop?: (info: DropInfo) => void;
  /**
   * How long (ms) a socket stays open after the last component using it unmounted, so that
   * StrictMode's unmount and remount, or a route change, keep the connection.
   * @default 250
   * @example
   * ```ts
   * useResilientSocket(url, { closeDelay: 2_000 })
   * ```
   */
  closeDelay?: number;
}

/** What {@link useResilientSocket} returns. */
export interface ResilientSocketHook {
  /** The shared socket (`null` without a URL, while disabled, on a server and before the first effect). */
  readonly socket: BaseSocket | null;
  /** Its state; `'idle'` without a socket. Re-renders on every change. */
  readonly state: SocketState;
  /** The latest message (read `.data`, as from a `MessageEvent`), `null` before the first one or with `onMessage`. */
  readonly lastMessage: LastMessage | null;
  /** Sends through the socket (queued until it opens); the same function on every render. `'dropped'` without a socket. */
  readonly send: (data: Data) => SendResult;
}

const noop = (): void => {};

/** The hook for sockets of class `Socket` (the browser core, or the Node one with the ws transport). */
export function hookFor(Socket: typeof BaseSocket) {
  const registry = new Map<string, Entry>();

  /** The socket for `url` and `options`: shared, or made (its function options call the latest render's). */
  function acquire(key: string, url: string | URL | UrlProvider, options: Record<string, unknown>): Entry {
    const known = registry.get(key);
    if (known) return known;
    const first: Record<string, unknown> = { ...options, url };
    let entry: Entry | undefined;
    // The socket may call a provider before the entry exists (the first attempt starts at once).
    const latest =
      (name: string) =>
      (...args: unknown[]) =>
        ((entry?.latest ?? first)[name] as (...a: unknown[]) => unknown)(...args);
    const forSocket: Record<string, unknown> = {};
    for (const name of Object.keys(options)) {
      const value = options[name];
      if (HOOK_OPTIONS.includes(name)) continue;
      forSocket[name] =
        typeof value === 'function' && name !== 'WebSocket' && name !== 'backoff' ? latest(name) : value;
    }
    const socket = new Socket((typeof url === 'function' ? latest('url') : url) as UrlProvider, forSocket);
    entry = open(registry, key, typeof url === 'function' ? '' : destinationOf(String(url)), socket, first);
    registry.set(key, entry);
    return entry;
  }

  /**
   * A socket for this component: `{ socket, state, lastMessage, send }`. `url` `null` (or
   * `enabled: false`) means no connection (state `'idle'`). Components asking for the same URL and
   * options (by value) share one socket, closed `closeDelay` ms after the last one unmounts.
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
    const on = url !== null && url !== undefined && options.enabled !== false;
    const key = on ? keyOf([url, keyOf(options, HOOK_OPTIONS)]) : '';
    const props = useRef({ url, options });
    props.current = { url, options };
    const [held, setEntry] = useState<Entry | null>(null);
    // Until the effect below has moved to this render's key, the socket held is not this render's.
    const entry = held?.key === key ? held : null;
    // The entry held since the last effect: what send() uses, also from effects that run before the re-render.
    const current = useRef<Entry | null>(null);
    // The callbacks (and the functions the socket calls) of the latest committed render.
    const user = useRef<User>({}).current;
    useEffect(() => {
      user.onMessage = options.onMessage;
      user.onDrop = options.onDrop;
      if (entry) entry.latest = { ...options, url };
    });
    useEffect(() => {
      if (!key) return;
      const { url: target, options: given } = props.current;
      const shared = acquire(key, target as string | URL | UrlProvider, given as Record<string, unknown>);
      user.onMessage = given.onMessage;
      user.onDrop = given.onDrop;
      hold(shared, user);
      // Messages still queued on the socket this component just left follow it to the same destination.
      if (user.from && user.from !== shared) handOver(registry, user.from, shared);
      user.from = undefined;
      current.current = shared;
      setEntry(shared);
      const delay = given.closeDelay ?? 250;
      return () => {
        current.current = null;
        user.from = shared;
        letGo(registry, shared, user, delay);
        setEntry(null);
      };
    }, [key, user]);
    const quiet = options.onMessage !== undefined;
    const subscribe = useCallback(
      (notify: () => void) => {
        if (!entry) return noop;
        entry.notify.add(notify);
        return () => {
          entry.notify.delete(notify);
        };
      },
      [entry],
    );
    const snapshot: Snapshot = useSyncExternalStore(
      subscribe,
      () => (entry ? (quiet ? entry.quiet : entry.full) : IDLE),
      () => IDLE,
    );
    const send = useCallback(
      (data: Data): SendResult => {
        const socket = current.current?.socket;
        if (socket) return socket.send(data);
        tellDropped([user], { reason: 'not-connected', messages: [data] });
        return 'dropped';
      },
      [user],
    );
    return { socket: entry?.socket ?? null, state: snapshot.state, lastMessage: snapshot.lastMessage, send };
  };
}
