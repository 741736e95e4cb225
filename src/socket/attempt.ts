import type { Data } from '../data.js';
import { Connection } from './connection.js';
import type { HeartbeatMode } from './heartbeat.js';
import type { ResilientSocket } from './resilient-socket.js';

/** A `nextMessage()` of the handshake hook, waiting for its message. */
export interface HandshakeWaiter {
  readonly predicate: ((data: Data) => boolean) | undefined;
  resolve(data: Data): void;
  reject(error: unknown): void;
}

/** What the handshake hook of an attempt is doing (present while it runs). */
export interface HandshakeState {
  readonly controller: AbortController;
  /** Messages that arrived and no `nextMessage()` took yet. */
  readonly inbox: Data[];
  readonly waiters: HandshakeWaiter[];
}

/**
 * One connection attempt of a socket: its number, its WebSocket once created (it is the
 * {@link Connection} that listens to it), and how far it got. A socket replaces it wholesale for
 * every attempt, and callbacks that outlive theirs (a URL provider, a handshake) compare identity.
 * @internal
 */
export class Attempt extends Connection<ResilientSocket> {
  /** 1 for the first attempt after a reset, counting up. */
  readonly number: number;
  /** The connection is usable (opened, and the handshake hook done): set once. */
  opened = false;
  /** How the connection is watched: set when it opens ('off' until then). */
  heartbeat: HeartbeatMode = 'off';
  /** A resume probe is waiting for its answer (the `Pong` slot is its deadline). */
  probing = false;
  /** Present while the handshake hook runs. */
  handshake: HandshakeState | undefined = undefined;

  constructor(number: number, owner: ResilientSocket, events: Connection<ResilientSocket>['events']) {
    super(owner, events);
    this.number = number;
  }
}
