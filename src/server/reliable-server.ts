/**
 * `ReliableServer`: acknowledged delivery on the server side of a `ws` `WebSocketServer`, the peer
 * of the client's `delivery()` feature (`docs/guide/protocol.md` has the protocol it speaks).
 */
import { EventEmitter } from 'eventemitter3';
import { listenerError, surface } from '../core/report.js';
import { isResilientSocketError, type ResilientSocketError } from '../errors.js';
import { typeError } from '../validation.js';
import { type Frame, isFrame } from './codec.js';
import { closedError, codecFailed, stopped, tooManyPending, tooManySessions, unencodable } from './failures.js';
import { type ReliableServerOptions, type ResolvedServerOptions, resolveServerOptions } from './options.js';
import { Outbox } from './outbox.js';
import { type ServerSocket, type Session, SessionState } from './session.js';

/** `ws`'s `readyState` of an open connection. */
const OPEN = 1;

/** Where the random start of a session's outgoing ids is drawn from: [0, 2^48), exact as a number. */
const SEQ_RANGE = 2 ** 48;

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

/** The events of {@link ReliableServer}, by name: each listener's arguments. */
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
   * codec failed (`ERR_RS_CALLBACK_FAILED`), a new client found no room (`ERR_RS_BUFFER_OVERFLOW`).
   * Never fatal; with no `error` listener it becomes a process warning.
   */
  error: [error: ResilientSocketError];
}

/** One connection the server listens to. */
interface Connection<S extends ServerSocket> {
  readonly socket: S;
  /** The session the client said hello for on this connection. */
  session: SessionState<S> | undefined;
  readonly onMessage: (data: unknown, isBinary: boolean) => void;
  readonly onClose: () => void;
}

/**
 * Acknowledged delivery over a `ws` `WebSocketServer`, per client session (the client's
 * `delivery()` feature, or any client that speaks `docs/guide/protocol.md`):
 * - every reliable message from a client reaches `message` listeners once, however often it is
 *   resent, and is acknowledged once they ran;
 * - `send(session, data)` keeps a message until the client acknowledges it: sent at once if the
 *   client is connected, again after `ackTimeout` without an acknowledgement, and again, in order,
 *   on the session's next hello;
 * - any other message passes through (`plain`), so an existing protocol keeps working beside it.
 *
 * Memory is bounded: per session `maxPending` messages and `window` ids; `maxSessions` sessions,
 * each forgotten `sessionTtl` after its client went away. Node only.
 * @example
 * ```ts
 * import { WebSocketServer } from 'ws';
 * import { ReliableServer } from 'resilient-socket/server';
 * const reliable = new ReliableServer(new WebSocketServer({ port: 8080 }));
 * reliable.on('message', (data, session) => {
 *   save(data); // once per message, whatever the network did
 *   void reliable.send(session, { saved: true }).catch(report); // resolves once the client acknowledged
 * });
 * ```
 */
export class ReliableServer<S extends ServerSocket = ServerSocket> extends EventEmitter<ReliableServerEvents<S>> {
  /** The class's name, whatever a bundler renamed its binding to. */
  static override readonly name: string = 'ReliableServer';

  readonly #o: ResolvedServerOptions;
  readonly #wss: ConnectionSource<S>;
  readonly #sessions = new Map<string, SessionState<S>>();
  readonly #connections = new Set<Connection<S>>();
  readonly #outbox: Outbox<S>;
  readonly #onConnection = (socket: ServerSocket): void => this.#attach(socket as S);
  #closed = false;

