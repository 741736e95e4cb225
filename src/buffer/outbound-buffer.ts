/**
 * The bounded FIFO queue that `ResilientSocket.send()` fills while the socket is not open and
 * that is flushed, oldest first, once it is. Bounded by message count and by bytes, with an
 * overflow policy and an optional time-to-live.
 *
 * The buffer never reads a clock itself: every method that needs "now" takes it as an argument,
 * so the socket passes its injected `Clock` reading and tests pass plain numbers.
 */

import { byteLengthOf, type Data } from '../data.js';
import { ErrorCodes, ResilientSocketError } from '../errors.js';
import {
  assertKnownKeys,
  assertNumber,
  assertOptionsObject,
  describeReceived,
  describeValue,
  withDefault,
} from '../validation.js';

/**
 * What `send()` does when a message does not fit in the outbound buffer:
 *
 * - `'drop-oldest'`: evict the oldest queued messages until the new one fits (the default).
 * - `'drop-newest'`: drop the new message and keep the queue as it is.
 * - `'error'`: throw a {@link ResilientSocketError} with code `ERR_RS_BUFFER_OVERFLOW`.
 */
export type OverflowPolicy = 'drop-oldest' | 'drop-newest' | 'error';

/** The overflow policies, in the order error messages list them. */
const OVERFLOW_POLICIES: readonly OverflowPolicy[] = Object.freeze(['drop-oldest', 'drop-newest', 'error']);

/** Options of the outbound buffer (the `buffer` option of `ResilientSocket`). */
export interface BufferOptions {
  /**
   * The most messages the buffer holds. An integer >= 0; `0` disables buffering, so every
   * `send()` while disconnected is handled by the {@link BufferOptions.overflow} policy
   * (dropped, or an error with `'error'`).
   * @default 1000
   * @example
   * ```ts
   * new ResilientSocket(url, { buffer: { maxMessages: 100 } })
   * ```
   */
  maxMessages?: number;
  /**
   * The most bytes the buffer holds, summed over the queued messages: UTF-8 bytes for strings,
   * `byteLength` for binary data, `size` for Blobs. An integer >= 0, or `Infinity` for no limit.
   * @default 1_048_576 (1 MiB)
   * @example
   * ```ts
   * new ResilientSocket(url, { buffer: { maxBytes: 64 * 1024 } }) // at most 64 KiB queued
   * ```
   */
  maxBytes?: number;
  /**
   * What to do when a message does not fit (see {@link OverflowPolicy}).
   * @default 'drop-oldest'
   * @example
   * ```ts
   * new ResilientSocket(url, { buffer: { maxMessages: 50, overflow: 'drop-newest' } })
   * ```
   */
  overflow?: OverflowPolicy;
  /**
   * How long, in milliseconds, a message may wait in the buffer before it is discarded as stale.
   * A number > 0, or `Infinity` to keep messages until they are sent or evicted.
   * @default Infinity
   * @example
   * ```ts
   * new ResilientSocket(url, { buffer: { ttl: 30_000 } }) // quotes older than 30 s are useless
   * ```
   */
  ttl?: number;
}

/** {@link BufferOptions} with defaults applied and every value validated. */
export interface ResolvedBufferOptions {
  /** Integer >= 0. */
  readonly maxMessages: number;
  /** Integer >= 0, or `Infinity`. */
  readonly maxBytes: number;
  readonly overflow: OverflowPolicy;
  /** Milliseconds, > 0 or `Infinity`. */
  readonly ttl: number;
}

/** The defaults of {@link BufferOptions}. */
export const BUFFER_DEFAULTS: ResolvedBufferOptions = Object.freeze({
  maxMessages: 1000,
  maxBytes: 1_048_576,
  overflow: 'drop-oldest',
  ttl: Number.POSITIVE_INFINITY,
});

/** The options of the buffer, as a record so that the compiler reports one missing or extra. */
const BUFFER_OPTION_NAMES: Readonly<Record<keyof BufferOptions, true>> = {
  maxMessages: true,
  maxBytes: true,
  overflow: true,
  ttl: true,
};

