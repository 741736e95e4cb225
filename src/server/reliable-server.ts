/**
 * `ReliableServer`: acknowledged delivery on the server side of a `ws` `WebSocketServer`, the peer
 * of the client's `delivery()` feature (`docs/guide/protocol.md` has the protocol it speaks).
 */
import { EventEmitter } from 'eventemitter3';
import { listenerError } from '../core/report.js';
import { isResilientSocketError, type ResilientSocketError } from '../errors.js';
import { typeError } from '../validation.js';
import { Budget, messageBytes, ownFrame, ownText, sessionBytes, wireBytes } from './budget.js';
import { Cluster } from './cluster.js';
import { Held } from './cluster-held.js';
import { encodeMessage, type Frame, idRule, isFrame, MAX_ID_LENGTH, textOf, writeFrame } from './codec.js';
import { assertSource, type ConnectionSource, type ReliableServerEvents, reportOn } from './events.js';
import {
  clockFailed,
  closedError,
  codecFailed,
  protocolViolation,
  sessionTooLong,
  stopped,
  tooManyBytes,
  tooManyPending,
  tooManySessions,
} from './failures.js';
import {
  type ReliableServerOptions,
  type ResolvedServerOptions,
  resolveServerOptions,
  serverClock,
} from './options.js';
import { Outbox } from './outbox.js';
import { RedisStore } from './redis-store.js';
import { type Delivery, delivered, refused, type ServerSocket, type Session, SessionState } from './session.js';

/** `ws`'s `readyState` of an open connection. */
const OPEN = 1;

/** Where the random start of a session's outgoing ids is drawn from: [0, 2^48), exact as a number. */
const SEQ_RANGE = 2 ** 48;

/** One connection the server listens to. */
interface Connection<S extends ServerSocket> {
  readonly socket: S;
  /** The session the client said hello for on this connection (a `Held` one on Redis). */
  session: SessionState<S> | Held<S> | undefined;
  readonly onMessage: (data: unknown, isBinary: boolean) => void;
  readonly onClose: () => void;
}

