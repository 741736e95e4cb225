/**
 * The machine of one socket: its state, held in one record the socket keeps private, the state
 * funnel and what each state's deadline does, the backoff wait, and how it tells its users. The
 * rest is in modules of functions over this record:
 *
 * | module       | what it does                                                                          |
 * | ------------ | ------------------------------------------------------------------------------------- |
 * | `machine.ts` | enters a state (clears the old deadline, arms the new one, tells the features, emits `state`); what each deadline does; the backoff wait; events, errors and drops |
 * | `link.ts`    | one attempt: its target, its WebSocket, what the transport reports, the open and the flush, the end |
 * | `delay.ts`   | the backoff draw: the default's window times a fresh random number, or the `backoff` policy's next delay |
 * | `loss.ts`    | after a loss: the features' say, `shouldReconnect`, `decide()`, then give up, wait for the network or wait out the backoff |
 *
 * Members end in `_`: the build shortens those names (`mangleProps`), and they stay out of sight of
 * `util.inspect` and `JSON.stringify` of the socket, which holds this record in a `#private` field.
 * Features see it through the `Host` interface (`./feature.ts`): the same object, typed down.
 *
 * @internal
 */
import type { BackoffPolicyLike } from '../backoff/types.js';
import type { Data } from '../data.js';
import { isResilientSocketError, ResilientSocketError } from '../errors.js';
import { redactUrl } from '../redact.js';
import type { Bound, Owner } from '../transports/transport.js';
import { describeThrown } from '../validation.js';
import type { CloseInfo } from './close-codes.js';
import type { Connection } from './connection.js';
import { retryDelay } from './decide.js';
import { nextDelay } from './delay.js';
import type { DropReason, ResilientSocketEvents } from './events.js';
import type { Feature, HookName, Host, Loss } from './feature.js';
import {
  dropRetiring,
  endAttempt,
  fail,
  finishClose,
  onClose,
  onClosing,
  onMessage,
  onOpen,
  startAttempt,
} from './link.js';
import { decided } from './loss.js';
import type { UrlProvider } from './options.js';
import type { Queue } from './queue.js';
import { callbackError, listenerError, surface, UNHEARD_DROP, warn } from './report.js';
import type { Config, Resolved } from './resolve.js';
import {
  CLOSE_TIMEOUT,
  canTransition,
  PHASE,
  RETIRE,
  SHOULD_RECONNECT_TIMEOUT,
  type SocketState,
  STATES,
} from './states.js';
import { TimerSlots, type TimerSpec } from './timers.js';

/** What each timer slot does when due: one table for all machines (no closure per timer). */
const TIMERS: TimerSpec<Machine> = { fire: (m, slot) => m.fire_(slot) };

/**
 * The object a socket's users hold, as its machine uses it: `BaseSocket` (an eventemitter3
 * emitter) or `ResilientWebSocket` (an EventTarget). Its members end in `_` (the build shortens them).
 */
export interface Face {
  /** Tells the users: emits, or dispatches as a DOM event. A listener that throws may throw out of it. */
  emit_(event: string, ...args: unknown[]): void;
  /** Whether anyone listens for `event` (`error`: otherwise a failure of user code is surfaced elsewhere). */
  listens_(event: string): boolean;
  /** Closes for good (the `abortSignal` feature). */
  close(code: number, reason: string): void;
}

