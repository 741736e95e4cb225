/**
 * One attempt, from its target to its end: the URL and subprotocols (a feature's, or the
 * options'), the WebSocket and its binding, what the transport reports (open, message, pong,
 * close), the open (a feature's gate may hold it: a handshake), the flush of the queue, and the
 * end of the attempt (cut, left to close, or retired politely by `reconnect()`).
 */
import type { Data } from '../data.js';
import { ResilientSocketError } from '../errors.js';
import { redactUrl } from '../redact.js';
import type { ConnectionEvents, Transport } from '../transports/transport.js';
import { ReadyState, type WebSocketLike } from '../transports/websocket-like.js';
import { describeThrown } from '../validation.js';
import type { CloseInfo } from './close-codes.js';
import { Connection, type Wiring } from './connection.js';
import type { Target } from './feature.js';
import { CLOSE_TIMEOUT, PHASE, RETIRE } from './funnel.js';
import { HOST } from './host.js';
import type { Machine } from './machine.js';
import { drop, unsendable } from './report.js';

/** How every connection reports back: one table for all sockets (no closure per connection). */
const EVENTS: ConnectionEvents = {
  open: (c) => onOpen((c as Connection).owner as Machine, c as Connection),
  message: (c, data) => onMessage((c as Connection).owner as Machine, c as Connection, data as Data),
  close: (c, info) => onClose((c as Connection).owner as Machine, c as Connection, info),
  pong: (c) => onPong((c as Connection).owner as Machine, c as Connection),
  rejected: (c, status, retryAfter) => {
    (c as Connection).rejection = { status, retryAfter };
  },
};

/** The wiring of each transport (one per transport, so that configs made alike stay equal). */
const wirings = /* @__PURE__ */ new WeakMap<Transport, Wiring>();

/** Where the connections of sockets on `transport` report, and how they listen. */
export function wiringFor(transport: Transport): Wiring {
  let wiring = wirings.get(transport);
  if (!wiring) wirings.set(transport, (wiring = { events: EVENTS, transport }));
  return wiring;
}

/** Starts an attempt: `connecting`, then (asynchronously, even for a plain URL) its target and its WebSocket. */
export function startAttempt(m: Machine, reason: string): void {
  m.runAttempts_++;
  const attempt = new Connection(m, m.config_.wiring, m.runAttempts_);
  m.attempt_ = attempt;
  m.attempts_++;
  m.enter_('connecting', reason);
  if (!m.isLive_(attempt)) return;
  // After the constructor returns, so that listeners attached right after `new` hear `connecting`.
  // A provider that throws or rejects fails the attempt.
  new Promise<Target>((resolve) => resolve(targetOf(m))).then(
    (target) => m.isLive_(attempt) && openSocket(m, attempt, target),
    (error: unknown) => {
      const message = `URL or protocols provider failed: ${describeThrown(error)}`;
      m.fail_(attempt, 'ERR_RS_PROVIDER_FAILED', message, 'ERR_RS_PROVIDER_FAILED', error);
    },
  );
}

/** The URL and subprotocols of the next attempt: a feature's (the providers), or the options'. */
function targetOf(m: Machine): Target | PromiseLike<Target> {
  const { features, protocols } = m.config_;
  for (let me = 0; me < features.length; me++) {
    const target = features[me]?.target?.(HOST, m, me, m.target_, protocols);
    if (target) return target;
  }
  return { url: m.url_, protocols: protocols as Target['protocols'] };
}

function openSocket(m: Machine, attempt: Connection, { url, protocols }: Target): void {
  m.url_ = url;
  m.emit_('connecting', { attempt: attempt.number, url: redactUrl(url) });
  if (!m.isLive_(attempt)) return;
  const { WebSocket, wsOptions } = m.config_;
  let ws: WebSocketLike | undefined;
  try {
    ws = wsOptions === undefined ? new WebSocket(url, protocols) : new WebSocket(url, protocols ?? [], wsOptions);
    if (!isWebSocket(ws)) throw new TypeError('the `WebSocket` constructor returned an object without the WebSocket API');
    if (m.binaryType_ !== undefined) ws.binaryType = m.binaryType_;
    attempt.bind(ws);
  } catch (error) {
    // A socket the attempt could not take: closed here, its late events absorbed.
    if (ws && isWebSocket(ws) && attempt.socket !== ws) {
      const orphan = new Connection(m, m.config_.wiring, 0);
      orphan.bind(ws);
      orphan.abort();
    }
    const message = `Could not create the WebSocket: ${describeThrown(error)}`;
    m.fail_(attempt, 'ERR_RS_CONNECTION_FAILED', message, 'ERR_RS_CONNECTION_FAILED', error);
  }
}

