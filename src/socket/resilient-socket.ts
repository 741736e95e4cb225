import { EventEmitter } from 'eventemitter3';
import { clampDelay, MAX_TIMER_DELAY } from '../backoff/policy.js';
import type { BackoffPolicyLike } from '../backoff/types.js';
import { OutboundBuffer, type QueuedMessage } from '../buffer/outbound-buffer.js';
import { type Data, isData, ownCopy } from '../data.js';
import { type ErrorCode, ErrorCodes, isResilientSocketError, ResilientSocketError } from '../errors.js';
import { redactUrl } from '../redact.js';
import { TimerSlots, type TimerSpec } from '../timers.js';
import { parseRetryAfter } from '../transport/retry-after.js';
import { ReadyState, type WebSocketConstructorLike, type WebSocketLike } from '../transport/websocket-like.js';
import {
  assertBoolean,
  assertKnownKeys,
  assertOptionsObject,
  describeReceived,
  describeThrown,
  withDefault,
} from '../validation.js';
import { linkSignal, unlinkSignal } from './abort-signal.js';
import { Attempt, type HandshakeState, type HandshakeWaiter } from './attempt.js';
import { assertCloseArgs, type CloseInfo } from './close-codes.js';
import { type Connection, type ConnectionEvents, canPing, type UpgradeRejection } from './connection.js';
import type { DropReason, ResilientSocketEvents } from './events.js';
import { heartbeatActivity, heartbeatMode, startHeartbeat } from './heartbeat.js';
import {
  checkProtocols,
  checkUrl,
  defaultBackoff,
  type HandshakeConnection,
  type ResilientSocketOptions,
  resolveSocketOptions,
  type SocketConfig,
  type UrlProvider,
} from './options.js';
import {
  isOffline,
  RESUME,
  type ResumeSignal,
  unwatchResume,
  unwatchSuspend,
  watchResume,
  watchSuspend,
} from './resume.js';
import { canTransition, type SocketState, STATES } from './states.js';
import { Slot } from './timer-slots.js';

/** What `send()` did with a message. */
export type SendResult = 'sent' | 'buffered' | 'dropped';

/** Options of `send()`. */
export interface SendOptions {
  /**
   * Queue the message while not connected. `false` is for messages that only make sense on the
   * current connection (cursor positions, typing indicators): they are dropped (and reported)
   * instead of sent later.
   * @default true
   * @example
   * ```ts
   * socket.send(JSON.stringify(cursor), { buffer: false }) // stale after a reconnect: drop it
   * ```
   */
  buffer?: boolean;
}

/** The options `send()` takes. */
const SEND_OPTION_NAMES: readonly (keyof SendOptions)[] = ['buffer'];

/** A snapshot of counters, from `socket.stats`. */
export interface SocketStats {
  /** Connection attempts started. */
  readonly attempts: number;
  /** Connections that opened. */
  readonly connects: number;
  /** Connections that opened after the first. */
  readonly reconnects: number;
  /** Messages dropped (every one was reported by a `drop` event). */
  readonly dropped: number;
  /** Messages received (the answers to an app-level heartbeat included; protocol pongs are not messages). */
  readonly messagesIn: number;
  /** Messages written to a socket: sent directly, flushed, or app-level heartbeat and probe pings. */
  readonly messagesOut: number;
  /** How long the current connection has been open, in ms (0 when not open). */
  readonly uptime: number;
  /** How long the socket has been without an open connection, in ms (0 when open). */
  readonly downtime: number;
  /** The last error reported, if any. */
  readonly lastError: ResilientSocketError | undefined;
  /** When the pending retry will start (clock time, ms), if one is scheduled. */
  readonly nextRetryAt: number | undefined;
}

/** How long `close()` waits for the server's close frame before cutting the connection, in ms. */
export const CLOSE_TIMEOUT = 3_000;

/**
 * How long the socket waits for a `shouldReconnect` that returned a promise, in ms. A promise that
 * has not settled by then is reported (`ERR_RS_CALLBACK_FAILED`) and counts as `true`.
 */
export const SHOULD_RECONNECT_TIMEOUT = 10_000;

/** The wait used when a user backoff policy throws or returns something other than a number. */
const FALLBACK_DELAY = 1_000;

/**
 * A WebSocket that stays connected: it reconnects with backoff, buffers sends while down,
 * detects dead links and reports everything it does through typed events.
 *
 * @example
 * ```ts
 * const socket = new ResilientSocket('wss://example.test/feed', { maxDelay: 10_000, ceiling: 10 });
 * socket.on('message', (data) => render(data));
 * socket.send(JSON.stringify({ subscribe: 'prices' })); // queued until the first open
 * ```
 */
export class ResilientSocket extends EventEmitter<ResilientSocketEvents> {
  /**
   * The class's name, whatever a bundler renamed its binding to (`constructor.name`,
   * `util.inspect`). A plain static value, so bundlers can still drop an unused class.
   */
  static override readonly name: string = 'ResilientSocket';

  /**
   * Where the WebSocket comes from when neither the option nor a global exists. The Node entry
   * point overrides this to load `ws`; the browser build returns nothing.
   * @internal
   */
  protected static fallbackWebSocket(): WebSocketConstructorLike | undefined {
    return undefined;
  }

  /**
   * How every connection reports back: one table of functions for all sockets (they can reach the
   * private methods from here), so that a connection holds no closure over its socket or attempt.
   */
  static readonly #connectionEvents: ConnectionEvents<ResilientSocket> = {
    open: (connection) => connection.owner.#onSocketOpen(connection),
    message: (connection, data) => connection.owner.#onSocketMessage(connection, data as Data),
    close: (connection, info) => connection.owner.#onSocketClose(connection, info),
    pong: (connection) => connection.owner.#onSocketPong(connection),
    rejected: (connection, status, retryAfter) => {
      connection.rejection = { status, retryAfter: parseRetryAfter(retryAfter, connection.owner.#config.clock.now()) };
    },
  };

  /** What each timer slot does when due (one table for all sockets, like the connection events). */
  static readonly #timerSpec: TimerSpec<ResilientSocket> = {
    count: Slot.Count,
    fire: (socket, slot) => socket.#onTimer(slot),
  };

  /** Shared with every socket created with equal options. */
  readonly #config: SocketConfig;
  /** The `url` argument: a URL (read again for every attempt), or the provider to call. */
  readonly #target: UrlProvider;
  readonly #wsOptions: Record<string, unknown> | undefined;
  /** The `backoff` option's policy, or the default one while a run of failures needs it. */
  #backoff: BackoffPolicyLike | undefined;
  /** Created by the first send that queues; let go once flushed or drained. */
  #buffer: OutboundBuffer | undefined;
  readonly #timers: TimerSlots<ResilientSocket>;
  #state: SocketState = 'idle';
  /** State changes so far: a listener that changed the state is told apart by it (see #emitLoss). */
  #changes = 0;
  #attempt: Attempt | undefined;
  /** A connection `reconnect()` let go, finishing its closing handshake (the `Retire` slot bounds it). */
  #retiring: Attempt | undefined;
  /** A loss an async `shouldReconnect` is deciding about (present only while it decides). */
  #deciding: Loss | undefined;
  /** Consecutive failures since the last stable connection. */
  #failures = 0;
  /** Attempts started since the last stable connection, `open()` or `reconnect()`. */
  #runAttempts = 0;
  /** Consecutive 401/403 refusals. */
  #authRefusals = 0;
  /** `close()` or the signal ended this socket for good. */
  #disposed = false;
  #binaryType: string | undefined;
  #url: string;
  /** The `signal` option, while it can still close the socket (see `./abort-signal.ts`). */
  #signal: AbortSignal | undefined;
  /**
   * Internal consumers of messages (async iterators). They are fed before the public listeners,
   * so a user listener that throws cannot starve them.
   */
  #sinks: Set<{ message(data: Data): void; closed(): void }> | undefined;
  // The counters behind `stats` (fields of the socket rather than an object of their own: 24 bytes less).
  #attempts = 0;
  #connects = 0;
  #dropped = 0;
  #messagesIn = 0;
  #messagesOut = 0;
  /** When the current connection opened, or (no open connection) when the last one ended or the socket was made. */
  #since = 0;
  #lastError: ResilientSocketError | undefined;
  /** When the last scheduled retry was due (read through `stats` only while it is pending). */
  #nextRetryAt: number | undefined;