export class Machine implements Host, Owner {
  /** Shared with every socket created with equal options. */
  readonly config_: Config;
  /** The `url` argument: a URL (read again for every attempt), or the provider to call. */
  readonly target_: UrlProvider;
  /** The `backoff` option's policy (the default backoff is a formula: no object). */
  readonly backoff_: BackoffPolicyLike | undefined;
  /** Delays drawn from the default backoff since the last reset: its `n − 1`. */
  draws_ = 0;
  /** Created by the first send that queues; let go once flushed or drained. */
  queue_: Queue | undefined = undefined;
  readonly timers_: TimerSlots<Machine>;
  state_: SocketState = 'idle';
  /** State changes so far: a listener that changed the state is told apart by it. */
  changes_ = 0;
  attempt_: Connection | undefined = undefined;
  /** A connection `reconnect()` let go, finishing its closing handshake (the `RETIRE` slot bounds it). */
  retiring_: Connection | undefined = undefined;
  /** A loss an async `shouldReconnect` is deciding about (present only while it decides). */
  deciding_: Loss | undefined = undefined;
  /** Consecutive failures since the last stable connection. */
  failures_ = 0;
  /** Attempts started since the last stable connection, `open()` or `reconnect()`. */
  runAttempts_ = 0;
  /** `close()` (or the `abortSignal` feature) ended this socket for good. */
  disposed_ = false;
  binaryType_: string | undefined;
  /** The `wsOptions` option (per socket: a header may carry its own token). */
  readonly wsOptions_: Record<string, unknown> | undefined;
  /** The URL of the latest attempt ('' before the first when it comes from a provider). */
  url_: string;
  /** The features' per-socket data, one slot per feature, made when the first one needs it. */
  data_: unknown[] | undefined = undefined;
  // The counters behind `stats` (fields rather than an object of their own: the memory budget).
  attempts_ = 0;
  connects_ = 0;
  dropped_ = 0;
  messagesIn_ = 0;
  messagesOut_ = 0;
  /** When the current connection opened, or (no open connection) when the last one ended or the socket was made. */
  since_: number;
  lastError_: ResilientSocketError | undefined = undefined;
  /** When the last scheduled retry is due (read through `stats` only while it is pending). */
  nextRetryAt_: number | undefined = undefined;
  /** What the socket already warned about, unheard (bits of `UNHEARD_GIVEUP`, `UNHEARD_DROP`). */
  warned_ = 0;

  /** The socket its users hold (events are emitted on it). */
  readonly socket_: Face;

  // A plain field, not a parameter property: the build's declaration of one would keep its long name.
  constructor(socket: Face, { config, url, backoff, binaryType, wsOptions }: Resolved) {
    this.socket_ = socket;
    this.config_ = config;
    this.target_ = url;
    this.backoff_ = backoff;
    this.timers_ = new TimerSlots(TIMERS, config, this, config.slotOwner.length);
    this.binaryType_ = binaryType;
    this.wsOptions_ = wsOptions;
    this.url_ = typeof url === 'function' ? '' : String(url);
    this.since_ = config.clock.now();
  }

  // ─── features ────────────────────────────────────────────────────────────────────────────

  /**
   * Runs hook `name` of every feature, in rank order; the first truthy result ends the run and is
   * returned (a consumed message, a gate, a target, a refusal, a hold).
   */
  run_<R>(name: HookName, ...args: unknown[]): R | undefined {
    const features = this.config_.features;
    for (let me = 0; me < features.length; me++) {
      const result = (features[me]?.[name] as ((...a: unknown[]) => R) | undefined)?.(this, me, ...args);
      if (result) return result;
    }
    return undefined;
  }

  find_(name: string): [Feature, number] | undefined {
    const features = this.config_.features;
    const me = features.findIndex((f) => f.name === name);
    return me < 0 ? undefined : [features[me] as Feature, me];
  }

  get_(me: number): unknown {
    return this.data_?.[me];
  }

  set_(me: number, value: unknown): void {
    // Made at its exact length, on first need (the memory budget: most sockets never need it).
    if (value === undefined && !this.data_) return;
    this.data_ ??= new Array(this.config_.features.length);
    this.data_[me] = value;
  }

  setTimer_(me: number, local: number, ms: number): void {
    // Nothing runs after close() (a drop listener may close the socket while a feature works).
    if (!this.disposed_) this.timers_.set((this.config_.slotBase[me] as number) + local, ms);
  }

  clearTimer_(me: number, local: number): void {
    this.timers_.clear((this.config_.slotBase[me] as number) + local);
  }

  hasTimer_(me: number, local: number): boolean {
    return this.timers_.has((this.config_.slotBase[me] as number) + local);
  }

  // ─── the state funnel and the deadlines ──────────────────────────────────────────────────

