/**
 * `stats()`: `socket.stats`, a snapshot of the core's counters (attempts, connects, messages in
 * and out, drops, uptime and downtime, the last error, when the next retry is due).
 */
import type { Feature } from '../../core/feature.js';
import { COUNTERS, type Services, SNAPSHOT } from '../../core/services.js';
import type { SocketStats } from '../../core/socket.js';
import { PHASE } from '../../core/states.js';

/** The one feature object (made on first use: a module-level object with a symbol key would stay in every bundle). */
let made: (Feature & Pick<Services, typeof SNAPSHOT>) | undefined;

const make = (): Feature & Pick<Services, typeof SNAPSHOT> => ({
  name: 'stats',
  rank: 90,
  [SNAPSHOT](host) {
    const now = host.config_.clock.now();
    // An opened attempt is current from open until its connection is torn down (closing included).
    const opened = host.attempt_?.opened_ === true;
    const snapshot: Record<string, unknown> = {
      attempts: host.attempts_,
      connects: host.connects_,
      reconnects: Math.max(0, host.connects_ - 1),
      dropped: host.dropped_,
      messagesIn: host.messagesIn_,
      messagesOut: host.messagesOut_,
      uptime: opened && host.state_ === 'open' ? now - host.since_ : 0,
      downtime: opened ? 0 : now - host.since_,
      lastError: host.lastError_,
      // Only while the retry is pending (not while offline or deciding, nor once it has started).
      nextRetryAt:
        host.state_ === 'reconnecting' && !host.deciding_ && host.timerPending_(PHASE) ? host.nextRetryAt_ : undefined,
    };
    // Each feature that keeps counters of its own (delivery) shows them under its name.
    host.config_.features.forEach((feature, index) => {
      if (COUNTERS in feature)
        snapshot[feature.name] = (feature as Pick<Services, typeof COUNTERS>)[COUNTERS](host, index);
    });
    return snapshot as unknown as SocketStats;
  },
});

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
  made ??= make();
  return made;
}
