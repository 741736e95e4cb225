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
 * Per socket it keeps one small number (the mode, and whether a probe awaits its answer) and two
 * timer slots: `PING` (the next ping) and `PONG` (the deadline of the answer, or of the next sign
 * of life in `silence`). No object and no closure per socket or per connection.
 */
import { ResilientSocketError } from '../../errors.js';
import type { Feature, Host } from '../../core/feature.js';
import { callbackError } from '../../core/report.js';
import { type Data, isData } from '../../data.js';
import { ReadyState, type WebSocketLike } from '../../transports/websocket-like.js';
import {
  assertFunction,
  assertKnownKeys,
  assertNumber,
  assertObjectOrFalse,
  describeReceived,
  describeThrown,
  withDefault,
} from '../../validation.js';
import { intern } from '../intern.js';

/** Dead-link detection. */
export interface HeartbeatOptions {
  /**
   * How often to ping the link, in ms (> 0).
   * @default 30_000
   * @example
   * ```ts
   * heartbeat({ interval: 15_000 })
   * ```
   */
  interval?: number;
  /**
   * How long to wait for the answer to a ping before declaring the link dead, in ms (> 0). A
   * protocol ping is answered only by a pong, an app-level ping only by a message `isPong`
   * accepts; in silence detection (no `message`, no protocol ping) any message counts. A dead
   * link is closed (`close` with code 1006, reason `'heartbeat timeout'`) and reconnected, within
   * `interval + timeout` of going silent.
   * @default 10_000
   * @example
   * ```ts
   * heartbeat({ interval: 15_000, timeout: 5_000 })
   * ```
   */
  timeout?: number;
  /**
   * An application-level ping to send every `interval` where the transport has no protocol ping
   * (browsers); a function is called for each ping. It needs `isPong`, which recognises the
   * answer. Without `message` (and without protocol ping) the heartbeat watches for silence.
   * @default undefined (protocol ping with ws; silence detection otherwise)
   * @example
   * ```ts
   * heartbeat({ message: '{"type":"ping"}', isPong: (d) => d === '{"type":"pong"}' })
   * ```
   */
  message?: Data | (() => Data);
  /**
   * Recognises the server's answer to `message` (required with `message`). Messages it accepts
   * answer the ping and are consumed (not emitted as `message`); no other message answers it.
   * One that throws is reported (`ERR_RS_CALLBACK_FAILED`) and counts as "no".
   * @default undefined (required when `message` is set)
   * @example
   * ```ts
   * heartbeat({ message: 'ping', isPong: (data) => data === 'pong' })
   * ```
   */
  isPong?: (data: Data) => boolean;
}

/** The defaults of {@link HeartbeatOptions}. */
export const HEARTBEAT_DEFAULTS = /* @__PURE__ */ Object.freeze({ interval: 30_000, timeout: 10_000 });

const PING = 0;
const PONG = 1;
// The per-socket number: the mode in the low bits, PROBING while a probe awaits its answer.
const OFF = 0;
const PROTOCOL = 1;
const MESSAGE = 2;
const SILENCE = 3;
const MODE = 3;
const PROBING = 4;

/** What the resume feature asks of the heartbeat: ask the connection now, answer within `timeout`. */
export interface HeartbeatService {
  /**
   * Pings the open connection the heartbeat's way (its `message`, or a protocol ping where the
   * socket has one) and declares it dead if no answer comes within `timeout` ms (reason
   * `'probe timeout'`). A connection with no way to ask is left alone.
   */
  probe(host: Host, socket: object, me: number, timeout: number): void;
  /** Whether the current connection is watched (a mode other than `off`). */
  watching(host: Host, socket: object, me: number): boolean;
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
    throw new TypeError(
      `Expected \`heartbeat.message\` to be a string, binary data or a function, got ${describeReceived(o.message)}`,
    );
  }
  if (o.message !== undefined && typeof o.isPong !== 'function') {
    // Otherwise any message would count as the answer: a server that streams data but no longer
    // handles pings would never be found dead, and its pongs would be emitted as messages.
    throw new TypeError(
      'Expected `heartbeat.isPong` to be a function when `heartbeat.message` is set (a heartbeat that ' +
        'sends pings must recognise their answers; leave out `message` for silence detection), ' +
        `got ${describeReceived(o.isPong)}`,
    );
  }
  if (o.isPong !== undefined) assertFunction('heartbeat.isPong', o.isPong);
  return { interval, timeout, message: o.message, isPong: o.isPong, periodic: true, explicit };
}

/**
 * The heartbeat feature made from its options; `explicit` is false only for `ResilientSocket`'s
 * default heartbeat (nobody configured it: no silence detection where there is no ping).
 * @internal
 */
