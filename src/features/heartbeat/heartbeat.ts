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
 * answer, `true` in its data slot. The mode is not kept: it follows from the options and the open
 * socket, so a watched connection costs no memory beyond its timers (the memory budget). No object
 * and no closure per socket or per connection.
 */

import {
  clearTimer,
  type Feature,
  findFeature,
  getData,
  type Host,
  hasTimer,
  setData,
  setTimer,
} from '../../core/feature.js';
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

/** What the resume feature asks of the heartbeat: ask the connection now, answer within `timeout`. */
export interface HeartbeatService {
  /**
   * Pings the open connection the heartbeat's way (its `message`, or a protocol ping where the
   * socket has one) and declares it dead if no answer comes within `timeout` ms (reason
   * `'probe timeout'`). A connection with no way to ask is left alone.
   */
  probe(m: Host, me: number, timeout: number): void;
  /** Whether the current connection is watched (a mode other than `off`). */
  watching(m: Host, me: number): boolean;
}

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
  const o = (value ?? {}) as HeartbeatOptions;
  const interval = withDefault(o.interval, HEARTBEAT_DEFAULTS.interval);
  const timeout = withDefault(o.timeout, HEARTBEAT_DEFAULTS.timeout);
  assertNumber('heartbeat.interval', interval, { above: 0 });
  assertNumber('heartbeat.timeout', timeout, { above: 0 });
  if (o.message !== undefined && typeof o.message !== 'function' && !isData(o.message)) {
    throw typeError(
      'heartbeat.message',
      process.env.NODE_ENV !== 'production'
        ? `Expected \`heartbeat.message\` to be a string, binary data or a function, got ${describeReceived(o.message)}`
        : '',
    );
  }
  if (o.message !== undefined && typeof o.isPong !== 'function') {
    // Otherwise any message would count as the answer: a server that streams data but no longer
    // handles pings would never be found dead, and its pongs would be emitted as messages.
    throw typeError(
      'heartbeat.isPong',
      process.env.NODE_ENV !== 'production'
        ? 'Expected `heartbeat.isPong` to be a function when `heartbeat.message` is set (a heartbeat that ' +
            'sends pings must recognise their answers; leave out `message` for silence detection), ' +
            `got ${describeReceived(o.isPong)}`
        : '',
    );
  }
  if (o.isPong !== undefined) assertFunction('heartbeat.isPong', o.isPong);
  return { interval, timeout, message: o.message, isPong: o.isPong, periodic: true, explicit };
}

/** The development message of a resume probe that got no answer: how long it waited. */
function probeText(m: Host): string {
  const resume = findFeature(m, 'resume')?.[0] as { options_?: { probeTimeout?: number } } | undefined;
  return `No answer to the probe within ${resume?.options_?.probeTimeout ?? 0} ms after a resume`;
}

/**
 * The heartbeat feature made from its options; `explicit` is false only for `ResilientSocket`'s
 * default heartbeat (nobody configured it: no silence detection where there is no ping).
 * @internal
 */
