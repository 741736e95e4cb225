/**
 * The minimal WebSocket shape the package drives: the browser API, which `ws`, mock-socket,
 * undici and Deno all provide. Keeping our code behind this interface lets any of them (or a test
 * double) be passed as the `WebSocket` option.
 */

/** The `message` event, with only the field we read. */
export interface MessageEventLike {
  /** The message: a string, or binary data in the socket's `binaryType`. */
  readonly data: unknown;
}
/** The `close` event, with only the fields we read. */
export interface CloseEventLike {
  /** The close code (1006 when there was no close frame). */
  readonly code?: number;
  /** The close reason. */
  readonly reason?: string;
  /** Whether the closing handshake completed. */
  readonly wasClean?: boolean;
}

/** A listener of any event type of any WebSocket implementation. */
// biome-ignore lint/suspicious/noExplicitAny: listeners of foreign WebSocket implementations take their own event types.
export type AnyListener = (event: any) => void;

/** One underlying WebSocket connection. */
export interface WebSocketLike {
  /** 0 connecting, 1 open, 2 closing, 3 closed (see {@link ReadyState}). */
  readonly readyState: number;
  /** The subprotocol the server selected ('' if none). */
  readonly protocol?: string;
  /** Bytes `send()` took that are not on the wire yet (a WebSocket's; read by the back-pressure watch). */
  readonly bufferedAmount?: number;
  /** How binary messages are delivered: `'blob'` or `'arraybuffer'` in browsers, also `'nodebuffer'` in ws. */
  binaryType?: string;
  /** Sends one message. */
  send(data: never): void;
  /** Starts the closing handshake. */
  close(code?: number, reason?: string): void;
  /** Listens to `open`, `message`, `close` or `error`. */
  addEventListener(type: string, listener: AnyListener): void;
  /** Stops listening. */
  removeEventListener(type: string, listener: AnyListener): void;
  // The ws-only members are declared as methods (not function-typed properties), so that ws's
  // signatures, and classes extending ws, are assignable: TypeScript compares method parameters
  // bivariantly. (ws's EventEmitter API is found at run time: src/transports/ws/binding.ts.)
  /** `ws` only: a protocol-level ping. */
  ping?(data?: unknown, mask?: boolean, callback?: (error?: Error) => void): void;
  /** `ws` only: destroy the connection at once, without a closing handshake. */
  terminate?(): void;
}

/**
 * A WebSocket constructor: `new (url, protocols?, options?)`. The third argument is passed only
 * when the `wsOptions` option is set (it is `ws`'s client options: headers, TLS, agent, …).
 */
export type WebSocketConstructorLike = new (
  url: string,
  protocols?: string | string[],
  // biome-ignore lint/suspicious/noExplicitAny: each implementation has its own options type.
  options?: any,
) => WebSocketLike;

/** WebSocket `readyState` values. */
export const ReadyState = /* @__PURE__ */ Object.freeze({
  /** 0: the connection is not yet open. */
  CONNECTING: 0,
  /** 1: open; messages can be sent. */
  OPEN: 1,
  /** 2: the closing handshake is in progress. */
  CLOSING: 2,
  /** 3: closed, or it could not be opened. */
  CLOSED: 3,
});

/**
 * The close code to report for what a WebSocket said: codes outside the protocol's range (an
 * integer in 1000–4999, RFC 6455 §7.4.2) become 1006, the connection closed abnormally. Deno
 * reports a connection it could not make with code 0; a missing code is 1006 as well.
 */
export function closeCodeOf(code: unknown): number {
  return Number.isInteger(code) && (code as number) >= 1000 && (code as number) <= 4999 ? (code as number) : 1006;
}
