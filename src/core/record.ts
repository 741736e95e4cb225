/**
 * A socket's record and its plumbing: every field the machine keeps (one object per socket, its
 * counters fields rather than objects of their own: the memory budget), the features' hook loop,
 * data and timers, and how the machine tells its users (state first, then what happened). The
 * machine (`./machine.ts`) extends it with the logic. Members end in `_`: the build shortens them.
 *
 * @internal
 */
import { clampDelay } from '../backoff/policy.js';
import { truncatedWindow } from '../backoff/truncated-binary-exponential.js';
import type { BackoffPolicyLike } from '../backoff/types.js';
import { unrefTimer } from '../clock.js';
import type { Data } from '../data.js';
import { isResilientSocketError, ResilientSocketError } from '../errors.js';
import type { Bound } from '../transports/transport.js';
import { describeReceived, describeThrown } from '../validation.js';
import type { CloseInfo } from './close-codes.js';
import type { Connection } from './connection.js';
import type { DropReason, ResilientSocketEvents } from './events.js';
import type { HookName, Host, Loss } from './feature.js';
import type { UrlProvider } from './options.js';
import type { Queue } from './queue.js';
import { callbackError, listenerError, surface, UNHEARD_DROP, unheard } from './report.js';
import type { Config, Resolved } from './resolve.js';
import { PRESSURE, RETIRE, RULES, type SocketState } from './states.js';

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

export abstract class SocketRecord implements Host {
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

  /** A timer is due (unless cleared or re-armed since it was set). */
  abstract fire_(slot: number, arming: number): void;
  abstract fail_(attempt: Connection, code: string, message: string, reason: string, cause?: unknown): void;
  abstract startAttempt_(reason: string): void;
  abstract enter_(next: SocketState, reason: string, wait?: number, replica?: boolean): void;
  abstract act_(loss: Loss, again: boolean): void;
  abstract endAttempt_(attempt: Connection, how: 'abort' | 'release' | 'retire', reason?: string): boolean;
  abstract deliver_(data: Data): void;

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
  /**
   * The next backoff delay, clamped to [0, 2^31 − 1]: the default is the truncated binary
   * exponential window `T·2^(min(n, N) − N)` times a fresh `Math.random()` (a formula, no policy
   * object per socket: the memory budget). A `backoff` policy that throws or returns no number is
   * reported (`ERR_RS_CALLBACK_FAILED`, in `notices`) and replaced by a 1 s wait: a broken policy
   * can neither crash the socket nor spin it in a loop.
   */
  draw_(notices: ResilientSocketError[]): number {
    const policy = this.backoff_;
    const { maxDelay, ceiling } = this.config_;
    if (!policy)
      return clampDelay(Math.random() * truncatedWindow(maxDelay as number, ceiling as number, ++this.draws_));
    try {
      const raw: unknown = policy.next();
      if (typeof raw === 'number' && !Number.isNaN(raw)) return clampDelay(raw);
      throw new TypeError(
        process.env.NODE_ENV !== 'production'
          ? `Expected \`backoff.next()\` to return a number, got ${describeReceived(raw)}`
          : '',
      );
    } catch (thrown) {
      // Thrown by the policy, or the TypeError above.
      notices.push(
        callbackError(process.env.NODE_ENV !== 'production' ? '`backoff.next()` failed (waiting 1000 ms)' : '', thrown),
      );
    }
    return 1_000;
  }
  /** Reports a loss once the socket is in its next state: what failed, failed callbacks, why it gives up, the close. */
  tell_({ error, notices, close }: Pick<Loss, 'error' | 'notices' | 'close'>, stop?: ResilientSocketError): void {
    if (error) this.report_(error);
    for (const notice of notices) this.reportUserError_(notice);
    if (stop) this.report_(stop);
    if (close) this.emitClose_(close);
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

  /** Reports messages that will never be sent (if there are any). */
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
      if (this.attempt_?.opened) this.arm_(PRESSURE, 20);
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
}

/**
 * A replica takes over its leader's connection (tab sharing): the leader's run so far (`attempts`
 * made, `failures` in a row) becomes `m`'s, and the connection's end (`close`, if it was open) is
 * decided as its own loss: one more failure, then the usual backoff, no sooner than `minimumDelay`
 * ms. (A function, not a method: only tab sharing needs it.)
 */
export function adoptRun(
  m: SocketRecord,
  attempts: number,
  failures: number,
  close: CloseInfo | undefined,
  minimumDelay: number,
): void {
  m.runAttempts_ = attempts;
  m.draws_ = failures;
  m.failures_ = failures + 1;
  const facts = { error: undefined, rejection: undefined, stop: undefined, immediate: false, notices: [] };
  m.act_({ attempt: attempts, close, minimumDelay, ...facts }, true);
}
