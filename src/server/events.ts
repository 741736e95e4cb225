/** What `ReliableServer` listens to (a `ws` `WebSocketServer`) and the events it emits. */
import type { EventEmitter } from 'eventemitter3';
import { listenerError, surface } from '../core/report.js';
import type { ResilientSocketError } from '../errors.js';
import { typeError } from '../validation.js';
import type { ServerSocket, Session } from './session.js';

/**
 * What `ReliableServer` needs of a server: a `ws` `WebSocketServer` (any object with these
 * members that emits `connection` with the server side of each new connection will do).
 */
export interface ConnectionSource<S extends ServerSocket = ServerSocket> {
  /**
   * The connected clients (ws's `clients`): never read; its type tells the type of the sessions'
   * sockets (ws's `WebSocket` for a `WebSocketServer`).
   */
  readonly clients?: ReadonlySet<S>;
  /** Adds the `connection` listener: `(socket, request)`. */
  on(event: 'connection', listener: (socket: ServerSocket, ...rest: unknown[]) => void): unknown;
  /** Removes it (at `close()`). */
  off(event: 'connection', listener: (socket: ServerSocket, ...rest: unknown[]) => void): unknown;
}

/** The events of `ReliableServer`, by name: each listener's arguments. */
export interface ReliableServerEvents<S extends ServerSocket = ServerSocket> {
  /**
   * A reliable message from a client, once per id: `data` is the message's data (decoded by the
   * codec: JSON by default). The acknowledgement goes when every listener returned (what a
   * listener throws is reported by `error`, and the message is acknowledged all the same).
   */
  message: [data: unknown, session: Session<S>];
  /**
   * A message that is not the protocol's, as it came (text as a string, binary as `ws` gives it: a
   * `Buffer` by default), with its connection and, once the client said hello on it, its session.
   */
  plain: [data: unknown, socket: S, session: Session<S> | undefined];
  /** A client said hello for a session the server did not know yet (or had forgotten). */
  session: [session: Session<S>];
  /**
   * Something went wrong that no promise tells: a listener threw (`ERR_RS_LISTENER_THREW`), the
   * codec or the clock failed (`ERR_RS_CALLBACK_FAILED`), a new client found no room
   * (`ERR_RS_BUFFER_OVERFLOW`, its connection closed with 1013), a client broke the protocol
   * (`ERR_RS_PROTOCOL_VIOLATION`, its connection closed with 1008). Never fatal; with no `error`
   * listener it becomes a process warning.
   */
  error: [error: ResilientSocketError];
}

/** @throws TypeError naming `wss` unless it has `on` and `off`. */
export function assertSource(wss: unknown): void {
  const w = wss as Partial<ConnectionSource> | null;
  if (typeof w !== 'object' || w === null || typeof w.on !== 'function' || typeof w.off !== 'function') {
    throw typeError(
      'wss',
      process.env.NODE_ENV !== 'production'
        ? 'Expected `wss` to be a ws WebSocketServer (an object with `on` and `off`)'
        : '',
    );
  }
}

/** Emits `error` on `emitter`; with no `error` listener, or one that throws, a process warning. */
export function reportOn(emitter: EventEmitter, error: ResilientSocketError): void {
  if (emitter.listenerCount('error') === 0) {
    surface(error);
    return;
  }
  try {
    emitter.emit('error', error);
  } catch (thrown) {
    surface(listenerError('An `error` listener of ReliableServer', thrown));
  }
}
