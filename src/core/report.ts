/**
 * What reporting needs besides the machine: the error for a failed user callback, and the last
 * resort for a failure of user code that no `error` listener hears.
 */
import { ResilientSocketError } from '../errors.js';
import { redactUrl } from '../redact.js';
import { describeThrown } from '../validation.js';

/**
 * An `ERR_RS_CALLBACK_FAILED` for an option callback that threw, rejected or timed out: `what`
 * says which and how (``'`shouldReconnect` threw'``), written only in development (the caller
 * guards it, so that production bundles carry no such text).
 */
export function callbackError(what: string, thrown: unknown): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_CALLBACK_FAILED',
    process.env.NODE_ENV !== 'production' ? `${what}: ${describeThrown(thrown)}` : '',
    {
      cause: thrown,
    },
  );
}

/** An `ERR_RS_LISTENER_THREW` for what a listener threw (`who`: in the browser's code, written only in development). */
export function listenerError(who: string, thrown: unknown): ResilientSocketError {
  return new ResilientSocketError(
    'ERR_RS_LISTENER_THREW',
    process.env.NODE_ENV !== 'production' ? `${who} threw: ${describeThrown(thrown)}` : '',
    {
      cause: thrown,
    },
  );
}

/**
 * Shows a failure of user code that no `error` listener hears (or that an `error` listener itself
 * threw) without throwing it anywhere, since user code must never be fatal: a throw from a timer
 * or a microtask ends a Node process. Where the platform has `reportError` (browsers, Deno, Bun)
 * it goes there, as an uncaught error would (console, `window.onerror`, error trackers); in Node it
 * becomes a process warning (printed on stderr). The idea is xstate's `reportUnhandledError`,
 * made non-fatal.
 */
export function surface(error: ResilientSocketError): void {
  const g = globalThis as {
    reportError?: (error: unknown) => void;
    process?: { emitWarning?: (warning: Error) => void };
  };
  try {
    if (typeof g.reportError === 'function') g.reportError(error);
    else if (typeof g.process?.emitWarning === 'function') g.process.emitWarning(error);
    else console.error(error);
  } catch {
    // nowhere left to tell
  }
}

/** Kinds of what a socket warns about once, unheard (`Machine.unheard_`): bits. */
export const UNHEARD_GIVEUP = 1;
export const UNHEARD_DROP = 2;

/**
 * Says once what nobody hears: a socket that gave up, or dropped messages, with no listener for it
 * would otherwise end or lose data in silence (a Node process even exits 0). In Node it is a
 * process warning (stderr, `process.on('warning')`, `--no-warnings`), elsewhere `console.warn`.
 */
export function warn(code: string, message: string): void {
  const g = globalThis as {
    process?: { emitWarning?: (warning: string, options: { type: string; code: string }) => void };
    console?: { warn?: (...args: unknown[]) => void };
  };
  try {
    if (typeof g.process?.emitWarning === 'function') {
      g.process.emitWarning(message, { type: 'ResilientSocketWarning', code });
    } else g.console?.warn?.(`${message} (${code})`);
  } catch {
    // nowhere to tell
  }
}

/**
 * Warns once per socket and kind (`kind`: a bit) about what no listener heard, naming the socket
 * by its URL (redacted). Called only in development builds and Node.
 */
export function unheard(m: { warned_: number; url_: string }, kind: number, code: string, what: string): void {
  if (m.warned_ & kind) return;
  m.warned_ |= kind;
  const url = m.url_ ? ` to ${redactUrl(m.url_)}` : '';
  warn(code, `resilient-socket: the socket${url} ${what}; add a listener to handle it (said once per socket)`);
}
