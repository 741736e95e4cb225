import { EventEmitter } from 'eventemitter3';
import { clampDelay, MAX_TIMER_DELAY } from '../backoff/policy.js';
import type { BackoffPolicyLike } from '../backoff/types.js';
import { OutboundBuffer, type QueuedMessage } from '../buffer/outbound-buffer.js';
import { type Data, isData } from '../data.js';
import { type ErrorCode, ErrorCodes, isResilientSocketError, ResilientSocketError } from '../errors.js';
import { TimerSlots, type TimerSpec } from '../timers.js';
import { parseRetryAfter } from '../transport/retry-after.js';
import { ReadyState, type WebSocketConstructorLike, type WebSocketLike } from '../transport/websocket-like.js';
import { assertBoolean, assertOptionsObject, describeReceived, describeThrown, withDefault } from '../validation.js';
import { Attempt } from './attempt.js';
import { assertCloseArgs, type CloseInfo } from './close-codes.js';
import { type Connection, type ConnectionEvents, canPing, type UpgradeRejection } from './connection.js';
import type { DropReason, ResilientSocketEvents } from './events.js';
import { heartbeatActivity, heartbeatMode, isHeartbeatPong, probe, sendPing, startHeartbeat } from './heartbeat.js';
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
  #attempt: Attempt | undefined;
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
  /** Closes the socket when the `signal` option aborts; undefined once closed (or without a signal). */
  #abortLink: AbortLink | undefined;
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
      this.#abortLink = new AbortLink(signal, this);
      signal.addEventListener('abort', this.#abortLink, { once: true });
    }
    const { resume } = config;
    if (resume) watchResume(this);
    if (resolved.autoConnect) this.#startAttempt('autoConnect');
  }

  // ─── read-only state ─────────────────────────────────────────────────────────────────────

  /** The current state; see `src/socket/states.ts` for the diagram. */
  get state(): SocketState {
    return this.#state;
  }

  /** Consecutive failed attempts since the last stable connection (0 once stable). */
  get attempt(): number {
    return this.#failures;
  }

  /** The URL of the latest attempt ('' before the first attempt when the URL is a provider). */
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
      // Only while the retry is pending (not while offline, nor once it has started).
      nextRetryAt: this.#state === 'reconnecting' && this.#timers.has(Slot.Phase) ? this.#nextRetryAt : undefined,
    };
  }

  // ─── user intent ─────────────────────────────────────────────────────────────────────────

  /**
   * Sends now when open; otherwise queues in the outbound buffer (unless `buffer: false`).
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
      } catch {
        // The socket refused (it is going down); queue the message for the next connection.
      }
    }
    if (!buffer) return this.#dropOne('not-connected', data);
    // Expiring reports a drop, and a drop listener may close the socket: look again afterwards.
    this.#expireBuffered();
    if (this.#disposed || !STATES[this.#state].buffersSends) return this.#dropOne('closed', data);
    this.#buffer ??= new OutboundBuffer(this.#config.buffer);
    const result = this.#buffer.push(data, this.#config.clock.now());
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
   * Drops the current connection (if any) and connects again now, with a fresh backoff.
   * @throws ResilientSocketError `ERR_RS_CLOSED` after `close()`.
   */
  reconnect(): void {
    this.#assertNotDisposed('reconnect');
    this.#resetRun();
    this.#teardown({ code: 1000, reason: 'reconnect() called', wasClean: false }, true);
    if (this.#disposed || this.#attempt !== undefined) return; // a close listener took over
    this.#startAttempt('reconnect() called');
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
    this.#abortLink?.signal.removeEventListener('abort', this.#abortLink);
    this.#abortLink = undefined;
    const attempt = this.#attempt;
    const socket = attempt?.socket;
    this.#timers.clearAll();
    this.#dropAll('closed');
    if (attempt?.opened && socket && socket.readyState === ReadyState.OPEN) {
      this.#setState('closing', 'close() called');
      try {
        socket.close(code, reason);
      } catch {
        // fall through to the timeout, which cuts the connection
      }
      this.#timers.set(Slot.Phase, CLOSE_TIMEOUT);
      return;
    }
    this.#teardown(attempt?.socket ? { code, reason, wasClean: false } : undefined, true, false);
    this.#setState('closed', 'close() called');
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

  /** The one place the state changes. Emits `state`; refuses transitions the table does not list. */
  #setState(next: SocketState, reason: string): void {
    const previous = this.#state;
    if (previous === next) return;
    if (!canTransition(previous, next)) {
      throw new Error(`resilient-socket internal error: illegal transition ${previous} → ${next} (${reason})`);
    }
    this.#state = next;
    // Suspension is watched only while open (see #acceptOpen); everything ends with closed.
    if (previous === 'open') unwatchSuspend(this, this.#config.clock);
    if (next === 'closed') unwatchResume(this, this.#config.clock);
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
    this.#emit('connecting', { attempt: attempt.number, url });
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
        const index = state.inbox.findIndex((data) => !predicate || predicate(data));
        if (index >= 0) return Promise.resolve(state.inbox.splice(index, 1)[0] as Data);
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
    this.#flush(socket);
    this.#setState('open', 'connection opened');
    // Reported even when a state listener closed or replaced the connection.
    this.#reportQueued('expired', expired);
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

  #flush(socket: WebSocketLike): void {
    const buffer = this.#buffer;
    if (buffer === undefined) return;
    let message: QueuedMessage | undefined = buffer.shift();
    while (message !== undefined) {
      if (socket.readyState !== ReadyState.OPEN) {
        buffer.unshift(message);
        return;
      }
      try {
        socket.send(message.data as never);
      } catch {
        buffer.unshift(message);
        return;
      }
      this.#messagesOut++;
      message = buffer.shift();
    }
    this.#buffer = undefined;
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
    this.#messagesIn++;
    if (attempt.probing) {
      // Any message answers a resume probe.
      attempt.probing = false;
      this.#timers.clear(Slot.Pong);
    }
    heartbeatActivity(attempt.heartbeat, this.#config.heartbeat, this.#timers);
    const handshake = attempt.handshake;
    if (handshake) {
      const index = handshake.waiters.findIndex((w) => !w.predicate || w.predicate(data));
      const waiter = index >= 0 ? handshake.waiters.splice(index, 1)[0] : undefined;
      if (waiter) waiter.resolve(data);
      else handshake.inbox.push(data);
      return;
    }
    if (isHeartbeatPong(attempt.heartbeat, this.#config.heartbeat, data)) return;
    this.#deliver(data);
  }

  /** Hands an incoming message to the internal consumers (iterators), then to listeners. */
  #deliver(data: Data): void {
    if (this.#sinks) for (const sink of this.#sinks) sink.message(data);
    this.#emit('message', data);
  }

  /** A protocol pong: the answer to our ping (only in `protocol` mode does it count as one). */
  #onSocketPong(connection: Connection<ResilientSocket>): void {
    const attempt = this.#attemptOf(connection);
    if (attempt?.heartbeat === 'protocol' || attempt?.probing) {
      attempt.probing = false;
      this.#timers.clear(Slot.Pong);
    }
  }

  // ─── resume awareness ────────────────────────────────────────────────────────────────────

  /**
   * Told by the shared resume watcher (src/socket/resume.ts) that the page, the process or the
   * network came back (`resumed`), or that the browser went offline. A method under a symbol: the
   * socket is its own subscriber, at no cost per socket.
   * @internal
   */
  [RESUME](signal: ResumeSignal, reason: string): void {
    const resume = this.#config.resume;
    if (!resume || this.#disposed) return;
    if (this.#state === 'open') {
      // Whatever happened, an open connection may have died unnoticed: ask it.
      this.#probe();
    } else if (this.#state === 'reconnecting') {
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
   * Sends a ping (protocol ping with ws, else the heartbeat's message) and gives the connection
   * `resume.probeTimeout` to answer, sooner than the heartbeat's own deadline. A connection with no
   * way to ask (a browser socket without `heartbeat.message`) is left to the heartbeat.
   */
  #probe(): void {
    const attempt = this.#attempt;
    const resume = this.#config.resume;
    const socket = attempt?.socket;
    if (!attempt?.opened || !socket || !resume || attempt.handshake) return;
    const heartbeat = this.#config.heartbeat;
    const message = heartbeat ? heartbeat.message : undefined;
    if (message === undefined && !canPing(socket)) return;
    attempt.probing = true;
    this.#timers.set(Slot.Pong, resume.probeTimeout);
    if (sendPing(socket, message)) this.#messagesOut++;
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
        if (attempt?.socket && probe(attempt.heartbeat, this.#config.heartbeat, this.#timers, attempt.socket)) {
          this.#messagesOut++;
        }
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
      case 'reconnecting':
        if (!this.#pausedOffline()) this.#startAttempt('retry');
        break;
      case 'closing':
        this.#finishClose(abnormal('close timeout'));
        break;
    }
  }

  /** The transport closed the socket (the server, the network, or our own close()). */
  #onSocketClose(connection: Connection<ResilientSocket>, info: CloseInfo): void {
    const attempt = this.#attemptOf(connection);
    if (!attempt) return;
    if (this.#state === 'closing') {
      this.#finishClose(info);
      return;
    }
    const rejection = connection.rejection;
    if (rejection) {
      const error = new ResilientSocketError(
        ErrorCodes.UPGRADE_REJECTED,
        `The server refused the WebSocket upgrade with HTTP ${rejection.status}`,
        {
          status: rejection.status,
          ...(rejection.retryAfter !== undefined ? { retryAfter: rejection.retryAfter } : {}),
        },
      );
      this.#connectionLost(attempt, error, info, rejection);
      return;
    }
    if (!attempt.opened) {
      const cause = connection.socketError;
      const detail = cause instanceof Error ? `: ${cause.message}` : '';
      const error = new ResilientSocketError(
        ErrorCodes.CONNECTION_FAILED,
        `Connection attempt ${attempt.number} failed (close code ${info.code})${detail}`,
        cause === undefined ? {} : { cause },
      );
      this.#connectionLost(attempt, error, info, undefined);
      return;
    }
    this.#connectionLost(attempt, undefined, info, undefined);
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

  /**
   * The one path for every ended attempt or connection: decide whether to retry, tear down,
   * report (error → close → state → reconnecting/giveup), and schedule the next attempt.
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
    // A close the server or network caused (not one we caused) goes through shouldReconnect.
    if (close && !abortSocket && !rejection) {
      let again = true;
      try {
        again = this.#config.shouldReconnect(close) !== false;
      } catch (thrown) {
        this.#reportListenerError(thrown);
      }
      if (!again) {
        stop = new ResilientSocketError(
          ErrorCodes.FATAL_CLOSE,
          `The server closed the connection with code ${close.code}${close.reason ? ` (${close.reason})` : ''}; not reconnecting`,
          { closeCode: close.code },
        );
      }
    }
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
      } else {
        if ((rejection.status === 429 || rejection.status === 503) && rejection.retryAfter !== undefined) {
          minimumDelay = rejection.retryAfter;
        }
      }
    }
    this.#failures = Math.min(this.#failures + 1, Number.MAX_SAFE_INTEGER);
    if (!stop && this.#failures > this.#config.maxRetries) {
      stop = new ResilientSocketError(
        ErrorCodes.RETRIES_EXHAUSTED,
        `Gave up after ${this.#failures} consecutive failures (maxRetries ${this.#config.maxRetries})`,
        error ? { cause: error } : {},
      );
    }

    if (error) this.#reportError(error);
    if (!this.#isLive(attempt)) return; // an error listener took over (close(), reconnect())
    this.#teardown(close, abortSocket, !stop);
    if (this.#attempt !== undefined || this.#disposed) return; // a close listener took over

    if (stop) {
      this.#reportError(stop);
      if (this.#attempt !== undefined || this.#disposed) return;
      this.#dropAll('closed');
      this.#setState('closed', stop.message);
      if ((this.#state as SocketState) !== 'closed') return;
      this.#emit('giveup', { attempts: this.#failures, error: stop });
      return;
    }

    if (this.#pausedOffline()) {
      // No network: draw no delay and burn no attempt; the `online` signal retries at once.
      this.#setState('reconnecting', 'offline: waiting for the network');
      return;
    }
    let delay = immediate ? 0 : this.#nextDelay();
    if (!immediate) delay = Math.min(Math.max(delay, minimumDelay), MAX_TIMER_DELAY);
    else this.#nextDelay(); // the refusal still counts as a failure for the backoff
    const next = this.#runAttempts + 1;
    this.#timers.set(Slot.Phase, delay);
    this.#nextRetryAt = this.#config.clock.now() + delay;
    this.#setState('reconnecting', error ? error.message : 'connection lost');
    if (this.#state !== 'reconnecting') return;
    this.#emit('reconnecting', { attempt: next, delay });
  }

  /**
   * The backoff's next delay, clamped to [0, 2^31 − 1]. A user policy that throws or returns
   * something other than a number is reported (`error`) and replaced by a 1 s wait, so a broken
   * policy can neither crash the socket nor spin it in a tight loop.
   */
  #nextDelay(): number {
    let raw: unknown;
    try {
      this.#backoff ??= defaultBackoff(this.#config);
      raw = this.#backoff.next();
    } catch (thrown) {
      this.#reportListenerError(thrown);
      return FALLBACK_DELAY;
    }
    if (typeof raw !== 'number' || Number.isNaN(raw)) {
      this.#reportListenerError(
        new TypeError(`Expected \`backoff.next()\` to return a number, got ${describeReceived(raw)}`),
      );
      return FALLBACK_DELAY;
    }
    return clampDelay(raw);
  }

  /**
   * Ends the current attempt: clears its timers, stops its heartbeat and handshake, detaches (and
   * if asked, aborts) its socket, then emits `close` if a socket existed.
   */
  #teardown(close: CloseInfo | undefined, abortSocket: boolean, willReconnect = true): void {
    const attempt = this.#attempt;
    if (!attempt) return;
    this.#attempt = undefined;
    if (attempt.opened) this.#since = this.#config.clock.now();
    this.#timers.clear(Slot.Phase);
    this.#timers.clear(Slot.Ping);
    this.#timers.clear(Slot.Pong);
    this.#endHandshake(attempt);
    if (!attempt.socket) return;
    if (abortSocket) attempt.abort(1000, close?.reason ?? '');
    else attempt.detach();
    attempt.socket = undefined;
    if (close) this.#emit('close', { ...close, willReconnect: willReconnect && !this.#disposed });
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
    if (attempt?.socket) {
      if (info.code === 1006 && info.reason === 'close timeout') attempt.abort();
      else attempt.detach();
      attempt.socket = undefined;
      this.#emit('close', { ...info, willReconnect: false });
    }
    this.#attempt = undefined;
    if (this.#state !== 'closed') this.#setState('closed', 'closed by close()');
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

  #dropAll(reason: DropReason): void {
    this.#timers.clear(Slot.Ttl);
    const all = this.#buffer?.drain() ?? [];
    this.#buffer = undefined;
    this.#reportQueued(reason, all);
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
      if (event === 'error') rethrowAsync(thrown);
      else this.#reportListenerError(thrown);
    }
  }

  #reportListenerError(thrown: unknown): void {
    if (this.listenerCount('error') === 0) {
      rethrowAsync(thrown);
      return;
    }
    const error = isResilientSocketError(thrown)
      ? thrown
      : new ResilientSocketError(ErrorCodes.LISTENER_THREW, `A listener threw: ${describeThrown(thrown)}`, {
          cause: thrown,
        });
    try {
      this.emit('error', error);
    } catch (again) {
      rethrowAsync(again);
    }
  }
}

/**
 * The `signal` option's abort listener: an object with `handleEvent` (an EventTarget accepts one),
 * holding the signal it must be removed from. Made only for sockets given a signal.
 */
class AbortLink {
  constructor(
    readonly signal: AbortSignal,
    readonly socket: ResilientSocket,
  ) {}

  handleEvent(): void {
    this.socket.close(1000, 'aborted');
  }
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

/** Surfaces an exception from user code without unwinding our stack (like xstate's reportUnhandledError). */
function rethrowAsync(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
