/**
 * The machine behind every socket, one class: one object per socket holds its record (each
 * counter a field rather than an object of its own: the memory budget) and runs it: the state
 * funnel and the deadlines (read from `RULES`, `./states.ts`), an attempt from its target to its
 * end, the features' hook loop, their data and timers, and how the socket tells its users (state
 * first, then what happened). Two modules of functions over it complete it: what follows a loss
 * (`./loss.ts`) and what the users ask (`./commands.ts`: send, open, reconnect, close). Features
 * see it as `Host` (`./feature.ts`); the faces (`BaseSocket`, `ResilientWebSocket`, a
 * `SharedSocket` tab) hold it. Members end in `_`: the build shortens them.
 *
 * @internal
 */
import { clampDelay } from '../backoff/policy.js';
import type { BackoffPolicyLike } from '../backoff/types.js';
import { unrefTimer } from '../clock.js';
import type { Data } from '../data.js';
import { isResilientSocketError, ResilientSocketError } from '../errors.js';
import { redactUrl } from '../redact.js';
import type { Bound, Owner } from '../transports/transport.js';
import type { WebSocketLike } from '../transports/websocket-like.js';
import { describeThrown } from '../validation.js';
import type { CloseInfo } from './close-codes.js';
import { Connection } from './connection.js';
import type { DropReason, ResilientSocketEvents } from './events.js';
import type { HookName, Host, Loss, Target } from './feature.js';
import { decided, lose, lossError } from './loss.js';
import type { UrlProvider } from './options.js';
import type { Queue } from './queue.js';
import { callbackError, listenerError, surface, UNHEARD_DROP, unheard } from './report.js';
import type { Config, Resolved } from './resolve.js';
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

/**
 * The object a socket's users hold, as the machine uses it: `BaseSocket` or `ResilientWebSocket`.
 * Its members end in `_` (the build shortens them).
 */
export interface Face {
  /** Tells the users: emits, or dispatches as a DOM event. A listener that throws may throw out of it. */
  emit_(event: string, ...args: unknown[]): void;
  /** Whether anyone listens for `event`. */
  listens_(event: string): boolean;
  /** Closes for good (the `abortSignal` feature). */
  close(code: number, reason: string): void;
}

/** WebSocket ready states. */
const OPEN = 1;

export class Machine implements Host, Owner {
  declare readonly socket_: Face;
  /** Shared with every socket created with equal options. */
  declare readonly config_: Config;
  /** The `url` argument: a URL (read again for every attempt), or the provider to call. */
  declare readonly target_: UrlProvider;
  /** The `backoff` option's policy (the default backoff is a formula: no object). */
  declare readonly backoff_: BackoffPolicyLike | undefined;
  /** The `wsOptions` option (per socket: a header may carry its own token). */
  declare readonly wsOptions_: Record<string, unknown> | undefined;
  declare binaryType_: string | undefined;
  state_: SocketState = 'idle';
  /** State changes so far: a listener that changed the state is told apart by it. */
  changes_ = 0;
  attempt_: Connection | undefined = undefined;
  /** A connection let go before its TCP close (`reconnect()`, the server's close frame), cut after `CLOSE_TIMEOUT`. */
  retiring_: Connection | undefined = undefined;
  /** A loss an async `shouldReconnect` is deciding about (present only while it decides). */
  deciding_: Loss | undefined = undefined;
  /** Consecutive failures since the last stable connection: the backoff's `n`, what `maxRetries` limits. */
  failures_ = 0;
  /** Attempts started since the last stable connection, `open()` or `reconnect()`. */
  runAttempts_ = 0;
  /** Delays drawn from the default backoff since the last reset: its `n − 1`. */
  draws_ = 0;
  /** `close()` (or the `abortSignal` feature) ended this socket for good. */
  disposed_ = false;
  /** The URL of the latest attempt ('' before the first when it comes from a provider). */
  declare url_: string;
  /** Created by the first send that queues; let go once flushed or drained. */
  queue_: Queue | undefined = undefined;
  /** The features' per-socket data, one slot per feature, made when the first one needs it. */
  data_: unknown[] | undefined = undefined;
  /** Two entries per timer slot: the clock's handle, and the arming it belongs to (0: idle). */
  declare readonly timers_: unknown[];
  /** Timers armed so far: numbers each arming, so that a stale callback is told apart. */
  armed_ = 0;
  // The counters behind `stats` (fields, not an object of their own: the memory budget).
  attempts_ = 0;
  connects_ = 0;
  dropped_ = 0;
  messagesIn_ = 0;
  messagesOut_ = 0;
  /** When the current connection opened, or (none open) when the last one ended or the socket was made. */
  declare since_: number;
  lastError_: ResilientSocketError | undefined = undefined;
  /** When the last scheduled retry is due (read through `stats` only while it is pending). */
  nextRetryAt_: number | undefined = undefined;
  /** What the socket already warned about, unheard (bits of `UNHEARD_GIVEUP`, `UNHEARD_DROP`). */
  warned_ = 0;
  /** `bufferedAmount` went above the high-water mark and `drain` has not been emitted since. */
  above_ = false;
  /** Bytes a connection that just ended still held unwritten: reported after its `close` (a `drop`). */
  unflushed_ = 0;

