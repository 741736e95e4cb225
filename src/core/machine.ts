import { byteLengthOf, type Data, ownCopy } from '../data.js';
import { ResilientSocketError } from '../errors.js';
import { redactUrl } from '../redact.js';
import type { Bound, Owner } from '../transports/transport.js';
import type { WebSocketLike } from '../transports/websocket-like.js';
import { describeThrown } from '../validation.js';
import type { CloseInfo } from './close-codes.js';
import { Connection, closeSocket } from './connection.js';
import { decide, retryDelay } from './decide.js';
import type { Loss, Target } from './feature.js';
import { Queue } from './queue.js';
import { type Face, SocketRecord } from './record.js';
import { callbackError, UNHEARD_GIVEUP, unheard } from './report.js';
import {
  CLOSE_TIMEOUT,
  deadlineOf,
  ERROR_GRACE,
  PHASE,
  PRESSURE,
  RETIRE,
  RULES,
  SHOULD_RECONNECT_TIMEOUT,
  type SocketState,
  STATES,
} from './states.js';

export type { Face };

/** WebSocket ready states. */
const OPEN = 1;
/** The close code reported for a connection closed without one (`close()` with no code sends none). */
const NO_STATUS = 1005;

/** What `send()` did with a message. */
export type SendResult = 'sent' | 'buffered' | 'dropped';

export class Machine extends SocketRecord implements Owner {
  // ─── the state funnel and the deadlines ──────────────────────────────────────────────────

  /**
   * Enters `next`: clears the last state's deadline and arms the new one (`wait` is the `retry`
   * deadline: the backoff delay, or how long an async `shouldReconnect` may take; none while
   * waiting for the network), tells the features, then emits `state` before anything else tells
   * about the change. Entering the state it is in only re-arms the deadline.
   */
  enter_(next: SocketState, reason: string, wait?: number, replica?: boolean): void {
    const previous = this.state_;
    // The deadline the state arms (`RULES`); a replica arms none: its leader's machine keeps them.
    const ms = replica ? undefined : deadlineOf(next, this.config_, wait);
    this.disarm_(PHASE);
    if (ms !== undefined && ms < Number.POSITIVE_INFINITY) this.arm_(PHASE, ms);
    if (previous === next) return;
    // (A replica jumps to its leader's state, whatever its own was.)
    if (process.env.NODE_ENV !== 'production' && !replica && !STATES[previous].next.includes(next)) {
      throw new Error(`resilient-socket: illegal transition ${previous} → ${next}`);
    }
    this.state_ = next;
    this.changes_++;
    this.run_('state', previous, next);
    if (!replica) this.emit_('state', { previous, current: next, reason });
  }

  /** A timer is due (unless cleared or re-armed since it was set): the state's deadline, a retirement's, the back-pressure watch, or a feature's. */
  fire_(slot: number, arming: number): void {
    if (this.timers_[2 * slot + 1] !== arming) return;
    this.timers_[2 * slot] = this.timers_[2 * slot + 1] = 0;
    const { attempt_: attempt, deciding_: deciding, config_: config } = this;
    if (slot === RETIRE) this.dropRetiring_();
    else if (slot === PRESSURE) this.pressure_();
    else if (slot > PRESSURE) {
      const me = config.slotOwner[slot] as number;
      config.features[me]?.timer?.(this, me, slot - (config.slotBase[me] as number));
    } else {
      // The deadline of the current state (`RULES`).
      const deadline = RULES[this.state_].deadline;
      if (deadline === 'connect') {
        // An `error` whose `close` never came (Node 22's WebSocket): it closed, abnormally.
        if (attempt?.error_ !== undefined) this.closed_(attempt, { code: 1006, reason: '', wasClean: false });
        else if (attempt) {
          this.fail_(
            attempt,
            'ERR_RS_CONNECT_TIMEOUT',
            process.env.NODE_ENV !== 'production'
              ? `Connection attempt ${attempt.number} did not open within ${config.connectTimeout} ms`
              : '',
            'connect timeout',
          );
        }
      } else if (deadline === 'stable') {
        if (attempt) this.markStable_(attempt);
      } else if (deadline === 'retry') {
        if (deciding) {
          const problem = new Error(
            process.env.NODE_ENV !== 'production'
              ? `did not settle within ${SHOULD_RECONNECT_TIMEOUT} ms; reconnecting`
              : '',
          );
          deciding.notices.push(
            callbackError(process.env.NODE_ENV !== 'production' ? '`shouldReconnect` timed out' : '', problem),
          );
          this.decided_(deciding, true);
        } else if (!this.run_('hold')) this.startAttempt_('retry'); // a feature may hold it (offline)
      } else this.finishClose_({ code: 1006, reason: 'close timeout', wasClean: false });
    }
  }

