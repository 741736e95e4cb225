/**
 * One attempt, from its target to its end: the URL and subprotocols (a feature's, or the
 * options'), the WebSocket and its binding, what the transport reports (open, message, close),
 * the open (a feature's gate may hold it: a handshake), the flush of the queue, and the end of the
 * attempt (cut, let go, or retired politely by `reconnect()`).
 */
import type { Data } from '../data.js';
import { ResilientSocketError } from '../errors.js';
import { redactUrl } from '../redact.js';
import type { WebSocketLike } from '../transports/websocket-like.js';
import { describeThrown } from '../validation.js';
import type { CloseInfo } from './close-codes.js';
import { Connection, closeSocket } from './connection.js';
import type { Target } from './feature.js';
import { lost } from './loss.js';
import type { Machine } from './machine.js';
import { CLOSE_TIMEOUT, PHASE, RETIRE } from './states.js';

/** WebSocket ready states. */
const OPEN = 1;

/**
 * Starts an attempt: `connecting`, then its target (a `target` hook, i.e. a URL provider, is called
 * now, as the promise is made) and, asynchronously even for a plain URL, its WebSocket.
 */
export function startAttempt(m: Machine, reason: string): void {
  const attempt = new Connection(m, m.config_.transport, ++m.runAttempts_);
  m.attempt_ = attempt;
  m.attempts_++;
  m.enter_('connecting', reason);
  if (!m.isLive_(attempt)) return;
  // The WebSocket (and `connecting`) after the constructor returns, so that listeners attached
  // right after `new` hear `connecting`. A provider (the `providers` feature's `target`) that
  // throws or rejects fails the attempt.
  new Promise<Target>((resolve) =>
    resolve(
      m.run_('target', m.target_, m.config_.protocols) ?? ({ url: m.url_, protocols: m.config_.protocols } as Target),
    ),
  ).then(
    (target) => m.isLive_(attempt) && openSocket(m, attempt, target),
    (error: unknown) => {
      const message = `URL or protocols provider failed: ${describeThrown(error)}`;
      fail(m, attempt, 'ERR_RS_PROVIDER_FAILED', message, 'ERR_RS_PROVIDER_FAILED', error);
    },
  );
}

function openSocket(m: Machine, attempt: Connection, { url, protocols }: Target): void {
  m.url_ = url;
  m.emit_('connecting', { attempt: attempt.number, url: redactUrl(url) });
  if (!m.isLive_(attempt)) return;
  const options = m.wsOptions_;
  let ws: WebSocketLike | undefined;
  try {
    ws = options ? new m.config_.WebSocket(url, protocols ?? [], options) : new m.config_.WebSocket(url, protocols);
    if (!isWebSocket(ws))
      throw new TypeError('the `WebSocket` constructor returned an object without the WebSocket API');
    if (m.binaryType_ !== undefined) ws.binaryType = m.binaryType_;
    attempt.bind(ws);
  } catch (error) {
    // A socket the attempt could not take: closed here, its late events absorbed.
    if (isWebSocket(ws) && attempt.socket !== ws) {
      const orphan = new Connection(m, m.config_.transport, 0);
      orphan.bind(ws);
      orphan.abort();
    }
    fail(
      m,
      attempt,
      'ERR_RS_CONNECTION_FAILED',
      `Could not create the WebSocket: ${describeThrown(error)}`,
      'ERR_RS_CONNECTION_FAILED',
      error,
    );
  }
}

/** `connection` as the current attempt, if it still is that and still holds its socket. */
function current(m: Machine, connection: Connection): Connection | undefined {
  return m.attempt_ === connection && connection.socket ? connection : undefined;
}

/** The transport opened: the connect deadline is over; a feature's gate (a handshake) may hold the open. */
export function onOpen(m: Machine, connection: Connection): void {
  const attempt = current(m, connection);
  if (!attempt || m.disposed_) return;
  m.timers_.clear(PHASE);
  // A gate that does not pass fails the attempt itself (m.fail_).
  const gate = m.run_<PromiseLike<unknown>>('gate', attempt);
  if (gate)
    gate.then(
      () => m.isLive_(attempt) && !attempt.opened && accept(m, attempt),
      () => undefined,
    );
  else accept(m, attempt);
}