export function createHeartbeat(options: HeartbeatOptions | false | undefined, explicit: boolean): Feature {
  const o = resolve(options, explicit);
  const canPing = (m: Host, ws: WebSocketLike): boolean => m.config_.transport.canPing(ws);
  /** How the current connection is watched: chosen by the options and the socket, once it is open. */
  const modeOf = (m: Host): number => {
    const ws = m.attempt_?.opened ? m.attempt_.socket : undefined;
    if (!o.periodic || !ws) return OFF;
    return o.message !== undefined ? MESSAGE : canPing(m, ws) ? PROTOCOL : o.explicit ? SILENCE : OFF;
  };
  /** Whether a resume probe awaits its answer. */
  const probing = (m: Host, me: number): boolean => getData(m, me) === true;

  /** Sends one ping; false when none went out (a failure is reported: a broken ping never declares the link dead). */
  const ping = (m: Host, ws: WebSocketLike, frame: boolean): boolean => {
    if (frame || o.message === undefined) {
      try {
        ws.ping?.();
        return true;
      } catch {
        return false; // a socket that cannot even ping is going down; its close will tell
      }
    }
    let message: unknown;
    try {
      message = typeof o.message === 'function' ? o.message() : o.message;
    } catch (thrown) {
      m.reportUserError_(
        new ResilientSocketError(
          'ERR_RS_CALLBACK_FAILED',
          process.env.NODE_ENV !== 'production' ? `\`heartbeat.message\` threw: ${describeThrown(thrown)}` : '',
          { cause: thrown },
        ),
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
      m.reportUserError_(
        new ResilientSocketError(
          'ERR_RS_CALLBACK_FAILED',
          process.env.NODE_ENV !== 'production' ? `${problem.message}; no ping sent` : '',
          { cause: problem },
        ),
      );
      return false;
    }
    try {
      ws.send(message as never);
    } catch (thrown) {
      if (ws.readyState === 1) {
        m.report_(
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
    m.messagesOut_++;
    return true;
  };

  /** An answer arrived (a pong, or a message isPong accepts): the deadline and the probe are over. */
  const answered = (m: Host, me: number): void => {
    setData(m, me, undefined);
    clearTimer(m, me, PONG);
  };

  const feature: Feature & HeartbeatService & { readonly options_: Resolved } = {
    name: 'heartbeat',
    rank: 30,
    slots: 2,
    options_: o,
    open(m, me) {
      const mode = modeOf(m);
      if (mode === SILENCE) setTimer(m, me, PONG, o.interval + o.timeout);
      else if (mode !== OFF) setTimer(m, me, PING, o.interval);
      else if (o.periodic) m.config_.transport.cannotPing(m.config_.WebSocket); // the default, with no way to ping
    },
    message(m, me, _attempt, data) {
      const mode = modeOf(m);
      if (m.state_ === 'closing') return false; // close() stopped the heartbeat
      if (mode === SILENCE) setTimer(m, me, PONG, o.interval + o.timeout);
      if (mode !== MESSAGE || !o.isPong) return false;
      let pong = false;
      try {
        pong = o.isPong(data) === true;
      } catch (thrown) {
        m.reportUserError_(
          new ResilientSocketError(
            'ERR_RS_CALLBACK_FAILED',
            process.env.NODE_ENV !== 'production' ? `\`heartbeat.isPong\` threw: ${describeThrown(thrown)}` : '',
            { cause: thrown },
          ),
        );
      }
      if (pong) answered(m, me);
      return pong; // the answer is consumed, not emitted
    },
    pong(m, me) {
      const mode = modeOf(m);
      // App-level pings are answered by messages only.
      if (mode !== MESSAGE && (mode === PROTOCOL || probing(m, me))) answered(m, me);
    },
    timer(m, me, local) {
      const attempt = m.attempt_;
      const ws = attempt?.socket;
      if (!attempt || !ws) return;
      if (local === PONG) {
        if (probing(m, me)) {
          m.fail_(
            attempt,
            'ERR_RS_DEAD_LINK',
            process.env.NODE_ENV !== 'production' ? probeText(m) : '',
            'probe timeout',
          );
        } else {
          m.fail_(
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
      const armed = !hasTimer(m, me, PONG);
      if (armed) setTimer(m, me, PONG, o.timeout);
      const sent = ping(m, ws, modeOf(m) === PROTOCOL);
      if (m.attempt_ !== attempt || m.state_ !== 'open') return; // a listener took over
      if (!sent && armed) clearTimer(m, me, PONG); // no ping went out: no answer to wait for
      setTimer(m, me, PING, o.interval);
    },
    end(m, me) {
      clearTimer(m, me, PING);
      clearTimer(m, me, PONG);
      setData(m, me, undefined);
    },
    probe(m, me, timeout) {
      const attempt = m.attempt_;
      const ws = attempt?.socket;
      if (!attempt?.opened || !ws) return;
      const byMessage = modeOf(m) === MESSAGE;
      if (!byMessage && !canPing(m, ws)) return; // no way to ask: left to the heartbeat
      setData(m, me, true);
      if (!ping(m, ws, !byMessage)) {
        setData(m, me, undefined);
        return;
      }
      // Unless the answer came back while we were sending it.
      if (probing(m, me) && m.attempt_ === attempt) setTimer(m, me, PONG, timeout);
    },
    watching: (m) => modeOf(m) !== OFF,
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