function describePolicies(): string {
  const quoted = OVERFLOW_POLICIES.map((policy) => JSON.stringify(policy));
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/**
 * Applies the defaults to `options` and validates them. Messages name the option with a
 * `buffer.` prefix, e.g. ``Expected `buffer.maxMessages` to be an integer >= 0, got -1``.
 *
 * @param options `undefined` for all defaults, or a {@link BufferOptions} object.
 * @throws TypeError when `options` is not an object (`null` included), has an option this does not
 *   know (``Unknown option `buffer.maxMessage`: did you mean `buffer.maxMessages`?``) or an option
 *   has the wrong type; RangeError when an option has the right type but a value outside its range.
 */
export function resolveBufferOptions(options: unknown): ResolvedBufferOptions {
  assertOptionsObject('buffer', options);
  assertKnownKeys('buffer', options, Object.keys(BUFFER_OPTION_NAMES));
  const given = (options ?? {}) as { readonly [K in keyof BufferOptions]?: unknown };
  const maxMessages = withDefault(given.maxMessages, BUFFER_DEFAULTS.maxMessages);
  const maxBytes = withDefault(given.maxBytes, BUFFER_DEFAULTS.maxBytes);
  const overflow = withDefault(given.overflow, BUFFER_DEFAULTS.overflow);
  const ttl = withDefault(given.ttl, BUFFER_DEFAULTS.ttl);
  assertNumber('buffer.maxMessages', maxMessages, { integer: true, min: 0 });
  assertNumber('buffer.maxBytes', maxBytes, { integer: true, min: 0, allowInfinity: true });
  if (typeof overflow !== 'string') {
    throw new TypeError(`Expected \`buffer.overflow\` to be ${describePolicies()}, got ${describeReceived(overflow)}`);
  }
  if (!(OVERFLOW_POLICIES as readonly string[]).includes(overflow)) {
    throw new RangeError(`Expected \`buffer.overflow\` to be ${describePolicies()}, got ${describeValue(overflow)}`);
  }
  assertNumber('buffer.ttl', ttl, { above: 0, allowInfinity: true });
  return Object.freeze({ maxMessages, maxBytes, overflow: overflow as OverflowPolicy, ttl });
}

/** A message waiting in the buffer. */
export interface QueuedMessage {
  /** The payload as passed to `send()`. */
  readonly data: Data;
  /** Its size as the buffer counts it ({@link byteLengthOf}). */
  readonly bytes: number;
  /** The `now` passed to {@link OutboundBuffer.push}, in milliseconds. */
  readonly enqueuedAt: number;
}

/**
 * The outcome of {@link OutboundBuffer.push}: whether the new message was queued, and the older
 * messages evicted to make room for it (oldest first; only ever non-empty with `'drop-oldest'`).
 */
export type PushResult =
  | { readonly status: 'buffered'; readonly evicted: readonly QueuedMessage[] }
  | { readonly status: 'dropped'; readonly evicted: readonly QueuedMessage[] };

const NONE: readonly QueuedMessage[] = Object.freeze([]);
const BUFFERED: PushResult = Object.freeze({ status: 'buffered', evicted: NONE });
const DROPPED: PushResult = Object.freeze({ status: 'dropped', evicted: NONE });

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * A bounded FIFO of outgoing messages. `push` and `shift` are O(1) amortised: the queue is an
 * array with a head index that is compacted once the head passes half of it.
 *
 * The buffer holds `length <= maxMessages` and `bytes <= maxBytes` after every `push`, except that
 * {@link OutboundBuffer.unshift} (putting back a message whose send was interrupted) bypasses the
 * limits. Expiry is never implicit: call {@link OutboundBuffer.expire} before pushing or flushing.
 */
export class OutboundBuffer {
  readonly #options: ResolvedBufferOptions;
  /** Slots before `#head` are `undefined` (already shifted). */
  #items: (QueuedMessage | undefined)[] = [];
  #head = 0;
  #bytes = 0;
  /**
   * True while `enqueuedAt` is non-decreasing from front to back, which lets {@link expire} stop
   * at the first live message. It only becomes false when `now` goes backwards between pushes
   * (e.g. a wall clock adjusted) or a younger message is put back in front of an older one.
   */
  #ordered = true;

  /**
   * @param options Limits and policies, normally from {@link resolveBufferOptions}; they are
   *   validated again here, so an invalid object throws the same errors.
   */
  constructor(options: ResolvedBufferOptions) {
    this.#options = resolveBufferOptions(options);
  }

  /** The validated options this buffer enforces. */
  get options(): ResolvedBufferOptions {
    return this.#options;
  }

  /** Number of queued messages. */
  get length(): number {
    return this.#items.length - this.#head;
  }

  /** Sum of the `bytes` of the queued messages. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Queues `data`, applying the overflow policy when it does not fit. Does not expire anything.
   *
   * @param now The current time in milliseconds (the socket's clock), stored as `enqueuedAt`.
   * @returns `'buffered'` with the messages evicted to make room (oldest first), or `'dropped'`
   *   when the new message was discarded: with `'drop-newest'` whenever it does not fit, with
   *   `'drop-oldest'` only when it could never fit (bigger than `maxBytes`, or `maxMessages` is 0),
   *   in which case nothing is evicted.
   * @throws ResilientSocketError `ERR_RS_BUFFER_OVERFLOW` with the `'error'` policy when the
   *   message does not fit; the queue is left unchanged.
   */
  push(data: Data, now: number): PushResult {
    const size = byteLengthOf(data);
    const { maxMessages, maxBytes, overflow } = this.#options;
    if (!this.#fits(size)) {
      const fitsAlone = maxMessages >= 1 && size <= maxBytes;
      if (overflow === 'error') throw this.#overflowError(size, fitsAlone);
      if (overflow === 'drop-newest' || !fitsAlone) return DROPPED;
      const evicted: QueuedMessage[] = [];
      while (!this.#fits(size)) {
        // fitsAlone guarantees the queue empties before this runs out.
        evicted.push(this.shift() as QueuedMessage);
      }
      this.#append({ data, bytes: size, enqueuedAt: now });
      return { status: 'buffered', evicted };
    }
    this.#append({ data, bytes: size, enqueuedAt: now });
    return BUFFERED;
  }

  /** Removes and returns the oldest message, or `undefined` when the buffer is empty. */
  shift(): QueuedMessage | undefined {
    const message = this.#items[this.#head];
    if (message === undefined) return undefined;
    this.#items[this.#head] = undefined;
    this.#head += 1;
    this.#bytes -= message.bytes;
    this.#compact();
    return message;
  }

  /** The oldest message, without removing it; `undefined` when the buffer is empty. */
  peek(): QueuedMessage | undefined {
    return this.#items[this.#head];
  }

  /**
   * Puts `message` back at the front, typically one just taken with {@link shift} whose send was
   * interrupted. It bypasses `maxMessages` and `maxBytes`: a message already accepted is not lost.
   */
  unshift(message: QueuedMessage): void {
    const front = this.#items[this.#head];
    if (front !== undefined && message.enqueuedAt > front.enqueuedAt) this.#ordered = false;
    if (this.#head > 0) {
      this.#head -= 1;
      this.#items[this.#head] = message;
    } else {
      this.#items.unshift(message);
    }
    this.#bytes += message.bytes;
  }

  /** Removes and returns every message, oldest first; the buffer is then empty with 0 bytes. */
  drain(): QueuedMessage[] {
    const all = this.#items.slice(this.#head) as QueuedMessage[];
    this.#reset();
    return all;
  }

  /**
   * Removes and returns, oldest first, every message that has waited at least `ttl`
   * (`now - enqueuedAt >= ttl`). Returns `[]` when `ttl` is `Infinity`.
   *
   * @param now The current time in milliseconds, on the same clock as the `now` given to `push`.
   */
  expire(now: number): QueuedMessage[] {
    const { ttl } = this.#options;
    if (ttl === Number.POSITIVE_INFINITY || this.length === 0) return [];
    const expired: QueuedMessage[] = [];
    if (this.#ordered) {
      for (let message = this.peek(); message !== undefined && now - message.enqueuedAt >= ttl; message = this.peek()) {
        expired.push(this.shift() as QueuedMessage);
      }
      return expired;
    }
    // Out of order (rare): one full pass, keeping the survivors in order.
    const kept: QueuedMessage[] = [];
    let bytes = 0;
    let ordered = true;
    for (let i = this.#head; i < this.#items.length; i++) {
      const message = this.#items[i] as QueuedMessage;
      if (now - message.enqueuedAt >= ttl) {
        expired.push(message);
      } else {
        const last = kept[kept.length - 1];
        if (last !== undefined && message.enqueuedAt < last.enqueuedAt) ordered = false;
        kept.push(message);
        bytes += message.bytes;
      }
    }
    this.#items = kept;
    this.#head = 0;
    this.#bytes = bytes;
    this.#ordered = ordered;
    return expired;
  }

  /**
   * When the next message expires: `enqueuedAt + ttl` of the oldest message (the earliest
   * `enqueuedAt`), in the clock's milliseconds. `undefined` when the buffer is empty or `ttl`
   * is `Infinity`. Use it to schedule the next {@link expire}.
   */
  nextExpiry(): number | undefined {
    const { ttl } = this.#options;
    const front = this.peek();
    if (front === undefined || ttl === Number.POSITIVE_INFINITY) return undefined;
    let oldest = front.enqueuedAt;
    if (!this.#ordered) {
      for (let i = this.#head + 1; i < this.#items.length; i++) {
        oldest = Math.min(oldest, (this.#items[i] as QueuedMessage).enqueuedAt);
      }
    }
    return oldest + ttl;
  }

  #fits(size: number): boolean {
    return this.length + 1 <= this.#options.maxMessages && this.#bytes + size <= this.#options.maxBytes;
  }

  #append(message: QueuedMessage): void {
    const back = this.#items[this.#items.length - 1];
    if (back !== undefined && message.enqueuedAt < back.enqueuedAt) this.#ordered = false;
    this.#items.push(message);
    this.#bytes += message.bytes;
  }

  /** Drops the shifted slots once they are at least half the array (O(1) amortised). */
  #compact(): void {
    if (this.#head === this.#items.length) {
      this.#reset();
    } else if (this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }

  #reset(): void {
    this.#items = [];
    this.#head = 0;
    this.#bytes = 0;
    this.#ordered = true;
  }

  #overflowError(size: number, fitsAlone: boolean): ResilientSocketError {
    const { maxMessages, maxBytes } = this.#options;
    const state = `holds ${plural(this.length, 'message')} of ${maxMessages} and ${plural(this.#bytes, 'byte')} of ${maxBytes}`;
    const reason = fitsAlone
      ? `a message of ${plural(size, 'byte')} does not fit`
      : maxMessages === 0
        ? 'buffering is disabled (`buffer.maxMessages` is 0)'
        : `a message of ${plural(size, 'byte')} is larger than \`buffer.maxBytes\``;
    return new ResilientSocketError(
      ErrorCodes.BUFFER_OVERFLOW,
      `Outbound buffer overflow: the buffer ${state}; ${reason} (\`buffer.overflow\` is "error")`,
    );
  }
}
