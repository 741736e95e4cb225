/**
 * The outbound queue: a bounded FIFO of messages waiting for a connection, by count and by bytes,
 * evicting the oldest to make room. It never reads a clock: the socket stamps each message with
 * its own clock's time (the `bufferPolicy` feature expires by it). O(1) amortised push and shift
 * (an array with a head index, compacted once the head passes half of it).
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
  /** Slots before `#head` are `undefined` (already shifted). */
  #items: (QueuedMessage | undefined)[] = [];
  #head = 0;
  /**
   * True while the stamps are non-decreasing from front to back, so that {@link expire} can stop
   * at the first live message; false only after the clock went back (a wall clock adjusted) or a
   * younger message was put back in front of an older one.
   */
  #ordered = true;
  /** Sum of the queued messages' bytes. */
  bytes = 0;

  constructor(
    readonly maxMessages: number,
    readonly maxBytes: number,
  ) {}

  get length(): number {
    return this.#items.length - this.#head;
  }

  /** Whether a message of `bytes` fits without evicting anything. */
  fits(bytes: number): boolean {
    return this.length < this.maxMessages && this.bytes + bytes <= this.maxBytes;
  }

  /**
   * Queues `data`, evicting the oldest messages until it fits (returned, oldest first), or
   * returns `undefined` (nothing queued) when it could never fit: bigger than `maxBytes`, or
   * `maxMessages` is 0.
   */
  push(data: Data, at: number): Data[] | undefined {
    const bytes = byteLengthOf(data);
    if (this.maxMessages < 1 || bytes > this.maxBytes) return undefined;
    const evicted: Data[] = [];
    while (!this.fits(bytes)) evicted.push((this.shift() as QueuedMessage).data);
    const last = this.#items[this.#items.length - 1];
    if (last && at < last.at) this.#ordered = false;
    this.#items.push({ data, bytes, at });
    this.bytes += bytes;
    return evicted;
  }

  /** The oldest message, without removing it. */
  peek(): QueuedMessage | undefined {
    return this.#items[this.#head];
  }

  /** Removes and returns the oldest message. */
  shift(): QueuedMessage | undefined {
    const message = this.#items[this.#head];
    if (message === undefined) return undefined;
    this.#items[this.#head++] = undefined;
    this.bytes -= message.bytes;
    if (this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return message;
  }

  /** Puts back at the front a message just shifted whose send was interrupted (limits not applied). */
  unshift(message: QueuedMessage): void {
    const front = this.peek();
    if (front && message.at > front.at) this.#ordered = false;
    if (this.#head > 0) this.#items[--this.#head] = message;
    else this.#items.unshift(message);
    this.bytes += message.bytes;
  }

  /** Removes and returns every message's data, oldest first. */
  drain(): Data[] {
    return this.expire(Number.POSITIVE_INFINITY);
  }

  /** When the oldest message was queued (the smallest stamp), if any. */
  oldest(): number | undefined {
    let oldest = this.peek()?.at;
    if (!this.#ordered) for (const m of this.#items) if (m && m.at < (oldest as number)) oldest = m.at;
    return oldest;
  }

  /** Removes and returns, oldest first, every message queued at or before `before`. */
  expire(before: number): Data[] {
    const out: Data[] = [];
    if (this.#ordered) {
      for (let m = this.peek(); m && m.at <= before; m = this.peek()) out.push((this.shift() as QueuedMessage).data);
      return out;
    }
    // Out of order (rare): one pass, keeping the survivors in order.
    const kept: QueuedMessage[] = [];
    for (const m of this.#items) {
      if (!m) continue;
      if (m.at <= before) out.push(m.data);
      else kept.push(m);
    }
    this.#items = kept;
    this.#head = 0;
    this.bytes = kept.reduce((sum, m) => sum + m.bytes, 0);
    this.#ordered = kept.every((m, i) => i === 0 || m.at >= (kept[i - 1] as QueuedMessage).at);
    return out;
  }
}