  constructor(socket: Face, { config, url, backoff, binaryType, wsOptions }: Resolved) {
    this.socket_ = socket;
    this.config_ = config;
    this.target_ = url;
    this.backoff_ = backoff;
    this.binaryType_ = binaryType;
    this.wsOptions_ = wsOptions;
    this.url_ = typeof url === 'function' ? '' : String(url);
    this.since_ = config.clock.now();
    this.timers_ = new Array(config.slotOwner.length * 2).fill(0);
  }

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
          decided(this, deciding, true);
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
        gate.then(() => this.isLive_(attempt) && !attempt.opened_ && this.gate_(attempt, me + 1), noop);
        return;
      }
    }
    this.accept_(attempt);
  }

  /** The connection is usable: flush the queue, become `open`, then tell the features and listeners. */
  accept_(attempt: Connection): void {
    const ws = attempt.socket;
    if (!ws) return;
    attempt.opened_ = true;
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
        this.write_(ws, message.data);
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

  /** Writes `data` on `ws` and counts it in `messagesOut_`; a refusal throws, to the caller. */
  write_(ws: WebSocketLike, data: unknown): void {
    ws.send(data as never);
    this.messagesOut_++;
  }

  received_(connection: Bound, data: unknown): void {
    const attempt = this.current_(connection);
    // A connection that close() caught before it opened (in a gate) delivers nothing.
    if (!attempt || (this.state_ === 'closing' && !attempt.opened_)) return;
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
    if (attempt && !attempt.opened_ && this.state_ === 'connecting') this.arm_(PHASE, ERROR_GRACE);
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
        lose(this, attempt, lossError(attempt, info, fault), info, frameOnly ? 'retire' : 'release');
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
    lose(this, attempt, error, attempt.socket ? { code: 1006, reason, wasClean: false } : undefined, 'abort');
  }

  /**
   * Ends `attempt` for the machine and its features (`end`): `abort` closes its socket at once,
   * `release` leaves it to close by itself, `retire` keeps it bound until its TCP close, cut after
   * `CLOSE_TIMEOUT` (one connection at a time): its messages reach nobody, its `close` only ends
   * the retirement. Returns whether it had a socket.
   */
  endAttempt_(attempt: Connection, how: 'abort' | 'release' | 'retire', reason = ''): boolean {
    if (this.attempt_ === attempt) this.attempt_ = undefined;
    if (attempt.opened_) this.since_ = this.config_.clock.now();
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
    if (attempt?.opened_) this.since_ = this.config_.clock.now();
    this.enter_('closed', 'closed by close()');
    if (had) this.emitClose_(info);
  }

  /** The connection stayed open `stableAfter` ms: the failure count and the backoff reset. */
  markStable_(attempt: Connection): void {
    if (!this.isLive_(attempt) || this.state_ !== 'open') return;
    this.resetRun_();
    this.emit_('stable');
  }

  // ─── helpers of the machine ─────────────────────────────────────────────────────────────

  /** `connection` as the current attempt, if it still is that and still holds its socket. */
  current_(connection: Bound): Connection | undefined {
    return this.attempt_ === connection && connection.socket ? (connection as Connection) : undefined;
  }
  /** Cuts the connection being retired, if any (its time is up, or close()). */
  dropRetiring_(): void {
    const retiring = this.retiring_;
    this.retiring_ = undefined;
    this.disarm_(RETIRE);
    // Its `close` was told when it was let go: what it still held is told now.
    this.drop_('unflushed', [], retiring?.abort_());
  }
  /** Whether `attempt` is still the one the machine works on (user code runs inside every emit). */
  isLive_(attempt: Connection): boolean {
    return this.attempt_ === attempt && !this.disposed_;
  }
  /** A fresh start: no failures, first backoff window. */
  resetRun_(): void {
    this.failures_ = this.runAttempts_ = this.draws_ = 0;
    this.backoff_?.reset();
  }

  // ─── features and timers ─────────────────────────────────────────────────────────────────

  /** Runs hook `name` of every feature in rank order; the first truthy result ends the run and is returned. */
  run_<R>(name: HookName, ...args: unknown[]): R | undefined {
    const features = this.config_.features;
    for (let me = 0; me < features.length; me++) {
      const result = (features[me]?.[name] as ((...a: unknown[]) => R) | undefined)?.(this, me, ...args);
      if (result) return result;
    }
    return undefined;
  }

  /** Arms timer `slot` (replacing what it held) to fire after `ms`, clamped to [0, 2^31 − 1]. */
  arm_(slot: number, ms: number): void {
    this.disarm_(slot);
    const arming = ++this.armed_;
    this.timers_[2 * slot + 1] = arming;
    const handle = this.config_.clock.setTimeout(this.fire_.bind(this, slot, arming), clampDelay(ms));
    if (this.config_.unref) unrefTimer(handle);
    // A clock that ran the callback at once may have re-armed the slot: keep that timer's handle.
    if (this.timers_[2 * slot + 1] === arming) this.timers_[2 * slot] = handle;
  }

  /** Whether timer `slot` is pending. */
  timerPending_(slot: number): boolean {
    return this.timers_[2 * slot + 1] !== 0;
  }

  disarm_(slot: number): void {
    if (!this.timerPending_(slot)) return;
    const handle = this.timers_[2 * slot];
    this.timers_[2 * slot] = this.timers_[2 * slot + 1] = 0;
    this.config_.clock.clearTimeout(handle);
  }

  /** Cancels every timer: no clock timer is left. */
  disarmAll_(): void {
    for (let slot = 0; slot * 2 < this.timers_.length; slot++) this.disarm_(slot);
  }

  // ─── telling the users: state first, then what happened ──────────────────────────────────

  /** Emits on the socket; what a listener throws is reported as `ERR_RS_LISTENER_THREW`. */
  emit_<E extends keyof ResilientSocketEvents>(event: E, ...args: ResilientSocketEvents[E]): void {
    try {
      this.socket_.emit_(event, ...args);
    } catch (thrown) {
      if (event === 'error')
        surface(listenerError(process.env.NODE_ENV !== 'production' ? 'An `error` listener' : '', thrown));
      else
        this.reportUserError_(
          isResilientSocketError(thrown)
            ? thrown
            : listenerError(process.env.NODE_ENV !== 'production' ? 'A listener' : '', thrown),
        );
    }
  }

  /** Reports a failure of the socket (`error`; `stats.lastError`). */
  report_(error: ResilientSocketError): void {
    this.lastError_ = error;
    this.emit_('error', error);
  }

  /** Reports a failure of user code: an `error` event, or with no `error` listener `surface()` (never thrown). */
  reportUserError_(error: ResilientSocketError): void {
    if (!this.socket_.listens_('error')) surface(error);
    else {
      try {
        this.socket_.emit_('error', error);
      } catch (again) {
        surface(listenerError(process.env.NODE_ENV !== 'production' ? 'An `error` listener' : '', again));
      }
    }
  }

  /** Reports messages that will never be sent; `bytes` instead of messages for what a WebSocket still held (`'unflushed'`). */
  drop_(reason: DropReason, messages: Data[], bytes = 0): void {
    if (messages.length === 0 && !bytes) return;
    this.dropped_ += messages.length;
    this.emit_('drop', bytes ? { reason, messages, bytes } : { reason, messages });
    if (process.env.NODE_ENV !== 'production' && !this.socket_.listens_('drop')) {
      const what = bytes ? `${bytes} bytes` : messages.length === 1 ? 'a message' : `${messages.length} messages`;
      unheard(this, UNHEARD_DROP, 'RS_UNHEARD_DROP', `dropped ${what} (${reason}) and nothing listens for \`drop\``);
    }
  }

  dropOne_(reason: DropReason, data: Data): 'dropped' {
    this.drop_(reason, [data]);
    return 'dropped';
  }

  /** Messages the WebSocket refused while open: they can never be written (an error, then their drop). */
  unsendable_(messages: Data[], cause: unknown): 'dropped' {
    const text =
      process.env.NODE_ENV !== 'production'
        ? `The WebSocket refused ${messages.length === 1 ? 'a message' : `${messages.length} messages`} while open (dropped): ${describeThrown(cause)}`
        : '';
    this.report_(new ResilientSocketError('ERR_RS_UNSENDABLE', text, { cause }));
    this.drop_('unsendable', messages);
    return 'dropped';
  }

  /**
   * Bytes waiting to be sent: queued here, those features hold for the next connection (delivery's
   * outbox), and those the current WebSocket has not written yet.
   */
  buffered_(): number {
    let held = 0;
    const features = this.config_.features;
    for (let me = 0; me < features.length; me++) held += features[me]?.buffered?.(this, me) ?? 0;
    return (this.queue_?.bytes ?? 0) + held + (this.attempt_?.socket?.bufferedAmount ?? 0);
  }

  /**
   * Back-pressure, after a send, an open, and at each poll: above the high-water mark, it reads
   * `bufferedAmount` again in 20 ms while its own connection is open (only a WebSocket's buffer
   * shrinks by itself, telling nobody; the queue changes through the machine, which looks again
   * then); back at or under it, `drain`, once (none once `closed`: `close` and `giveup` said it).
   * No timer while under the mark. 20 ms wakes a producer well before a 64 KiB mark runs dry on a
   * link of up to about 25 Mbit/s (64 KiB in 20 ms), for at most 50 reads a second, and only
   * while a producer outruns the connection.
   */
  pressure_(): void {
    if (this.buffered_() > this.config_.highWaterMark) {
      this.above_ = true;
      if (this.attempt_?.opened_) this.arm_(PRESSURE, 20);
    } else if (this.above_) {
      this.above_ = false;
      if (this.state_ !== 'closed') this.emit_('drain');
    }
  }

  /** Takes every queued message out (to report them dropped). */
  takeQueued_(): Data[] {
    const all = this.queue_?.drain_() ?? [];
    this.queue_ = undefined;
    return all;
  }

  /** The `close` of a connection that ended; `willReconnect` says what the socket does now. */
  emitClose_(close: CloseInfo): void {
    const { terminal } = RULES[this.state_];
    const bytes = this.unflushed_;
    this.unflushed_ = 0;
    this.emit_('close', { ...close, willReconnect: !this.disposed_ && !terminal });
    this.drop_('unflushed', [], bytes);
  }

  // ─── for the faces ──────────────────────────────────────────────────────────────────────

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

/** Whether a constructed object has the WebSocket methods we call. */
function isWebSocket(value: unknown): value is WebSocketLike {
  const ws = value as Partial<WebSocketLike> | undefined;
  return ['addEventListener', 'removeEventListener', 'send', 'close'].every(
    (method) => typeof ws?.[method as keyof WebSocketLike] === 'function',
  );
}
