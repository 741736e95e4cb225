import { EventEmitter } from 'eventemitter3';
import type { Data } from '../data.js';
import { isData } from '../data.js';
import type { ResilientSocketError } from '../errors.js';
import type { DeliveryStats } from '../features/delivery/handed.js';
import { browserTransport } from '../transports/browser.js';
import type { Transport } from '../transports/transport.js';
import { assertBoolean, assertKnownKeys, assertOneOf, assertOptionsObject, assertThat } from '../validation.js';
import { assertCloseArgs } from './close-codes.js';
import type { SendResult } from './commands.js';
import * as command from './commands.js';
import type { ResilientSocketEvents } from './events.js';
import { Machine } from './machine.js';
import type { BaseSocketOptions, UrlProvider } from './options.js';
import { resolveOptions } from './resolve.js';
import { messagesOf, sendReliableOf, statsOf } from './services.js';
import { readyStateOf, type SocketState } from './states.js';
import { checkTarget } from './target.js';

export type { SendResult };

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

/** A snapshot of counters, from `socket.stats` (the `stats()` feature). */
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
  /** The `delivery()` feature's counters, when it is installed (as every feature's counters: under its name). */
  readonly delivery?: DeliveryStats;
}

/**
 * The core socket: a WebSocket that stays connected. It reconnects with backoff (truncated binary
 * exponential by default), resets it only after a stable connection, gives up after `maxRetries`
 * or a fatal close, queues sends while down (bounded, every drop reported) and reports everything
 * through typed events. Features (heartbeat, resume awareness, handshake, …) plug in through
 * `features`; `ResilientSocket` is this with every feature installed. How it works:
 * `docs/guide/architecture.md`.
 *
 * @example
 * ```ts
 * import { BaseSocket, heartbeat } from 'resilient-socket/modular';
 * const socket = new BaseSocket('wss://example.test/feed', { features: [heartbeat()] });
 * socket.on('message', (data) => render(data));
 * socket.send(JSON.stringify({ subscribe: 'prices' })); // queued until the first open
 * ```
 */
export class BaseSocket extends EventEmitter<ResilientSocketEvents> {
  /** The class's name, whatever a bundler renamed its binding to (a plain value: it stays tree-shakable). */
  static override readonly name: string = 'BaseSocket';

  /** How sockets of this class reach the network (the Node entries install the ws transport). @internal */
  protected static transport: Transport = browserTransport;

  /** Turns the constructor's options into the core's (`ResilientSocket`: flat feature options into features). @internal */
  protected static prepare(options: unknown): unknown {
    return options;
  }

  /** The machine: all the socket's state (`./machine.ts`), out of sight of `util.inspect` and JSON. */
  readonly #machine: Machine;

  /**
   * @param url a `ws:`/`wss:` URL (string or `URL`); with the `providers()` feature also a
   *   function (sync or async) returning one, called before every attempt.
   * @param options see {@link BaseSocketOptions}; validated here, once.
   * @throws TypeError / RangeError naming the option for bad input (an option of a feature that is
   *   not installed names the factory to import); ResilientSocketError `ERR_RS_NO_WEBSOCKET` when
   *   no WebSocket implementation is available.
   */
  constructor(url: UrlProvider, options?: BaseSocketOptions) {
    super();
    const Class = this.constructor as typeof BaseSocket;
    const prepared = Class.prepare(options);
    this.#machine = new Machine(this, resolveOptions(url, prepared, Class.transport, checkTarget));
    this.#machine.init_(prepared);
  }

  /** @internal how the machine tells the users (see `Face` in `./machine.ts`) */
  emit_(event: string, ...args: unknown[]): void {
    (this.emit as (event: string, ...args: unknown[]) => boolean)(event, ...args);
  }

  /** @internal */
  listens_(event: string): boolean {
    return this.listenerCount(event as 'error') > 0;
  }

  // ─── read-only state ─────────────────────────────────────────────────────────────────────

  /** The current state; docs/guide/reconnection.md has the diagram. */
  get state(): SocketState {
    return this.#machine.state_;
  }

  /**
   * The attempt number the events carry (`connecting`, `open`, `reconnecting`): while
   * `connecting`, the attempt in progress; while `reconnecting`, the attempt that follows the
   * wait; while `open`, the attempt that opened, until the connection is stable (then 0).
   * Attempts count from 1 since the last stable connection (or `open()`/`reconnect()`).
   */
  get attempt(): number {
    const m = this.#machine;
    return m.state_ === 'reconnecting' ? m.runAttempts_ + 1 : m.runAttempts_;
  }

  /**
   * Consecutive failures since the last stable connection: failed attempts, plus the loss of the
   * connection the run started from. This is the `n` of the backoff and what `maxRetries` limits.
   */
  get failures(): number {
    return this.#machine.failures_;
  }

  /** The URL of the latest attempt, whole ('' before the first attempt when the URL is a provider). */
  get url(): string {
    return this.#machine.url_;
  }

  /** Messages waiting in the outbound buffer. */
  get bufferedCount(): number {
    return this.#machine.queue_?.length ?? 0;
  }

  /**
   * Bytes waiting to be sent: those in the outbound buffer (UTF-8 bytes for strings, `byteLength`
   * for binary data, `size` for Blobs) plus the current WebSocket's `bufferedAmount` (written by
   * `send()` but not on the wire yet). Compare it with `highWaterMark`, or read `writable`.
   */
  get bufferedAmount(): number {
    return this.#machine.buffered_();
  }

