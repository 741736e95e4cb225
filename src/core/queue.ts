/**
 * The outbound queue: a bounded FIFO of messages waiting for a connection, by count and by bytes,
 * evicting the oldest to make room. It never reads a clock: the socket stamps each message with
 * its own clock's time. O(1) amortised push and shift (an array with a head index, compacted once
 * the head passes half of it). Expiry by age (`bufferPolicy`'s `ttl`) is two functions beside the
 * class, {@link oldestQueued} and {@link expireQueued}: a socket without that feature carries none
 * of it.
 */
import { byteLengthOf, type Data } from '../data.js';

/** A message waiting in the queue. */
export interface QueuedMessage {
  /** The payload (binary data is the socket's own copy). */
  readonly data: Data;
  /** Its size as the limits count it. */
  readonly bytes: number;
  /** When it was queued (the socket's clock). */
  readonly at: number;
}

export class Queue {
  /** Slots before `head_` are `undefined` (already shifted). */
  items_: (QueuedMessage | undefined)[] = [];
  head_ = 0;
  /**
   * True while the stamps are non-decreasing from front to back, so that {@link expireQueued} can
   * stop at the first live message; false only after the clock went back (a wall clock adjusted) or
   * a younger message was put back in front of an older one.
   */
  ordered_ = true;
  /** Sum of the queued messages' bytes. */
  bytes = 0;

  declare readonly maxMessages_: number;
  declare readonly maxBytes_: number;

  // (Fields assigned here rather than as parameter properties: the build shortens their names only so.)
  constructor(maxMessages: number, maxBytes: number) {
    this.maxMessages_ = maxMessages;
    this.maxBytes_ = maxBytes;
  }

  get length(): number {
    return this.items_.length - this.head_;
  }

  /** Whether a message of `bytes` fits without evicting anything. */
  fits_(bytes: number): boolean {
    return this.length < this.maxMessages_ && this.bytes + bytes <= this.maxBytes_;
  }

  /**
   * Queues `data`, evicting the oldest messages until it fits (returned, oldest first), or
   * returns `undefined` (nothing queued) when it could never fit: bigger than `maxBytes`, or
   * `maxMessages` is 0.
   */
  push(data: Data, at: number): Data[] | undefined {
    const bytes = byteLengthOf(data);
    if (this.maxMessages_ < 1 || bytes > this.maxBytes_) return undefined;
    const evicted: Data[] = [];
    while (!this.fits_(bytes)) evicted.push((this.shift() as QueuedMessage).data);
    const last = this.items_[this.items_.length - 1];
    if (last && at < last.at) this.ordered_ = false;
    this.items_.push({ data, bytes, at });
    this.bytes += bytes;
    return evicted;
  }

  /** The oldest message, without removing it. */
  peek_(): QueuedMessage | undefined {
    return this.items_[this.head_];
  }

  /** Removes and returns the oldest message. */
  shift(): QueuedMessage | undefined {
    const message = this.items_[this.head_];
    if (message === undefined) return undefined;
    this.items_[this.head_++] = undefined;
    this.bytes -= message.bytes;
    if (this.head_ * 2 >= this.items_.length) {
      this.items_ = this.items_.slice(this.head_);
      this.head_ = 0;
    }
    return message;
  }

  /** Puts back at the front a message just shifted whose send was interrupted (limits not applied). */
  unshift(message: QueuedMessage): void {
    const front = this.peek_();
    if (front && message.at > front.at) this.ordered_ = false;
    if (this.head_ > 0) this.items_[--this.head_] = message;
    else this.items_.unshift(message);
    this.bytes += message.bytes;
  }

  /** Removes and returns every message's data, oldest first. */
  drain_(): Data[] {
    const out: Data[] = [];
    for (let m = this.shift(); m; m = this.shift()) out.push(m.data);
    return out;
  }
}

/** When the oldest message of `queue` was queued (the smallest stamp), if any. */
export function oldestQueued(queue: Queue): number | undefined {
  let oldest = queue.peek_()?.at;
  if (!queue.ordered_) for (const m of queue.items_) if (m && m.at < (oldest as number)) oldest = m.at;
  return oldest;
}

/** Removes from `queue` and returns, oldest first, every message queued at or before `before`. */
export function expireQueued(queue: Queue, before: number): Data[] {
  const out: Data[] = [];
  if (queue.ordered_) {
    for (let m = queue.peek_(); m && m.at <= before; m = queue.peek_()) out.push((queue.shift() as QueuedMessage).data);
    return out;
  }
  // Out of order (rare): one pass, keeping the survivors in order.
  const kept: QueuedMessage[] = [];
  for (const m of queue.items_) {
    if (!m) continue;
    if (m.at <= before) out.push(m.data);
    else kept.push(m);
  }
  queue.items_ = kept;
  queue.head_ = 0;
  queue.bytes = kept.reduce((sum, m) => sum + m.bytes, 0);
  queue.ordered_ = kept.every((m, i) => i === 0 || m.at >= (kept[i - 1] as QueuedMessage).at);
  return out;
}
