/**
 * How a socket tells its users: events, errors and drops, emitted so that a listener that throws
 * never disturbs the machine (the state has changed before anything is emitted), and a callback
 * that fails is reported, never rethrown where it would end a Node process.
 */
import type { Data } from '../data.js';
import { isResilientSocketError, ResilientSocketError } from '../errors.js';
import { describeThrown } from '../validation.js';
import type { DropReason, ResilientSocketEvents } from './events.js';
import type { Machine } from './machine.js';

/** Emits on the socket; what a listener throws is reported as `ERR_RS_LISTENER_THREW`. */
export function emit<E extends keyof ResilientSocketEvents>(m: Machine, event: E, ...args: ResilientSocketEvents[E]): void {
  try {
    m.socket_.emit(event, ...args);
  } catch (thrown) {
    if (event === 'error') surface(listenerError('An `error` listener', thrown));
    else reportUserError(m, isResilientSocketError(thrown) ? thrown : listenerError('A listener', thrown));
  }
}

/** Reports a failure of the socket (`error`; `stats.lastError`). */
export function report(m: Machine, error: ResilientSocketError): void {
  m.lastError_ = error;
  emit(m, 'error', error);
}

/**
 * Reports a failure of user code (a listener, a callback from the options) as an `error` event,
 * or, with no `error` listener, through {@link surface}.
 */
export function reportUserError(m: Machine, error: ResilientSocketError): void {
  if (m.socket_.listenerCount('error') === 0) {
    surface(error);
    return;
  }
  try {
    m.socket_.emit('error', error);
  } catch (again) {
    surface(listenerError('An `error` listener', again));
  }
}

/** Reports messages that will never be sent (if there are any). */
export function drop(m: Machine, reason: DropReason, messages: Data[]): void {
  if (messages.length === 0) return;
  m.dropped_ += messages.length;
  emit(m, 'drop', { reason, messages });
}

/** Messages the WebSocket refused while open: they can never be written (an error, then their drop). */
export function unsendable(m: Machine, messages: Data[], cause: unknown): 'dropped' {
  const what = messages.length === 1 ? 'a message' : `${messages.length} messages`;
  report(
    m,
    new ResilientSocketError('ERR_RS_UNSENDABLE', `The WebSocket refused ${what} while open (dropped): ${describeThrown(cause)}`, {
      cause,
    }),
  );
  drop(m, 'unsendable', messages);
  return 'dropped';
}

/** Takes every queued message out (to report them dropped). */
export function takeQueued(m: Machine): Data[] {
  const all = m.queue_?.drain() ?? [];
  m.queue_ = undefined;
  return all;
}

/** An `ERR_RS_CALLBACK_FAILED` for the option callback `name` that threw, rejected or timed out. */
export function callbackError(name: string, what: string, thrown: unknown): ResilientSocketError {
  return new ResilientSocketError('ERR_RS_CALLBACK_FAILED', `\`${name}\` ${what}: ${describeThrown(thrown)}`, {
    cause: thrown,
  });
}

/** An `ERR_RS_LISTENER_THREW` for what a listener threw. */
function listenerError(who: string, thrown: unknown): ResilientSocketError {
  return new ResilientSocketError('ERR_RS_LISTENER_THREW', `${who} threw: ${describeThrown(thrown)}`, { cause: thrown });
}

/**
 * Shows a failure of user code that no `error` listener hears (or that an `error` listener itself
 * threw) without throwing it anywhere, since user code must never be fatal: a throw from a timer
 * or a microtask ends a Node process. Where the platform has `reportError` (browsers, Deno, Bun)
 * it goes there, as an uncaught error would (console, `window.onerror`, error trackers); in Node it
 * becomes a process warning (printed on stderr). The idea is xstate's `reportUnhandledError`,
 * made non-fatal.
 */
function surface(error: ResilientSocketError): void {
  const g = globalThis as { reportError?: (error: unknown) => void; process?: { emitWarning?: (warning: Error) => void } };
  try {
    if (typeof g.reportError === 'function') g.reportError(error);
    else if (typeof g.process?.emitWarning === 'function') g.process.emitWarning(error);
    else console.error(error);
  } catch {
    // nowhere left to tell
  }
}