  /**
   * @param url a `ws:`/`wss:` URL (string or `URL`), or a sync/async function returning one,
   *   called before every attempt (for fresh auth tokens).
   * @param options see {@link ResilientSocketOptions}; validated here, once.
   * @throws TypeError / RangeError naming the option for bad input; ResilientSocketError
   *   `ERR_RS_NO_WEBSOCKET` when no WebSocket implementation is available.
   */
  constructor(url: UrlProvider, options?: ResilientSocketOptions) {
    super();
    const resolved = resolveSocketOptions(url, options, () =>
      (this.constructor as typeof ResilientSocket).fallbackWebSocket(),
    );
    const config = resolved.config;
    this.#config = config;
    this.#target = resolved.url;
    this.#wsOptions = resolved.wsOptions;
    this.#backoff = resolved.backoff;
    this.#timers = new TimerSlots(ResilientSocket.#timerSpec, config, this);
    this.#binaryType = resolved.binaryType;
    this.#url = typeof url === 'function' ? '' : String(url);
    this.#since = this.#config.clock.now();

    const { signal } = resolved;
    if (signal) {
      if (signal.aborted) {
        this.#disposed = true;
        this.#state = 'closed';
        return;
      }
      this.#signal = signal;
      linkSignal(signal, this);
    }
    const { resume } = config;
    if (resume) watchResume(this);
    if (resolved.autoConnect) this.#startAttempt('autoConnect');
  }

  // ─── read-only state ─────────────────────────────────────────────────────────────────────

  /** The current state; the README's "States" section has the diagram. */
  get state(): SocketState {
    return this.#state;
  }

  /**
   * The attempt number the events carry (`connecting`, `open`, `reconnecting`): while
   * `connecting`, the attempt in progress; while `reconnecting`, the attempt that follows the
   * wait; while `open`, the attempt that opened, until the connection is stable (then 0).
   * Attempts count from 1 since the last stable connection (or `open()`/`reconnect()`).
   */
  get attempt(): number {
    return this.#state === 'reconnecting' ? this.#runAttempts + 1 : this.#runAttempts;
  }

  /**
   * Consecutive failures since the last stable connection: failed attempts, plus the loss of the
   * connection the run started from. This is the `n` of the backoff and what `maxRetries` limits.
   */
  get failures(): number {
    return this.#failures;
  }

  /** The URL of the latest attempt, whole ('' before the first attempt when the URL is a provider). */
  get url(): string {
    return this.#url;
  }

  /** Messages waiting in the outbound buffer. */
  get bufferedCount(): number {
    return this.#buffer?.length ?? 0;
  }

  /** WebSocket-style ready state: CONNECTING (0) until open, OPEN (1), CLOSING (2), CLOSED (3). */
  get readyState(): number {
    switch (this.#state) {
      case 'open':
        return ReadyState.OPEN;
      case 'closing':
        return ReadyState.CLOSING;
      case 'closed':
        return ReadyState.CLOSED;
      default:
        return ReadyState.CONNECTING;
    }
  }

  /** The subprotocol the server chose for the current connection ('' if none or not open). */
  get protocol(): string {
    return this.#attempt?.opened ? (this.#attempt.socket?.protocol ?? '') : '';
  }

  /** `binaryType` of the current and every future underlying socket. */
  get binaryType(): string | undefined {
    return this.#binaryType ?? this.#attempt?.socket?.binaryType;
  }

  /** Sets `binaryType` on the current connection and on every later one. */
  set binaryType(value: string) {
    if (typeof value !== 'string') {
      throw new TypeError(`Expected \`binaryType\` to be a string, got ${describeReceived(value)}`);
    }
    this.#binaryType = value;
    const socket = this.#attempt?.socket;
    if (socket) socket.binaryType = value;
  }

