/**
 * `heartbeat()`: dead-link detection, and the probe other features ask for (resume awareness).
 *
 * How a connection is watched (its mode, chosen when it opens):
 * - `protocol`: WebSocket ping frames, answered by the peer's pong (ws in Node);
 * - `message`: an application message every interval, answered by a message `isPong` accepts;
 * - `silence`: no ping; no incoming message for `interval + timeout` means dead;
 * - `off`: not watched (`heartbeat(false)`, or a browser socket with a heartbeat nobody configured).
 *
 * A heartbeat that sends pings requires their answers, so that a link dead only from client to
 * server is found even while the server keeps streaming; only in `silence` does any message count.
 * Worst case, a link that goes silent is declared dead `interval + timeout` later.
 *
 * Per socket it keeps two timer slots, `PING` (the next ping) and `PONG` (the deadline of the
 * answer, or of the next sign of life in `silence`), and, only while a resume probe awaits its
 * answer, the probe's timeout in its data slot. The mode is not kept: it follows from the options and the open
 * socket, so a watched connection costs no memory beyond its timers (the memory budget). No object
 * and no closure per socket or per connection.
 */

import type { Connection } from '../../core/connection.js';
import { clearTimer, type Feature, getData, type Host, hasTimer, setData, setTimer } from '../../core/feature.js';
import { callbackError } from '../../core/report.js';
import { LIVENESS, type Liveness } from '../../core/services.js';
import { type Data, isData } from '../../data.js';
import { ResilientSocketError } from '../../errors.js';
import type { WebSocketLike } from '../../transports/websocket-like.js';
import {
  assertFunction,
  assertKnownKeys,
  assertNumber,
  assertObjectOrFalse,
  describeReceived,
  describeThrown,
  typeError,
  withDefault,
} from '../../validation.js';
import { intern } from '../intern.js';

/**
 * Dead-link detection. It runs in one of three modes, and only an answer to its own kind of probe
 * proves the link alive:
 *
 * - **protocol ping** (ws, no `message`): a ping frame every `interval`, answered only by a pong
 *   frame. Messages do not count: a server that streams data but no longer answers pings is dead.
 * - **app-level ping** (`message` with `isPong`): `message` is sent every `interval` and answered
 *   only by an incoming message that `isPong` accepts; such answers are consumed (never emitted as
 *   `message`). Other messages do not count.
 * - **silence detection** (no `message`, no protocol ping: a browser WebSocket): nothing is sent,
 *   and any incoming message counts as a sign of life. This is the only mode in which it does.
 */
export interface HeartbeatOptions {
  /**
   * How often to probe the link, in ms (> 0).
   * @default 30_000
   * @example
   * ```ts
   * new ResilientSocket(url, { heartbeat: { interval: 15_000 } })
   * ```
   */
  interval?: number;
  /**
   * How long to wait for the answer to a probe before declaring the link dead, in ms (> 0): a pong
   * frame for a protocol ping, a message `isPong` accepts for an app-level ping, any message in
   * silence detection. A dead link is closed (`close` with code 1006, reason `'heartbeat timeout'`)
   * and reconnected, within `interval + timeout` of its last answer.
   * @default 10_000
   * @example
   * ```ts
   * new ResilientSocket(url, { heartbeat: { interval: 15_000, timeout: 5_000 } })
   * ```
   */
  timeout?: number;
  /**
   * An application-level ping to send every `interval` when the transport has no protocol ping
   * (browsers), or a function returning a fresh one each time. Requires `isPong`: a heartbeat that
   * sends pings must recognise their answers (a TypeError at construction otherwise). Without it,
   * and without protocol ping, the heartbeat watches for silence: no message for
   * `interval + timeout` means dead, and any incoming message counts as a sign of life.
   * @default undefined (protocol ping with ws; silence detection otherwise)
   * @example
   * ```ts
   * new ResilientSocket(url, { heartbeat: { message: '{"type":"ping"}', isPong: (d) => d === '{"type":"pong"}' } })
   * ```
   */
  message?: Data | (() => Data);
  /**
   * Recognises the server's answer to `message`; required when `message` is set. Only messages it
   * accepts answer a ping, and they are consumed (not emitted as `message`); every other message is
   * emitted and proves nothing. It is not consulted for protocol pings (only a pong frame answers
   * those) nor in silence detection (where any message is a sign of life).
   * @default undefined (required with `message`; unused without it)
   * @example
   * ```ts
   * new ResilientSocket(url, { heartbeat: { message: 'ping', isPong: (data) => data === 'pong' } })
   * ```
   */
  isPong?: (data: Data) => boolean;
}

/** The defaults of {@link HeartbeatOptions}. */
export const HEARTBEAT_DEFAULTS = /* @__PURE__ */ Object.freeze({ interval: 30_000, timeout: 10_000 });

// The timer slots.
const PING = 0;
const PONG = 1;
// The modes (computed from the options and the open socket: nothing kept per socket for them).
const OFF = 0;
const PROTOCOL = 1;
const MESSAGE = 2;
const SILENCE = 3;

