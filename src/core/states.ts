/**
 * The states of a socket, and what each one does: the one state table.
 *
 * ```text
 *                 open()                      socket open (+ handshake)
 *   ┌──────┐  ─────────────►  ┌────────────┐  ───────────────────────►  ┌──────┐
 *   │ idle │                  │ connecting │                            │ open │
 *   └──────┘                  └────────────┘  ◄─── reconnect() ──────── └──────┘
 *      │                       │  ▲  │   │ close() during the handshake  │  │
 *      │      attempt failed,  │  │  │   └───────────────────────┐       │  │ connection lost,
 *      │      retries remain   ▼  │  │ fatal close / give up     │       │  │ retries remain
 *      │               ┌──────────────┐  (maxRetries, 401/403)   │       │  ▼
 *      │               │ reconnecting │◄─┼───────────────────────┼───────┼──┘
 *      │               └──────────────┘  │                       ▼       │ close()
 *      │      close()         │          ▼                  ┌─────────┐  │
 *      └──────────────────────┴─────►┌────────┐◄────────────│ closing │◄─┘
 *                                    │ closed │  closing    └─────────┘
 *                                    └────────┘  handshake done
 *                                        │ open() / reconnect() after a give-up (not after close())
 *                                        └──────────────► connecting
 * ```
 */

/** The states, in the order a connection usually goes through them. */
export type SocketState = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closing' | 'closed';

/**
 * The one deadline a state arms when it is entered (the state funnel clears it when the state is
 * left): `connect` (an attempt must open within `connectTimeout`), `stable` (an open connection
 * that lasts `stableAfter` resets the backoff), `retry` (the end of the backoff wait, or of an
 * async `shouldReconnect`'s answer), `close` (the server has `CLOSE_TIMEOUT` to answer `close()`).
 */
export type Deadline = 'connect' | 'stable' | 'retry' | 'close';

/** What a state means for `send()` and for the machine. */
export interface StateBehaviour {
  /** `send()` writes straight to the socket (when nothing older is queued). */
  readonly sendsDirectly: boolean;
  /** `send()` queues in the outbound buffer (otherwise it drops, reason `'closed'`). */
  readonly buffersSends: boolean;
  /** No connection will be made from here without a call to `open()`/`reconnect()`. */
  readonly terminal: boolean;
  /** The deadline entering this state arms, if any (see {@link Deadline}). */
  readonly deadline: Deadline | undefined;
  /** The states this one may change to. */
  readonly next: readonly SocketState[];
}

/** The per-state behaviour table; the state funnel refuses any transition not listed here. */
export const STATES: Readonly<Record<SocketState, StateBehaviour>> = /* @__PURE__ */ Object.freeze({
  idle: { sendsDirectly: false, buffersSends: true, terminal: false, deadline: undefined, next: ['connecting', 'closed'] },
  connecting: {
    sendsDirectly: false,
    buffersSends: true,
    terminal: false,
    deadline: 'connect',
    // closing: close() while the handshake hook runs on an open socket (a close frame is sent).
    next: ['open', 'reconnecting', 'closing', 'closed'],
  },
  open: {
    sendsDirectly: true,
    buffersSends: true,
    terminal: false,
    deadline: 'stable',
    next: ['connecting', 'reconnecting', 'closing', 'closed'],
  },
  reconnecting: {
    sendsDirectly: false,
    buffersSends: true,
    terminal: false,
    deadline: 'retry',
    next: ['connecting', 'closed'],
  },
  closing: { sendsDirectly: false, buffersSends: false, terminal: true, deadline: 'close', next: ['closed'] },
  closed: { sendsDirectly: false, buffersSends: false, terminal: true, deadline: undefined, next: ['connecting'] },
});

/** Whether `from → to` is a legal transition. */
export function canTransition(from: SocketState, to: SocketState): boolean {
  return STATES[from].next.includes(to);
}
