/**
 * `stats()`: `socket.stats`, a snapshot of the core's counters (attempts, connects, messages in
 * and out, drops, uptime and downtime, the last error, when the next retry is due).
 */
import { type Feature, findFeature, type Host } from '../../core/feature.js';
import type { DeliveryStats, SocketStats } from '../../core/socket.js';
import { PHASE } from '../../core/states.js';

/** What the `delivery()` feature offers the snapshot: its counters. */
interface DeliveryCounts {
  counts(m: Host, me: number): DeliveryStats;
}

const STATS: Feature & { snapshot(m: Host): SocketStats } = {
  name: 'stats',
  rank: 90,
  snapshot(m) {
    const c = m;
    const now = c.config_.clock.now();
    // An opened attempt is current from open until its connection is torn down (closing included).
    const opened = c.attempt_?.opened === true;
    const delivery = findFeature(m, 'delivery');
    return {
      attempts: c.attempts_,
      connects: c.connects_,
      reconnects: Math.max(0, c.connects_ - 1),
      dropped: c.dropped_,
      messagesIn: c.messagesIn_,
      messagesOut: c.messagesOut_,
      uptime: opened && c.state_ === 'open' ? now - c.since_ : 0,
      downtime: opened ? 0 : now - c.since_,
      lastError: c.lastError_,
      // Only while the retry is pending (not while offline or deciding, nor once it has started).
      nextRetryAt: c.state_ === 'reconnecting' && !c.deciding_ && c.timerPending_(PHASE) ? c.nextRetryAt_ : undefined,
      ...(delivery && { delivery: (delivery[0] as Feature & DeliveryCounts).counts(m, delivery[1]) }),
    };
  },
};

/**
 * The `stats` feature: `socket.stats` (counters and timings). Without it, reading `socket.stats`
 * throws a TypeError naming this factory.
 * @example
 * ```ts
 * const socket = new BaseSocket(url, { features: [stats()] });
 * socket.stats.reconnects;
 * ```
 */
export function stats(): Feature {
  return STATS;
}