interface Resolved {
  readonly interval: number;
  readonly timeout: number;
  readonly message: Data | (() => Data) | undefined;
  readonly isPong: ((data: Data) => boolean) | undefined;
  /** Watch at all (`heartbeat(false)`: only the probe). */
  readonly periodic: boolean;
  /** Configured by its user: watch for silence where there is no way to ping. */
  readonly explicit: boolean;
}

function resolve(value: unknown, explicit: boolean): Resolved {
  assertObjectOrFalse('heartbeat', value);
  if (value === false) {
    return { interval: 0, timeout: 0, message: undefined, isPong: undefined, periodic: false, explicit };
  }
  assertKnownKeys('heartbeat', value, ['interval', 'timeout', 'message', 'isPong']);
  const options = (value ?? {}) as HeartbeatOptions;
  const interval = withDefault(options.interval, HEARTBEAT_DEFAULTS.interval);
  const timeout = withDefault(options.timeout, HEARTBEAT_DEFAULTS.timeout);
  assertNumber('heartbeat.interval', interval, { above: 0 });
  assertNumber('heartbeat.timeout', timeout, { above: 0 });
  if (options.message !== undefined && typeof options.message !== 'function' && !isData(options.message)) {
    throw typeError(
      'heartbeat.message',
      process.env.NODE_ENV !== 'production'
        ? `Expected \`heartbeat.message\` to be a string, binary data or a function, got ${describeReceived(options.message)}`
        : '',
    );
  }
  if (options.message !== undefined && typeof options.isPong !== 'function') {
    // Otherwise any message would count as the answer: a server that streams data but no longer
    // handles pings would never be found dead, and its pongs would be emitted as messages.
    throw typeError(
      'heartbeat.isPong',
      process.env.NODE_ENV !== 'production'
        ? 'Expected `heartbeat.isPong` to be a function when `heartbeat.message` is set (a heartbeat that ' +
            'sends pings must recognise their answers; leave out `message` for silence detection), ' +
            `got ${describeReceived(options.isPong)}`
        : '',
    );
  }
  if (options.isPong !== undefined) assertFunction('heartbeat.isPong', options.isPong);
  return { interval, timeout, message: options.message, isPong: options.isPong, periodic: true, explicit };
}

/** The development message of a resume probe that got no answer: how long it waited. */
function probeText(timeout: unknown): string {
  return `No answer to the probe within ${String(timeout)} ms after a resume`;
}

/**
 * The heartbeat feature made from its options; `explicit` is false only for `ResilientSocket`'s
 * default heartbeat (nobody configured it: no silence detection where there is no ping).
 * @internal
 */