/**
 * Acknowledged delivery over a `ws` `WebSocketServer`, per client session (the client's
 * `delivery()` feature, or any client that speaks `docs/guide/protocol.md`):
 * - every reliable message from a client reaches `message` listeners once, however often it is
 *   resent, and is acknowledged once they ran;
 * - `send(session, data)` keeps a message until the client acknowledges it: sent at once if the
 *   client is connected, again after `ackTimeout` without an acknowledgement (once the connection
 *   wrote what it was given before), and again, in order, on the session's next hello;
 * - any other message passes through (`plain`), so an existing protocol keeps working beside it.
 *
 * One session per connection: its first hello names it; a second hello, or an id or session id
 * longer than `MAX_ID_LENGTH` (128), closes the connection with 1008. A hello for a session another
 * connection holds takes it over, and that connection is cut.
 *
 * Memory is bounded whatever clients send (`maxPending`, `window`, `maxSessionBytes` per session,
 * `maxSessions` and `maxBytes` in all); a full server refuses newcomers. With `store: redisStore()`
 * several processes serve the sessions as one (`docs/guide/cluster.md`). Node only.
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
  readonly #connections = new Map<S, Connection<S>>();
  readonly #budget: Budget;
  readonly #outbox: Outbox<S>;
  readonly #onConnection = (socket: ServerSocket): void => this.#attach(socket as S);
  /** The sessions on Redis (`store: redisStore(…)`), else undefined: they are in this process's memory. */
  readonly #cluster: Cluster<S> | undefined;
  #closing: Promise<void> | undefined;
  #closed = false;

  /**
   * Starts listening to `wss`'s `connection` events (not to connections accepted before).
   * @param wss a `ws` `WebSocketServer` (or any {@link ConnectionSource})
   * @param options see {@link ReliableServerOptions}
   * @throws TypeError / RangeError (with a `code`) naming a bad option or server
   */
  constructor(wss: ConnectionSource<S>, options?: ReliableServerOptions) {
    super();
    assertSource(wss);
    const o = resolveServerOptions(options);
    this.#o = { ...o, clock: serverClock(o.clock, (value) => this.#report(clockFailed(value))) };
    this.#wss = wss;
    this.#budget = new Budget(o.maxBytes, o.maxSessionBytes);
    this.#outbox = new Outbox(this.#o, this.#budget, (session) => this.#expire(session));
    this.#cluster =
      o.store instanceof RedisStore
        ? new Cluster(o.store, {
            options: this.#o,
            budget: this.#budget,
            emit: (event: 'message' | 'session', ...args: unknown[]) =>
              (this.#emit as (event: string, ...args: unknown[]) => void)(event, ...args),
            report: (error) => this.#report(error),
            write: (socket, frame) => this.#write(socket, frame),
            cut: (socket) => {
              const c = this.#connections.get(socket);
              if (c === undefined) return;
              c.session = undefined; // no longer this connection's: no release on its end
              this.#end(c);
            },
          })
        : undefined;
    wss.on('connection', this.#onConnection);
  }

  /**
   * Resolves once the server is ready: at once with the sessions in memory; on Redis, once this
   * process hears its channel and Redis knows its scripts. Never rejects: what fails meanwhile
   * goes to `error`, and frames and `send()` calls wait for it.
   */
  get ready(): Promise<void> {
    return this.#cluster?.ready ?? Promise.resolve();
  }

  /**
   * The sessions the server keeps, by id (read-only: they change as clients come and go); on
   * Redis, the sessions this process holds a connection for.
   */
  get sessions(): ReadonlyMap<string, Session<S>> {
    return this.#cluster?.held ?? this.#sessions;
  }

  /**
   * The bytes the sessions keep, as counted against `maxBytes`: every session's fixed cost and id,
   * window and outbox (`docs/guide/protocol.md` says how they are counted).
   */
  get bytes(): number {
    return this.#budget.total;
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
   * @returns a promise resolved when the client acknowledged the message (its `stored` once it is
   *   kept), rejected with a `ResilientSocketError` when it never will be: `ERR_RS_NOT_ACKNOWLEDGED`
   *   (`maxAttempts`), `ERR_RS_DELIVERY_STOPPED` (expiry, `close()`), `ERR_RS_BUFFER_OVERFLOW`
   *   (`maxPending`, `maxSessionBytes`, `maxBytes`, no room for a new session), `ERR_RS_CLOSED`,
   *   `ERR_RS_STORE_FAILED` (Redis); a TypeError for a bad session or data the codec cannot encode,
   *   a RangeError for a session id longer than the protocol allows.
   */
  send(session: string | Session, data: unknown): Delivery {
    if (this.#closed) return refused(closedError());
    const id = typeof session === 'string' ? session : (session as Partial<Session> | null)?.id;
    if (typeof id !== 'string') {
      return refused(
        typeError(
          'session',
          process.env.NODE_ENV !== 'production'
            ? 'Expected `session` to be a session id (a string) or a Session of this server'
            : '',
        ),
      );
    }
    if (id.length > MAX_ID_LENGTH) return refused(sessionTooLong(id.length, MAX_ID_LENGTH));
    if (this.#cluster !== undefined) {
      const next = this.#cluster.sends.nextId();
      const frame = encodeMessage(this.#o.codec, next, data);
      return frame instanceof Error ? refused(frame) : this.#cluster.sends.send(id, next, ownFrame(frame));
    }
    const s = this.#sessions.get(id) ?? this.#create(id, 'send() to a new session');
    if (!(s instanceof SessionState)) return refused(s);
    if (s.pending >= this.#o.maxPending) return refused(tooManyPending(this.#o.maxPending));
    const next = String(s.seq_ + 1);
    const encoded = encodeMessage(this.#o.codec, next, data);
    if (encoded instanceof Error) return refused(encoded);
    const frame = ownFrame(encoded);
    const bytes = messageBytes(next, frame);
    const over = this.#budget.refuses_(s, bytes, s.socket_?.bufferedAmount ?? 0);
    if (over !== undefined) {
      const bound = over === 'maxBytes' ? this.#o.maxBytes : this.#o.maxSessionBytes;
      return refused(tooManyBytes(over, bound, 'the message was not queued'));
    }
    s.seq_ += 1;
    return delivered(this.#outbox.add_(s, next, frame, bytes));
  }

  /**
   * Stops: no longer listens to the server and its connections (it closes neither: they are
   * yours), cancels every timer, and rejects every pending `send()` with `ERR_RS_DELIVERY_STOPPED`.
   * Later `send()` calls reject with `ERR_RS_CLOSED`. Idempotent. Resolves at once in memory; on
   * Redis once this process let go of its sessions there (await it before closing the client).
   */
  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#wss.off('connection', this.#onConnection);
      for (const c of [...this.#connections.values()]) this.#detach(c, false);
      for (const s of [...this.#sessions.values()]) this.#forget(s, stopped('closed', 0));
      this.#closing = this.#cluster?.close();
    }
    return this.#closing ?? Promise.resolve();
  }

  // ─── connections ─────────────────────────────────────────────────────────────────────────

  /** Follows a new connection. */
  #attach(socket: S): void {
    if (this.#closed || this.#connections.has(socket)) return;
    const c: Connection<S> = {
      socket,
      session: undefined,
      onMessage: (data, isBinary) => this.#receive(c, data, isBinary),
      onClose: () => this.#detach(c, true),
    };
    this.#connections.set(socket, c);
    socket.on('message', c.onMessage);
    socket.on('close', c.onClose);
  }

  /** Stops following a connection; `gone`: it ended (its session starts counting `sessionTtl`). */
  #detach(c: Connection<S>, gone: boolean): void {
    if (this.#connections.get(c.socket) !== c) return;
    this.#connections.delete(c.socket);
    c.socket.off('message', c.onMessage);
    c.socket.off('close', c.onClose);
    const s = c.session;
    if (s instanceof Held) {
      if (gone) this.#cluster?.disconnected(c.socket, s);
    } else if (gone && s !== undefined && s.socket_ === c.socket) this.#disconnected(s);
  }

  /**
   * Lets a connection go and ends it: with a close frame (`code`, `reason`), or, with no code, cut
   * at once (`terminate()`, which frees what it had not written yet; a 1000 close without it).
   */
  #end(c: Connection<S>, code?: number, reason?: string): void {
    this.#detach(c, true);
    try {
      if (code === undefined && typeof c.socket.terminate === 'function') c.socket.terminate();
      else c.socket.close(code ?? 1000, reason ?? 'Session taken over');
    } catch {
      // already closing
    }
  }

  /** The client broke a rule of the protocol: told on `error`, its connection closed with 1008. */
  #violation(c: Connection<S>, rule: string, reason: string): void {
    this.#end(c, 1008, reason);
    this.#report(protocolViolation(rule));
  }

  /** The session lost its connection: in-flight messages wait for the next hello, the expiry starts. */
  #disconnected(s: SessionState<S>): void {
    s.socket_ = undefined;
    s.disconnectedAt_ = this.#o.clock.now();
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
    if (frame !== undefined && (frame.rs === 'hello' || s !== undefined)) {
      // Read as a frame: it keeps to the protocol's rules, or the connection ends.
      if (frame.rs === 'hello' && s !== undefined) {
        this.#violation(c, 'a second hello on one connection', 'One hello per connection');
        return;
      }
      const broken = idRule(frame);
      if (broken !== undefined) {
        this.#violation(c, broken.rule, broken.reason);
        return;
      }
    }
    const cluster = this.#cluster;
    if (frame?.rs === 'hello') this.#hello(c, frame.session);
    else if (frame === undefined || s === undefined) this.#emit('plain', raw, c.socket, s);
    else if (s instanceof Held) {
      if (frame.rs === 'ack') cluster?.ack(s, frame.id);
      else cluster?.incoming(c.socket, s, frame.id, frame.data, wireBytes(raw));
    } else if (frame.rs === 'ack') this.#outbox.ack_(s, frame.id);
    else this.#incoming(c, s, frame.id, frame.data);
  }

  /**
   * The connection's hello: it now carries `id`'s session, taken from the connection that held it
   * (cut), and what the session has pending goes on it once, in order.
   */
  #hello(c: Connection<S>, id: string): void {
    if (this.#cluster !== undefined) {
      const held = this.#cluster.hello(c.socket, id);
      if (held instanceof Held) c.session = held;
      else {
        this.#end(c, 1013, 'Server full');
        this.#report(held);
      }
      return;
    }
    const s = this.#sessions.get(id) ?? this.#create(id, 'a client said hello; its connection was closed with 1013');
    if (!(s instanceof SessionState)) {
      this.#end(c, 1013, 'Server full');
      this.#report(s);
      return;
    }
    c.session = s;
    if (c.socket.readyState !== OPEN) return;
    const holder = s.socket_ === undefined ? undefined : this.#connections.get(s.socket_);
    if (holder !== undefined && holder !== c) {
      // The client came back before its old connection was seen to end (or another took the id):
      // the old one is let go and cut, with what it had not written yet.
      holder.session = undefined;
      this.#end(holder);
    }
    s.socket_ = c.socket;
    if (!s.greeted_) {
      s.greeted_ = true;
      this.#emit('session', s);
    }
    if (s.socket_ === c.socket && this.#sessions.get(s.id) === s) this.#outbox.resume_(s);
  }

  /** A reliable message from the client: delivered once, then acknowledged (again, for a duplicate). */
  #incoming(c: Connection<S>, s: SessionState<S>, id: string, data: unknown): void {
    if (!s.seen_.has(id)) {
      this.#emit('message', data, s);
      // Still the session's (a listener may have closed the server): kept in a copy of its own.
      if (this.#sessions.get(s.id) === s) s.remember_(ownText(id), this.#o.window, this.#budget);
    }
    this.#write(c.socket, { rs: 'ack', id });
  }

  /** Writes a frame the server makes (an acknowledgement): see `writeFrame`. */
  #write(socket: S, frame: Frame): void {
    const failure = writeFrame(socket, frame, this.#o.codec, this.#o.maxSessionBytes);
    if (failure !== undefined) this.#report(failure);
  }

  // ─── sessions ────────────────────────────────────────────────────────────────────────────

  /**
   * A new session, disconnected until its client says hello; the error that tells why not when
   * `maxSessions` are kept or its fixed cost would pass `maxBytes` (`what`: who asked). No session
   * is ever forgotten to make room: each stays until its `sessionTtl` ran out.
   */
  #create(id: string, what: string): SessionState<S> | ResilientSocketError {
    if (this.#sessions.size >= this.#o.maxSessions) return tooManySessions(this.#o.maxSessions, what);
    if (this.#budget.refuses_(undefined, sessionBytes(id)) !== undefined) {
      return tooManyBytes('maxBytes', this.#o.maxBytes, `no room for a new session (${what})`);
    }
    // Its own copy of the id: one sliced from a large message would keep the whole message.
    const s = new SessionState<S>(ownText(id), Math.floor(Math.random() * SEQ_RANGE));
    s.disconnectedAt_ = this.#o.clock.now();
    this.#sessions.set(s.id, s);
    this.#budget.open_(s);
    this.#outbox.park_(s);
    return s;
  }

  /** `sessionTtl` ran out for a disconnected session: it is forgotten, its sends reject. */
  #expire(s: SessionState<S>): void {
    if (this.#sessions.get(s.id) === s) this.#forget(s, stopped('expired', this.#o.sessionTtl));
  }

  /** Forgets a session: out of the table and the budget, its pending sends rejected with `error`. */
  #forget(s: SessionState<S>, error: Error): void {
    this.#sessions.delete(s.id);
    this.#outbox.forget_(s, error);
    this.#budget.close_(s);
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
    reportOn(this as unknown as EventEmitter, error);
  }
}
