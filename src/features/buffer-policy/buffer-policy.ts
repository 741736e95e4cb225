/**
 * `bufferPolicy()`: what the outbound queue does beyond evicting the oldest message to make room.
 * `overflow: 'drop-newest'` keeps the queue and drops the new message; `overflow: 'error'` throws
 * `ERR_RS_BUFFER_OVERFLOW` from `send()`; `ttl` drops messages that waited too long (reported
 * with reason `'expired'`: on the next send, before the flush, and by a timer in between).
 *
 * Per socket it keeps nothing but one timer slot: the next expiry.
 */

import { clampDelay } from '../../backoff/policy.js';
import { clearTimer, expire, type Feature, type Host, setTimer } from '../../core/feature.js';
import { oldestQueued } from '../../core/queue.js';
import type { Data } from '../../data.js';
import { ResilientSocketError } from '../../errors.js';
import {
  assertKnownKeys,
  assertNumber,
  assertOptionsObject,
  describeReceived,
  describeValue,
  rangeError,
  typeError,
  withDefault,
} from '../../validation.js';
import { intern } from '../intern.js';

/**
 * What `send()` does when a message does not fit in the outbound queue:
 *
 * - `'drop-oldest'`: evict the oldest queued messages until the new one fits (the default).
 * - `'drop-newest'`: drop the new message and keep the queue as it is.
 * - `'error'`: throw a `ResilientSocketError` with code `ERR_RS_BUFFER_OVERFLOW`.
 */
export type OverflowPolicy = 'drop-oldest' | 'drop-newest' | 'error';

/** Options of {@link bufferPolicy}: the outbound queue's policies beside its limits (`buffer.maxMessages`, `buffer.maxBytes`). */
export interface BufferPolicyOptions {
  /**
   * What to do when a message does not fit (see {@link OverflowPolicy}).
   * @default 'drop-oldest'
   * @example
   * ```ts
   * new ResilientSocket(url, { buffer: { maxMessages: 50 }, bufferPolicy: bufferPolicy({ overflow: 'drop-newest' }) })
   * ```
   */
  overflow?: OverflowPolicy;
  /**
   * How long, in milliseconds, a message may wait in the buffer before it is discarded as stale.
   * A number > 0, or `Infinity` to keep messages until they are sent or evicted.
   * @default Infinity
   * @example
   * ```ts
   * new ResilientSocket(url, { bufferPolicy: bufferPolicy({ ttl: 30_000 }) }) // quotes older than 30 s are useless
   * ```
   */
  ttl?: number;
}

/** What {@link bufferPolicy} makes: a feature, for `features` or `ResilientSocket`'s `bufferPolicy` option. */
export interface BufferPolicyFeature extends Feature {
  readonly name: 'bufferPolicy';
}

/** The overflow policies, in the order error messages list them. */
const POLICIES: readonly string[] = ['drop-oldest', 'drop-newest', 'error'];
const LISTED = '"drop-oldest", "drop-newest" or "error"';

const TTL = 0;

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The development message of `ERR_RS_BUFFER_OVERFLOW`: what the buffer holds, and why the message does not fit. */
function overflowText(length: number, held: number, bytes: number, maxMessages: number, maxBytes: number): string {
  const fitsAlone = maxMessages >= 1 && bytes <= maxBytes;
  const holds = `holds ${plural(length, 'message')} of ${maxMessages} and ${plural(held, 'byte')} of ${maxBytes}`;
  const reason = fitsAlone
    ? `a message of ${plural(bytes, 'byte')} does not fit`
    : maxMessages === 0
      ? 'buffering is disabled (`buffer.maxMessages` is 0)'
      : `a message of ${plural(bytes, 'byte')} is larger than \`buffer.maxBytes\``;
  return `Outbound buffer overflow: the buffer ${holds}; ${reason} (\`buffer.overflow\` is "error")`;
}

/**
 * The `bufferPolicy` feature: the queue's `overflow` policy and `ttl` (see
 * {@link BufferPolicyOptions}), given to a `BaseSocket` in `features` or to a `ResilientSocket` as
 * its `bufferPolicy` option. Its errors name the options as the buffer's (`buffer.overflow`,
 * `buffer.ttl`).
 * @throws TypeError / RangeError naming the option.
 * @example
 * ```ts
 * new BaseSocket(url, { buffer: { maxMessages: 100 }, features: [bufferPolicy({ overflow: 'error', ttl: 30_000 })] })
 * ```
 */
export function bufferPolicy(options?: BufferPolicyOptions): BufferPolicyFeature {
  assertOptionsObject('buffer', options);
  assertKnownKeys('buffer', options, ['overflow', 'ttl'], 'bufferPolicy()');
  const overflow = withDefault(options?.overflow, 'drop-oldest') as unknown;
  if (typeof overflow !== 'string') {
    throw typeError(
      'buffer.overflow',
      process.env.NODE_ENV !== 'production'
        ? `Expected \`buffer.overflow\` to be ${LISTED}, got ${describeReceived(overflow)}`
        : '',
    );
  }
  if (!POLICIES.includes(overflow)) {
    throw rangeError(
      'buffer.overflow',
      process.env.NODE_ENV !== 'production'
        ? `Expected \`buffer.overflow\` to be ${LISTED}, got ${describeValue(overflow)}`
        : '',
    );
  }
  const ttl = withDefault(options?.ttl, Number.POSITIVE_INFINITY);
  assertNumber('buffer.ttl', ttl, { above: 0, allowInfinity: true });

  /** Takes out the messages that waited `ttl` or longer. */
  const stale = (host: Host): Data[] =>
    ttl < Number.POSITIVE_INFINITY ? expire(host, host.config_.clock.now() - ttl) : [];

  /** Arms the timer for the next expiry (`oldest` queued at), or clears it when nothing is queued. */
  const arm = (host: Host, index: number, oldest = host.queue_ && oldestQueued(host.queue_)): void => {
    if (oldest === undefined || ttl === Number.POSITIVE_INFINITY) clearTimer(host, index, TTL);
    else setTimer(host, index, TTL, clampDelay(oldest + ttl - host.config_.clock.now()));
  };

  return intern<BufferPolicyFeature & { readonly options_: object }>({
    name: 'bufferPolicy',
    rank: 60,
    slots: 1,
    options_: { overflow, ttl },
    admit(host, index, bytes) {
      // A drop listener may close the socket: send() looks again afterwards.
      host.drop_('expired', stale(host));
      const { length = 0, bytes: held = 0 } = host.queue_ ?? {};
      const { maxMessages, maxBytes } = host.config_;
      if (length >= maxMessages || held + bytes > maxBytes) {
        if (overflow === 'error') {
          throw new ResilientSocketError(
            'ERR_RS_BUFFER_OVERFLOW',
            process.env.NODE_ENV !== 'production' ? overflowText(length, held, bytes, maxMessages, maxBytes) : '',
          );
        }
        if (overflow === 'drop-newest') return 'dropped';
      }
      // The message is about to be queued: the queue's oldest, or it, expires first (it is the
      // older when the clock went back).
      const now = host.config_.clock.now();
      arm(host, index, Math.min((host.queue_ && oldestQueued(host.queue_)) ?? now, now));
      return undefined;
    },
    flush(host, _me, out) {
      out.push(...stale(host));
    },
    open(host, index) {
      arm(host, index); // what a socket that closed mid-flush kept
    },
    timer(host, index) {
      host.drop_('expired', stale(host));
      arm(host, index);
    },
    state(host, index, _previous, next) {
      if (next === 'closed') clearTimer(host, index, TTL); // the queue was dropped
    },
  });
}