  // ─── an attempt, from its target to its end ──────────────────────────────────────────────

  /** Lets the features see their per-socket options, and connects unless `autoConnect` is false. */
  init_(options: unknown): void {
    this.run_('init', options ?? {});
    if ((options as { autoConnect?: boolean } | undefined)?.autoConnect !== false && !this.disposed_) {
      this.startAttempt_('autoConnect');
    }
  }

  /**
   * Starts an attempt: `connecting`, then its target (a `target` hook, i.e. a URL provider, is
   * called now) and, asynchronously even for a plain URL (so that listeners attached right after
   * `new` hear `connecting`), its WebSocket. A provider that throws or rejects fails the attempt.
   */
  startAttempt_(reason: string): void {
    const attempt = new Connection(this, ++this.runAttempts_);
    this.attempt_ = attempt;
    this.attempts_++;
    this.enter_('connecting', reason);
    if (!this.isLive_(attempt)) return;
    const { config_: config } = this;
    new Promise<Target>((resolve) =>
      resolve(
        this.run_('target', this.target_, config.protocols) ??
          ({ url: this.url_, protocols: config.protocols } as Target),
      ),
    ).then(
      (target) => this.isLive_(attempt) && this.connect_(attempt, target),
      (error: unknown) =>
        this.fail_(
          attempt,
          'ERR_RS_PROVIDER_FAILED',
          process.env.NODE_ENV !== 'production' ? `URL or protocols provider failed: ${describeThrown(error)}` : '',
          'ERR_RS_PROVIDER_FAILED',
          error,
        ),
    );
  }

  /** Makes the attempt's WebSocket and binds it (the transport reports back through the `Owner` methods below). */
  connect_(attempt: Connection, { url, protocols }: Target): void {
    this.url_ = url;
    this.emit_('connecting', { attempt: attempt.number, url: redactUrl(url) });
    if (!this.isLive_(attempt)) return;
    const options = this.wsOptions_;
    const { WebSocket } = this.config_;
    let ws: WebSocketLike | undefined;
    try {
      ws = options ? new WebSocket(url, protocols ?? [], options) : new WebSocket(url, protocols);
      if (!isWebSocket(ws)) {
        throw new TypeError(
          process.env.NODE_ENV !== 'production'
            ? 'the `WebSocket` constructor returned an object without the WebSocket API'
            : 'WebSocket',
        );
      }
      if (this.binaryType_ !== undefined) ws.binaryType = this.binaryType_;
      this.config_.transport.bind_(attempt, ws);
    } catch (error) {
      // A socket the attempt could not take: closed here, its late events absorbed.
      if (isWebSocket(ws) && attempt.socket !== ws) {
        const orphan = new Connection(this, 0);
        this.config_.transport.bind_(orphan, ws);
        orphan.abort_();
      }
      this.fail_(
        attempt,
        'ERR_RS_CONNECTION_FAILED',
        process.env.NODE_ENV !== 'production' ? `Could not create the WebSocket: ${describeThrown(error)}` : '',
        'ERR_RS_CONNECTION_FAILED',
        error,
      );
    }
  }

  /** The transport opened: the connect deadline is over; a feature's gate (a handshake) may hold the open. */
  opened_(connection: Bound): void {
    const attempt = this.current_(connection);
    if (!attempt || this.disposed_) return;
    this.disarm_(PHASE);
    this.gate_(attempt, 0);
  }

  /**
   * Runs the features' gates from the `from`-th on, in rank order, each after the one before has
   * passed (a gate that holds returns a promise: the handshake, delivery's hello once its store is
   * loaded), then accepts. A gate that does not pass fails the attempt itself (`fail_`).
   */
  gate_(attempt: Connection, from: number): void {
    const features = this.config_.features;
    for (let me = from; me < features.length; me++) {
      const gate = features[me]?.gate?.(this, me, attempt);
      if (gate) {
        gate.then(() => this.isLive_(attempt) && !attempt.opened && this.gate_(attempt, me + 1), noop);
        return;
      }
    }
    this.accept_(attempt);
  }

