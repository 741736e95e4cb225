import type { Data } from '../data.js';
import type { WebSocketLike } from '../transport/websocket-like.js';
import { canPing } from './connection.js';
import type { ResolvedHeartbeat } from './options.js';
import { Slot } from './timer-slots.js';

/**
 * How a connection is watched:
 * - `protocol`: WebSocket ping frames, answered by the peer's pong (ws in Node);
 * - `message`: an application message every interval, any incoming message counts as the answer;
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

/** A sign of life (a message, or a pong in `protocol` mode): cancels or restarts the deadline. */
export function heartbeatActivity(
  mode: HeartbeatMode,
  config: ResolvedHeartbeat | false,
  timers: HeartbeatTimers,
): void {
  if (config === false || mode === 'off') return;
  if (mode === 'silence') timers.set(Slot.Pong, config.interval + config.timeout);
  else timers.clear(Slot.Pong);
}

/** Whether `data` is an answer to our app-level ping (to be consumed, not emitted). */
export function isHeartbeatPong(mode: HeartbeatMode, config: ResolvedHeartbeat | false, data: Data): boolean {
  return mode === 'message' && config !== false && config.isPong !== undefined && config.isPong(data) === true;
}

/**
 * The `ping` slot fired: send a probe, await its answer, schedule the next probe.
 * @returns whether a message was written (the app-level ping; a protocol ping is a control frame).
 */
export function probe(
  mode: HeartbeatMode,
  config: ResolvedHeartbeat | false,
  timers: HeartbeatTimers,
  socket: WebSocketLike,
): boolean {
  if (config === false) return false;
  if (!timers.has(Slot.Pong)) timers.set(Slot.Pong, config.timeout);
  const sent = sendPing(socket, mode === 'protocol' ? undefined : config.message);
  timers.set(Slot.Ping, config.interval);
  return sent;
}

/**
 * Sends one ping: the app-level `message` (a function is called for each ping) or, without one, a
 * protocol ping. A socket that cannot even send it is as good as dead; the caller's deadline will
 * say so.
 * @returns whether a message was written (a protocol ping is a control frame, not a message).
 */
export function sendPing(socket: WebSocketLike, message: ResolvedHeartbeat['message']): boolean {
  try {
    if (message === undefined) {
      socket.ping?.();
      return false;
    }
    socket.send((typeof message === 'function' ? message() : message) as never);
    return true;
  } catch {
    return false;
  }
}
