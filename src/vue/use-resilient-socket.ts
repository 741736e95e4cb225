/**
 * `useResilientSocket(url, options?)`: a socket for Vue 3 components and effect scopes, shared by
 * every user that asks for the same URL and options (compared by value, the React hook's rules:
 * one registry for both, `../bindings/registry.ts`). Inside a component nothing is made before it
 * is mounted, so that `renderToString` touches no WebSocket, timer or `window` and hydration
 * connects once; in an effect scope of its own the socket is taken at once. The user lets go when
 * its scope is disposed (the component unmounts, a hot reload, `scope.stop()`), and the socket
 * closes a grace period after its last user did; `<KeepAlive>` deactivation disposes nothing.
 */
import {
  type ComputedRef,
  computed,
  getCurrentInstance,
  getCurrentScope,
  type MaybeRefOrGetter,
  onMounted,
  onScopeDispose,
  shallowRef,
  toRaw,
  toValue,
  watch,
} from 'vue';
import type { BindingOptions } from '../bindings/options.js';
import {
  checkBindingOptions,
  type Entry,
  IDLE,
  jsonOf,
  keyFor,
  type LastMessage,
  registryFor,
  type Snapshot,
} from '../bindings/registry.js';
import type { BaseSocketOptions, UrlProvider } from '../core/options.js';
import type { BaseSocket, SendResult } from '../core/socket.js';
import type { SocketState } from '../core/states.js';
import { checkUrl } from '../core/target.js';
import type { Data } from '../data.js';
import { assertOptionsObject } from '../validation.js';

/** Options of {@link useResilientSocket}: the socket's (features included), and the binding's own. */
export interface UseResilientSocketOptions extends BaseSocketOptions, BindingOptions {}

/** What {@link useResilientSocket} returns: read-only refs, and the functions that send. */
export interface ResilientSocketRefs {
  /** The shared socket: `null` without a URL, while disabled, on a server and before the component is mounted. */
  readonly socket: ComputedRef<BaseSocket | null>;
  /** Its state; `'idle'` without a socket. */
  readonly state: ComputedRef<SocketState>;
  /**
   * The latest message (read `.data`, as from a `MessageEvent`) this user takes (see `filter`):
   * `null` before the first one or with `onMessage`.
   */
  readonly lastMessage: ComputedRef<LastMessage | null>;
  /**
   * `lastMessage`'s data parsed as JSON (once per message, for every user), `undefined` when there
   * is none or it is binary or not JSON. Never throws.
   */
  readonly lastJsonMessage: ComputedRef<unknown>;
  /** Sends through the socket (queued until it opens). `'dropped'` (and reported) without a socket. */
  readonly send: (data: Data) => SendResult;
  /**
   * Sends `value` as JSON text (`JSON.stringify`). A value JSON cannot write (`undefined`, a
   * function, a cycle) is a TypeError.
   */
  readonly sendJson: (value: unknown) => SendResult;
}

/** Whether the warning about a composable outside any effect scope was given (once per page). */
let warned = false;

/** The composable for sockets of class `Socket` (the browser core, or the Node one with the ws transport). */
export function composableFor(Socket: typeof BaseSocket) {
  const sockets = registryFor(Socket, 'resilient-socket/vue');

  /**
   * A socket for this component or effect scope (see the entry point's documentation).
   * @example
   * ```ts
   * const { state, lastMessage, send } = useResilientSocket(() => `wss://example.test/rooms/${room.value}`);
   * ```
   */
  return function useResilientSocket(
    url: MaybeRefOrGetter<string | URL | UrlProvider | null | undefined>,
    options?: MaybeRefOrGetter<UseResilientSocketOptions | undefined>,
  ): ResilientSocketRefs {
    const user = sockets.user_();
    const held = shallowRef<Entry | null>(null);
    const view = shallowRef(IDLE);
    // Called after the registry replaced the view: there is one.
    user.changed_ = () => {
      view.value = user.view_ as Snapshot;
    };
    let delay: number | undefined;
    const instance = getCurrentInstance();
    // In a component: from its mount on (never on a server). Elsewhere: at once.
    let live = !instance || instance.isMounted;
    // What a component sends before it is mounted (from setup()) waits for its socket, in a page;
    // on a server (no document: a server render is never mounted) it is dropped and reported.
    if (!live && typeof document !== 'undefined') user.early_ = [];

    /** The URL and options as of now (reactive reads), checked, and the key they make. */
    const read = () => {
      const target = toValue(url);
      if (typeof target !== 'function' && target != null) checkUrl('url', target);
      const given = toValue(options);
      assertOptionsObject('options', given);
      const raw = toRaw(given ?? {});
      checkBindingOptions(raw);
      return [keyFor(user, target, given ?? {}), target, raw] as const;
    };

    /**
     * Takes the latest callbacks, and moves to the socket of `key` when it is not the one held.
     * Nothing when `read` threw (Vue's error handler has what it threw, and gives the watcher
     * `undefined`): the socket held is kept.
     */
    const move = (now: ReturnType<typeof read> | undefined): void => {
      if (!now) return;
      const [key, target, given] = now;
      user.onMessage = given.onMessage;
      user.onDrop = given.onDrop;
      user.filter = given.filter;
      delay = given.closeDelay;
      const entry = held.value;
      if (entry && entry.key_ === key) {
        entry.latest_ = { ...given, url: target };
        return;
      }
      if (!live) return;
      if (entry) sockets.letGo_(user, entry, delay);
      if (key)
        held.value = sockets.use_(user, key, target as string | URL | UrlProvider, given as Record<string, unknown>);
      else {
        // No socket (no URL, disabled): what it sends now, and what waited for the mount, is reported.
        sockets.idle_(user);
        held.value = null;
      }
      view.value = (held.value && user.view_) || IDLE;
    };

    move(read());
    watch(read, move);
    if (instance && !live) {
      onMounted(() => {
        live = true;
        move(read());
      });
    }
    // Production builds skip the test: outside a scope Vue's `onScopeDispose` does nothing (and,
    // from Vue 3.5 on, `true` keeps its development build from warning).
    if (process.env.NODE_ENV === 'production' || getCurrentScope()) {
      onScopeDispose(() => {
        live = false;
        sockets.idle_(user);
        if (held.value) sockets.letGo_(user, held.value, delay);
        held.value = null;
        view.value = IDLE;
      }, true);
    } else if (!warned) {
      warned = true;
      console.warn(
        'resilient-socket/vue: useResilientSocket() was called outside a component and an effect scope: nothing will let go of its socket. Call it in setup() or in effectScope().run().',
      );
    }
    return {
      socket: computed(() => held.value?.socket_ ?? null),
      state: computed(() => view.value.state),
      lastMessage: computed(() => view.value.lastMessage),
      lastJsonMessage: computed(() => jsonOf(view.value.lastMessage)),
      send: user.send,
      sendJson: user.sendJson,
    };
  };
}