  /** The connection is usable: flush the queue, become `open`, then tell the features and listeners. */
  accept_(attempt: Connection): void {
    const ws = attempt.socket;
    if (!ws) return;
    attempt.opened = true;
    this.since_ = this.config_.clock.now();
    this.connects_++;
    // Flushed before anyone can call send() again, so queued messages keep their order.
    const stale: Data[] = [];
    const later: Data[] = [];
    this.run_('flush', stale);
    const [refused, cause] = this.flush_(ws);
    this.enter_('open', 'connection opened');
    // Reported even when a state listener closed or replaced the connection.
    this.drop_('expired', stale);
    if (refused.length) this.unsendable_(refused, cause);
    if (!this.isLive_(attempt)) return;
    this.run_('open', attempt, ws, later);
    this.emit_('open', { attempt: attempt.number, reconnected: this.connects_ > 1 });
    if (this.isLive_(attempt)) this.pressure_(); // the flush may have gone past the mark, or back under it
    for (const data of later) if (this.isLive_(attempt)) this.deliver_(data);
    if (!this.config_.stableAfter) this.markStable_(attempt);
  }

  /**
   * Writes the queued messages, oldest first, while the socket is open. A message the socket
   * refuses while it stays open can never be written: it is set aside (returned, with the first
   * failure as `cause`) and the rest go on. A socket that stops being open keeps the rest queued.
   */
  flush_(ws: WebSocketLike): [refused: Data[], cause: unknown] {
    const refused: Data[] = [];
    let cause: unknown;
    const queue = this.queue_;
    for (let message = queue?.shift(); message; message = queue?.shift()) {
      try {
        if (ws.readyState !== OPEN) throw undefined;
        ws.send(message.data as never);
        this.messagesOut_++;
      } catch (thrown) {
        if (ws.readyState !== OPEN) {
          queue?.unshift(message);
          return [refused, cause];
        }
        if (!refused.length) cause = thrown;
        refused.push(message.data);
      }
    }
    this.queue_ = undefined;
    return [refused, cause];
  }

  received_(connection: Bound, data: unknown): void {
    const attempt = this.current_(connection);
    // A connection that close() caught before it opened (in a gate) delivers nothing.
    if (!attempt || (this.state_ === 'closing' && !attempt.opened)) return;
    this.messagesIn_++;
    if (!this.run_('message', attempt, data) && this.attempt_ === attempt) this.deliver_(data as Data);
  }

  /** Hands a message to the features that consume it in order (async iterators), then to listeners. */
  deliver_(data: Data): void {
    this.run_('deliver', data);
    this.emit_('message', data);
  }

  /** An `error` on an attempt not yet open ends it `ERROR_GRACE` ms later unless its `close` comes first. */
  errored_(connection: Bound): void {
    const attempt = this.current_(connection);
    if (attempt && !attempt.opened && this.state_ === 'connecting') this.arm_(PHASE, ERROR_GRACE);
  }

  /**
   * The transport closed a socket (the server, the network, or our own close()); `fault` see
   * `Owner`. With `frameOnly` (ws), the server's close frame arrived: the connection is over now,
   * whenever its TCP connection closes; its TCP close is awaited in the background (`retire`).
   * After our own close() the `closing` state already waits for exactly that TCP close.
   */
  closed_(connection: Bound, info: CloseInfo, fault?: Error, frameOnly?: boolean): void {
    const attempt = this.current_(connection);
    if (attempt) {
      if (this.state_ !== 'closing') {
        this.lost_(attempt, lossError(attempt, info, fault), info, frameOnly ? 'retire' : 'release');
      } else if (!frameOnly) this.finishClose_(info);
    } else if (connection === this.retiring_ && !frameOnly) {
      // A connection let go before its TCP close finished closing (its `close` was told then).
      this.retiring_ = undefined;
      this.disarm_(RETIRE);
      this.drop_('unflushed', [], (connection as Connection).release_());
    }
  }

  /** We gave up on the attempt (timeout, provider, gate, dead link): its connection is closed with 1006 and `reason`. */
  fail_(attempt: Connection, code: string, message: string, reason: string, cause?: unknown): void {
    if (!this.isLive_(attempt)) return;
    const error = new ResilientSocketError(code as never, message, { cause });
    this.lost_(attempt, error, attempt.socket ? { code: 1006, reason, wasClean: false } : undefined, 'abort');
  }

