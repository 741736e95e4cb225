/**
 * `ReliableServer`'s protocol on Redis (`redisStore()`): what one process does so that every
 * process on the same Redis and prefix serves every session.
 *
 * - **Hello.** The process that gets a client's hello holds the session (`HELLO`: the meta's
 *   `h`), takes the outbox from Redis and writes it once, in order; the process that held it
 *   before is told (`moved`) and cuts its old connection. Frames behind the hello wait for it.
 * - **In.** A client's message is handled once in the cluster: its id is looked up in the window
 *   in Redis (issued as it arrives, so lookups overlap), handled in arrival order, then recorded
 *   (`MARK`) once what its listeners sent is stored, and acknowledged once recorded, never before. The ids this process handled are
 *   remembered while it holds the session, so that a copy arriving before the record lands is not
 *   handled twice, and an id whose record failed is recorded again before its copy is
 *   acknowledged. The exception: a process that dies (or cannot reach Redis again) between a
 *   handler and its record leaves the id unrecorded, and the client's copy is handled again.
 * - **Out.** `send()` stores the message first (`SEND`, with its sender), then the holder writes
 *   it: this process at once, another through its channel. The holder resends it after
 *   `ackTimeout` while the connection has written what it was given; a hello elsewhere sends it
 *   from Redis. The client's `ack` takes it out (`SETTLE`) and its sender's promise resolves.
 * - **Time.** The holder refreshes its sessions' TTL (`HOLD`), so a session's keys are gone
 *   `sessionTtl` after it was last held, whoever held it, a killed process too. The sender polls
 *   what it waits for every `ackTimeout` (`POLL`): a session that expired rejects its promises, and
 *   an outcome it could not hear (its subscription was down) is found there.
 * - **Missed.** While this process's subscription is down (`./cluster-channel.ts`), it may miss a
 *   message for a session it holds: the session is stale, and its outbox is read again from Redis
 *   (`HOLD` with the outbox) once the channel is live, or at the next refresh, and written in order.
 * - **Memory.** What this process keeps counts against `maxBytes` and `maxSessionBytes` as in
 *   memory (`./budget.ts`): each held session, the client's frames waiting their turn (one that
 *   would pass a budget is dropped unacknowledged, and the client sends it again), the ids it
 *   handled, and a small record per message of the outbox (its frame stays in Redis).
 */
import type { TimerHandle } from '../clock.js';
import type { ResilientSocketError } from '../errors.js';
import { type Budget, idBytes, messageBytes } from './budget.js';
import { Channel, type Notice } from './cluster-channel.js';
import { charge, Held } from './cluster-held.js';
import { Link } from './cluster-link.js';
import { HeldOutbox, OUTBOX_SCRIPTS } from './cluster-outbox.js';
import { ACKNOWLEDGED, GAVE_UP, SENDS_SCRIPTS, Sends } from './cluster-sends.js';
import type { Frame } from './codec.js';
import { storeFailed, tooManyBytes, tooManySessions } from './failures.js';
import type { ResolvedServerOptions } from './options.js';
import * as lua from './redis-scripts.js';
import { type RedisStore, script } from './redis-store.js';
import type { ServerSocket, Session } from './session.js';

const HELLO = /* @__PURE__ */ script(lua.HELLO);
const MARK = /* @__PURE__ */ script(lua.MARK);
const HOLD = /* @__PURE__ */ script(lua.HOLD);
const RELEASE = /* @__PURE__ */ script(lua.RELEASE);
const SCRIPTS = [HELLO, MARK, HOLD, RELEASE, ...SENDS_SCRIPTS, ...OUTBOX_SCRIPTS];

/** What the cluster asks of the `ReliableServer` it serves. */
export interface ClusterHost<S extends ServerSocket> {
  readonly options: ResolvedServerOptions;
  /** The server's budget: on Redis, what this process keeps. */
  readonly budget: Budget;
  emit(event: 'message', data: unknown, session: Session<S>): void;
  emit(event: 'session', session: Session<S>): void;
  report(error: ResilientSocketError): void;
  /** Writes a frame the server makes (an acknowledgement) on `socket`. */
  write(socket: S, frame: Frame): void;
  /** Lets the connection of `socket` go and cuts it (its session is another's now, or lost). */
  cut(socket: S): void;
}

const noop = (): void => undefined;

export class Cluster<S extends ServerSocket> {
  readonly #host: ClusterHost<S>;
  readonly #o: ResolvedServerOptions;
  readonly #budget: Budget;
  readonly #link: Link;
  readonly #channel: Channel;
  readonly #outbox: HeldOutbox<S>;
  /** The sessions this process holds. */
  readonly held = new Map<string, Held<S>>();
  /** This process's `send()`s. */
  readonly sends: Sends;
  /** Resolves once this process hears its channel and Redis knows the scripts (never rejects: failures go to `error`). */
  readonly ready: Promise<void>;
  #refresh: TimerHandle | undefined;

