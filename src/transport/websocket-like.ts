/**
 * The minimal WebSocket shape the package drives: the browser API, which `ws`, mock-socket,
 * undici and Deno all provide. Keeping our code behind this interface lets any of them (or a test
 * double) be passed as the `WebSocket` option.
 */

/** The events we listen to, with only the fields we read. */
export interface MessageEventLike {
  readonly data: unknown;
}
export interface CloseEventLike {
  readonly code?: number;
  readonly reason?: string;
  readonly wasClean?: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: listeners of foreign WebSocket implementations take their own event types.
type AnyListener = (event: any) => void;

/** One underlying WebSocket connection. */
export interface WebSocketLike {
  readonly readyState: number;
  readonly protocol?: string;
  binaryType?: string;
  send(data: never): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: string, listener: AnyListener): void;
  removeEventListener(type: string, listener: AnyListener): void;
  // The ws-only members are declared as methods (not function-typed properties) with `any`
  // listener arguments, so that ws's overloaded signatures, and classes extending ws, are
  // assignable: TypeScript compares method parameters bivariantly.
  /** `ws` only: a protocol-level ping. */
  ping?(data?: unknown, mask?: boolean, callback?: (error?: Error) => void): void;
  /** `ws` only: destroy the connection at once, without a closing handshake. */
  terminate?(): void;
  /** `ws` only (Node EventEmitter): `open`, `message`, `close`, `error`, `pong`, `unexpected-response`. */
  // biome-ignore lint/suspicious/noExplicitAny: ws's listeners take event-specific arguments.
  on?(event: string, listener: (...args: any[]) => void): unknown;
  /** `ws` only. */
  // biome-ignore lint/suspicious/noExplicitAny: ws's listeners take event-specific arguments.
  off?(event: string, listener: (...args: any[]) => void): unknown;
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
export const ReadyState = Object.freeze({ CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