  /** Counters and timings; a fresh snapshot on every read. */
  get stats(): SocketStats {
    const now = this.#config.clock.now();
    // An opened attempt is current from open until its connection is torn down (closing included).
    const opened = this.#attempt?.opened === true;
    return {
      attempts: this.#attempts,
      connects: this.#connects,
      reconnects: Math.max(0, this.#connects - 1),
      dropped: this.#dropped,
      messagesIn: this.#messagesIn,
      messagesOut: this.#messagesOut,
      uptime: opened && this.#state === 'open' ? now - this.#since : 0,
      downtime: opened ? 0 : now - this.#since,
      lastError: this.#lastError,
      // Only while the retry is pending (not while offline or deciding, nor once it has started).
      nextRetryAt:
        this.#state === 'reconnecting' && !this.#deciding && this.#timers.has(Slot.Phase)
          ? this.#nextRetryAt
          : undefined,
    };
  }

  // ─── user intent ─────────────────────────────────────────────────────────────────────────

  /**
   * Sends now when open; otherwise queues in the outbound buffer (unless `buffer: false`).
   * Binary data that is queued is copied first, so the caller may reuse, change or transfer its
   * buffer as soon as `send()` returns; binary data that is already detached is dropped at once.
   * @returns `'sent'`, `'buffered'` or `'dropped'` (every dropped message is also reported by `drop`).
   * @throws TypeError for data that is not a string or binary; ResilientSocketError
   *   `ERR_RS_BUFFER_OVERFLOW` when the buffer is full and `buffer.overflow` is `'error'`.
   */
  send(data: Data, options?: SendOptions): SendResult {
    if (!isData(data)) {
      throw new TypeError(
        `Expected \`data\` to be a string, ArrayBuffer, typed array or Blob, got ${describeReceived(data)}`,
      );
    }
    assertOptionsObject('send options', options);
    assertKnownKeys('', options, SEND_OPTION_NAMES, 'send()');
    const buffer = withDefault(options?.buffer, true);
    assertBoolean('buffer', buffer);

    if (this.#disposed || !STATES[this.#state].buffersSends) return this.#dropOne('closed', data);
    const socket = this.#attempt?.socket;
    if (
      STATES[this.#state].sendsDirectly &&
      socket &&
      socket.readyState === ReadyState.OPEN &&
      (this.#buffer?.length ?? 0) === 0
    ) {
      try {
        socket.send(data as never);
        this.#messagesOut++;
        return 'sent';
      } catch (thrown) {
        // Still open: the socket refused this message itself, and always will. Otherwise it is
        // going down, and the message waits for the next connection.
        if (socket.readyState === ReadyState.OPEN) return this.#unsendable([data], thrown);
      }
    }
    if (!buffer) return this.#dropOne('not-connected', data);
    let own: Data;
    try {
      own = ownCopy(data);
    } catch (thrown) {
      return this.#unsendable([data], thrown);
    }
    // Expiring reports a drop, and a drop listener may close the socket: look again afterwards.
    this.#expireBuffered();
    if (this.#disposed || !STATES[this.#state].buffersSends) return this.#dropOne('closed', data);
    this.#buffer ??= new OutboundBuffer(this.#config.buffer);
    const result = this.#buffer.push(own, this.#config.clock.now());
    if (result.status === 'dropped') return this.#dropOne('overflow', data);
    this.#armTtl();
    this.#reportQueued('overflow', result.evicted);
    // A drop listener that closed the socket made close() report this message as dropped too.
    return this.#disposed ? 'dropped' : 'buffered';
  }

  /**
   * Starts connecting: from `idle` (with `autoConnect: false`) or from `closed` after a give-up
   * (starting afresh). Does nothing in the other states.
   * @throws ResilientSocketError `ERR_RS_CLOSED` after `close()`.
   */
  open(): void {
    this.#assertNotDisposed('open');
    if (this.#state !== 'idle' && this.#state !== 'closed') return;
    this.#resetRun();
    this.#startAttempt('open() called');
  }

  /**
   * Lets the current connection go and connects again now, with a fresh backoff. An open
   * connection is closed politely: a close frame with `code` and `reason` is sent, and its closing
   * handshake finishes in the background (cut after {@link CLOSE_TIMEOUT} ms) while the new attempt
   * starts; its `close` event reports that code and reason with `wasClean: false` (the handshake
   * has not finished when the event fires). Late events of the old connection never reach you.
   * From `closed` after a give-up it starts afresh, like `open()`.
   * @param code 1000 or 3000–4999. @default 1000
   * @param reason at most 123 UTF-8 bytes. @default ''
   * @throws TypeError / RangeError for an invalid code or reason (as `close()`);
   *   ResilientSocketError `ERR_RS_CLOSED` after `close()`.
   */
  reconnect(code = 1000, reason = ''): void {
    assertCloseArgs(code, reason);
    this.#assertNotDisposed('reconnect');
    this.#resetRun();
    const deciding = this.#endDecision();
    const attempt = this.#attempt;
    let ended: CloseInfo | undefined;
    if (attempt) {
      const socket = attempt.socket;
      if (socket && socket.readyState === ReadyState.OPEN) {
        this.#retire(attempt, socket, code, reason);
        ended = { code, reason, wasClean: false };
      } else if (this.#endAttempt(attempt, 'abort', reason)) {
        ended = { code, reason, wasClean: false }; // not open yet: cut (as close() does)
      }
    }
    this.#startAttempt('reconnect() called');
    if (deciding?.close) this.#emitClose(deciding.close);
    if (ended) this.#emitClose(ended);
  }

  /**
   * Closes for good: stops reconnecting, drops (and reports) queued messages, closes the
   * connection with `code`/`reason` and leaves no timer or listener behind. Idempotent.
   * @param code 1000 or 3000–4999. @default 1000
   * @param reason at most 123 UTF-8 bytes. @default ''
   * @throws TypeError / RangeError for an invalid code or reason.
   */
  close(code = 1000, reason = ''): void {
    assertCloseArgs(code, reason);
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#signal) unlinkSignal(this.#signal, this);
    this.#signal = undefined;
    this.#timers.clearAll();
    this.#dropRetiring();
    const deciding = this.#endDecision();
    const queued = this.#takeQueued();
    const attempt = this.#attempt;
    const socket = attempt?.socket;
    if (attempt && socket && socket.readyState === ReadyState.OPEN) {
      // Open (or running the handshake hook): close politely and wait for the server's answer.
      this.#endHandshake(attempt);
      this.#setState('closing', 'close() called');
      this.#reportQueued('closed', queued);
      try {
        socket.close(code, reason);
      } catch {
        // fall through to the timeout, which cuts the connection
      }
      if (this.#state === 'closing') this.#timers.set(Slot.Phase, CLOSE_TIMEOUT);
      return;
    }
    const hadSocket = attempt !== undefined && this.#endAttempt(attempt, 'abort', reason);
    this.#setState('closed', 'close() called');
    if (deciding?.close) this.#emitClose(deciding.close);
    if (hadSocket) this.#emitClose({ code, reason, wasClean: false });
    this.#reportQueued('closed', queued);
  }

  /**
   * Iterates over incoming messages until the socket reaches `closed`.
   * Messages that arrive faster than the loop consumes them are queued in memory.
   */
  [Symbol.asyncIterator](): AsyncIterableIterator<Data> {
    const queue: Data[] = [];
    const waiting: ((result: IteratorResult<Data>) => void)[] = [];
    let done = this.#state === 'closed';
    const sink = {
      message: (data: Data): void => {
        const resolve = waiting.shift();
        if (resolve) resolve({ value: data, done: false });
        else queue.push(data);
      },
      closed: (): void => finish(),
    };
    const finish = (): void => {
      if (done) return;
      done = true;
      this.#sinks?.delete(sink);
      for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
    };
    if (!done) {
      this.#sinks ??= new Set();
      this.#sinks.add(sink);
    }
    const iterator: AsyncIterableIterator<Data> = {
      next: () => {
        if (queue.length > 0) return Promise.resolve({ value: queue.shift() as Data, done: false });
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => waiting.push(resolve));
      },
      return: () => {
        finish();
        queue.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  // ─── the machine ─────────────────────────────────────────────────────────────────────────

  /**
   * Whether `attempt` is still the one the machine is working on. User code runs inside every
   * emit, and may call close() (which keeps the attempt for the closing handshake but disposes the
   * socket) or reconnect() (which replaces it): after each emit, callers check this and stop.
   */
  #isLive(attempt: Attempt): boolean {
    return this.#attempt === attempt && !this.#disposed;
  }

  /** A fresh start: no failures, first backoff window. */
  #resetRun(): void {
    this.#failures = 0;
    this.#runAttempts = 0;
    this.#authRefusals = 0;
    this.#resetBackoff();
  }

  /** Back to the first backoff window. A default policy is simply let go (a new one starts there). */
  #resetBackoff(): void {
    if (this.#config.maxDelay === undefined) this.#backoff?.reset();
    else this.#backoff = undefined;
  }

  /** Whether retries wait for the network: `resume.pauseWhileOffline` and the browser is offline. */
  #pausedOffline(): boolean {
    const { resume } = this.#config;
    return resume !== false && resume.pauseWhileOffline && isOffline();
  }

  /**
   * The one place the state changes. Emits `state` before anything else is told about the change
   * (see the order in `ResilientSocketEvents`); refuses transitions the table does not list.
   */
  #setState(next: SocketState, reason: string): void {
    const previous = this.#state;
    if (previous === next) return;
    if (!canTransition(previous, next)) {
      throw new Error(`resilient-socket internal error: illegal transition ${previous} → ${next} (${reason})`);
    }
    this.#state = next;
    this.#changes++;
    // Suspension is watched only while open (see #acceptOpen); everything ends with closed, and
    // leaving closed after a give-up (open(), reconnect()) listens to the page and network again.
    if (previous === 'open') unwatchSuspend(this, this.#config.clock);
    if (next === 'closed') unwatchResume(this, this.#config.clock);
    else if (previous === 'closed' && this.#config.resume) watchResume(this);
    if (next === 'closed' && this.#sinks) for (const sink of [...this.#sinks]) sink.closed();
    this.#emit('state', { previous, current: next, reason });
  }

  #startAttempt(reason: string): void {
    this.#timers.clear(Slot.Phase);
    this.#runAttempts++;
    const number = this.#runAttempts;
    const attempt = new Attempt(number, this, ResilientSocket.#connectionEvents);
    this.#attempt = attempt;
    this.#attempts++;
    this.#setState('connecting', reason);
    if (!this.#isLive(attempt)) return;
    if (Number.isFinite(this.#config.connectTimeout)) this.#timers.set(Slot.Phase, this.#config.connectTimeout);
    // Resolve providers asynchronously even for plain strings: the first attempt then starts after
    // the constructor returns, so listeners attached right after `new` hear `connecting`.
    void this.#resolveTarget().then(
      ({ url, protocols }) => {
        if (!this.#isLive(attempt)) return;
        this.#openSocket(attempt, url, protocols);
      },
      (error: unknown) => {
        if (!this.#isLive(attempt)) return;
        const message = `URL or protocols provider failed: ${describeThrown(error)}`;
        this.#fail(attempt, ErrorCodes.PROVIDER_FAILED, message, undefined, error);
      },
    );
  }

  async #resolveTarget(): Promise<{ url: string; protocols: string | string[] | undefined }> {
    const url = this.#target;
    const protocols = this.#config.protocols;
    const rawUrl = typeof url === 'function' ? await url() : url;
    const rawProtocols = typeof protocols === 'function' ? await protocols() : protocols;
    return { url: checkUrl('url()', rawUrl), protocols: checkProtocols('protocols()', rawProtocols) };
  }

  #openSocket(attempt: Attempt, url: string, protocols: string | string[] | undefined): void {
    this.#url = url;
    this.#emit('connecting', { attempt: attempt.number, url: redactUrl(url) });
    if (!this.#isLive(attempt)) return;
    let socket: InstanceType<WebSocketConstructorLike> | undefined;
    try {
      const wsOptions = this.#wsOptions;
      socket =
        wsOptions === undefined
          ? new this.#config.WebSocket(url, protocols)
          : new this.#config.WebSocket(url, protocols ?? [], wsOptions);
      if (!hasWebSocketShape(socket)) {
        throw new TypeError('the `WebSocket` constructor returned an object without the WebSocket API');
      }
      if (this.#binaryType !== undefined) socket.binaryType = this.#binaryType;
      attempt.bind(socket);
    } catch (error) {
      // A socket the attempt could not take: closed here, its events never reach us.
      if (socket && hasWebSocketShape(socket) && attempt.socket !== socket) {
        const orphan = new Attempt(0, this, ResilientSocket.#connectionEvents);
        orphan.bind(socket);
        orphan.abort();
      }
      this.#fail(
        attempt,
        ErrorCodes.CONNECTION_FAILED,
        `Could not create the WebSocket: ${describeThrown(error)}`,
        undefined,
        error,
      );
    }
  }

  /** `connection` as the current attempt, if it still is that and still holds its socket. */
  #attemptOf(connection: Connection<ResilientSocket>): Attempt | undefined {
    const attempt = this.#attempt;
    return attempt === connection && attempt.socket !== undefined ? attempt : undefined;
  }

  #onSocketOpen(connection: Connection<ResilientSocket>): void {
    const attempt = this.#attemptOf(connection);
    if (!attempt || this.#disposed) return;
    this.#timers.clear(Slot.Phase);
    const { handshake } = this.#config;
    if (!handshake) {
      this.#acceptOpen(attempt);
      return;
    }
    const controller = new AbortController();
    attempt.handshake = { controller, inbox: [], waiters: [] };
    const socket = connection.socket as WebSocketLike;
    const state = attempt.handshake;
    const handshakeConnection: HandshakeConnection = {
      url: this.#url,
      protocol: socket.protocol ?? '',
      attempt: attempt.number,
      signal: controller.signal,
      send: (data) => {
        if (attempt.handshake !== state) {
          throw new ResilientSocketError(ErrorCodes.CLOSED, 'The handshake is over; use socket.send()');
        }
        socket.send(data as never);
        this.#messagesOut++;
      },
      nextMessage: (predicate) => {
        if (attempt.handshake !== state) {
          return Promise.reject(new ResilientSocketError(ErrorCodes.CLOSED, 'The handshake is over'));
        }
        if (predicate !== undefined && typeof predicate !== 'function') {
          return Promise.reject(
            new TypeError(`Expected \`predicate\` to be a function, got ${describeReceived(predicate)}`),
          );
        }
        for (let i = 0; i < state.inbox.length; i++) {
          // A predicate that throws rejects this nextMessage() (the hook decides what that means).
          let match: unknown;
          try {
            match = !predicate || predicate(state.inbox[i] as Data);
          } catch (thrown) {
            return Promise.reject(thrown);
          }
          if (match) return Promise.resolve(state.inbox.splice(i, 1)[0] as Data);
        }
        return new Promise<Data>((resolve, reject) => state.waiters.push({ predicate, resolve, reject }));
      },
    };
    if (Number.isFinite(this.#config.handshakeTimeout)) this.#timers.set(Slot.Phase, this.#config.handshakeTimeout);
    new Promise<void>((resolve) => resolve(handshake(handshakeConnection))).then(
      () => {
        if (!this.#isLive(attempt) || controller.signal.aborted) return;
        this.#timers.clear(Slot.Phase);
        this.#acceptOpen(attempt);
      },
      (error: unknown) => {
        if (!this.#isLive(attempt) || controller.signal.aborted) return;
        const message = `The handshake failed: ${describeThrown(error)}`;
        this.#fail(attempt, ErrorCodes.HANDSHAKE_FAILED, message, 'handshake failed', error);
      },
    );
  }

  /**
   * A message during the handshake goes to the first `nextMessage()` whose predicate takes it, or
   * waits in the inbox. A predicate that throws rejects its own `nextMessage()` (never our caller:
   * this runs inside the transport's receive path).
   */
  #handshakeMessage(handshake: HandshakeState, data: Data): void {
    const waiters = handshake.waiters;
    for (let i = 0; i < waiters.length; i++) {
      const waiter = waiters[i] as HandshakeWaiter;
      let match: unknown;
      try {
        match = !waiter.predicate || waiter.predicate(data);
      } catch (thrown) {
        waiters.splice(i--, 1);
        waiter.reject(thrown);
        continue;
      }
      if (match) {
        waiters.splice(i, 1);
        waiter.resolve(data);
        return;
      }
    }
    handshake.inbox.push(data);
  }

  /** The connection is usable: flush the buffer, become `open`, then tell listeners. */
  #acceptOpen(attempt: Attempt): void {
    const socket = attempt.socket;
    if (!socket) return;
    const inbox = attempt.handshake?.inbox ?? [];
    this.#endHandshake(attempt, false);
    attempt.opened = true;
    const now = this.#config.clock.now();
    this.#since = now;
    this.#connects++;
    this.#authRefusals = 0;
    // Flush before anyone can call send() again, so queued messages keep their order.
    const expired = this.#buffer?.expire(now) ?? [];
    const unsendable = this.#flush(socket);
    this.#setState('open', 'connection opened');
    // Reported even when a state listener closed or replaced the connection.
    this.#reportQueued('expired', expired);
    if (unsendable) this.#unsendable(unsendable.messages, unsendable.cause);
    if (!this.#isLive(attempt)) return;
    this.#armTtl();
    if (this.#config.stableAfter > 0) this.#timers.set(Slot.Phase, this.#config.stableAfter);
    attempt.heartbeat = heartbeatMode(this.#config.heartbeat, socket);
    startHeartbeat(attempt.heartbeat, this.#config.heartbeat, this.#timers);
    const { resume } = this.#config;
    if (resume !== false && resume.detectSuspend && attempt.heartbeat !== 'off') watchSuspend(this, this.#config.clock);
    this.#emit('open', { attempt: attempt.number, reconnected: this.#connects > 1 });
    for (const data of inbox) {
      if (!this.#isLive(attempt)) return;
      this.#deliver(data);
    }
    if (this.#config.stableAfter === 0) this.#markStable(attempt);
  }

  /**
   * Writes the queued messages, oldest first, while the socket is open. A message the socket
   * refuses while it stays open can never be written: it is set aside (and returned, to be
   * reported) and the rest go on. A socket that stops being open keeps the rest queued.
   */
  #flush(socket: WebSocketLike): Unsendable | undefined {
    const buffer = this.#buffer;
    if (buffer === undefined) return undefined;
    let unsendable: Unsendable | undefined;
    for (let message = buffer.shift(); message !== undefined; message = buffer.shift()) {
      if (socket.readyState !== ReadyState.OPEN) {
        buffer.unshift(message);
        return unsendable;
      }
      try {
        socket.send(message.data as never);
        this.#messagesOut++;
      } catch (thrown) {
        if (socket.readyState !== ReadyState.OPEN) {
          buffer.unshift(message);
          return unsendable;
        }
        unsendable ??= { messages: [], cause: thrown };
        unsendable.messages.push(message.data);
      }
    }
    this.#buffer = undefined;
    return unsendable;
  }

  #markStable(attempt: Attempt): void {
    if (!this.#isLive(attempt) || this.#state !== 'open') return;
    this.#failures = 0;
    this.#runAttempts = 0;
    this.#resetBackoff();
    this.#emit('stable');
  }

  #onSocketMessage(connection: Connection<ResilientSocket>, data: Data): void {
    const attempt = this.#attemptOf(connection);
    if (!attempt) return;
    // A connection that close() caught in its handshake never opened: nothing of it is delivered.
    const closing = this.#state === 'closing';
    if (closing && !attempt.opened) return;
    this.#messagesIn++;
    // While closing, close() stopped the heartbeat: nothing re-arms it.
    if (!closing) heartbeatActivity(attempt.heartbeat, this.#config.heartbeat, this.#timers);
    const handshake = attempt.handshake;
    if (handshake) {
      this.#handshakeMessage(handshake, data);
      return;
    }
    if (attempt.heartbeat === 'message' && this.#isPong(data)) {
      // The answer to our ping, or to a resume probe: consumed, not emitted.
      attempt.probing = false;
      this.#timers.clear(Slot.Pong);
      return;
    }
    if (this.#attempt !== attempt) return; // an error listener (isPong threw) replaced the connection
    this.#deliver(data);
  }

  /** Whether `heartbeat.isPong` recognises `data`; a throw is reported and means "no". */
  #isPong(data: Data): boolean {
    const isPong = this.#config.heartbeat ? this.#config.heartbeat.isPong : undefined;
    if (!isPong) return false;
    try {
      return isPong(data) === true;
    } catch (thrown) {
      this.#reportUserError(callbackError('heartbeat.isPong', 'threw', thrown));
      return false;
    }
  }

  /** Hands an incoming message to the internal consumers (iterators), then to listeners. */
  #deliver(data: Data): void {
    if (this.#sinks) for (const sink of this.#sinks) sink.message(data);
    this.#emit('message', data);
  }

  /**
   * A protocol pong: the answer to our protocol ping (heartbeat in `protocol` mode, or a resume
   * probe asked by ping). App-level pings are answered by messages only.
   */
  #onSocketPong(connection: Connection<ResilientSocket>): void {
    const attempt = this.#attemptOf(connection);
    if (!attempt || attempt.heartbeat === 'message') return;
    if (attempt.heartbeat === 'protocol' || attempt.probing) {
      attempt.probing = false;
      this.#timers.clear(Slot.Pong);
    }
  }

  // ─── resume awareness ────────────────────────────────────────────────────────────────────

  /**
   * Told by the shared resume watcher (`./resume.ts`) that the page, the process or the network
   * came back (`resumed`), or that the browser went offline. A method under a symbol: the socket
   * is its own subscriber, at no cost per socket.
   * @internal
   */
  [RESUME](signal: ResumeSignal, reason: string): void {
    const resume = this.#config.resume;
    if (!resume || this.#disposed) return;
    if (this.#state === 'open') {
      // Whatever happened, an open connection may have died unnoticed: ask it.
      this.#probe();
    } else if (this.#state === 'reconnecting' && !this.#deciding) {
      if (signal === 'offline' || (resume.pauseWhileOffline && isOffline())) {
        if (resume.pauseWhileOffline) this.#pauseRetry();
      } else {
        this.#startAttempt(`retrying now: ${reason}`);
      }
    }
  }

  /** While offline, a pending retry waits for the network instead of its timer. */
  #pauseRetry(): void {
    this.#timers.clear(Slot.Phase);
  }

  /**
   * Asks the connection whether it is alive (the heartbeat's way: its `message`, answered by
   * `isPong`; otherwise a protocol ping where the socket has one) and gives it
   * `resume.probeTimeout` to answer, sooner than the heartbeat's own deadline. A connection with
   * no way to ask (a browser socket without `heartbeat.message`) is left to the heartbeat.
   */
  #probe(): void {
    const attempt = this.#attempt;
    const resume = this.#config.resume;
    const socket = attempt?.socket;
    if (!attempt?.opened || !socket || !resume || attempt.handshake) return;
    const byMessage = attempt.heartbeat === 'message';
    if (!byMessage && !canPing(socket)) return;
    attempt.probing = true;
    if (!this.#sendPing(socket, !byMessage)) {
      attempt.probing = false;
      return;
    }
    // Unless the answer came back while we were sending it.
    if (attempt.probing && this.#attempt === attempt) this.#timers.set(Slot.Pong, resume.probeTimeout);
  }

  /** The heartbeat's `Ping` slot fired: ping, await the answer, schedule the next ping. */
  #heartbeatPing(attempt: Attempt | undefined): void {
    const heartbeat = this.#config.heartbeat;
    const socket = attempt?.socket;
    if (!attempt || !socket || heartbeat === false) return;
    // The deadline before the ping (an answer may come back before send() returns), and before the
    // next ping: when both are due at once, the unanswered ping is found dead first.
    const armed = !this.#timers.has(Slot.Pong);
    if (armed) this.#timers.set(Slot.Pong, heartbeat.timeout);
    const sent = this.#sendPing(socket, attempt.heartbeat === 'protocol');
    if (!this.#isLive(attempt)) return; // an error listener closed or replaced the connection
    // No ping went out (the failure was reported): no answer to wait for.
    if (!sent && armed) this.#timers.clear(Slot.Pong);
    this.#timers.set(Slot.Ping, heartbeat.interval);
  }

  /**
   * Sends one ping: a protocol ping frame, or the heartbeat's `message`. Returns whether one went
   * out. `heartbeat.message()` throwing or returning something that is not a message, and a socket
   * that refuses the ping while it stays open, are reported: a broken ping is our caller's bug (or
   * ours), never a reason to declare the link dead.
   */
  #sendPing(socket: WebSocketLike, frame: boolean): boolean {
    const heartbeat = this.#config.heartbeat;
    const message = heartbeat ? heartbeat.message : undefined;
    if (frame || message === undefined) {
      try {
        socket.ping?.();
        return true;
      } catch {
        return false; // a socket that cannot even ping is going down; its close will tell
      }
    }
    let data: unknown;
    try {
      data = typeof message === 'function' ? message() : message;
    } catch (thrown) {
      this.#reportUserError(callbackError('heartbeat.message', 'threw', thrown));
      return false;
    }
    if (!isData(data)) {
      const problem = new TypeError(
        `Expected \`heartbeat.message()\` to return a string or binary data, got ${describeReceived(data)}`,
      );
      this.#reportUserError(
        new ResilientSocketError(ErrorCodes.CALLBACK_FAILED, `${problem.message}; no ping sent`, { cause: problem }),
      );
      return false;
    }
    try {
      socket.send(data as never);
    } catch (thrown) {
      if (socket.readyState === ReadyState.OPEN) {
        const reason = `The WebSocket refused the heartbeat's ping while open: ${describeThrown(thrown)}`;
        this.#reportError(new ResilientSocketError(ErrorCodes.UNSENDABLE, reason, { cause: thrown }));
      }
      return false;
    }
    this.#messagesOut++;
    return true;
  }

  /** A timer slot is due. Every slot belongs to the current attempt, or to no attempt (reconnect, ttl). */
  #onTimer(slot: number): void {
    const attempt = this.#attempt;
    switch (slot) {
      case Slot.Phase:
        this.#onPhaseTimer(attempt);
        break;
      case Slot.Ping:
        // Armed only for a connection watched by protocol or app-level pings.
        this.#heartbeatPing(attempt);
        break;
      case Slot.Pong:
        if (attempt?.probing) {
          const message = `No answer to the probe within ${(this.#config.resume || { probeTimeout: 0 }).probeTimeout} ms after a resume`;
          this.#fail(attempt, ErrorCodes.DEAD_LINK, message, 'probe timeout');
        } else if (attempt) {
          this.#fail(attempt, ErrorCodes.DEAD_LINK, 'The heartbeat found the connection dead', 'heartbeat timeout');
        }
        break;
      case Slot.Ttl:
        this.#expireBuffered();
        this.#armTtl();
        break;
      case Slot.Retire:
        this.#dropRetiring();
        break;
    }
  }

  /** The deadline of the current state (see `Slot.Phase`) is due. */
  #onPhaseTimer(attempt: Attempt | undefined): void {
    switch (this.#state) {
      case 'connecting':
        if (!attempt) break;
        if (attempt.handshake) {
          const message = `The handshake did not finish within ${this.#config.handshakeTimeout} ms`;
          this.#fail(attempt, ErrorCodes.HANDSHAKE_TIMEOUT, message, 'handshake timeout');
        } else {
          const message = `Connection attempt ${attempt.number} did not open within ${this.#config.connectTimeout} ms`;
          this.#fail(attempt, ErrorCodes.CONNECT_TIMEOUT, message, 'connect timeout');
        }
        break;
      case 'open':
        if (attempt) this.#markStable(attempt);
        break;
      case 'reconnecting': {
        const deciding = this.#deciding;
        if (deciding) {
          const problem = new Error(`did not settle within ${SHOULD_RECONNECT_TIMEOUT} ms; reconnecting`);
          deciding.notices.push(callbackError('shouldReconnect', 'timed out', problem));
          this.#decided(deciding, true);
        } else if (!this.#pausedOffline()) {
          this.#startAttempt('retry');
        }
        break;
      }
      case 'closing':
        this.#finishClose(abnormal('close timeout'));
        break;
    }
  }

  /** The transport closed a socket (the server, the network, or our own close()). */
  #onSocketClose(connection: Connection<ResilientSocket>, info: CloseInfo): void {
    if (connection === this.#retiring) {
      // The connection reconnect() let go finished its closing handshake.
      this.#retiring = undefined;
      this.#timers.clear(Slot.Retire);
      connection.socket = undefined;
      return;
    }
    const attempt = this.#attemptOf(connection);
    if (!attempt) return;
    if (this.#state === 'closing') {
      this.#finishClose(info);
      return;
    }
    const rejection = connection.rejection;
    if (rejection) {
      this.#connectionLost(attempt, this.#rejectionError(rejection), info, rejection);
      return;
    }
    const cause = connection.socketError;
    if (!attempt.opened) {
      const detail = cause instanceof Error ? `: ${cause.message}` : '';
      const error = new ResilientSocketError(
        ErrorCodes.CONNECTION_FAILED,
        `Connection attempt ${attempt.number} failed (close code ${info.code})${detail}`,
        cause === undefined ? {} : { cause },
      );
      this.#connectionLost(attempt, error, info, undefined);
      return;
    }
    // The client itself ended the connection on a protocol error (ws: a message over
    // `maxPayload`, invalid UTF-8, a malformed frame): the close code alone (1006) does not say so.
    const error = isProtocolError(cause)
      ? new ResilientSocketError(
          ErrorCodes.CONNECTION_FAILED,
          `The connection was closed after a protocol error: ${cause.message}`,
          { cause },
        )
      : undefined;
    this.#connectionLost(attempt, error, info, undefined);
  }

  /** How a refused upgrade is reported: the status, and the Retry-After wait it asks for (capped). */
  #rejectionError(rejection: UpgradeRejection): ResilientSocketError {
    const { status, retryAfter } = rejection;
    let message = `The server refused the WebSocket upgrade with HTTP ${status}`;
    if (retryAfter !== undefined && (status === 429 || status === 503)) {
      const cap = this.#config.maxRetryAfter;
      message +=
        retryAfter > cap
          ? `; its Retry-After asks for ${retryAfter} ms, waiting ${cap} ms at most (\`maxRetryAfter\`)`
          : `; its Retry-After asks for ${retryAfter} ms`;
    }
    return new ResilientSocketError(ErrorCodes.UPGRADE_REJECTED, message, {
      status,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
    });
  }

  /**
   * We gave up on the attempt (timeout, provider, handshake, dead link): abort it and go on. A
   * connection it had is closed with 1006 and `reason` (the error code when none is given).
   */
  #fail(attempt: Attempt, code: ErrorCode, message: string, reason: string = code, cause?: unknown): void {
    if (!this.#isLive(attempt)) return;
    const error = new ResilientSocketError(code, message, cause === undefined ? {} : { cause });
    this.#connectionLost(attempt, error, attempt.socket ? abnormal(reason) : undefined, undefined, true);
  }

  // ─── after a loss: retry, wait, or give up ───────────────────────────────────────────────

  /**
   * The one path for every ended attempt or connection: tear it down, decide (retry after a
   * delay, wait for the network, or give up), enter the next state, then report: the state
   * first, then what happened (see {@link ResilientSocket.#emitLoss}).
   */
  #connectionLost(
    attempt: Attempt,
    error: ResilientSocketError | undefined,
    close: CloseInfo | undefined,
    rejection: UpgradeRejection | undefined,
    abortSocket = false,
  ): void {
    let stop: ResilientSocketError | undefined;
    let minimumDelay = 0;
    let immediate = false;
    // "Twice in a row" means consecutive attempts: any other outcome resets the count.
    if (!rejection || (rejection.status !== 401 && rejection.status !== 403)) this.#authRefusals = 0;
    if (rejection) {
      if (rejection.status === 401 || rejection.status === 403) {
        this.#authRefusals++;
        if (this.#authRefusals >= 2) {
          stop = new ResilientSocketError(
            ErrorCodes.UNAUTHORIZED,
            `The server refused the upgrade with HTTP ${rejection.status} twice in a row; not reconnecting`,
            { status: rejection.status, cause: error },
          );
        } else immediate = true;
      } else if ((rejection.status === 429 || rejection.status === 503) && rejection.retryAfter !== undefined) {
        minimumDelay = Math.min(rejection.retryAfter, this.#config.maxRetryAfter);
      }
    }
    this.#failures = Math.min(this.#failures + 1, Number.MAX_SAFE_INTEGER);
    // `close` is given exactly when the attempt had a socket: its `close` event is due.
    this.#endAttempt(attempt, abortSocket ? 'abort' : 'detach', close?.reason);
    const loss: Loss = { error, notices: [], close, stop, minimumDelay, immediate };
    // A close the server or the network caused (not one we caused) goes through shouldReconnect.
    if (close && !abortSocket && !rejection) {
      let verdict: unknown = true;
      try {
        verdict = this.#config.shouldReconnect(close);
      } catch (thrown) {
        loss.notices.push(callbackError('shouldReconnect', 'threw', thrown));
      }
      if (isThenable(verdict)) {
        this.#awaitDecision(loss, verdict);
        return;
      }
      this.#decide(loss, verdict !== false);
      return;
    }
    this.#decide(loss, true);
  }

  /**
   * `shouldReconnect` returned a promise: wait for it in `reconnecting`, at most
   * {@link SHOULD_RECONNECT_TIMEOUT} ms (the `Phase` deadline). The errors are told now; the
   * `close` waits for the decision, since whether a retry follows is not known yet.
   */
  #awaitDecision(loss: Loss, verdict: PromiseLike<unknown>): void {
    this.#deciding = loss;
    this.#timers.set(Slot.Phase, SHOULD_RECONNECT_TIMEOUT);
    this.#setState('reconnecting', loss.error ? loss.error.message : 'connection lost');
    const { error, notices } = loss;
    loss.error = undefined;
    loss.notices = [];
    if (error) this.#reportError(error);
    for (const notice of notices) this.#reportUserError(notice);
    Promise.resolve(verdict).then(
      (again) => this.#decided(loss, again !== false),
      (thrown: unknown) => {
        loss.notices.push(callbackError('shouldReconnect', 'rejected', thrown));
        this.#decided(loss, true);
      },
    );
  }

  /** An async `shouldReconnect` settled (or timed out); nothing to do if close() or reconnect() took over. */
  #decided(loss: Loss, again: boolean): void {
    if (this.#deciding !== loss) return;
    this.#deciding = undefined;
    this.#timers.clear(Slot.Phase);
    this.#decide(loss, again);
  }

  /** Abandons a pending async decision (close(), reconnect()); returns it, so its `close` can still be told. */
  #endDecision(): Loss | undefined {
    const loss = this.#deciding;
    if (!loss) return undefined;
    this.#deciding = undefined;
    this.#timers.clear(Slot.Phase);
    return loss;
  }

  /** Retry after a delay, wait for the network, or give up; then enter that state and report. */
  #decide(loss: Loss, again: boolean): void {
    let stop = loss.stop;
    if (!again && !stop && loss.close) {
      const { code, reason } = loss.close;
      stop = new ResilientSocketError(
        ErrorCodes.FATAL_CLOSE,
        `The server closed the connection with code ${code}${reason ? ` (${reason})` : ''}; not reconnecting`,
        { closeCode: code },
      );
    }
    if (!stop && this.#failures > this.#config.maxRetries) {
      stop = new ResilientSocketError(
        ErrorCodes.RETRIES_EXHAUSTED,
        `Gave up after ${this.#failures} consecutive failures (maxRetries ${this.#config.maxRetries})`,
        loss.error ? { cause: loss.error } : {},
      );
    }
    if (stop) {
      this.#giveUp(loss, stop);
      return;
    }
    if (this.#pausedOffline()) {
      // No network: draw no delay and burn no attempt; the `online` signal retries at once.
      this.#setState('reconnecting', 'offline: waiting for the network');
      this.#emitLoss(loss);
      return;
    }
    let delay = this.#nextDelay(loss.notices); // a refusal retried at once still counts for the backoff
    delay = loss.immediate ? 0 : Math.min(Math.max(delay, loss.minimumDelay), MAX_TIMER_DELAY);
    const next = this.#runAttempts + 1;
    this.#timers.set(Slot.Phase, delay);
    this.#nextRetryAt = this.#config.clock.now() + delay;
    this.#setState('reconnecting', loss.error ? loss.error.message : 'connection lost');
    const changes = this.#changes;
    this.#emitLoss(loss);
    // A listener that closed or replaced the socket took over: this wait no longer holds.
    if (this.#changes === changes && !this.#disposed) this.#emit('reconnecting', { attempt: next, delay });
  }

  /** Reconnecting stops by itself: `closed`, what went wrong and why it stops, the close, the drops, `giveup`. */
  #giveUp(loss: Loss, stop: ResilientSocketError): void {
    const queued = this.#takeQueued();
    this.#timers.clear(Slot.Phase);
    this.#setState('closed', stop.message);
    const changes = this.#changes;
    this.#emitLoss(loss, stop);
    this.#reportQueued('closed', queued);
    // Not when a listener called close() (the user ended it) or open()/reconnect() (it goes on).
    if (this.#changes === changes && !this.#disposed) {
      this.#emit('giveup', { attempts: this.#runAttempts, failures: this.#failures, error: stop });
    }
  }

  /**
   * Reports a loss once the socket is in its next state: its error, the callbacks that failed on
   * the way, why the socket gives up (if it does), then the `close` of its connection.
   */
  #emitLoss(loss: Loss, stop?: ResilientSocketError): void {
    if (loss.error) this.#reportError(loss.error);
    for (const notice of loss.notices) this.#reportUserError(notice);
    if (stop) this.#reportError(stop);
    if (loss.close) this.#emitClose(loss.close);
  }

  /** The `close` of a connection that ended; `willReconnect` says what the socket does now. */
  #emitClose(close: CloseInfo): void {
    this.#emit('close', { ...close, willReconnect: !this.#disposed && !STATES[this.#state].terminal });
  }

  /**
   * The backoff's next delay, clamped to [0, 2^31 − 1]. A user policy that throws or returns
   * something other than a number is reported (`ERR_RS_CALLBACK_FAILED`, added to `notices`) and
   * replaced by a 1 s wait, so a broken policy can neither crash the socket nor spin it in a loop.
   */
  #nextDelay(notices: ResilientSocketError[]): number {
    let raw: unknown;
    try {
      this.#backoff ??= defaultBackoff(this.#config);
      raw = this.#backoff.next();
    } catch (thrown) {
      notices.push(callbackError('backoff.next()', 'threw', thrown));
      return FALLBACK_DELAY;
    }
    if (typeof raw !== 'number' || Number.isNaN(raw)) {
      const problem = new TypeError(`Expected \`backoff.next()\` to return a number, got ${describeReceived(raw)}`);
      notices.push(
        new ResilientSocketError(ErrorCodes.CALLBACK_FAILED, `${problem.message}; waiting ${FALLBACK_DELAY} ms`, {
          cause: problem,
        }),
      );
      return FALLBACK_DELAY;
    }
    return clampDelay(raw);
  }

  /**
   * Ends `attempt`: clears its timers, stops its heartbeat and handshake, and lets its socket go:
   * `abort` closes it at once, `detach` leaves it to close by itself (it already did, or is
   * closing), `retire` keeps it bound for {@link ResilientSocket.#retire}. Returns whether it had a socket.
   */
  #endAttempt(attempt: Attempt, how: 'abort' | 'detach' | 'retire', reason = ''): boolean {
    if (this.#attempt === attempt) this.#attempt = undefined;
    if (attempt.opened) this.#since = this.#config.clock.now();
    this.#timers.clear(Slot.Phase);
    this.#timers.clear(Slot.Ping);
    this.#timers.clear(Slot.Pong);
    this.#endHandshake(attempt);
    if (!attempt.socket) return false;
    if (how === 'retire') return true;
    if (how === 'abort') attempt.abort(1000, reason);
    else attempt.detach();
    attempt.socket = undefined;
    return true;
  }

  /**
   * Lets an open connection go politely (`reconnect()`): sends the close frame and leaves the
   * closing handshake to finish in the background, cut after {@link CLOSE_TIMEOUT} ms (the
   * `Retire` slot). Its messages never reach anyone; its `close` only ends the retirement.
   */
  #retire(attempt: Attempt, socket: WebSocketLike, code: number, reason: string): void {
    this.#dropRetiring();
    this.#endAttempt(attempt, 'retire');
    this.#retiring = attempt;
    try {
      socket.close(code, reason);
    } catch {
      this.#dropRetiring();
      return;
    }
    if (this.#retiring === attempt) this.#timers.set(Slot.Retire, CLOSE_TIMEOUT);
  }

  /** Cuts the connection `reconnect()` let go, if it is still closing (its time is up, or close()). */
  #dropRetiring(): void {
    const retiring = this.#retiring;
    if (!retiring) return;
    this.#retiring = undefined;
    this.#timers.clear(Slot.Retire);
    retiring.abort();
    retiring.socket = undefined;
  }

  /** Ends the handshake phase; `abandoned` aborts its signal (not so when it succeeded). */
  #endHandshake(attempt: Attempt, abandoned = true): void {
    const handshake = attempt.handshake;
    if (!handshake) return;
    attempt.handshake = undefined;
    this.#timers.clear(Slot.Phase);
    if (abandoned) handshake.controller.abort();
    const error = new ResilientSocketError(
      ErrorCodes.CLOSED,
      abandoned ? 'The handshake was abandoned' : 'The handshake already finished',
    );
    for (const waiter of handshake.waiters.splice(0)) waiter.reject(error);
  }

  /** The closing handshake finished (or timed out): the socket is closed for good. */
  #finishClose(info: CloseInfo): void {
    const attempt = this.#attempt;
    this.#timers.clearAll();
    this.#attempt = undefined;
    let hadSocket = false;
    if (attempt?.socket) {
      if (info.code === 1006 && info.reason === 'close timeout') attempt.abort();
      else attempt.detach();
      attempt.socket = undefined;
      hadSocket = true;
    }
    if (attempt?.opened) this.#since = this.#config.clock.now();
    this.#setState('closed', 'closed by close()');
    if (hadSocket) this.#emitClose(info);
  }

  // ─── buffer helpers ──────────────────────────────────────────────────────────────────────

  #expireBuffered(): void {
    this.#reportQueued('expired', this.#buffer?.expire(this.#config.clock.now()) ?? []);
  }

  #armTtl(): void {
    const at = this.#buffer?.nextExpiry();
    if (at === undefined || this.#disposed) {
      this.#timers.clear(Slot.Ttl);
      return;
    }
    this.#timers.set(Slot.Ttl, clampDelay(at - this.#config.clock.now()));
  }

  /** Takes every queued message out (to report them dropped), with the buffer's timer. */
  #takeQueued(): QueuedMessage[] {
    this.#timers.clear(Slot.Ttl);
    const all = this.#buffer?.drain() ?? [];
    this.#buffer = undefined;
    return all;
  }

  /** Reports queued messages that leave the buffer unsent (if there are any). */
  #reportQueued(reason: DropReason, messages: readonly QueuedMessage[]): void {
    if (messages.length > 0)
      this.#reportDrop(
        reason,
        messages.map((m) => m.data),
      );
  }

  /** Reports one message `send()` could not take. */
  #dropOne(reason: DropReason, data: Data): 'dropped' {
    this.#reportDrop(reason, [data]);
    return 'dropped';
  }

  /** Messages the WebSocket refused while open: they can never be written (an error, then their drop). */
  #unsendable(messages: Data[], cause: unknown): 'dropped' {
    const what = messages.length === 1 ? 'a message' : `${messages.length} messages`;
    this.#reportError(
      new ResilientSocketError(
        ErrorCodes.UNSENDABLE,
        `The WebSocket refused ${what} while open (dropped): ${describeThrown(cause)}`,
        { cause },
      ),
    );
    this.#reportDrop('unsendable', messages);
    return 'dropped';
  }

  #reportDrop(reason: DropReason, messages: Data[]): void {
    this.#dropped += messages.length;
    this.#emit('drop', { reason, messages });
  }

  // ─── reporting ───────────────────────────────────────────────────────────────────────────

  #assertNotDisposed(method: string): void {
    if (this.#disposed) {
      throw new ResilientSocketError(
        ErrorCodes.CLOSED,
        `Cannot call ${method}() after close(): the socket is closed for good`,
      );
    }
  }

  #reportError(error: ResilientSocketError): void {
    this.#lastError = error;
    this.#emit('error', error);
  }

  /**
   * Emits without letting a throwing listener disturb the machine: the state has already
   * changed when we emit, and the exception is reported separately.
   */
  #emit<E extends keyof ResilientSocketEvents>(event: E, ...args: ResilientSocketEvents[E]): void {
    try {
      (this.emit as (event: E, ...args: ResilientSocketEvents[E]) => boolean)(event, ...args);
    } catch (thrown) {
      if (event === 'error') surface(listenerError('An `error` listener', thrown));
      else this.#reportUserError(isResilientSocketError(thrown) ? thrown : listenerError('A listener', thrown));
    }
  }

  /**
   * Reports a failure of user code (a listener, a callback from the options) as an `error`
   * event, or, with no `error` listener, through {@link surface}: never thrown into our caller
   * (the transport's receive path, a timer), where it would end a Node process.
   */
  #reportUserError(error: ResilientSocketError): void {
    if (this.listenerCount('error') === 0) {
      surface(error);
      return;
    }
    try {
      this.emit('error', error);
    } catch (again) {
      surface(listenerError('An `error` listener', again));
    }
  }
}

