/**
 * The timer slots of a socket (see `TimerSlots` in `src/timers.ts`). Among equal deadlines the
 * lower number fires first: the order in which they are set on the way to open. CONNECT,
 * HANDSHAKE, STABLE, RECONNECT and CLOSING belong to one phase each; TTL is the outbound
 * buffer's; PONG and PING are the heartbeat's.
 */
export const CONNECT = 0;
export const HANDSHAKE = 1;
export const TTL = 2;
export const STABLE = 3;
export const PONG = 4;
export const PING = 5;
export const RECONNECT = 6;
export const CLOSING = 7;
export const SLOT_COUNT = 8;
