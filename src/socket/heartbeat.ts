import type { WebSocketLike } from '../transport/websocket-like.js';
import { canPing } from './connection.js';
import type { ResolvedHeartbeat } from './options.js';
import { Slot } from './timer-slots.js';

/**
 * How a connection is watched:
 * - `protocol`: WebSocket ping frames, answered by the peer's pong (ws in Node);
 * - `message`: an application message every interval, answered by a message `isPong` accepts;
 * - `silence`: no probe; no incoming message for `interval + timeout` means dead;
 * - `off`.
 */
export type HeartbeatMode = 'protocol' | 'message' | 'silence' | 'off';

/** Picks the mode for one connection from the configuration and what the socket can do. */
export function heartbeatMode(config: ResolvedHeartbeat | false, socket: WebSocketLike): HeartbeatMode {
  if (config === false) return 'off';
  if (config.message !== undefined) return 'message';
  if (canPing(socket)) return 'protocol';
  return config.explicit ? 'silence' : 'off';
}

/**
 * What the heartbeat needs from the socket's timers. It uses two slots: `Ping` is the next probe,
 * `Pong` the deadline of the answer (or, in `silence` mode, of the next sign of life). When `Pong`
 * fires, the connection is dead; the socket handles that.
 */
export interface HeartbeatTimers {
  set(slot: number, ms: number): void;
  clear(slot: number): void;
  has(slot: number): boolean;
}

// The heartbeat of a connection is its mode plus two timer slots of its socket: these functions
// hold no state of their own, so watching a connection costs no object and no closure.
//
// Worst case, a link that goes silent is declared dead `interval + timeout` later: the probe after
// the last answer goes out at most `interval` later, and its answer is awaited `timeout`.

/** Starts watching a connection that just opened. */
export function startHeartbeat(mode: HeartbeatMode, config: ResolvedHeartbeat | false, timers: HeartbeatTimers): void {
  if (config === false || mode === 'off') return;
  if (mode === 'silence') timers.set(Slot.Pong, config.interval + config.timeout);
  else timers.set(Slot.Ping, config.interval);
}

/**
 * A message arrived. Only in `silence` mode is any message a sign of life (it restarts the
 * deadline): a heartbeat that sends pings requires their answers (a pong frame, or a message
 * `isPong` accepts), so that a link dead only from client to server is found even while the
 * server keeps streaming.
 */
export function heartbeatActivity(
  mode: HeartbeatMode,
  config: ResolvedHeartbeat | false,
  timers: HeartbeatTimers,
): void {
  if (config !== false && mode === 'silence') timers.set(Slot.Pong, config.interval + config.timeout);
}