/** `connection` as the current attempt, if it still is that and still holds its socket. */
function attemptOf(m: Machine, connection: Connection): Connection | undefined {
  const attempt = m.attempt_;
  return attempt === connection && attempt.socket !== undefined ? attempt : undefined;
}

/** The transport opened: the connect deadline is over; a feature's gate (a handshake) may hold the open. */
function onOpen(m: Machine, connection: Connection): void {
  const attempt = attemptOf(m, connection);
  if (!attempt || m.disposed_) return;
  m.timers_.clear(PHASE);
  const features = m.config_.features;
  for (let me = 0; me < features.length; me++) {
    const gate = features[me]?.gate?.(HOST, m, me, attempt);
    if (gate) {
      // A gate that does not pass fails the attempt itself (host.fail).
      gate.then(
        () => m.isLive_(attempt) && !attempt.opened && accept(m, attempt),
        () => undefined,
      );
      return;
    }
  }
  accept(m, attempt);
}

/** The connection is usable: flush the queue, become `open`, then tell the features and listeners. */
export function accept(m: Machine, attempt: Connection): void {
  const ws = attempt.socket;
  if (!ws) return;
  const { features, stableAfter } = m.config_;
  attempt.opened = true;
  m.since_ = m.config_.clock.now();
  m.connects_++;
  // Flush before anyone can call send() again, so queued messages keep their order.
  const stale: Data[] = [];
  features.forEach((f, me) => stale.push(...(f.flush?.(HOST, m, me) ?? [])));
  const refused = flush(m, ws);
  m.enter_('open', 'connection opened');
  // Reported even when a state listener closed or replaced the connection.
  drop(m, 'expired', stale);
  if (refused) unsendable(m, refused.messages, refused.cause);
  if (!m.isLive_(attempt)) return;
  const later: Data[] = [];
  features.forEach((f, me) => later.push(...(f.open?.(HOST, m, me, attempt, ws) ?? [])));
  m.emit_('open', { attempt: attempt.number, reconnected: m.connects_ > 1 });
  for (const data of later) {
    if (!m.isLive_(attempt)) return;
    deliver(m, data);
  }
  if (stableAfter === 0) m.markStable_(attempt);
}

/**
 * Writes the queued messages, oldest first, while the socket is open. A message the socket
 * refuses while it stays open can never be written: it is set aside (returned, to be reported)
 * and the rest go on. A socket that stops being open keeps the rest queued.
 */
function flush(m: Machine, ws: WebSocketLike): { messages: Data[]; cause: unknown } | undefined {
  const queue = m.queue_;
  if (!queue) return undefined;
  let refused: { messages: Data[]; cause: unknown } | undefined;
  for (let message = queue.shift(); message; message = queue.shift()) {
    if (ws.readyState !== ReadyState.OPEN) {
      queue.unshift(message);
      return refused;
    }
    try {
      ws.send(message.data as never);
      m.messagesOut_++;
    } catch (thrown) {
      if (ws.readyState !== ReadyState.OPEN) {
        queue.unshift(message);
        return refused;
      }
      refused ??= { messages: [], cause: thrown };
      refused.messages.push(message.data);
    }
  }
  m.queue_ = undefined;
  return refused;
}

function onMessage(m: Machine, connection: Connection, data: Data): void {
  const attempt = attemptOf(m, connection);
  // A connection that close() caught before it opened (in a gate) delivers nothing.
  if (!attempt || (m.state_ === 'closing' && !attempt.opened)) return;
  m.messagesIn_++;
  const features = m.config_.features;
  for (let me = 0; me < features.length; me++) if (features[me]?.message?.(HOST, m, me, attempt, data)) return;
  if (m.attempt_ === attempt) deliver(m, data);
}

/** Hands a message to the features that consume it in order (async iterators), then to listeners. */
function deliver(m: Machine, data: Data): void {
  m.config_.features.forEach((f, me) => f.deliver?.(HOST, m, me, data));
  m.emit_('message', data);
}

function onPong(m: Machine, connection: Connection): void {
  const attempt = attemptOf(m, connection);
  if (attempt) m.config_.features.forEach((f, me) => f.pong?.(HOST, m, me, attempt));
}

