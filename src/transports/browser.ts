/**
 * The browser transport: any WebSocket with the browser API (browsers, Deno, Bun, Node ≥ 22's
 * global, undici, mock-socket), listened to with `addEventListener`. No implementation of its own:
 * the `WebSocket` option, else the global one; without either the socket says to pass one.
 */
import type { Bound, Transport } from './transport.js';
import { type CloseEventLike, closeCodeOf, type MessageEventLike, type WebSocketLike } from './websocket-like.js';

// biome-ignore lint/suspicious/noExplicitAny: listeners of foreign WebSocket implementations take their own event types.
type Listener = (...args: any[]) => void;

/** Listens with closures of its own per connection (implementations need not call a listener with `this` = the socket). */
function bind(connection: Bound, socket: WebSocketLike): void {
  const owner = connection.owner_;
  const listeners: [string, Listener][] = [
    ['open', () => owner.opened_(connection)],
    ['message', (event: MessageEventLike) => owner.received_(connection, event.data)],
    [
      'error',
      (event: { error?: unknown } | undefined) => {
        connection.error_ = event?.error ?? event;
        owner.errored_(connection);
      },
    ],
    [
      'close',
      (event: CloseEventLike | undefined) => {
        detach(connection);
        owner.closed_(
          connection,
          {
            code: closeCodeOf(event?.code),
            reason: typeof event?.reason === 'string' ? event.reason : '',
            wasClean: event?.wasClean === true,
          },
          // An `error` before `close`: the WebSocket failed the connection (a malformed frame, …).
          connection.error_ === undefined
            ? undefined
            : new Error(process.env.NODE_ENV !== 'production' ? 'the WebSocket reported an error' : '', {
                cause: connection.error_,
              }),
        );
      },
    ],
  ];
  for (const [type, listener] of listeners) socket.addEventListener(type, listener);
  connection.binding_ = listeners;
  connection.socket = socket;
}

/**
 * Removes every listener we added. If the socket is not closed yet, one error absorber stays until
 * its `close` (an EventEmitter-based socket such as ws throws on an unheard `error`).
 */
function detach(connection: Bound): void {
  const listeners = connection.binding_ as [string, Listener][] | undefined;
  const socket = connection.socket;
  if (!listeners || !socket) return;
  connection.binding_ = undefined;
  for (const [type, listener] of listeners) socket.removeEventListener(type, listener);
  if (socket.readyState !== 3) {
    const absorb = (): void => undefined;
    const cleanup = (): void => {
      socket.removeEventListener('error', absorb);
      socket.removeEventListener('close', cleanup);
    };
    socket.addEventListener('error', absorb);
    socket.addEventListener('close', cleanup);
  }
}

/** The `binaryType` values of a WebSocket with the browser API. */
export const BROWSER_BINARY_TYPES: readonly string[] = ['blob', 'arraybuffer'];

/** The transport of the browser build (and of `BaseSocket`/`ResilientSocket` wherever no other is installed). */
export const browserTransport: Transport = {
  preferred_: () => undefined,
  cannotPing_: () => undefined,
  checkOptions_: () => undefined,
  bind_: bind,
  detach_: detach,
  canPing_: () => false,
  binaryTypes_: () => BROWSER_BINARY_TYPES,
};