  /**
   * False from the send that takes `bufferedAmount` above `highWaterMark` until the `drain` event
   * (or for good, once closed with it above): a producer waits for `drain` before it sends more.
   * Only a hint: `send()` still sends and queues as before.
   */
  get writable(): boolean {
    return !this.#machine.above_;
  }

  /** WebSocket-style ready state: CONNECTING (0) until open, OPEN (1), CLOSING (2), CLOSED (3). */
  get readyState(): number {
    return readyStateOf(this.#machine.state_);
  }

  /** The subprotocol the server chose for the current connection ('' if none or not open). */
  get protocol(): string {
    const attempt = this.#machine.attempt_;
    return attempt?.opened_ ? (attempt.socket?.protocol ?? '') : '';
  }

  /** `binaryType` of the current and every future underlying socket. */
  get binaryType(): string | undefined {
    return this.#machine.binaryType_ ?? this.#machine.attempt_?.socket?.binaryType;
  }

  /**
   * Sets `binaryType` on the current connection and on every later one.
   * @throws RangeError for a value the WebSocket does not take (see the `binaryType` option).
   */
  set binaryType(value: string) {
    const { transport, WebSocket } = this.#machine.config_;
    assertOneOf('binaryType', value, transport.binaryTypes_(WebSocket));
    this.#machine.binaryType_ = value;
    const ws = this.#machine.attempt_?.socket;
    if (ws) ws.binaryType = value;
  }

  /**
   * Counters and timings, a fresh snapshot on every read (the `stats()` feature; `ResilientSocket`
   * has it).
   * @throws TypeError naming the feature when it is not installed.
   */
  get stats(): SocketStats {
    return statsOf(this.#machine);
  }

  /**
   * Iterates over incoming messages until the socket reaches `closed` (the `asyncIteration()`
   * feature; `ResilientSocket` has it). Messages that arrive faster than the loop consumes them
   * are queued in memory.
   * @throws TypeError naming the feature when it is not installed.
   */
  [Symbol.asyncIterator](): AsyncIterableIterator<Data> {
    return messagesOf(this.#machine);
  }

  // ─── what the user asks ──────────────────────────────────────────────────────────────────

  /**
   * Sends now when open; otherwise queues in the outbound buffer (unless `buffer: false`).
   * Binary data that is queued is copied first, so the caller may reuse, change or transfer its
   * buffer as soon as `send()` returns; binary data that is already detached is dropped at once.
   * @returns `'sent'`, `'buffered'` or `'dropped'` (every dropped message is also reported by `drop`).
   * @throws TypeError for data that is not a string or binary, or an unknown option;
   *   ResilientSocketError `ERR_RS_BUFFER_OVERFLOW` when the queue is full and the `bufferPolicy`
   *   feature's `overflow` is `'error'`.
   */
  send(data: Data, options?: SendOptions): SendResult {
    return command.send(this.#machine, data, sendArgs(data, options));
  }

  /**
   * Sends `data` (any JSON value) reliably, with the `delivery()` feature (`ResilientSocket`'s
   * `delivery` option): it is kept, and sent again after every reconnect and after `ackTimeout`,
   * until the peer acknowledges it (at-least-once on the wire; the peer drops duplicates). See
   * `docs/guide/delivery.md` and `docs/guide/protocol.md`.
   * @returns a promise resolved once the peer acknowledged it, rejected with a coded
   *   `ResilientSocketError` when it never will be (`ERR_RS_NOT_ACKNOWLEDGED` after `maxAttempts`,
   *   `ERR_RS_DELIVERY_STOPPED` or `ERR_RS_DELIVERY_DEFERRED` at `close()` or a give-up,
   *   `ERR_RS_BUFFER_OVERFLOW` past `maxPending`).
   * @throws TypeError (`ERR_RS_NEEDS_FEATURE`) naming the feature when it is not installed.
   */
  sendReliable(data: unknown): Promise<void> {
    return sendReliableOf(this.#machine, data);
  }

  /**
   * Starts connecting: from `idle` (with `autoConnect: false`) or from `closed` after a give-up
   * (starting afresh). Does nothing in the other states.
   * @throws ResilientSocketError `ERR_RS_CLOSED` after `close()`.
   */
  open(): void {
    command.open(this.#machine.alive_('open'));
  }

  /**
   * Lets the current connection go and connects again now, with a fresh backoff. An open
   * connection is closed politely: a close frame with `code` and `reason` is sent, and its closing
   * handshake finishes in the background (cut after `CLOSE_TIMEOUT` ms) while the new attempt
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
    command.reconnect(this.#machine.alive_('reconnect'), code, reason);
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
    command.close(this.#machine, code, reason);
  }
}

/**
 * Checks the arguments of `send(data, options)` (`BaseSocket`'s and `SharedSocket`'s) and returns
 * the `buffer` option.
 * @throws TypeError for data that is not a string or binary, or an unknown or mistyped option.
 */
export function sendArgs(data: unknown, options: unknown): boolean {
  assertThat(
    isData(data),
    'data',
    process.env.NODE_ENV !== 'production' ? 'a string, ArrayBuffer, typed array or Blob' : '',
    data,
  );
  assertOptionsObject('send options', options);
  assertKnownKeys('', options, ['buffer'], 'send()');
  const { buffer = true } = (options ?? {}) as { buffer?: unknown };
  assertBoolean('buffer', buffer);
  return buffer;
}
