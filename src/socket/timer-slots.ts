/**
 * The timer slots of a socket (see `TimerSlots` in `src/timers.ts`). Connect, Handshake, Stable,
 * Reconnect and Closing belong to one phase each; Ttl is the outbound buffer's; Pong and Ping are
 * the heartbeat's. An enum, so the bundler writes the numbers in place.
 */
export enum Slot {
  Connect = 0,
  Handshake = 1,
  Ttl = 2,
  Stable = 3,
  Pong = 4,
  Ping = 5,
  Reconnect = 6,
  Closing = 7,
  /** How many there are. */
  Count = 8,
}