  constructor(store: RedisStore, host: ClusterHost<S>) {
    this.#host = host;
    this.#o = host.options;
    this.#budget = host.budget;
    const link = new Link(store, host.options, (error) => host.report(error));
    this.#link = link;
    this.#channel = new Channel(store, `${store.channels}${link.me}`, {
      heard: (notice) => this.#heard(notice),
      failed: (error) => {
        for (const held of this.held.values()) held.stale_ = true;
        host.report(storeFailed('the subscription', error));
      },
      back: () => {
        void store.load(SCRIPTS); // a Redis that restarted has forgotten them
        for (const held of this.held.values()) if (held.stale_) this.#hold(held);
      },
      arm: (callback, ms) => link.arm(callback, ms),
    });
    this.ready = Promise.all([this.#channel.ready, store.load(SCRIPTS)]).then(noop);
    void this.ready.then(() => this.#armRefresh());
    this.sends = new Sends(link, this.ready, (session, id, stored) => this.#told(session, id, stored));
    this.#outbox = new HeldOutbox(link, host.budget, (session, id, state) => this.sends.outcome(session, id, state));
  }

  // ─── the session of a connection ─────────────────────────────────────────────────────────

  /** A hello on `socket` for session `id`: held here from now on (an error when this process is full). */
  hello(socket: S, id: string): Held<S> | ResilientSocketError {
    let held = this.held.get(id);
    if (held === undefined) {
      const what = 'a client said hello; its connection was closed with 1013';
      if (this.held.size >= this.#o.maxSessions) return tooManySessions(this.#o.maxSessions, what);
      held = new Held(id, this.#link.store.keys(id), socket, !this.#channel.live);
      if (this.#budget.refuses_(undefined, held.fixed_) !== undefined) {
        return tooManyBytes('maxBytes', this.#o.maxBytes, what);
      }
      this.#budget.open_(held);
      this.held.set(id, held);
    } else {
      // Another connection of this process held it: let go of it, and of what was written there.
      if (held.socket_ !== undefined && held.socket_ !== socket) this.#host.cut(held.socket_);
      held.socket_ = socket;
      for (const message of [...held.out_.keys()]) this.#outbox.forget(held, message);
    }
    const h = held;
    const reply = this.ready.then(() => this.#link.run(HELLO, h.keys, [this.#link.me, id]));
    h.queue_ = h.synced_ = reply.then(
      (value) => {
        if (h.socket_ !== socket) return;
        const [first, out] = value as [number, string[]];
        this.#outbox.offerAll(h, out);
        if (first === 1) this.#host.emit('session', h);
      },
      (error: unknown) => {
        // Without its session the connection is no use: the client comes back and says hello again.
        this.#link.trouble('a hello', error);
        if (h.socket_ === socket) this.#letGo(h);
      },
    );
    return h;
  }

  /**
   * A message from the client of `held` on `socket` (its frame counting `size` bytes): handled
   * once in the cluster, then acknowledged.
   */
  incoming(socket: S, held: Held<S>, id: string, data: unknown, size: number): void {
    const bytes = messageBytes(id, '') + size;
    if (this.#budget.refuses_(held, bytes) !== undefined) return; // not acknowledged: the client sends it again
    charge(this.#budget, held, bytes);
    // Looked up now, so that lookups overlap; handled in arrival order.
    const looked = held.handled_.has(id) ? undefined : this.#link.command(['ZSCORE', held.keys[1], id]);
    looked?.catch(noop);
    held.queue_ = held.queue_.then(async () => {
      charge(this.#budget, held, -bytes);
      if (held.socket_ !== socket) return; // taken over: the client sends it again where it is
      let recorded = held.handled_.get(id);
      if (recorded === undefined) {
        let seen: boolean;
        try {
          seen = (await looked) != null;
        } catch (error) {
          this.#link.trouble('a lookup in the window', error);
          return; // not acknowledged: the client sends it again
        }
        recorded = held.handled_.get(id);
        if (recorded === undefined && !seen) {
          // What the listeners send is stored before the message is recorded: a process that dies
          // between the two handles it again, rather than leave it handled with its replies lost.
          const sent: Promise<void>[] = [];
          this.sends.during = sent;
          try {
            this.#host.emit('message', data, held);
          } finally {
            this.sends.during = undefined;
          }
          recorded = this.#mark(held, id, sent.length > 0 ? Promise.all(sent) : undefined);
        }
      }
      void this.#acknowledge(socket, held, id, recorded);
    });
  }

  /** The client acknowledged message `id`: out of the outbox, and its sender told. */
  ack(held: Held<S>, id: string): void {
    this.#outbox.ack(held, id);
  }

  /** The connection of `held` ended: the session waits in Redis for its next hello, for `sessionTtl`. */
  disconnected(socket: S, held: Held<S>): void {
    if (held.socket_ !== socket) return;
    this.#drop(held);
    this.#link
      .run(RELEASE, held.keys, [this.#link.me])
      .catch((error: unknown) => this.#link.trouble('a release', error));
  }

  /**
   * Stops: no subscription, no timer; what this process waits for rejects (the messages stay
   * stored). Resolves once Redis heard that this process holds none of its sessions any more.
   */
  close(): Promise<void> {
    this.#link.closed = true;
    this.#channel.close();
    this.#link.disarm(this.#refresh);
    const released = [...this.held.values()].map((held) => {
      this.#drop(held);
      return this.#link.run(RELEASE, held.keys, [this.#link.me]).catch(noop);
    });
    this.sends.close();
    return Promise.all(released).then(noop);
  }

  // ─── the client's messages ───────────────────────────────────────────────────────────────

  /**
   * Records that the client's message `id` was handled, once `after` settled (resolves false when
   * Redis failed).
   */
  #mark(held: Held<S>, id: string, after?: Promise<unknown>): Promise<boolean> {
    const args = [this.#link.me, id, String(this.#o.window)];
    const run = () => this.#link.run(MARK, held.keys, args);
    const recorded = (after === undefined ? run() : after.then(run)).then(
      () => true,
      (error: unknown) => {
        this.#link.trouble('recording a message', error);
        return false;
      },
    );
    if (!held.handled_.has(id)) charge(this.#budget, held, idBytes(id));
    held.handled_.set(id, recorded);
    if (held.handled_.size > this.#o.window) {
      const oldest = held.handled_.keys().next().value as string;
      held.handled_.delete(oldest);
      charge(this.#budget, held, -idBytes(oldest));
    }
    return recorded;
  }

  /** Acknowledges `id` once its record landed (recording it again if it had failed). */
  async #acknowledge(socket: S, held: Held<S>, id: string, recorded: Promise<boolean> | undefined): Promise<void> {
    if (recorded !== undefined && !(await recorded)) {
      if (held.handled_.get(id) === recorded && held.socket_ === socket) {
        if (!(await this.#mark(held, id))) return; // still not recorded: the client sends it again
      } else return;
    }
    if (held.socket_ === socket) this.#host.write(socket, { rs: 'ack', id });
  }

  // ─── what this process is told ───────────────────────────────────────────────────────────

  #heard(notice: Notice): void {
    if (notice.t === 'msg') this.#told(notice.s, notice.id, notice.f);
    else if (notice.t === 'moved') {
      // Another process holds the session now: this connection of it is stale.
      const held = this.held.get(notice.s);
      if (held?.socket_ !== undefined) this.#letGo(held);
    } else this.sends.outcome(notice.s, notice.id, notice.t === 'ack' ? ACKNOWLEDGED : GAVE_UP);
  }

  /** A message stored for `session` (told by the channel, or sent by this process). */
  #told(session: string, id: string, stored: string): void {
    const held = this.held.get(session);
    if (held !== undefined) this.#outbox.told(held, id, stored);
  }

  // ─── time ────────────────────────────────────────────────────────────────────────────────

  /** Every quarter of `sessionTtl` (at most a minute), the held sessions again, with their TTL. */
  #armRefresh(): void {
    if (this.#link.closed) return;
    const ttl = this.#o.sessionTtl;
    const every = Math.max(250, Math.min(60_000, ttl === Number.POSITIVE_INFINITY ? 60_000 : ttl / 4));
    this.#refresh = this.#link.arm(() => {
      this.#channel.check();
      for (const held of [...this.held.values()]) this.#hold(held);
      this.#armRefresh();
    }, every);
  }

  /**
   * `HOLD`: the session's TTL again; for a stale session while the channel is live, its outbox is
   * read again and written in order (messages told meanwhile wait for it).
   */
  #hold(held: Held<S>): void {
    const sync = held.stale_ && this.#channel.live;
    if (sync) held.stale_ = false;
    const done = this.#link.run(HOLD, held.keys, [this.#link.me, sync ? '1' : '0']).then(
      (reply) => {
        if (!held.holding_ || held.socket_ === undefined) return;
        // Another process took the session and this one did not hear of it: let go.
        if (reply === 0) this.#letGo(held);
        else if (sync) this.#outbox.offerAll(held, (reply as [number, string[]])[1]);
      },
      (error: unknown) => {
        if (sync) held.stale_ = true;
        this.#link.trouble('a refresh', error);
      },
    );
    if (sync) held.synced_ = held.synced_.then(() => done);
  }

  /** This process lets go of `held` and cuts its connection (another holds it, or it is lost). */
  #letGo(held: Held<S>): void {
    const socket = held.socket_;
    this.#drop(held);
    if (socket !== undefined) this.#host.cut(socket);
  }

  /** This process no longer holds `held`: its timer stops, what it kept goes. */
  #drop(held: Held<S>): void {
    held.socket_ = undefined;
    this.#link.disarm(held.timer_);
    held.timer_ = undefined;
    held.out_.clear();
    held.handled_.clear();
    if (this.held.get(held.id) === held) this.held.delete(held.id);
    if (held.holding_) {
      held.holding_ = false;
      this.#budget.close_(held);
    }
  }
}