  /**
   * Ends `attempt` for the machine and its features (`end`): `abort` closes its socket at once,
   * `release` leaves it to close by itself, `retire` keeps it bound until its TCP close, cut after
   * `CLOSE_TIMEOUT` (one connection at a time): its messages reach nobody, its `close` only ends
   * the retirement. Returns whether it had a socket.
   */
  endAttempt_(attempt: Connection, how: 'abort' | 'release' | 'retire', reason = ''): boolean {
    if (this.attempt_ === attempt) this.attempt_ = undefined;
    if (attempt.opened) this.since_ = this.config_.clock.now();
    this.disarm_(PHASE);
    this.run_('end', attempt);
    const had = attempt.socket !== undefined;
    if (had && how === 'abort') this.unflushed_ += attempt.abort_(1000, reason);
    else if (had && how === 'release') this.unflushed_ += attempt.release_();
    else if (had) {
      this.dropRetiring_();
      this.retiring_ = attempt;
      this.arm_(RETIRE, CLOSE_TIMEOUT);
    }
    return had;
  }

  /** The closing handshake of close() finished (or timed out): the socket is closed for good. */
  finishClose_(info: CloseInfo): void {
    const attempt = this.attempt_;
    this.disarmAll_();
    this.attempt_ = undefined;
    const had = attempt?.socket !== undefined;
    this.unflushed_ +=
      (info.reason === 'close timeout' && info.code === 1006 ? attempt?.abort_() : attempt?.release_()) ?? 0;
    if (attempt?.opened) this.since_ = this.config_.clock.now();
    this.enter_('closed', 'closed by close()');
    if (had) this.emitClose_(info);
  }

  /** The connection stayed open `stableAfter` ms: the failure count and the backoff reset. */
  markStable_(attempt: Connection): void {
    if (!this.isLive_(attempt) || this.state_ !== 'open') return;
    this.resetRun_();
    this.emit_('stable');
  }

  // ─── after a loss: the features' say, shouldReconnect, the decision ──────────────────────

  /**
   * The one path for every ended attempt or connection. `close` is given exactly when the attempt
   * had a socket (its `close` event is then due); `how` its socket goes (`abort`: the socket cut
   * it, and only a close the server or the network caused goes to `shouldReconnect`).
   */
  lost_(
    attempt: Connection,
    error: ResilientSocketError | undefined,
    close: CloseInfo | undefined,
    how: 'abort' | 'release' | 'retire',
  ): void {
    this.failures_ = Math.min(this.failures_ + 1, Number.MAX_SAFE_INTEGER);
    this.endAttempt_(attempt, how, close?.reason);
    const { rejection_: rejection, number } = attempt;
    const loss: Loss = {
      attempt: number,
      error,
      close,
      rejection,
      stop: undefined,
      minimumDelay: 0,
      immediate: false,
      notices: [],
    };
    this.run_('lost', loss);
    let verdict: unknown = true;
    if (close && how !== 'abort' && !rejection) {
      try {
        verdict = this.config_.shouldReconnect(close);
      } catch (thrown) {
        loss.notices.push(
          callbackError(process.env.NODE_ENV !== 'production' ? '`shouldReconnect` threw' : '', thrown),
        );
      }
    }
    if (typeof (verdict as PromiseLike<unknown> | undefined)?.then !== 'function') {
      this.act_(loss, verdict !== false);
      return;
    }
    // Waits for the answer in `reconnecting` (the `retry` deadline bounds it). The errors are told
    // now; the `close` waits, since whether a retry follows is not known yet.
    this.deciding_ = loss;
    this.enter_('reconnecting', error?.message ?? 'connection lost', SHOULD_RECONNECT_TIMEOUT);
    this.tell_({ error, notices: loss.notices, close: undefined });
    loss.error = undefined;
    loss.notices = [];
    Promise.resolve(verdict).then(
      (again) => this.decided_(loss, again !== false),
      (thrown: unknown) => {
        loss.notices.push(
          callbackError(process.env.NODE_ENV !== 'production' ? '`shouldReconnect` rejected' : '', thrown),
        );
        this.decided_(loss, true);
      },
    );
  }

  /** An async `shouldReconnect` settled (or timed out); nothing to do if close() or reconnect() took over. */
  decided_(loss: Loss, again: boolean): void {
    if (this.deciding_ !== loss) return;
    this.deciding_ = undefined;
    this.act_(loss, again);
  }

