/**
 * The states of a {@link ResilientSocket} and what each one does.
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

/** What a state means for `send()` and for the machine. */
export interface StateBehaviour {
  /** `send()` writes straight to the socket. */
  readonly sendsDirectly: boolean;
  /** `send()` queues in the outbound buffer. */
  readonly buffersSends: boolean;
  /** No connection will be made from here without a call to `open()`/`reconnect()`. */
  readonly terminal: boolean;
  /** The states this one may change to. */
  readonly next: readonly SocketState[];
}

/** The per-state behaviour table; `setState` refuses any transition not listed here. */
export const STATES: Readonly<Record<SocketState, StateBehaviour>> = Object.freeze({
  idle: { sendsDirectly: false, buffersSends: true, terminal: false, next: ['connecting', 'closed'] },
  connecting: {
    sendsDirectly: false,
    buffersSends: true,
    terminal: false,
    // closing: close() while the handshake hook runs on an open socket (a close frame is sent).
    next: ['open', 'reconnecting', 'closing', 'closed'],
  },
  open: {
    sendsDirectly: true,
    buffersSends: true,
    terminal: false,
    next: ['connecting', 'reconnecting', 'closing', 'closed'],
  },
  reconnecting: { sendsDirectly: false, buffersSends: true, terminal: false, next: ['connecting', 'closed'] },
  closing: { sendsDirectly: false, buffersSends: false, terminal: true, next: ['closed'] },
  closed: { sendsDirectly: false, buffersSends: false, terminal: true, next: ['connecting'] },
});

/** Whether `from → to` is a legal transition. */
export function canTransition(from: SocketState, to: SocketState): boolean {
  return STATES[from].next.includes(to);
}
