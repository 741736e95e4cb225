/**
 * The options the framework bindings (React's hook, Vue's composable) add to the socket's: the
 * same names and meaning in both.
 */
import type { DropInfo } from '../core/events.js';
import type { Data } from '../data.js';
import type { LastMessage } from './registry.js';

/** Options of `useResilientSocket` that are the binding's own (left out of the sharing key). */
export interface BindingOptions {
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
   * Receives every message; with it, this user does not update on messages (for high-rate
   * feeds: no re-render) and its `lastMessage` stays `null`. The latest function given is called;
   * what it throws is reported (`ERR_RS_LISTENER_THREW`), never fatal.
   * @default undefined (each message updates `lastMessage`)
   * @example
   * ```ts
   * useResilientSocket(url, { onMessage: (message) => chart.push(JSON.parse(String(message.data))) })
   * ```
   */
  onMessage?: (message: LastMessage) => void;
  /**
   * Which messages update this user's `lastMessage` and `lastJsonMessage` (and re-render it): a
   * message it refuses changes nothing here, while the other users of the shared socket and
   * `onMessage` still see every message. A filter that throws is reported
   * (`ERR_RS_LISTENER_THREW`) and refuses that message.
   * @default undefined (every message)
   * @example
   * ```ts
   * useResilientSocket(url, { filter: (data) => typeof data === 'string' && data.startsWith('{"type":"price"') })
   * ```
   */
  filter?: (data: Data) => boolean;
  /**
   * Told about messages that will never be sent (the socket's `drop` event), also those still
   * queued when the last user of the socket let go of it. Without it they are reported by a
   * console warning.
   * @default undefined (a console warning)
   * @example
   * ```ts
   * useResilientSocket(url, { onDrop: ({ reason, messages }) => toast(`${messages.length} not sent (${reason})`) })
   * ```
   */
  onDrop?: (info: DropInfo) => void;
  /**
   * How long (ms) a socket stays open after its last user let go of it (unmounted, its effect
   * scope disposed), so that React's StrictMode remount, a hot reload or a route change keep the
   * connection.
   * @default 250
   * @example
   * ```ts
   * useResilientSocket(url, { closeDelay: 2_000 })
   * ```
   */
  closeDelay?: number;
  /**
   * Share the socket with the other users asking for the same URL and options (compared by
   * value). `false`: a socket of this user's own, whatever the others ask for.
   * @default true
   * @example
   * ```ts
   * useResilientSocket(url, { share: false })
   * ```
   */
  share?: boolean;
}