/** The connection is usable: flush the queue, become `open`, then tell the features and listeners. */
function accept(m: Machine, attempt: Connection): void {
  const ws = attempt.socket;
  if (!ws) return;
  attempt.opened = true;
  m.since_ = m.config_.clock.now();
  m.connects_++;
  // Flush before anyone can call send() again, so queued messages keep their order.
  const stale: Data[] = [];
  const later: Data[] = [];
  m.run_('flush', stale);
  const [refused, cause] = flush(m, ws);
  m.enter_('open', 'connection opened');
  // Reported even when a state listener closed or replaced the connection.
  m.drop_('expired', stale);
  if (refused.length) m.unsendable_(refused, cause);
  if (!m.isLive_(attempt)) return;
  m.run_('open', attempt, ws, later);
  m.emit_('open', { attempt: attempt.number, reconnected: m.connects_ > 1 });
  for (const data of later) if (m.isLive_(attempt)) deliver(m, data);
  if (!m.config_.stableAfter) m.markStable_(attempt);
}

/**
 * Writes the queued messages, oldest first, while the socket is open. A message the socket
 * refuses while it stays open can never be written: it is set aside (returned, to be reported,
 * with the first failure as `cause`) and the rest go on. A socket that stops being open keeps the
 * rest queued.
 */
function flush(m: Machine, ws: WebSocketLike): [refused: Data[], cause: unknown] {
  const refused: Data[] = [];
  let cause: unknown;
  const queue = m.queue_;
  for (let message = queue?.shift(); message; message = queue?.shift()) {
    try {
      if (ws.readyState !== OPEN) throw undefined;
      ws.send(message.data as never);
      m.messagesOut_++;
    } catch (thrown) {
      if (ws.readyState !== OPEN) {
        queue?.unshift(message);
        return [refused, cause];
      }
      if (!refused.length) cause = thrown;
      refused.push(message.data);
    }
  }
  m.queue_ = undefined;
  return [refused, cause];
}

export function onMessage(m: Machine, connection: Connection, data: Data): void {
  const attempt = current(m, connection);
  // A connection that close() caught before it opened (in a gate) delivers nothing.
  if (!attempt || (m.state_ === 'closing' && !attempt.opened)) return;
  m.messagesIn_++;
  if (!m.run_('message', attempt, data) && m.attempt_ === attempt) deliver(m, data);
}

/** Hands a message to the features that consume it in order (async iterators), then to listeners. */
function deliver(m: Machine, data: Data): void {
  m.run_('deliver', data);
  m.emit_('message', data);
}

/** The transport closed a socket (the server, the network, or our own close()); `fault` see `Owner`. */
export function onClose(m: Machine, connection: Connection, info: CloseInfo, fault?: Error): void {
  if (connection === m.retiring_) {
    // A connection let go before its TCP close (reconnect(), the server's close frame) finished closing.
    m.retiring_ = undefined;
    m.timers_.clear(RETIRE);
    connection.socket = undefined;
    return;
  }
  const attempt = current(m, connection);
  if (!attempt) return;
  if (m.state_ === 'closing') {
    finishClose(m, info);
    return;
  }
  lost(m, attempt, lossError(attempt, info, fault), info, 'release');
}

/**
 * The server's close frame arrived (ws): the connection is over now, whenever its TCP connection
 * closes. Sends queue from here on, the loss is decided as a close, and the socket waits out its
 * TCP close in the background (`retire`: cut after `CLOSE_TIMEOUT`). After our own close() the
 * `closing` state already waits for exactly this.
 */
export function onClosing(m: Machine, connection: Connection, info: CloseInfo): void {
  const attempt = current(m, connection);
  if (!attempt || m.state_ === 'closing') return;
  lost(m, attempt, lossError(attempt, info), info, 'retire');
}

