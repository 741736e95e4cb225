/**
 * The state funnel and the deadlines: the one place the state changes, and what each state's
 * deadline does when it fires (the state table is `./states.ts`).
 */
import { callbackError } from './report.js';
import type { Connection } from './connection.js';
import { HOST } from './host.js';
import type { Machine } from './machine.js';
import { canTransition, STATES, type SocketState } from './states.js';

/** The core's timer slots: `PHASE` is the current state's deadline, `RETIRE` bounds reconnect()'s background close. */
export const PHASE = 0;
export const RETIRE = 1;

/** How long `close()` (and `reconnect()`, in the background) waits for the server's close frame, in ms. */
export const CLOSE_TIMEOUT = 3_000;

/**
 * How long the socket waits for a `shouldReconnect` that returned a promise, in ms. A promise that
 * has not settled by then is reported (`ERR_RS_CALLBACK_FAILED`) and counts as `true`.
 */
export const SHOULD_RECONNECT_TIMEOUT = 10_000;

/**
 * Enters `next`: clears the deadline of the state it leaves and arms the one of the state it
 * enters (`wait` is the `retry` deadline's duration: the backoff delay, or how long an async
 * `shouldReconnect` may take; none while waiting for the network), tells the features, and emits
 * `state` before anything else tells about the change. Entering the state it is in only re-arms
 * the deadline (a `reconnect()` while connecting).
 */
export function enter(m: Machine, next: SocketState, reason: string, wait?: number): void {
  const previous = m.state_;
  const config = m.config_;
  m.timers_.clear(PHASE);
  const deadline = STATES[next].deadline;
  const ms =
    deadline === 'connect'
      ? config.connectTimeout
      : deadline === 'stable'
        ? config.stableAfter || undefined // 0: stable at once, once `open` was emitted
        : deadline === 'close'
          ? CLOSE_TIMEOUT
          : wait;
  if (ms !== undefined && Number.isFinite(ms)) m.timers_.set(PHASE, ms);
  if (previous === next) return;
  if (!canTransition(previous, next)) {
    throw new Error(`resilient-socket internal error: illegal transition ${previous} → ${next} (${reason})`);
  }
  m.state_ = next;
  m.changes_++;
  config.features.forEach((f, me) => f.state?.(HOST, m, me, previous, next));
  m.emit_('state', { previous, current: next, reason });
}

/** A timer slot is due: the core's (the state's deadline, a retiring connection's), or a feature's. */
export function onTimer(m: Machine, slot: number): void {
  if (slot === PHASE) onDeadline(m);
  else if (slot === RETIRE) m.dropRetiring_(); // its time is up: cut it
  else {
    const config = m.config_;
    const me = config.slotOwner[slot] as number;
    config.features[me]?.timer?.(HOST, m, me, slot - (config.slotBase[me] as number));
  }
}

/** What the current state's deadline does (see `Deadline` in `./states.ts`). */
function onDeadline(m: Machine): void {
  const attempt = m.attempt_;
  switch (STATES[m.state_].deadline) {
    case 'connect':
      if (attempt) {
        const message = `Connection attempt ${attempt.number} did not open within ${m.config_.connectTimeout} ms`;
        m.fail_(attempt, 'ERR_RS_CONNECT_TIMEOUT', message, 'connect timeout');
      }
      break;
    case 'stable':
      if (attempt) markStable(m, attempt);
      break;
    case 'retry': {
      const deciding = m.deciding_;
      if (!deciding) m.startAttempt_('retry');
      else {
        const problem = new Error(`did not settle within ${SHOULD_RECONNECT_TIMEOUT} ms; reconnecting`);
        deciding.notices.push(callbackError('shouldReconnect', 'timed out', problem));
        m.decided_(deciding, true);
      }
      break;
    }
    case 'close':
      m.finishClose_({ code: 1006, reason: 'close timeout', wasClean: false });
      break;
  }
}

/** The connection stayed open `stableAfter` ms: the failure count and the backoff reset. */
export function markStable(m: Machine, attempt: Connection): void {
  if (!m.isLive_(attempt) || m.state_ !== 'open') return;
  m.resetRun_();
  m.emit_('stable');
}