  /**
   * Enters `next`: clears the deadline of the state it leaves and arms the one of the state it
   * enters (`wait` is the `retry` deadline's duration: the backoff delay, or how long an async
   * `shouldReconnect` may take; none while waiting for the network), tells the features, and emits
   * `state` before anything else tells about the change. Entering the state it is in only re-arms
   * the deadline (a `reconnect()` while connecting).
   */
  enter_(next: SocketState, reason: string, wait?: number): void {
    const previous = this.state_;
    const config = this.config_;
    const deadline = STATES[next].deadline;
    const ms =
      deadline === 'connect'
        ? config.connectTimeout
        : deadline === 'stable'
          ? config.stableAfter || undefined // 0: stable at once, once `open` was emitted
          : deadline === 'close'
            ? CLOSE_TIMEOUT
            : wait;
    this.timers_.clear(PHASE);
    if (ms !== undefined && ms < Number.POSITIVE_INFINITY) this.timers_.set(PHASE, ms);
    if (previous === next) return;
    if (!canTransition(previous, next)) {
      throw new Error(`resilient-socket internal error: illegal transition ${previous} → ${next} (${reason})`);
    }
    this.state_ = next;
    this.changes_++;
    this.run_('state', previous, next);
    this.emit_('state', { previous, current: next, reason });
  }

  /** A timer slot is due: the state's deadline, a retiring connection's, or a feature's. */
  fire_(slot: number): void {
    const { attempt_: attempt, deciding_: deciding, config_: config } = this;
    if (slot === RETIRE) {
      dropRetiring(this); // its time is up: cut it
      return;
    }
    if (slot > RETIRE) {
      const me = config.slotOwner[slot] as number;
      config.features[me]?.timer?.(this, me, slot - (config.slotBase[me] as number));
      return;
    }
    // PHASE: what the current state's deadline does (see `Deadline` in `./states.ts`).
    switch (STATES[this.state_].deadline) {
      case 'connect':
        if (attempt) {
          const message = `Connection attempt ${attempt.number} did not open within ${config.connectTimeout} ms`;
          fail(this, attempt, 'ERR_RS_CONNECT_TIMEOUT', message, 'connect timeout');
        }
        break;
      case 'stable':
        if (attempt) this.markStable_(attempt);
        break;
      case 'retry':
        if (deciding) {
          const problem = new Error(`did not settle within ${SHOULD_RECONNECT_TIMEOUT} ms; reconnecting`);
          deciding.notices.push(callbackError('shouldReconnect', 'timed out', problem));
          decided(this, deciding, true);
        } else if (!this.run_('hold')) startAttempt(this, 'retry'); // a feature may hold it (offline)
        break;
      case 'close':
        finishClose(this, { code: 1006, reason: 'close timeout', wasClean: false });
    }
  }

  /**
   * Waits out a backoff delay before the next attempt: draws it (`nextDelay`, `./delay.ts`; at least a
   * server's Retry-After, or none for an immediate retry), enters `reconnecting` with that
   * deadline, tells what happened, then `reconnecting`. A refusal retried at once still counts for
   * the backoff: the delay is drawn either way.
   */
  wait_(loss: Loss): void {
    const delay = retryDelay(nextDelay(this, loss.notices), loss.minimumDelay, loss.immediate);
    this.nextRetryAt_ = this.config_.clock.now() + delay;
    this.enter_('reconnecting', loss.error?.message ?? 'connection lost', delay);
    const changes = this.changes_;
    this.tell_(loss);
    // A listener that closed or replaced the socket took over: this wait no longer holds.
    if (this.changes_ === changes && !this.disposed_)
      this.emit_('reconnecting', { attempt: this.runAttempts_ + 1, delay });
  }

  /** Reports a loss once the socket is in its next state: what failed, failed callbacks, why it gives up, the close. */
  tell_({ error, notices, close }: Loss, stop?: ResilientSocketError): void {
    if (error) this.report_(error);
    for (const notice of notices) this.reportUserError_(notice);
    if (stop) this.report_(stop);
    if (close) this.emitClose_(close);
  }

  /** The connection stayed open `stableAfter` ms: the failure count and the backoff reset. */
  markStable_(attempt: Connection): void {
    if (!this.isLive_(attempt) || this.state_ !== 'open') return;
    this.resetRun_();
    this.emit_('stable');
  }

  /** Whether `attempt` is still the one the machine is working on (user code runs inside every emit). */
  isLive_(attempt: Connection): boolean {
    return this.attempt_ === attempt && !this.disposed_;
  }

  /** A fresh start: no failures, first backoff window. */
  resetRun_(): void {
    this.failures_ = this.runAttempts_ = this.draws_ = 0;
    this.backoff_?.reset();
  }

  // ─── what features ask for ───────────────────────────────────────────────────────────────

  pauseRetry_(): void {
    this.timers_.clear(PHASE);
  }

  startAttempt_(reason: string): void {
    startAttempt(this, reason);
  }