export function createHeartbeat(options: HeartbeatOptions | false | undefined, explicit: boolean): Feature {
  const settings = resolve(options, explicit);
  const canPing = (host: Host, ws: WebSocketLike): boolean => host.config_.transport.canPing_(ws);
  /** How the current connection is watched: chosen by the options and the socket, once it is open. */
  const modeOf = (host: Host): number => {
    const ws = host.attempt_?.opened_ ? host.attempt_.socket : undefined;
    if (!settings.periodic || !ws) return OFF;
    return settings.message !== undefined ? MESSAGE : canPing(host, ws) ? PROTOCOL : settings.explicit ? SILENCE : OFF;
  };
  /** Whether a resume probe awaits its answer (its data slot holds the probe's timeout meanwhile). */
  const probing = (host: Host, index: number): boolean => typeof getData(host, index) === 'number';

  /** Sends one ping; false when none went out (a failure is reported: a broken ping never declares the link dead). */
  const ping = (host: Host, ws: WebSocketLike, frame: boolean): boolean => {
    if (frame || settings.message === undefined) {
      try {
        ws.ping?.();
        return true;
      } catch {
        return false; // a socket that cannot even ping is going down; its close will tell
      }
    }
    let message: unknown;
    try {
      message = typeof settings.message === 'function' ? settings.message() : settings.message;
    } catch (thrown) {
      host.reportUserError_(
        callbackError(process.env.NODE_ENV !== 'production' ? '`heartbeat.message` threw' : '', thrown),
      );
      return false;
    }
    if (!isData(message)) {
      const problem = typeError(
        'heartbeat.message()',
        process.env.NODE_ENV !== 'production'
          ? `Expected \`heartbeat.message()\` to return a string or binary data, got ${describeReceived(message)}`
          : '',
      );
      host.reportUserError_(
        new ResilientSocketError(
          'ERR_RS_CALLBACK_FAILED',
          process.env.NODE_ENV !== 'production' ? `${problem.message}; no ping sent` : '',
          { cause: problem },
        ),
      );
      return false;
    }
    try {
      host.write_(ws, message);
    } catch (thrown) {
      if (ws.readyState === 1) {
        host.report_(
          new ResilientSocketError(
            'ERR_RS_UNSENDABLE',
            process.env.NODE_ENV !== 'production'
              ? `The WebSocket refused the heartbeat's ping while open: ${describeThrown(thrown)}`
              : '',
            { cause: thrown },
          ),
        );
      }
      return false;
    }
    return true;
  };

  /** An answer arrived (a pong, or a message isPong accepts): the deadline and the probe are over. */
  const answered = (host: Host, index: number): void => {
    setData(host, index, undefined);
    clearTimer(host, index, PONG);
  };

  /** A message arrived on the open connection (the hook, and a sign of life another feature consumed); whether it was the pong. */
  const message = (host: Host, index: number, _attempt: Connection, data: Data): boolean => {
    const mode = modeOf(host);
    if (host.state_ === 'closing') return false; // close() stopped the heartbeat
    if (mode === SILENCE) setTimer(host, index, PONG, settings.interval + settings.timeout);
    if (mode !== MESSAGE || !settings.isPong) return false;
    let pong = false;
    try {
      pong = settings.isPong(data) === true;
    } catch (thrown) {
      host.reportUserError_(
        callbackError(process.env.NODE_ENV !== 'production' ? '`heartbeat.isPong` threw' : '', thrown),
      );
    }
    if (pong) answered(host, index);
    return pong; // the answer is consumed, not emitted
  };

  const feature: Feature & { readonly [LIVENESS]: Liveness; readonly options_: Resolved } = {
    name: 'heartbeat',
    rank: 30,
    slots: 2,
    options_: settings,
    open(host, index) {
      const mode = modeOf(host);
      if (mode === SILENCE) setTimer(host, index, PONG, settings.interval + settings.timeout);
      else if (mode !== OFF) setTimer(host, index, PING, settings.interval);
      else if (settings.periodic) host.config_.transport.cannotPing_(host.config_.WebSocket); // the default, with no way to ping
    },
    message,
    pong(host, index) {
      const mode = modeOf(host);
      // App-level pings are answered by messages only.
      if (mode !== MESSAGE && (mode === PROTOCOL || probing(host, index))) answered(host, index);
    },
    timer(host, index, local) {
      const attempt = host.attempt_;
      const ws = attempt?.socket;
      if (!attempt || !ws) return;
      if (local === PONG) {
        if (probing(host, index)) {
          host.fail_(
            attempt,
            'ERR_RS_DEAD_LINK',
            process.env.NODE_ENV !== 'production' ? probeText(getData(host, index)) : '',
            'probe timeout',
          );
        } else {
          host.fail_(
            attempt,
            'ERR_RS_DEAD_LINK',
            process.env.NODE_ENV !== 'production' ? 'The heartbeat found the connection dead' : '',
            'heartbeat timeout',
          );
        }
        return;
      }
      // PING: the deadline before the ping (an answer may come back before send() returns), and
      // before the next ping: when both are due at once, the unanswered ping is found dead first.
      const armed = !hasTimer(host, index, PONG);
      if (armed) setTimer(host, index, PONG, settings.timeout);
      const sent = ping(host, ws, modeOf(host) === PROTOCOL);
      if (host.attempt_ !== attempt || host.state_ !== 'open') return; // a listener took over
      if (!sent && armed) clearTimer(host, index, PONG); // no ping went out: no answer to wait for
      setTimer(host, index, PING, settings.interval);
    },
    end(host, index) {
      clearTimer(host, index, PING);
      clearTimer(host, index, PONG);
      setData(host, index, undefined);
    },
    [LIVENESS]: {
      probe(host, index, timeout) {
        const attempt = host.attempt_;
        const ws = attempt?.socket;
        if (!attempt?.opened_ || !ws) return;
        const byMessage = modeOf(host) === MESSAGE;
        if (!byMessage && !canPing(host, ws)) return; // no way to ask: left to the heartbeat
        setData(host, index, timeout);
        if (!ping(host, ws, !byMessage)) {
          setData(host, index, undefined);
          return;
        }
        // Unless the answer came back while we were sending it.
        if (probing(host, index) && host.attempt_ === attempt) setTimer(host, index, PONG, timeout);
      },
      watching: (host) => modeOf(host) !== OFF,
      heard: message,
    },
  };
  return intern(feature);
}

/**
 * The `heartbeat` feature: dead-link detection, every `interval` ms (see {@link HeartbeatOptions}).
 * With ws, protocol pings; in browsers, `message` + `isPong` for app-level pings, or silence
 * detection without them. `heartbeat(false)` watches nothing but still lets `resume()` probe a
 * connection. `ResilientSocket`'s `heartbeat` option.
 * @throws TypeError / RangeError naming the option (`heartbeat.interval`, …).
 * @example
 * ```ts
 * new BaseSocket(url, { features: [heartbeat({ interval: 15_000, timeout: 5_000 })] })
 * ```
 */
export function heartbeat(options?: HeartbeatOptions | false): Feature {
  return createHeartbeat(options, true);
}