/** Messages the WebSocket refused while open, and the first refusal's error. */
interface Unsendable {
  readonly messages: Data[];
  readonly cause: unknown;
}

/** An ended attempt or connection, on its way to being decided and reported. */
interface Loss {
  /** What failed (none for a connection the server or network simply closed). */
  error: ResilientSocketError | undefined;
  /** Callbacks that failed while deciding (`shouldReconnect`, the backoff policy), in order. */
  notices: ResilientSocketError[];
  /** How its connection closed; given exactly when it had a socket, whose `close` is then due. */
  readonly close: CloseInfo | undefined;
  /** A reason to stop already known (401/403 twice in a row). */
  readonly stop: ResilientSocketError | undefined;
  /** The least wait before the retry (a capped Retry-After), in ms. */
  readonly minimumDelay: number;
  /** Retry at once (a first 401/403: a fresh token may fix it). */
  readonly immediate: boolean;
}

/** An `ERR_RS_CALLBACK_FAILED` for the option callback `name` that threw, rejected or timed out. */
function callbackError(name: string, what: string, thrown: unknown): ResilientSocketError {
  return new ResilientSocketError(ErrorCodes.CALLBACK_FAILED, `\`${name}\` ${what}: ${describeThrown(thrown)}`, {
    cause: thrown,
  });
}

