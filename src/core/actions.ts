/**
 * What a socket's users ask of it, over its machine: send, open, reconnect, close, and making the
 * machine in the first place. `BaseSocket` and `ResilientWebSocket` (the WebSocket-shaped facade)
 * check their arguments their own way, then call these.
 */
import { byteLengthOf, type Data, isData, ownCopy } from '../data.js';
import { ResilientSocketError } from '../errors.js';
import type { Transport } from '../transports/transport.js';
import { assertBoolean, assertKnownKeys, assertOptionsObject, assertThat } from '../validation.js';
import type { CloseInfo } from './close-codes.js';
import { closeSocket } from './connection.js';
import type { DropReason } from './events.js';
import type { Feature } from './feature.js';
import { dropRetiring, endAttempt, retire, startAttempt } from './link.js';
import { type Face, Machine } from './machine.js';
import { Queue } from './queue.js';
import { resolveOptions } from './resolve.js';
import type { SocketStats } from './socket.js';
import { STATES } from './states.js';

/** WebSocket ready states. */
const OPEN = 1;

/** The close code a connection closed without one reports (`ResilientWebSocket.close()` sends none). */
const NO_STATUS = 1005;

/** What `send()` did with a message. */
export type SendResult = 'sent' | 'buffered' | 'dropped';

/**
 * Makes the machine of `face` (the object its users hold), its options validated (after the
 * class's `prepare`). Then `start` it, once `face` holds it.
 * @throws TypeError / RangeError naming the option; ResilientSocketError `ERR_RS_NO_WEBSOCKET`.
 */
export function create(face: Face, url: unknown, options: unknown, transport: Transport): Machine {
  return new Machine(face, resolveOptions(url, options, transport));
}

/**
 * Lets the features see their per-socket options (an aborted `signal` closes the socket at once)
 * and connects, unless `autoConnect` is false.
 */
export function start(m: Machine, options: unknown): void {
  m.run_('init', options ?? {});
  if ((options as { autoConnect?: boolean } | undefined)?.autoConnect !== false && !m.disposed_) {
    startAttempt(m, 'autoConnect');
  }
}

/**
 * Sends now when open; otherwise queues (unless `buffer` is false), copying binary data first. A
 * message that cannot be sent or queued is reported by a `drop`.
 */
export function send(m: Machine, data: Data, buffer: boolean): SendResult {
  const closed = (): boolean => m.disposed_ || !STATES[m.state_].buffersSends;
  if (closed()) return dropOne(m, 'closed', data);
  const ws = m.attempt_?.socket;
  if (STATES[m.state_].sendsDirectly && ws?.readyState === OPEN && !m.queue_) {
    try {
      ws.send(data as never);
      m.messagesOut_++;
      return 'sent';
    } catch (thrown) {
      // Still open: the socket refused this message itself, and always will. Otherwise it is
      // going down, and the message waits for the next connection.
      if (ws.readyState === OPEN) return m.unsendable_([data], thrown);
    }
  }
  if (!buffer) return dropOne(m, 'not-connected', data);
  let own: Data;
  try {
    own = ownCopy(data);
  } catch (thrown) {
    return m.unsendable_([data], thrown);
  }
  // A feature may expire old messages (a drop listener may close the socket) or refuse this one.
  if (m.run_('admit', byteLengthOf(own))) return dropOne(m, 'overflow', data);
  if (closed()) return dropOne(m, 'closed', data);
  const { maxMessages, maxBytes, clock } = m.config_;
  m.queue_ ??= new Queue(maxMessages, maxBytes);
  const queue = m.queue_;
  const evicted = queue.push(own, clock.now());
  if (!evicted) {
    if (!queue.length) m.queue_ = undefined;
    return dropOne(m, 'overflow', data);
  }
  m.drop_('overflow', evicted);
  // A drop listener that closed the socket made close() report this message as dropped too.
  return m.disposed_ ? 'dropped' : 'buffered';
}

/**
 * Checks the arguments of `send(data, options)` (`BaseSocket`'s and `SharedSocket`'s) and returns
 * the `buffer` option.
 * @throws TypeError for data that is not a string or binary, or an unknown or mistyped option.
 */
export function sendArgs(data: unknown, options: unknown): boolean {
  assertThat(isData(data), 'data', 'a string, ArrayBuffer, typed array or Blob', data);
  assertOptionsObject('send options', options);
  assertKnownKeys('', options, ['buffer'], 'send()');
  const { buffer = true } = (options ?? {}) as { buffer?: unknown };
  assertBoolean('buffer', buffer);
  return buffer;
}