/** The transport closed a socket (the server, the network, or our own close()). */
function onClose(m: Machine, connection: Connection, info: CloseInfo): void {
  if (connection === m.retiring_) {
    // The connection reconnect() let go finished its closing handshake.
    m.retiring_ = undefined;
    m.timers_.clear(RETIRE);
    connection.socket = undefined;
    return;
  }
  const attempt = attemptOf(m, connection);
  if (!attempt) return;
  if (m.state_ === 'closing') {
    finishClose(m, info);
    return;
  }
  const cause = connection.error;
  let error: ResilientSocketError | undefined;
  if (!attempt.opened) {
    const why = connection.rejection
      ? `: the server refused the upgrade with HTTP ${connection.rejection.status}`
      : cause instanceof Error
        ? `: ${cause.message}`
        : '';
    error = new ResilientSocketError(
      'ERR_RS_CONNECTION_FAILED',
      `Connection attempt ${attempt.number} failed (close code ${info.code})${why}`,
      cause === undefined ? {} : { cause },
    );
  } else if (isProtocolError(cause)) {
    // The client itself ended the connection on a protocol error (ws: a message over
    // `maxPayload`, invalid UTF-8, a malformed frame): the close code alone (1006) does not say so.
    error = new ResilientSocketError(
      'ERR_RS_CONNECTION_FAILED',
      `The connection was closed after a protocol error: ${cause.message}`,
      { cause },
    );
  }
  m.lost_(attempt, error, info, false);
}

/**
 * We gave up on the attempt (timeout, provider, gate, dead link): abort it and go on. A
 * connection it had is closed with 1006 and `reason`.
 */
export function fail(m: Machine, attempt: Connection, code: string, message: string, reason: string, cause?: unknown): void {
  if (!m.isLive_(attempt)) return;
  const error = new ResilientSocketError(code as never, message, cause === undefined ? {} : { cause });
  m.lost_(attempt, error, attempt.socket ? { code: 1006, reason, wasClean: false } : undefined, true);
}

/**
 * Ends `attempt` for the machine and its features (`end`): `abort` closes its socket at once,
 * `detach` leaves it to close by itself (it already did, or is closing), `retire` keeps it bound
 * (see {@link retire}). Returns whether it had a socket.
 */
export function endAttempt(m: Machine, attempt: Connection, how: 'abort' | 'detach' | 'retire', reason = ''): boolean {
  if (m.attempt_ === attempt) m.attempt_ = undefined;
  if (attempt.opened) m.since_ = m.config_.clock.now();
  m.timers_.clear(PHASE);
  m.config_.features.forEach((f, me) => f.end?.(HOST, m, me, attempt));
  if (!attempt.socket) return false;
  if (how === 'retire') return true;
  if (how === 'abort') attempt.abort(1000, reason);
  else attempt.detach();
  attempt.socket = undefined;
  return true;
}

/**
 * Lets an open connection go politely (`reconnect()`): sends the close frame and leaves the
 * closing handshake to finish in the background, cut after `CLOSE_TIMEOUT` ms (the `RETIRE`
 * slot). Its messages never reach anyone; its `close` only ends the retirement.
 */
export function retire(m: Machine, attempt: Connection, code: number, reason: string): void {
  const ws = attempt.socket as WebSocketLike;
  dropRetiring(m);
  endAttempt(m, attempt, 'retire');
  m.retiring_ = attempt;
  try {
    ws.close(code, reason);
  } catch {
    dropRetiring(m);
    return;
  }
  if (m.retiring_ === attempt) m.timers_.set(RETIRE, CLOSE_TIMEOUT);
}

/** Cuts the connection `reconnect()` let go, if it is still closing (its time is up, or close()). */
export function dropRetiring(m: Machine): void {
  const retiring = m.retiring_;
  if (!retiring) return;
  m.retiring_ = undefined;
  m.timers_.clear(RETIRE);
  retiring.abort();
  retiring.socket = undefined;
}

/** The closing handshake finished (or timed out): the socket is closed for good. */
export function finishClose(m: Machine, info: CloseInfo): void {
  const attempt = m.attempt_;
  m.timers_.clearAll();
  m.attempt_ = undefined;
  let hadSocket = false;
  if (attempt?.socket) {
    if (info.code === 1006 && info.reason === 'close timeout') attempt.abort();
    else attempt.detach();
    attempt.socket = undefined;
    hadSocket = true;
  }
  if (attempt?.opened) m.since_ = m.config_.clock.now();
  m.enter_('closed', 'closed by close()');
  if (hadSocket) m.emit_('close', { ...info, willReconnect: false });
}

/** A protocol error ws raised on an open connection before closing it (its codes start `WS_ERR_`). */
function isProtocolError(value: unknown): value is Error {
  const code = value instanceof Error ? (value as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('WS_ERR_');
}

/** Whether a constructed object has the WebSocket methods we call. */
function isWebSocket(value: unknown): value is WebSocketLike {
  const ws = value as Partial<WebSocketLike> | null;
  return (
    typeof ws === 'object' &&
    ws !== null &&
    typeof ws.addEventListener === 'function' &&
    typeof ws.removeEventListener === 'function' &&
    typeof ws.send === 'function' &&
    typeof ws.close === 'function'
  );
}
