/**
 * The timer slots of a socket (see `TimerSlots` in `src/timers.ts`).
 *
 * `Phase` is the one deadline of the current state, read by the state when it fires (as a
 * state machine's delayed transition is): `connecting` → the connect timeout (or, while the
 * handshake hook runs, the handshake timeout), `open` → the stable reset, `reconnecting` → the
 * retry, `closing` → the close timeout. States never share it: each one's deadline is cleared or
 * replaced when the state is left. In `reconnecting` it is, while an async `shouldReconnect`
 * decides, the bound on that wait. `Ttl` is the outbound buffer's; `Pong` and `Ping` are the
 * heartbeat's; `Retire` bounds the closing handshake of a connection `reconnect()` let go. An
 * enum, so the bundler writes the numbers in place.
 */
export enum Slot {
  Ttl = 0,
  Phase = 1,
  Pong = 2,
  Ping = 3,
  Retire = 4,
  /** How many there are. */
  Count = 5,
}
