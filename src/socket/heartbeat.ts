import type { Data } from '../data.js';
import type { TimerSlots } from '../timers.js';
import type { WebSocketLike } from '../transport/websocket-like.js';
import type { Connection } from './connection.js';
import type { ResolvedHeartbeat } from './options.js';

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
  if (typeof socket.ping === 'function' && typeof socket.on === 'function') return 'protocol';
  return config.explicit ? 'silence' : 'off';
}

/** The timer names the heartbeat uses in the socket's {@link TimerSlots}. */
export type HeartbeatTimer = 'ping' | 'pong';

const DISABLED: ResolvedHeartbeat = Object.freeze({
  interval: 0,
  timeout: 0,
  message: undefined,
  isPong: undefined,
  explicit: false,
});

/**
 * Watches one open connection and calls `onDead` when it stops answering. Worst case, a link
 * that goes silent is declared dead `interval + timeout` later: the probe after the last answer
 * goes out at most `interval` later, and its answer is awaited `timeout`.
 */
export class Heartbeat {
  readonly #connection: Connection<unknown>;
  readonly #config: ResolvedHeartbeat;
  readonly #timers: TimerSlots<HeartbeatTimer | string>;
  readonly #onDead: () => void;
  readonly mode: HeartbeatMode;

  constructor(
    connection: Connection<unknown>,
    config: ResolvedHeartbeat | false,
    timers: TimerSlots<HeartbeatTimer | string>,
    onDead: () => void,
  ) {
    this.#connection = connection;
    this.mode = heartbeatMode(config, connection.socket);
    this.#config = config || DISABLED;
    this.#timers = timers;
    this.#onDead = onDead;
  }

  /** Starts watching (call once the connection is open). */
  start(): void {
    switch (this.mode) {
      case 'protocol':
      case 'message':
        this.#armProbe();
        break;
      case 'silence':
        this.#timers.set('pong', this.#config.interval + this.#config.timeout, this.#onDead);
        break;
      case 'off':
        break;
    }
  }

  /** A sign of life (a message or a pong): cancels the pending deadline. */
  activity(): void {
    if (this.mode === 'off') return;
    if (this.mode === 'silence') {
      this.#timers.set('pong', this.#config.interval + this.#config.timeout, this.#onDead);
    } else {
      this.#timers.clear('pong');
    }
  }

  /** A protocol pong arrived: the answer to our ping (only protocol pings count as answers to it). */
  pong(): void {
    if (this.mode === 'protocol') this.activity();
  }

  /** Whether `data` is an answer to our app-level ping (to be consumed, not emitted). */
  isPong(data: Data): boolean {
    return this.mode === 'message' && this.#config.isPong !== undefined && this.#config.isPong(data) === true;
  }

  /** Stops watching: clears its timers. */
  stop(): void {
    this.#timers.clear('ping');
    this.#timers.clear('pong');
  }

  #armProbe(): void {
    this.#timers.set('ping', this.#config.interval, () => this.#probe());
  }

  #probe(): void {
    if (!this.#timers.has('pong')) this.#timers.set('pong', this.#config.timeout, this.#onDead);
    try {
      const socket = this.#connection.socket;
      if (this.mode === 'protocol') {
        socket.ping?.();
      } else {
        const { message } = this.#config;
        socket.send((typeof message === 'function' ? message() : message) as never);
      }
    } catch {
      // A socket that cannot even send a ping is as good as dead; the pong deadline will say so.
    }
    this.#armProbe();
  }
}