  fail_(attempt: Connection, code: string, message: string, reason: string, cause?: unknown): void {
    fail(this, attempt, code, message, reason, cause);
  }

  endAttempt_(attempt: Connection, how: 'abort' | 'release' | 'retire', reason?: string): boolean {
    return endAttempt(this, attempt, how, reason);
  }

  expire_(before: number): Data[] {
    const out = this.queue_?.expire(before) ?? [];
    if (!this.queue_?.length) this.queue_ = undefined;
    return out;
  }

  // ─── what the transport reports (see `Owner`) ────────────────────────────────────────────

  opened_(connection: Bound): void {
    onOpen(this, connection as Connection);
  }

  received_(connection: Bound, data: unknown): void {
    onMessage(this, connection as Connection, data as Data);
  }

  closed_(connection: Bound, info: CloseInfo, fault?: Error): void {
    onClose(this, connection as Connection, info, fault);
  }

  closing_(connection: Bound, info: CloseInfo): void {
    onClosing(this, connection as Connection, info);
  }

  ponged_(connection: Bound): void {
    if (this.attempt_ === connection && connection.socket) this.run_('pong', connection);
  }

  // ─── telling the users: state first, then what happened (see `ResilientSocketEvents`) ────

  /** Emits on the socket; what a listener throws is reported as `ERR_RS_LISTENER_THREW`. */
  emit_<E extends keyof ResilientSocketEvents>(event: E, ...args: ResilientSocketEvents[E]): void {
    try {
      this.socket_.emit_(event, ...args);
    } catch (thrown) {
      if (event === 'error') surface(listenerError('An `error` listener', thrown));
      else this.reportUserError_(isResilientSocketError(thrown) ? thrown : listenerError('A listener', thrown));
    }
  }

  /** Reports a failure of the socket (`error`; `stats.lastError`). */
  report_(error: ResilientSocketError): void {
    this.lastError_ = error;
    this.emit_('error', error);
  }

  /**
   * Reports a failure of user code (a listener, a callback from the options) as an `error` event,
   * or, with no `error` listener, through `surface()` (never thrown).
   */
  reportUserError_(error: ResilientSocketError): void {
    if (!this.socket_.listens_('error')) surface(error);
    else {
      try {
        this.socket_.emit_('error', error);
      } catch (again) {
        surface(listenerError('An `error` listener', again));
      }
    }
  }

  /** Reports messages that will never be sent (if there are any). */
  drop_(reason: DropReason, messages: Data[]): void {
    if (messages.length === 0) return;
    this.dropped_ += messages.length;
    this.emit_('drop', { reason, messages });
    if (!this.socket_.listens_('drop')) {
      const what = messages.length === 1 ? 'a message' : `${messages.length} messages`;
      this.unheard_(UNHEARD_DROP, 'RS_UNHEARD_DROP', `dropped ${what} (${reason}) and nothing listens for \`drop\``);
    }
  }

  /**
   * Warns once per socket and kind about what no listener heard (see `warn`), naming the socket
   * by its URL (redacted).
   */
  unheard_(kind: number, code: string, what: string): void {
    if (this.warned_ & kind) return;
    this.warned_ |= kind;
    const url = this.url_ ? ` to ${redactUrl(this.url_)}` : '';
    warn(code, `resilient-socket: the socket${url} ${what}; add a listener to handle it (said once per socket)`);
  }

  /** Messages the WebSocket refused while open: they can never be written (an error, then their drop). */
  unsendable_(messages: Data[], cause: unknown): 'dropped' {
    const what = messages.length === 1 ? 'a message' : `${messages.length} messages`;
    const message = `The WebSocket refused ${what} while open (dropped): ${describeThrown(cause)}`;
    this.report_(new ResilientSocketError('ERR_RS_UNSENDABLE', message, { cause }));
    this.drop_('unsendable', messages);
    return 'dropped';
  }

  /** Takes every queued message out (to report them dropped). */
  takeQueued_(): Data[] {
    const all = this.queue_?.drain() ?? [];
    this.queue_ = undefined;
    return all;
  }

  /** The `close` of a connection that ended; `willReconnect` says what the socket does now. */
  emitClose_(close: CloseInfo): void {
    this.emit_('close', { ...close, willReconnect: !this.disposed_ && !STATES[this.state_].terminal });
  }
}
