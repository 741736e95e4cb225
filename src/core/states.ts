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

/** What a state does, as the machine reads it: a row of {@link STATES} without its transitions. */
export type StateRule = Omit<StateBehaviour, 'next'>;

/** A rule, written compactly: `flags` 1 = sends directly, 2 = buffers sends, 4 = terminal. */
const rule = (flags: number, deadline?: Deadline): StateRule => ({
  sendsDirectly: (flags & 1) > 0,
  buffersSends: (flags & 2) > 0,
  terminal: (flags & 4) > 0,
  deadline,
});

/**
 * The state table the machine runs on: for each state, what `send()` does, whether it is terminal
 * and the deadline it arms (`enter_` arms it, `fire_` does what it says, `send_` and the close
 * report read the rest). {@link STATES} is this table with each state's transitions; only the
 * development check of the funnel reads those, so a production bundle carries them only when the
 * program imports `STATES`.
 * @internal
 */
export const RULES: Readonly<Record<SocketState, StateRule>> = {
  idle: /* @__PURE__ */ rule(2),
  connecting: /* @__PURE__ */ rule(2, 'connect'),
  open: /* @__PURE__ */ rule(3, 'stable'),
  reconnecting: /* @__PURE__ */ rule(2, 'retry'),
  closing: /* @__PURE__ */ rule(4, 'close'),
  closed: /* @__PURE__ */ rule(4),
};

/** One row of {@link STATES}: the state's rule and where it may go. */
const row = (state: SocketState, next: string): StateBehaviour =>
  Object.freeze({ ...RULES[state], next: Object.freeze(next.split(' ') as SocketState[]) });

/**
 * The per-state behaviour table (the machine's `RULES` and each state's transitions); the
 * state funnel refuses any transition not listed here.
 *
 * | state          | `send()`               | deadline  | next                                   |
 * | -------------- | ---------------------- | --------- | -------------------------------------- |
 * | `idle`         | queues                 | —         | connecting, closed                     |
 * | `connecting`   | queues                 | `connect` | open, reconnecting, closing, closed    |
 * | `open`         | sends                  | `stable`  | connecting, reconnecting, closing, closed |
 * | `reconnecting` | queues                 | `retry`   | connecting, closed                     |
 * | `closing`      | drops (`closed`)       | `close`   | closed                                 |
 * | `closed`       | drops (`closed`)       | —         | connecting                             |
 *
 * `closing` from `connecting`: close() while a gate (the handshake) holds an open socket.
 */
export const STATES: Readonly<Record<SocketState, StateBehaviour>> = /* @__PURE__ */ Object.freeze({
  idle: /* @__PURE__ */ row('idle', 'connecting closed'),
  connecting: /* @__PURE__ */ row('connecting', 'open reconnecting closing closed'),
  open: /* @__PURE__ */ row('open', 'connecting reconnecting closing closed'),
  reconnecting: /* @__PURE__ */ row('reconnecting', 'connecting closed'),
  closing: /* @__PURE__ */ row('closing', 'closed'),
  closed: /* @__PURE__ */ row('closed', 'connecting'),
});

/** The WebSocket-style ready state of a socket in `state`: CONNECTING (0) until open, OPEN (1), CLOSING (2), CLOSED (3). */
export function readyStateOf(state: SocketState): number {
  return Math.max(0, ['open', 'closing', 'closed'].indexOf(state) + 1);
}

/**
 * How long the deadline entering `state` arms lasts, in ms: `connect` is `connectTimeout`, `stable`
 * is `stableAfter` (0: none, stable at once), `close` is {@link CLOSE_TIMEOUT}, `retry` is the
 * `wait` given (none: no timer, a feature starts the next attempt); none for a state without one.
 */
export function deadlineOf(
  state: SocketState,
  o: { readonly connectTimeout: number; readonly stableAfter: number },
  wait?: number,
): number | undefined {
  const deadline = RULES[state].deadline;
  if (deadline === 'connect') return o.connectTimeout;
  if (deadline === 'stable') return o.stableAfter || undefined;
  return deadline === 'close' ? CLOSE_TIMEOUT : deadline && wait;
}

/** Whether `from → to` is a legal transition. */
export function canTransition(from: SocketState, to: SocketState): boolean {
  return STATES[from].next.includes(to);
}

/**
 * The core's timer slots, before the features' own: `PHASE` holds the current state's deadline,
 * `RETIRE` bounds the background close of a connection let go (`reconnect()`), `PRESSURE` watches
 * `bufferedAmount` while it is above the high-water mark.
 */
export const PHASE = 0;
export const RETIRE = 1;
export const PRESSURE = 2;
/** How many slots the core has: the first feature's slots come after them. */
export const CORE_SLOTS = 3;

/** How long `close()` (and `reconnect()`, in the background) waits for the server's close frame, in ms: the `close` deadline. */
export const CLOSE_TIMEOUT = 3_000;

/**
 * How long an attempt that reported an `error` before it opened waits for its `close`, in ms: the
 * `connect` deadline shortened. Browsers, ws, Bun, Deno and Node ≥ 24 send `close` right after;
 * Node 22's WebSocket sends none after a refused connection, and its attempt ends here instead
 * (reported as a close with code 1006).
 */
export const ERROR_GRACE = 100;

/**
 * How long the socket waits for a `shouldReconnect` that returned a promise, in ms (the `retry`
 * deadline while it decides). A promise that has not settled by then is reported
 * (`ERR_RS_CALLBACK_FAILED`) and counts as `true`.
 */
export const SHOULD_RECONNECT_TIMEOUT = 10_000;
