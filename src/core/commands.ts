/**
 * What a socket's users ask of its machine (`./machine.ts`): send a message, open, reconnect,
 * close. The faces (`BaseSocket`, `ResilientWebSocket`, a `SharedSocket` tab) check the arguments
 * and call these; so does tab sharing for what one tab asks of another's connection (a leader
 * writing a follower's messages, running its `open()` or `reconnect()`).
 *
 * @internal
 */
import { byteLengthOf, type Data, ownCopy } from '../data.js';
import type { CloseInfo } from './close-codes.js';
import { closeSocket } from './connection.js';
import type { Machine } from './machine.js';
import { Queue } from './queue.js';
import { RULES } from './states.js';

/** WebSocket `readyState` OPEN. */
const OPEN = 1;
/** The close code reported for a connection closed without one (`close()` with no code sends none). */
const NO_STATUS = 1005;

/** What `send()` did with a message. */
export type SendResult = 'sent' | 'buffered' | 'dropped';

/**
 * Sends now when open; otherwise queues (unless `buffer` is false), copying binary data first. A
 * message that can be neither sent nor queued is reported by a `drop`.
 */
export function send(machine: Machine, data: Data, buffer: boolean): SendResult {
  // What each state's send() does (`RULES`): open sends, closing and closed drop, the rest queue.
  if (refuses(machine)) return machine.dropOne_('closed', data);
  const ws = machine.attempt_?.socket;
  if (RULES[machine.state_].sendsDirectly && ws?.readyState === OPEN && !machine.queue_) {
    try {
      machine.write_(ws, data);
      if (!machine.above_) machine.pressure_(); // (above it, the watch is on: drain comes from it, never from send())
      return 'sent';
    } catch (thrown) {
      // Still open: the socket refused this message itself, and always will. Otherwise it is
      // going down, and the message waits for the next connection.
      if (ws.readyState === OPEN) return machine.unsendable_([data], thrown);
    }
  }
  if (!buffer) return machine.dropOne_('not-connected', data);
  let own: Data;
  try {
    own = ownCopy(data);
  } catch (thrown) {
    return machine.unsendable_([data], thrown);
  }
  // A feature may expire old messages (a drop listener may close the socket) or refuse this one.
  if (machine.run_('admit', byteLengthOf(own))) return machine.dropOne_('overflow', data);
  if (refuses(machine)) return machine.dropOne_('closed', data);
  const { maxMessages, maxBytes, clock } = machine.config_;
  machine.queue_ ??= new Queue(maxMessages, maxBytes);
  const queue = machine.queue_;
  const evicted = queue.push(own, clock.now());
  if (!evicted) {
    if (!queue.length) machine.queue_ = undefined;
    return machine.dropOne_('overflow', data);
  }
  machine.drop_('overflow', evicted);
  // A drop listener that closed the socket made close() report this message as dropped too.
  if (machine.disposed_) return 'dropped';
  if (!machine.above_) machine.pressure_();
  return 'buffered';
}

/** Whether `send()` drops every message now: the socket is closed for good, or its state drops them (`RULES`). */
function refuses(machine: Machine): boolean {
  return machine.disposed_ || !RULES[machine.state_].buffersSends;
}

/** Starts connecting from `idle` or `closed` (after a give-up); does nothing in the other states. */
export function open(machine: Machine): void {
  if (machine.state_ !== 'idle' && machine.state_ !== 'closed') return;
  machine.resetRun_();
  machine.startAttempt_('open() called');
}

/**
 * Lets the current connection go (an open one politely: a close frame, its handshake finished in
 * the background) and connects again now, with a fresh backoff.
 */
export function reconnect(machine: Machine, code: number | undefined, reason: string): void {
  machine.resetRun_();
  const deciding = machine.deciding_;
  machine.deciding_ = undefined;
  const attempt = machine.attempt_;
  const ws = attempt?.socket;
  let ended: CloseInfo | undefined;
  if (attempt && ws) {
    if (ws.readyState === OPEN) {
      machine.endAttempt_(attempt, 'retire');
      try {
        closeSocket(ws, code, reason);
      } catch {
        machine.dropRetiring_();
      }
    } else machine.endAttempt_(attempt, 'abort', reason); // not open yet: cut (as close() does)
    ended = { code: code ?? NO_STATUS, reason, wasClean: false };
  } else if (attempt) machine.endAttempt_(attempt, 'abort');
  machine.startAttempt_('reconnect() called');
  if (deciding?.close) machine.emitClose_(deciding.close);
  if (ended) machine.emitClose_(ended);
}

/**
 * Closes for good: stops reconnecting, drops (and reports) queued messages, closes the connection
 * with `code`/`reason` (an open one politely, waiting for the server's answer; without a code,
 * none is sent) and leaves no timer or listener behind. Idempotent.
 */
export function close(machine: Machine, code: number | undefined, reason: string): void {
  if (machine.disposed_) return;
  machine.disposed_ = true;
  machine.run_('dispose');
  machine.disarmAll_();
  machine.dropRetiring_();
  const deciding = machine.deciding_;
  machine.deciding_ = undefined;
  const queued = machine.takeQueued_();
  const attempt = machine.attempt_;
  const ws = attempt?.socket;
  if (attempt && ws?.readyState === OPEN) {
    // Open (or in a gate): the features let go of it, and it closes politely, waiting for the
    // server's answer (the `closing` deadline cuts it after CLOSE_TIMEOUT).
    machine.run_('end', attempt);
    machine.enter_('closing', 'close() called');
    machine.drop_('closed', queued);
    try {
      closeSocket(ws, code, reason);
    } catch {
      // the deadline cuts the connection
    }
    return;
  }
  const hadSocket = attempt !== undefined && machine.endAttempt_(attempt, 'abort', reason);
  machine.enter_('closed', 'close() called');
  if (deciding?.close) machine.emitClose_(deciding.close);
  if (hadSocket) machine.emitClose_({ code: code ?? NO_STATUS, reason, wasClean: false });
  machine.drop_('closed', queued);
}