export function createHeartbeat(options: HeartbeatOptions | false | undefined, explicit: boolean): Feature {
  const o = resolve(options, explicit);
  const data = (host: Host, socket: object, me: number): number => (host.data(socket, me) as number | undefined) ?? OFF;

  /** Sends one ping; false when none went out (a failure is reported: a broken ping never declares the link dead). */
  const ping = (host: Host, socket: object, ws: WebSocketLike, frame: boolean): boolean => {
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
      host.reportUserError(socket, callbackError('heartbeat.message', 'threw', thrown));
      return false;
    }
    if (!isData(message)) {
      const problem = new TypeError(
        `Expected \`heartbeat.message()\` to return a string or binary data, got ${describeReceived(message)}`,
      );
      host.reportUserError(
        socket,
        new ResilientSocketError('ERR_RS_CALLBACK_FAILED', `${problem.message}; no ping sent`, { cause: problem }),
      );
      return false;
    }
    try {
      ws.send(message as never);
    } catch (thrown) {
      if (ws.readyState === ReadyState.OPEN) {
        const reason = `The WebSocket refused the heartbeat's ping while open: ${describeThrown(thrown)}`;
        host.report(socket, new ResilientSocketError('ERR_RS_UNSENDABLE', reason, { cause: thrown }));
      }
      return false;
    }
    host.wrote(socket);
    return true;
  };

  /** An answer arrived (a pong, or a message isPong accepts): the deadline and the probe are over. */
  const answered = (host: Host, socket: object, me: number): void => {
    host.setData(socket, me, data(host, socket, me) & MODE);
    host.clearTimer(socket, me, PONG);
  };

  const feature: Feature & HeartbeatService & { readonly options_: Resolved } = {
    name: 'heartbeat',
    rank: 30,
    slots: 2,
    options_: o,
    open(host, socket, me, _attempt, ws) {
      const mode = !o.periodic
        ? OFF
        : o.message !== undefined
          ? MESSAGE
          : host.canPing(socket, ws)
            ? PROTOCOL
            : o.explicit
              ? SILENCE
              : OFF;
      host.setData(socket, me, mode);
      if (mode === SILENCE) host.setTimer(socket, me, PONG, o.interval + o.timeout);
      else if (mode !== OFF) host.setTimer(socket, me, PING, o.interval);
      return undefined;
    },
    message(host, socket, me, _attempt, data) {
      const state = data(host, socket, me);
      if (host.state(socket) === 'closing') return false; // close() stopped the heartbeat
      const mode = state & MODE;
      if (mode === SILENCE) host.setTimer(socket, me, PONG, o.interval + o.timeout);
      if (mode !== MESSAGE || !o.isPong) return false;
      let pong = false;
      try {
        pong = o.isPong(data) === true;
      } catch (thrown) {
        host.reportUserError(socket, callbackError('heartbeat.isPong', 'threw', thrown));
      }
      if (pong) answered(host, socket, me);
      return pong; // the answer is consumed, not emitted
    },
    pong(host, socket, me) {
      const state = data(host, socket, me);
      // App-level pings are answered by messages only.
      if ((state & MODE) !== MESSAGE && ((state & MODE) === PROTOCOL || state & PROBING)) answered(host, socket, me);
    },
    timer(host, socket, me, local) {
      const attempt = host.attempt(socket);
      const ws = attempt?.socket;
      if (!attempt || !ws) return;
      const state = data(host, socket, me);
      if (local === PONG) {
        if (state & PROBING) {
          const resume = host.find(socket, 'resume')?.[0] as { options_?: { probeTimeout?: number } } | undefined;
          const message = `No answer to the probe within ${resume?.options_?.probeTimeout ?? 0} ms after a resume`;
          host.fail(socket, attempt, 'ERR_RS_DEAD_LINK', message, 'probe timeout');
        } else {
          host.fail(socket, attempt, 'ERR_RS_DEAD_LINK', 'The heartbeat found the connection dead', 'heartbeat timeout');
        }
        return;
      }
      // PING: the deadline before the ping (an answer may come back before send() returns), and
      // before the next ping: when both are due at once, the unanswered ping is found dead first.
      const armed = !host.hasTimer(socket, me, PONG);
      if (armed) host.setTimer(socket, me, PONG, o.timeout);
      const sent = ping(host, socket, ws, (state & MODE) === PROTOCOL);
      if (host.attempt(socket) !== attempt || host.state(socket) !== 'open') return; // a listener took over
      if (!sent && armed) host.clearTimer(socket, me, PONG); // no ping went out: no answer to wait for
      host.setTimer(socket, me, PING, o.interval);
    },
    end(host, socket, me) {
      host.clearTimer(socket, me, PING);
      host.clearTimer(socket, me, PONG);
      host.setData(socket, me, undefined);
    },
    probe(host, socket, me, timeout) {
      const attempt = host.attempt(socket);
      const ws = attempt?.socket;
      if (!attempt?.opened || !ws) return;
      const mode = data(host, socket, me) & MODE;
      const byMessage = mode === MESSAGE;
      if (!byMessage && !host.canPing(socket, ws)) return; // no way to ask: left to the heartbeat
      host.setData(socket, me, mode | PROBING);
      if (!ping(host, socket, ws, !byMessage)) {
        host.setData(socket, me, mode);
        return;
      }
      // Unless the answer came back while we were sending it.
      if (data(host, socket, me) & PROBING && host.attempt(socket) === attempt) host.setTimer(socket, me, PONG, timeout);
    },
    watching: (host, socket, me) => (data(host, socket, me) & MODE) !== OFF,
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