  /**
   * Starts listening to `wss`'s `connection` events (connections accepted before are not
   * followed).
   * @param wss a `ws` `WebSocketServer` (or any {@link ConnectionSource})
   * @param options see {@link ReliableServerOptions}
   * @throws TypeError / RangeError (with a `code`) naming a bad option or server
   */
  constructor(wss: ConnectionSource<S>, options?: ReliableServerOptions) {
    super();
    const w = wss as Partial<ConnectionSource<S>> | null;
    if (typeof w !== 'object' || w === null || typeof w.on !== 'function' || typeof w.off !== 'function') {
      throw typeError(
        'wss',
        process.env.NODE_ENV !== 'production'
          ? 'Expected `wss` to be a ws WebSocketServer (an object with `on` and `off`)'
          : '',
      );
    }
    this.#o = resolveServerOptions(options);
    this.#wss = wss;
    this.#outbox = new Outbox(this.#o, (session) => this.#expire(session));
    wss.on('connection', this.#onConnection);
  }

  /** The sessions the server keeps, by id (read-only: they change as clients come and go). */
  get sessions(): ReadonlyMap<string, Session<S>> {
    return this.#sessions;
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Sends `data` to the client of `session` reliably: now if it is connected, else on its next
   * hello; again after `ackTimeout` without an acknowledgement; kept until acknowledged. A session
   * id the server does not know yet is kept for the client to come (for `sessionTtl`).
   * @param session a session, or its id (what the client says in its hello)
   * @param data what the codec encodes (a JSON value, by default)
   * @returns a promise resolved when the client acknowledged the message, rejected with a
   *   `ResilientSocketError` when it never will be: `ERR_RS_NOT_ACKNOWLEDGED` (`maxAttempts`),
   *   `ERR_RS_DELIVERY_STOPPED` (the session expired or was evicted, or `close()`),
   *   `ERR_RS_BUFFER_OVERFLOW` (`maxPending`, or `maxSessions` all connected), `ERR_RS_CLOSED`
   *   (after `close()`); with a TypeError (`ERR_RS_INVALID_TYPE`) for a bad session or data the
   *   codec cannot encode.
   */
  send(session: string | Session, data: unknown): Promise<void> {
    if (this.#closed) return Promise.reject(closedError());
    const id = typeof session === 'string' ? session : (session as Partial<Session> | null)?.id;
    if (typeof id !== 'string') {
      return Promise.reject(
        typeError(
          'session',
          process.env.NODE_ENV !== 'production'
            ? 'Expected `session` to be a session id (a string) or a Session of this server'
            : '',
        ),
      );
    }
    const s = this.#sessions.get(id) ?? this.#create(id);
    if (s === undefined) return Promise.reject(tooManySessions(this.#o.maxSessions, 'send() to a new session'));
    if (s.pending >= this.#o.maxPending) return Promise.reject(tooManyPending(this.#o.maxPending));
    const next = s.seq_ + 1;
    let frame: string | ArrayBuffer | Uint8Array;
    try {
      frame = this.#o.codec.encode({ rs: 'msg', id: String(next), data });
    } catch (thrown) {
      return Promise.reject(unencodable(thrown));
    }
    if (!isWireData(frame)) {
      return Promise.reject(codecFailed('encode', 'returned neither a string nor binary data', describeType(frame)));
    }
    s.seq_ = next;
    return this.#outbox.add_(s, String(next), frame);
  }

  /**
   * Stops: no longer listens to the server and its connections (it closes neither: they are
   * yours), cancels every timer, and rejects every pending `send()` with `ERR_RS_DELIVERY_STOPPED`.
   * Later `send()` calls reject with `ERR_RS_CLOSED`. Idempotent.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#wss.off('connection', this.#onConnection);
    for (const c of this.#connections) this.#detach(c, false);
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    for (const s of sessions) this.#outbox.forget_(s, stopped('closed', 0));
  }

  // ─── connections ─────────────────────────────────────────────────────────────────────────

  /** Follows a new connection. */
  #attach(socket: S): void {
    if (this.#closed) return;
    const c: Connection<S> = {
      socket,
      session: undefined,
      onMessage: (data, isBinary) => this.#receive(c, data, isBinary),
      onClose: () => this.#detach(c, true),
    };
    this.#connections.add(c);
    socket.on('message', c.onMessage);
    socket.on('close', c.onClose);
  }

  /** Stops following a connection; `gone`: it closed (its session starts counting `sessionTtl`). */
  #detach(c: Connection<S>, gone: boolean): void {
    if (!this.#connections.delete(c)) return;
    c.socket.off('message', c.onMessage);
    c.socket.off('close', c.onClose);
    const s = c.session;
    if (gone && s !== undefined && s.socket_ === c.socket) this.#disconnected(s);
  }

  /** The session lost its connection: in-flight messages wait for the next hello, the expiry starts. */
  #disconnected(s: SessionState<S>): void {
    s.socket_ = undefined;
    s.disconnectedAt_ = this.#o.clock.now();
    // Last in the map's order: the first disconnected session found is the one gone the longest.
    this.#sessions.delete(s.id);
    this.#sessions.set(s.id, s);
    this.#outbox.park_(s);
  }

  /** One incoming message: a frame of the protocol, or one that passes through. */
  #receive(c: Connection<S>, data: unknown, isBinary: boolean): void {
    if (this.#closed) return;
    const raw = isBinary === false ? textOf(data) : data;
    let frame: Frame | undefined;
    try {
      frame = this.#o.codec.decode(raw);
      if (frame !== undefined && !isFrame(frame)) {
        frame = undefined;
        throw new TypeError('not a hello, msg or ack with the fields it needs');
      }
    } catch (thrown) {
      // Not read as a frame: it passes through, and the failure is told.
      this.#report(codecFailed('decode', 'failed', thrown));
    }
    const s = c.session;
    if (frame?.rs === 'hello') this.#hello(c, frame.session);
    else if (frame === undefined || s === undefined) this.#emit('plain', raw, c.socket, s);
    else if (frame.rs === 'ack') this.#outbox.ack_(s, frame.id);
    else this.#incoming(c, s, frame.id, frame.data);
  }

  /** A hello: the connection now carries `id`'s session; what it has pending goes again, in order. */
  #hello(c: Connection<S>, id: string): void {
    const previous = c.session;
    if (previous !== undefined && previous.id !== id && previous.socket_ === c.socket) this.#disconnected(previous);
    const s = this.#sessions.get(id) ?? this.#create(id);
    if (s === undefined) {
      this.#report(tooManySessions(this.#o.maxSessions, 'a client said hello; its connection was closed with 1013'));
      this.#detach(c, false);
      try {
        c.socket.close(1013, 'Too many sessions');
      } catch {
        // already closing
      }
      return;
    }
    c.session = s;
    if (c.socket.readyState !== OPEN) return;
    s.socket_ = c.socket;
    if (!s.greeted_) {
      s.greeted_ = true;
      this.#emit('session', s);
    }
    if (s.socket_ === c.socket && this.#sessions.get(id) === s) this.#outbox.resume_(s);
  }

  /** A reliable message from the client: delivered once, then acknowledged (again, for a duplicate). */
  #incoming(c: Connection<S>, s: SessionState<S>, id: string, data: unknown): void {
    if (!s.seen_.has(id)) {
      this.#emit('message', data, s);
      s.remember_(id, this.#o.window);
    }
    this.#write(c.socket, { rs: 'ack', id });
  }

  /** Writes a frame the server makes (an acknowledgement); a codec failure is reported. */
  #write(socket: S, frame: Frame): void {
    let raw: string | ArrayBuffer | Uint8Array;
    try {
      raw = this.#o.codec.encode(frame);
    } catch (thrown) {
      this.#report(codecFailed('encode', `threw for an ${frame.rs}`, thrown));
      return;
    }
    if (socket.readyState !== OPEN) return;
    try {
      socket.send(raw);
    } catch {
      // closing: the client sends the message again after its next hello, and it is acknowledged then
    }
  }

  // ─── sessions ────────────────────────────────────────────────────────────────────────────

  /**
   * A new session, disconnected until its client says hello; `undefined` when `maxSessions` are
   * kept and every one is connected. Past the bound, the one disconnected the longest is forgotten.
   */
  #create(id: string): SessionState<S> | undefined {
    if (this.#sessions.size >= this.#o.maxSessions) {
      let oldest: SessionState<S> | undefined;
      for (const s of this.#sessions.values()) {
        if (s.socket_ === undefined) {
          oldest = s;
          break;
        }
      }
      if (oldest === undefined) return undefined;
      this.#sessions.delete(oldest.id);
      this.#outbox.forget_(oldest, stopped('evicted', this.#o.maxSessions));
    }
    const s = new SessionState<S>(id, Math.floor(Math.random() * SEQ_RANGE));
    s.disconnectedAt_ = this.#o.clock.now();
    this.#sessions.set(id, s);
    this.#outbox.park_(s);
    return s;
  }

  /** `sessionTtl` ran out for a disconnected session: it is forgotten, its sends reject. */
  #expire(s: SessionState<S>): void {
    if (this.#sessions.get(s.id) !== s) return;
    this.#sessions.delete(s.id);
    this.#outbox.forget_(s, stopped('expired', this.#o.sessionTtl));
  }

  // ─── telling the users ───────────────────────────────────────────────────────────────────

  /** Emits; what a listener throws is reported on `error` (never thrown). */
  #emit<E extends 'message' | 'plain' | 'session'>(event: E, ...args: ReliableServerEvents<S>[E]): void {
    try {
      (this.emit as (event: string, ...args: unknown[]) => boolean)(event, ...args);
    } catch (thrown) {
      this.#report(
        isResilientSocketError(thrown) ? thrown : listenerError(`A \`${event}\` listener of ReliableServer`, thrown),
      );
    }
  }

  /** Reports on `error`; with no `error` listener, or one that throws, as a process warning. */
  #report(error: ResilientSocketError): void {
    if (this.listenerCount('error') === 0) {
      surface(error);
      return;
    }
    try {
      (this.emit as (event: string, ...args: unknown[]) => boolean)('error', error);
    } catch (thrown) {
      surface(listenerError('An `error` listener of ReliableServer', thrown));
    }
  }
}

/** Whether the codec's output can be written: a string, an ArrayBuffer or a Uint8Array (a Buffer). */
function isWireData(value: unknown): value is string | ArrayBuffer | Uint8Array {
  return typeof value === 'string' || value instanceof ArrayBuffer || value instanceof Uint8Array;
}

/** What a codec returned, for the message of a failure. */
function describeType(value: unknown): Error {
  return new TypeError(`it returned ${value === null ? 'null' : typeof value}`);
}

/** A text message as a string (`ws` gives a Buffer, or fragments, or an ArrayBuffer per `binaryType`). */
function textOf(data: unknown): unknown {
  if (typeof data === 'string') return data;
  if (Array.isArray(data)) return Buffer.concat(data as Uint8Array[]).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  return data;
}
