/** `unref()`: the socket's timers (retry waits, heartbeat, ttl) do not hold a Node process open. */
import type { Feature } from '../../core/feature.js';

const UNREF: Feature = { name: 'unref', rank: 80, unref: true };

/**
 * The `unref` feature: pending reconnect waits, heartbeat and ttl timers do not keep a Node process
 * alive (a CLI can exit while the socket waits to reconnect). `ResilientSocket`'s `unref: true`.
 * @example
 * ```ts
 * new BaseSocket(url, { features: [unref()] })
 * ```
 */
export function unref(): Feature {
  return UNREF;
}
