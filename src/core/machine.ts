/**
 * The machine of one socket: its state, held in one record the socket keeps private, and the
 * entry points of the modules that act on it. Each concern is one module of functions over this
 * record:
 *
 * | module        | what it does                                                                        |
 * | ------------- | ----------------------------------------------------------------------------------- |
 * | `funnel.ts`   | enters a state (clears the old deadline, arms the new one, tells the features, emits `state`); what each deadline does |
 * | `link.ts`     | one attempt: its target, its WebSocket, what the transport reports, the open and the flush, the end |
 * | `loss.ts`     | after a loss: the features' say, `shouldReconnect`, `decide()`, the delay, the report |
 * | `report.ts`   | events, errors and drops, so that no listener or callback can disturb the machine  |
 *
 * The modules call one another through the methods below (never through imports of each other),
 * so there is no import cycle. Members end in `_`: the build shortens those names (`mangleProps`),
 * and they stay out of sight of `util.inspect` and `JSON.stringify` of the socket, which holds this
 * record in a `#private` field.
 *
 * @internal
 */
import type { BackoffPolicyLike } from '../backoff/types.js';
import type { ResilientSocketError } from '../errors.js';
import type { CloseInfo } from './close-codes.js';
import type { Connection } from './connection.js';
import type { ResilientSocketEvents } from './events.js';
import type { Loss } from './feature.js';
import { enter, markStable, onTimer } from './funnel.js';
import { accept, dropRetiring, endAttempt, fail, finishClose, retire, startAttempt } from './link.js';
import { decided, lost } from './loss.js';
import type { Config, Resolved, UrlProvider } from './options.js';
import type { Queue } from './queue.js';
import { emit, report, reportUserError } from './report.js';
import type { SocketState } from './states.js';
import { TimerSlots, type TimerSpec } from './timers.js';

/** What each timer slot does when due: one table for all machines (no closure per timer). */
const TIMERS: TimerSpec<Machine> = { fire: onTimer };

export class Machine {
  /** Shared with every socket created with equal options. */
  readonly config_: Config;
  /** The `url` argument: a URL (read again for every attempt), or the provider to call. */
  readonly target_: UrlProvider;
  /** The `backoff` option's policy, or the default one while a run of failures needs it. */
  backoff_: BackoffPolicyLike | undefined;
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

  /** @param socket_ the socket its users hold (events are emitted on it) */
  constructor(
    readonly socket_: EventEmitterLike,
    resolved: Resolved,
  ) {
    const config = resolved.config;
    this.config_ = config;
    this.target_ = resolved.url;
    this.backoff_ = resolved.backoff;
    this.timers_ = new TimerSlots(TIMERS, config, this, config.slotOwner.length);
    this.binaryType_ = resolved.binaryType;
    this.url_ = typeof resolved.url === 'function' ? '' : String(resolved.url);
    this.since_ = config.clock.now();
  }

  // The modules' entry points (see the table above).
  enter_(next: SocketState, reason: string, wait?: number): void {
    enter(this, next, reason, wait);
  }
  startAttempt_(reason: string): void {
    startAttempt(this, reason);
  }
  accept_(attempt: Connection): void {
    accept(this, attempt);
  }
  markStable_(attempt: Connection): void {
    markStable(this, attempt);
  }
  fail_(attempt: Connection, code: string, message: string, reason: string, cause?: unknown): void {
    fail(this, attempt, code, message, reason, cause);
  }
  lost_(attempt: Connection, error: ResilientSocketError | undefined, close: CloseInfo | undefined, ours: boolean): void {
    lost(this, attempt, error, close, ours);
  }
  endAttempt_(attempt: Connection, how: 'abort' | 'detach' | 'retire', reason?: string): boolean {
    return endAttempt(this, attempt, how, reason);
  }
  retire_(attempt: Connection, code: number, reason: string): void {
    retire(this, attempt, code, reason);
  }
  dropRetiring_(): void {
    dropRetiring(this);
  }
  decided_(loss: Loss, again: boolean): void {
    decided(this, loss, again);
  }
  finishClose_(info: CloseInfo): void {
    finishClose(this, info);
  }
  emit_<E extends keyof ResilientSocketEvents>(event: E, ...args: ResilientSocketEvents[E]): void {
    emit(this, event, ...args);
  }
  report_(error: ResilientSocketError): void {
    report(this, error);
  }
  reportUserError_(error: ResilientSocketError): void {
    reportUserError(this, error);
  }

  /** Whether `attempt` is still the one the machine is working on (user code runs inside every emit). */
  isLive_(attempt: Connection): boolean {
    return this.attempt_ === attempt && !this.disposed_;
  }

  /** A fresh start: no failures, first backoff window. */
  resetRun_(): void {
    this.failures_ = 0;
    this.runAttempts_ = 0;
    // A default policy is simply let go (a new one starts at the first window: the memory budget).
    if (this.config_.maxDelay === undefined) this.backoff_?.reset();
    else this.backoff_ = undefined;
  }
}

/** The emitter side of the socket, as the machine uses it. */
export interface EventEmitterLike {
  emit(event: string, ...args: unknown[]): boolean;
  listenerCount(event: string): number;
}