  /**
   * Acts on `decide()`: give up, wait for the network, or wait out a backoff delay. Also how a
   * `SharedSocket` tab takes over the connection of a leader tab that left.
   */
  act_(loss: Loss, again: boolean): void {
    const held = this.run_<string | true>('hold');
    const decision = decide(loss, this.failures_, this.config_.maxRetries, again, !!held);
    if (typeof decision === 'object') {
      // Give up, with `decision` as the reason.
      const queued = this.takeQueued_();
      this.enter_('closed', decision.message);
      const changes = this.changes_;
      this.tell_(loss, decision);
      this.drop_('closed', queued);
      // Not when a listener called close() (the user ended it) or open()/reconnect() (it goes on).
      if (this.changes_ === changes && !this.disposed_) {
        this.emit_('giveup', { attempts: this.runAttempts_, failures: this.failures_, error: decision });
        if (
          process.env.NODE_ENV !== 'production' &&
          !this.socket_.listens_('giveup') &&
          !this.socket_.listens_('error')
        ) {
          const { code, message } = decision;
          unheard(this, UNHEARD_GIVEUP, code, `gave up (${message}) and nothing listens for \`giveup\` or \`error\``);
        }
      }
    } else if (decision === 'wait-for-network') {
      // No network (or a hidden page): no delay drawn, no attempt burnt; the holder retries later.
      this.enter_('reconnecting', held === true ? 'offline: waiting for the network' : (held as string));
      this.tell_(loss);
    } else this.wait_(loss);
  }

  /**
   * Waits out a backoff delay: draws it (at least a server's Retry-After, none for an immediate
   * retry), enters `reconnecting` with that deadline, tells what happened, then `reconnecting`. A
   * refusal retried at once still counts for the backoff: the delay is drawn either way.
   */
  wait_(loss: Loss): void {
    const delay = retryDelay(this.draw_(loss.notices), loss.minimumDelay, loss.immediate);
    this.nextRetryAt_ = this.config_.clock.now() + delay;
    this.enter_('reconnecting', loss.error?.message ?? 'connection lost', delay);
    const changes = this.changes_;
    this.tell_(loss);
    // A listener that closed or replaced the socket took over: this wait no longer holds.
    if (this.changes_ === changes && !this.disposed_) {
      this.emit_('reconnecting', { attempt: this.runAttempts_ + 1, delay });
    }
  }

  // ─── what the user asks ──────────────────────────────────────────────────────────────────

  /**
   * Sends now when open; otherwise queues (unless `buffer` is false), copying binary data first. A
   * message that can be neither sent nor queued is reported by a `drop`.
   */
  send_(data: Data, buffer: boolean): SendResult {
    // What each state's send() does (`RULES`): open sends, closing and closed drop, the rest queue.
    const closed = (): boolean => this.disposed_ || !RULES[this.state_].buffersSends;
    if (closed()) return this.dropOne_('closed', data);
    const ws = this.attempt_?.socket;
    if (RULES[this.state_].sendsDirectly && ws?.readyState === OPEN && !this.queue_) {
      try {
        ws.send(data as never);
        this.messagesOut_++;
        if (!this.above_) this.pressure_(); // (above it, the watch is on: drain comes from it, never from send())
        return 'sent';
      } catch (thrown) {
        // Still open: the socket refused this message itself, and always will. Otherwise it is
        // going down, and the message waits for the next connection.
        if (ws.readyState === OPEN) return this.unsendable_([data], thrown);
      }
    }
    if (!buffer) return this.dropOne_('not-connected', data);
    let own: Data;
    try {
      own = ownCopy(data);
    } catch (thrown) {
      return this.unsendable_([data], thrown);
    }
    // A feature may expire old messages (a drop listener may close the socket) or refuse this one.
    if (this.run_('admit', byteLengthOf(own))) return this.dropOne_('overflow', data);
    if (closed()) return this.dropOne_('closed', data);
    const { maxMessages, maxBytes, clock } = this.config_;
    this.queue_ ??= new Queue(maxMessages, maxBytes);
    const queue = this.queue_;
    const evicted = queue.push(own, clock.now());
    if (!evicted) {
      if (!queue.length) this.queue_ = undefined;
      return this.dropOne_('overflow', data);
    }
    this.drop_('overflow', evicted);
    // A drop listener that closed the socket made close() report this message as dropped too.
    if (this.disposed_) return 'dropped';
    if (!this.above_) this.pressure_();
    return 'buffered';
  }

  /** Starts connecting from `idle` or `closed` (after a give-up); does nothing in the other states. */
  open_(): void {
    if (this.state_ !== 'idle' && this.state_ !== 'closed') return;
    this.resetRun_();
    this.startAttempt_('open() called');
  }

