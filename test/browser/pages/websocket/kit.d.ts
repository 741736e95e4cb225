/** The types of kit.js (the helpers of the WebSocket conformance code, in the page and in Node). */

/** What a call did: returned (a socket's `url`, for a constructor), or threw. */
export type KitOutcome =
  | { readonly ok: true; readonly url?: string }
  | { readonly ok: false; readonly type: string; readonly name: string; readonly message: string };

/** An event as `describeEvent` describes it. */
export interface Described {
  readonly type: string;
  readonly class: string;
  readonly isEvent: boolean;
  readonly isMessageEvent: boolean;
  readonly isCloseEvent: boolean;
  readonly isCustomEvent: boolean;
  readonly targetIsSocket: boolean;
  readonly currentTargetIsSocket: boolean;
  readonly bubbles: boolean;
  readonly cancelable: boolean;
  readonly isTrusted: boolean;
  readonly readyState: number;
  readonly data?: { readonly kind: string; readonly text?: string; readonly size?: number; readonly bytes?: number[] };
  readonly origin?: string;
  readonly lastEventId?: string;
  readonly code?: number;
  readonly reason?: string;
  readonly wasClean?: boolean;
}

/** A WebSocket class as the kit drives it (a native one, ws, or ResilientWebSocket). */
// biome-ignore lint/suspicious/noExplicitAny: any WebSocket-shaped constructor.
export type SocketClass = new (...args: any[]) => WebSocket;

export interface Kit {
  describeEvent(event: Event, ws: WebSocket): Described;
  /** `new WS(...args)`, closed by `closeAll()`. */
  make(WS: SocketClass, ...args: unknown[]): WebSocket;
  outcome(call: () => unknown): KitOutcome;
  /** Records the events of `types` (open, message, error, close by default), described. */
  record(ws: WebSocket, types?: string[]): Described[];
  /** `open@1`, `message@1 "text"`, `error@3`, `close@3 1005 "" clean`. */
  brief(log: readonly Described[]): string[];
  /** The log with every Blob's bytes read. */
  settle(log: Described[]): Promise<Described[]>;
  next(ws: WebSocket, type: string, ms?: number): Promise<Event>;
  sleep(ms: number): Promise<void>;
  closeAll(): void;
}

export function createKit(): Kit;