/** What failed when a connection closed: an attempt that never opened, or a protocol error; none for a plain close. */
function lossError(attempt: Connection, info: CloseInfo, fault?: Error): ResilientSocketError | undefined {
  const { error: cause, rejection } = attempt;
  if (!attempt.opened) {
    const why = rejection
      ? `: the server refused the upgrade with HTTP ${rejection.status}`
      : cause instanceof Error
        ? `: ${cause.message}`
        : '';
    const message = `Connection attempt ${attempt.number} failed (close code ${info.code})${why}`;
    return new ResilientSocketError('ERR_RS_CONNECTION_FAILED', message, cause === undefined ? {} : { cause });
  }
  if (fault) {
    const message = `The connection failed: ${fault.message}`;
    return new ResilientSocketError('ERR_RS_CONNECTION_FAILED', message, { cause: fault });
  }
  return undefined;
}

/**
 * We gave up on the attempt (timeout, provider, gate, dead link): abort it and go on. A
 * connection it had is closed with 1006 and `reason`.
 */
export function fail(
  m: Machine,
  attempt: Connection,
  code: string,
  message: string,
  reason: string,
  cause?: unknown,
): void {
  if (!m.isLive_(attempt)) return;
  const error = new ResilientSocketError(code as never, message, cause === undefined ? {} : { cause });
  lost(m, attempt, error, attempt.socket ? { code: 1006, reason, wasClean: false } : undefined, 'abort');
}

/**
 * Ends `attempt` for the machine and its features (`end`): `abort` closes its socket at once,
 * `release` leaves it to close by itself (it already did, or is closing), `retire` keeps it bound
 * until its TCP close, cut after `CLOSE_TIMEOUT` ms (the `RETIRE` slot; one connection at a time):
 * its messages never reach anyone, its `close` only ends the retirement. Returns whether it had a socket.
 */
export function endAttempt(m: Machine, attempt: Connection, how: 'abort' | 'release' | 'retire', reason = ''): boolean {
  if (m.attempt_ === attempt) m.attempt_ = undefined;
  if (attempt.opened) m.since_ = m.config_.clock.now();
  m.timers_.clear(PHASE);
  m.run_('end', attempt);
  const had = attempt.socket !== undefined;
  if (had && how === 'abort') attempt.abort(1000, reason);
  else if (had && how === 'release') attempt.release();
  else if (had) {
    dropRetiring(m);
    m.retiring_ = attempt;
    m.timers_.set(RETIRE, CLOSE_TIMEOUT);
  }
  return had;
}

/**
 * Lets an open connection go politely (`reconnect()`): sends the close frame and leaves the
 * closing handshake to finish in the background (see `retire` in {@link endAttempt}).
 */
export function retire(m: Machine, attempt: Connection, code: number | undefined, reason: string): void {
  const ws = attempt.socket as WebSocketLike;
  endAttempt(m, attempt, 'retire');
  try {
    closeSocket(ws, code, reason);
  } catch {
    dropRetiring(m);
  }
}

/** Cuts the connection `reconnect()` let go, if it is still closing (its time is up, or close()). */
export function dropRetiring(m: Machine): void {
  const retiring = m.retiring_;
  m.retiring_ = undefined;
  m.timers_.clear(RETIRE);
  retiring?.abort();
}

/** The closing handshake finished (or timed out): the socket is closed for good. */
export function finishClose(m: Machine, info: CloseInfo): void {
  const attempt = m.attempt_;
  m.timers_.clearAll();
  m.attempt_ = undefined;
  const had = attempt?.socket !== undefined;
  if (info.reason === 'close timeout' && info.code === 1006) attempt?.abort();
  else attempt?.release();
  if (attempt?.opened) m.since_ = m.config_.clock.now();
  m.enter_('closed', 'closed by close()');
  if (had) m.emitClose_(info);
}

/** Whether a constructed object has the WebSocket methods we call. */
function isWebSocket(value: unknown): value is WebSocketLike {
  const ws = value as Partial<WebSocketLike> | undefined;
  return ['addEventListener', 'removeEventListener', 'send', 'close'].every(
    (method) => typeof ws?.[method as keyof WebSocketLike] === 'function',
  );
}