  /**
   * Lets the current connection go (an open one politely: a close frame, its handshake finished in
   * the background) and connects again now, with a fresh backoff.
   */
  reconnect_(code: number | undefined, reason: string): void {
    this.resetRun_();
    const deciding = this.deciding_;
    this.deciding_ = undefined;
    const attempt = this.attempt_;
    const ws = attempt?.socket;
    let ended: CloseInfo | undefined;
    if (attempt && ws) {
      if (ws.readyState === OPEN) {
        this.endAttempt_(attempt, 'retire');
        try {
          closeSocket(ws, code, reason);
        } catch {
          this.dropRetiring_();
        }
      } else this.endAttempt_(attempt, 'abort', reason); // not open yet: cut (as close() does)
      ended = { code: code ?? NO_STATUS, reason, wasClean: false };
    } else if (attempt) this.endAttempt_(attempt, 'abort');
    this.startAttempt_('reconnect() called');
    if (deciding?.close) this.emitClose_(deciding.close);
    if (ended) this.emitClose_(ended);
  }

  /**
   * Closes for good: stops reconnecting, drops (and reports) queued messages, closes the connection
   * with `code`/`reason` (an open one politely, waiting for the server's answer; without a code,
   * none is sent) and leaves no timer or listener behind. Idempotent.
   */
  close_(code: number | undefined, reason: string): void {
    if (this.disposed_) return;
    this.disposed_ = true;
    this.run_('dispose');
    this.disarmAll_();
    this.dropRetiring_();
    const deciding = this.deciding_;
    this.deciding_ = undefined;
    const queued = this.takeQueued_();
    const attempt = this.attempt_;
    const ws = attempt?.socket;
    if (attempt && ws?.readyState === OPEN) {
      // Open (or in a gate): the features let go of it, and it closes politely, waiting for the
      // server's answer (the `closing` deadline cuts it after CLOSE_TIMEOUT).
      this.run_('end', attempt);
      this.enter_('closing', 'close() called');
      this.drop_('closed', queued);
      try {
        closeSocket(ws, code, reason);
      } catch {
        // the deadline cuts the connection
      }
      return;
    }
    const hadSocket = attempt !== undefined && this.endAttempt_(attempt, 'abort', reason);
    this.enter_('closed', 'close() called');
    if (deciding?.close) this.emitClose_(deciding.close);
    if (hadSocket) this.emitClose_({ code: code ?? NO_STATUS, reason, wasClean: false });
    this.drop_('closed', queued);
  }

  /** This machine, unless its socket was closed for good (then `ERR_RS_CLOSED`). */
  alive_(method: string): this {
    if (this.disposed_) {
      throw new ResilientSocketError(
        'ERR_RS_CLOSED',
        process.env.NODE_ENV !== 'production'
          ? `Cannot call ${method}() after close(): the socket is closed for good`
          : '',
      );
    }
    return this;
  }
}

const noop = (): void => undefined;

/** What failed when a connection closed: an attempt that never opened, or a transport fault; none for a plain close. */
function lossError(attempt: Connection, info: CloseInfo, fault?: Error): ResilientSocketError | undefined {
  const cause = attempt.opened ? fault : attempt.error_;
  if (attempt.opened && !fault) return undefined;
  return new ResilientSocketError(
    'ERR_RS_CONNECTION_FAILED',
    process.env.NODE_ENV !== 'production' ? lossText(attempt, info, fault) : '',
    { cause },
  );
}

/** What a lost connection's error says (development builds). */
function lossText(attempt: Connection, info: CloseInfo, fault?: Error): string {
  if (attempt.opened) return `The connection failed: ${fault?.message}`;
  // What the WebSocket said, if anything (Node 24's error events say nothing).
  const { error_: cause, rejection_: rejection } = attempt;
  const detail = rejection
    ? `the server refused the upgrade with HTTP ${rejection.status}`
    : (cause as { message?: unknown } | undefined)?.message || info.reason;
  const why = typeof detail === 'string' && detail ? `: ${detail}` : '';
  return `Connection attempt ${attempt.number} failed (close code ${info.code})${why}`;
}

/** Whether a constructed object has the WebSocket methods we call. */
function isWebSocket(value: unknown): value is WebSocketLike {
  const ws = value as Partial<WebSocketLike> | undefined;
  return ['addEventListener', 'removeEventListener', 'send', 'close'].every(
    (method) => typeof ws?.[method as keyof WebSocketLike] === 'function',
  );
}