/** Starts connecting from `idle` or `closed` (after a give-up); does nothing in the other states. */
export function open(m: Machine): void {
  if (m.state_ !== 'idle' && m.state_ !== 'closed') return;
  m.resetRun_();
  startAttempt(m, 'open() called');
}

/**
 * Lets the current connection go (an open one politely: a close frame, its handshake finished in
 * the background) and connects again now, with a fresh backoff.
 */
export function reconnect(m: Machine, code: number | undefined, reason: string): void {
  m.resetRun_();
  const deciding = m.deciding_;
  m.deciding_ = undefined;
  const attempt = m.attempt_;
  let ended: CloseInfo | undefined;
  if (attempt?.socket) {
    if (attempt.socket.readyState === OPEN) retire(m, attempt, code, reason);
    else endAttempt(m, attempt, 'abort', reason); // not open yet: cut (as close() does)
    ended = { code: code ?? NO_STATUS, reason, wasClean: false };
  } else if (attempt) {
    endAttempt(m, attempt, 'abort');
  }
  startAttempt(m, 'reconnect() called');
  if (deciding?.close) m.emitClose_(deciding.close);
  if (ended) m.emitClose_(ended);
}

/**
 * Closes for good: stops reconnecting, drops (and reports) queued messages, closes the connection
 * with `code`/`reason` (an open one politely, waiting for the server's answer; without a code, none
 * is sent) and leaves no timer or listener behind. Idempotent.
 */
export function close(m: Machine, code: number | undefined, reason: string): void {
  if (m.disposed_) return;
  m.disposed_ = true;
  m.run_('dispose');
  m.timers_.clearAll();
  dropRetiring(m);
  const deciding = m.deciding_;
  m.deciding_ = undefined;
  const queued = m.takeQueued_();
  const attempt = m.attempt_;
  const ws = attempt?.socket;
  if (attempt && ws?.readyState === OPEN) {
    // Open (or in a gate): the features let go of it, and it closes politely, waiting for the
    // server's answer (the `closing` deadline cuts it after CLOSE_TIMEOUT).
    m.run_('end', attempt);
    m.enter_('closing', 'close() called');
    m.drop_('closed', queued);
    try {
      closeSocket(ws, code, reason);
    } catch {
      // the deadline cuts the connection
    }
    return;
  }
  const hadSocket = attempt !== undefined && endAttempt(m, attempt, 'abort', reason);
  m.enter_('closed', 'close() called');
  if (deciding?.close) m.emitClose_(deciding.close);
  if (hadSocket) m.emitClose_({ code: code ?? NO_STATUS, reason, wasClean: false });
  m.drop_('closed', queued);
}

/** `m`, unless its socket was closed for good. */
export function alive(m: Machine, method: string): Machine {
  if (m.disposed_) {
    throw new ResilientSocketError(
      'ERR_RS_CLOSED',
      `Cannot call ${method}() after close(): the socket is closed for good`,
    );
  }
  return m;
}

/** A feature the socket needs for what was asked, or a TypeError naming the factory to import. */
export function need(m: Machine, name: string): [Feature, number] {
  const found = m.find_(name);
  if (found) return found;
  throw new TypeError(
    `This needs the ${name}() feature: import { ${name} } from 'resilient-socket/modular' and add ${name}() to \`features\``,
  );
}

/** What the `stats()` and `asyncIteration()` features offer beyond their hooks. */
interface Services {
  snapshot(m: Machine): SocketStats;
  iterate(m: Machine, me: number): AsyncIterableIterator<Data>;
}

/**
 * `socket.stats`: the `stats()` feature's snapshot of `m`'s counters.
 * @throws TypeError naming the feature when it is not installed.
 */
export function statsOf(m: Machine): SocketStats {
  const [feature] = need(m, 'stats');
  return (feature as unknown as Services).snapshot(m);
}

/**
 * `socket[Symbol.asyncIterator]()`: the `asyncIteration()` feature's iterator over `m`'s messages.
 * @throws TypeError naming the feature when it is not installed.
 */
export function messagesOf(m: Machine): AsyncIterableIterator<Data> {
  const [feature, me] = need(m, 'asyncIteration');
  return (feature as unknown as Services).iterate(m, me);
}

/** Reports one message `send()` could not take. */
function dropOne(m: Machine, reason: DropReason, data: Data): 'dropped' {
  m.drop_(reason, [data]);
  return 'dropped';
}