/** Whether `value` has a `then` method (a promise or any thenable). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** A protocol error ws raised on an open connection before closing it (its codes start `WS_ERR_`). */
function isProtocolError(value: unknown): value is Error {
  const code = value instanceof Error ? (value as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('WS_ERR_');
}

/** How we close a connection we gave up on (1006: no close frame was exchanged). */
function abnormal(reason: string): CloseInfo {
  return { code: 1006, reason, wasClean: false };
}

/** Whether a constructed object has the WebSocket methods we call. */
function hasWebSocketShape(value: unknown): value is InstanceType<WebSocketConstructorLike> {
  const socket = value as Partial<InstanceType<WebSocketConstructorLike>> | null;
  return (
    typeof socket === 'object' &&
    socket !== null &&
    typeof socket.addEventListener === 'function' &&
    typeof socket.removeEventListener === 'function' &&
    typeof socket.send === 'function' &&
    typeof socket.close === 'function'
  );
}

/** An `ERR_RS_LISTENER_THREW` for what a listener threw. */
function listenerError(who: string, thrown: unknown): ResilientSocketError {
  return new ResilientSocketError(ErrorCodes.LISTENER_THREW, `${who} threw: ${describeThrown(thrown)}`, {
    cause: thrown,
  });
}

/**
 * Shows a failure of user code that no `error` listener hears (or that an `error` listener
 * itself threw) without throwing it anywhere, since user code must never be fatal: a throw from a
 * timer or a microtask ends a Node process. Where the platform has `reportError` (browsers, Deno,
 * Bun) it goes there, as an uncaught error would (console, `window.onerror`, error trackers);
 * in Node it becomes a process warning (printed on stderr). The idea is xstate's
 * `reportUnhandledError`, made non-fatal.
 */
function surface(error: ResilientSocketError): void {
  const g = globalThis as {
    reportError?: (error: unknown) => void;
    process?: { emitWarning?: (warning: Error) => void };
  };
  try {
    if (typeof g.reportError === 'function') g.reportError(error);
    else if (typeof g.process?.emitWarning === 'function') g.process.emitWarning(error);
    else console.error(error);
  } catch {
    // nowhere left to tell
  }
}
