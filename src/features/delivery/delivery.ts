/**
 * `delivery()`: acknowledged delivery, `socket.sendReliable(data)`, over the protocol of
 * `docs/protocol.md` (three frames, see `./codec.ts`). At least once on the wire, once to the app:
 *
 * - out: every reliable message waits in the outbox (and the store) until the peer acknowledges it;
 *   on every connection the hello goes first (the feature's `gate`, before the core flushes plain
 *   queued messages), then every unacknowledged message in the order it was first sent (the `open`
 *   hook), then newer ones as they are sent; one unacknowledged `ackTimeout` after its last send on
 *   an open connection is sent again; after `maxAttempts` sends without an acknowledgement it is
 *   given up when the next would be due (`ackTimeout` later, or the next connection);
 * - in: a `msg` frame reaches the `deliver` hooks and `message` listeners as its `data`, then its
 *   id joins the window of recent ids (the store keeps it), then it is acknowledged; an id in the
 *   window is acknowledged again and not delivered again. A `msg` that arrives while a later gate
 *   (a handshake) still holds the connection waits until the connection is open.
 *
 * Per socket it keeps one object in its data slot (the outbox in first-sent order, the session id,
 * the sequence, the window, its counters) and one timer slot: while the store loads, the load's
 * deadline (the socket's `connectTimeout`); afterwards, the earliest acknowledgement deadline. The
 * outbox is an array: acknowledgements come in order, so the one acknowledged is found first.
 *
 * Why it ranks 15: before the handshake (20), so that the hello is the first frame of every
 * connection and the handshake never takes a protocol frame for its own; protocol frames it
 * consumes are shown to the heartbeat (30) first, which counts them as signs of life.
 */
import type { Connection } from '../../core/connection.js';
import type { DropReason } from '../../core/events.js';
import {
  clearTimer,
  type Feature,
  findFeature,
  getData,
  type Host,
  hasTimer,
  setData,
  setTimer,
} from '../../core/feature.js';
import type { Data } from '../../data.js';
import { type ErrorCode, ResilientSocketError } from '../../errors.js';
import type { WebSocketLike } from '../../transports/websocket-like.js';
import { describeThrown, typeError } from '../../validation.js';
import { intern } from '../intern.js';
import type { Frame } from './codec.js';
import { type DeliveryOptions, resolveDelivery } from './options.js';
import { type Entry, type Msg, newSession, newState, noop, restore, type State } from './state.js';

/** The timer slot: the store's load deadline, then the earliest acknowledgement deadline. */
const DUE = 0;

/**
 * The `delivery` feature: `socket.sendReliable(data)`, resolved once the peer acknowledged it,
 * and incoming reliable messages delivered once each (see {@link DeliveryOptions} and
 * `docs/protocol.md`). `ResilientSocket`'s `delivery` option.
 * @throws TypeError / RangeError naming the option (`delivery.ackTimeout`, …).
 * @example
 * ```ts
 * const socket = new BaseSocket(url, { features: [delivery({ ackTimeout: 5_000 })] });
 * await socket.sendReliable({ type: 'order', id: 42 }); // the server has it
 * ```
 */
export function delivery(options?: DeliveryOptions): Feature {
  const config = resolveDelivery(options);
  const { ackTimeout, maxAttempts, window, maxPending, store, codec } = config;
  const stateOf = (m: Host, me: number): State => getData(m, me) as State;
  const error = (code: ErrorCode, text: string, cause?: unknown): ResilientSocketError =>
    new ResilientSocketError(code, text, { cause });

  /** A user codec's failure: reported (`ERR_RS_CALLBACK_FAILED`), never thrown into the socket. */
  const codecFailed = (m: Host, what: string, thrown: unknown): void =>
    m.reportUserError_(
      error(
        'ERR_RS_CALLBACK_FAILED',
        process.env.NODE_ENV !== 'production' ? `\`delivery.codec.${what}\` threw: ${describeThrown(thrown)}` : '',
        thrown,
      ),
    );

  /** Sends `frame` (or its encoding `raw`) on `ws` if it is open (a socket that refuses it is going down: its close tells). */
  const write = (m: Host, ws: WebSocketLike | undefined, frame: Frame, raw?: unknown): void => {
    let encoded = raw !== undefined;
    try {
      raw ??= codec.encode(frame);
      encoded = true;
      if (ws?.readyState === 1) {
        ws.send(raw as never);
        m.messagesOut_++;
      }
    } catch (thrown) {
      if (!encoded) codecFailed(m, 'encode', thrown);
    }
  };

  /** A store call (a delete without `value`), not waited for; a failure lets the store go (reported once, not after close()). */
  const save = (m: Host, st: State, key: string, value?: unknown): void => {
    const kept = st.store_;
    if (kept) {
      new Promise<void>((resolve) => resolve(value === undefined ? kept.delete(key) : kept.put(key, value))).then(
        undefined,
        (thrown: unknown) => failed(m, st, thrown),
      );
    }
  };

  const failed = (m: Host, st: State, thrown: unknown): void => {
    if (!st.store_ || m.disposed_) return;
    st.store_ = undefined;
    m.report_(
      error(
        'ERR_RS_STORE_FAILED',
        process.env.NODE_ENV !== 'production'
          ? `The delivery store failed (${describeThrown(thrown)}); delivery goes on in memory`
          : '',
        thrown,
      ),
    );
  };

  /** Gives `entry` its id and puts it in the store. */
  const number = (m: Host, st: State, entry: Entry): void => {
    entry.id_ = String(++st.seq_);
    save(m, st, `out:${entry.id_}`, { data: entry.data_ });
    save(m, st, 'seq', st.seq_);
  };

  /** Sends `entry` on the open connection. */
  const send = (m: Host, st: State, entry: Entry, raw?: unknown): void => {
    write(m, st.live_?.socket, { rs: 'msg', id: entry.id_, data: entry.data_ }, raw);
    if (entry.sends_++) st.resent_++;
    entry.at_ = m.config_.clock.now();
  };

  /** Takes `lost` out of the outbox and the store, rejects their promises and reports them dropped. */
  const forget = (m: Host, st: State, lost: Entry[], failure: ResilientSocketError, reason: DropReason): void => {
    st.out_ = st.out_.filter((entry) => !lost.includes(entry));
    for (const entry of lost) {
      if (entry.id_) save(m, st, `out:${entry.id_}`);
      entry.no_(failure);
    }
    m.drop_(
      reason,
      lost.map((entry) => entry.data_ as Data),
    );
  };

  /** Gives up the messages sent `maxAttempts` times whose next send is due (at `now`; any, at a new connection). */
  const exhaust = (m: Host, st: State, now = Number.POSITIVE_INFINITY): void =>
    forget(
      m,
      st,
      st.out_.filter((entry) => entry.sends_ >= maxAttempts && entry.at_ + ackTimeout <= now),
      error(
        'ERR_RS_NOT_ACKNOWLEDGED',
        process.env.NODE_ENV !== 'production'
          ? `No acknowledgement after ${maxAttempts} sends (\`delivery.maxAttempts\`)`
          : '',
      ),
      'unacknowledged',
    );

  /**
   * `close()` or a give-up: a persistent store keeps what it holds for the next session (the
   * promises reject with `ERR_RS_DELIVERY_DEFERRED`; after a give-up the messages also stay here,
   * sent again if `open()` starts the socket again); otherwise every message is given up
   * (`ERR_RS_DELIVERY_STOPPED`, a `drop` with reason `'closed'`). A message sent while the store
   * loaded is not in it: it is given up too.
   */
  const stop = (m: Host, st: State): void => {
    const over = m.disposed_;
    const kept = (entry: Entry): unknown => st.store_?.persistent && entry.id_;
    const deferred = error(
      'ERR_RS_DELIVERY_DEFERRED',
      process.env.NODE_ENV !== 'production'
        ? `The socket ${over ? 'was closed' : 'gave up'} before the acknowledgement; the message stays in the persistent store and is sent by ${over ? 'the next socket on it' : 'open() or the next socket on it'}`
        : '',
    );
    for (const entry of st.out_) {
      if (kept(entry)) {
        entry.no_(deferred);
        entry.ok_ = entry.no_ = noop;
      }
    }
    forget(
      m,
      st,
      st.out_.filter((entry) => !kept(entry)),
      error(
        'ERR_RS_DELIVERY_STOPPED',
        process.env.NODE_ENV !== 'production'
          ? `The socket ${over ? 'was closed' : 'gave up'} before the acknowledgement, and the store keeps nothing across sessions`
          : '',
      ),
      'closed',
    );
    if (over) st.out_ = [];
  };

  /** The store loaded (or failed, or outlasted its deadline): the session, and ids for what was sent meanwhile. */
  const ready = (m: Host, me: number, st: State): void => {
    const done = st.ready_;
    if (!done) return;
    st.wait_ = st.ready_ = undefined;
    clearTimer(m, me, DUE);
    done();
    if (m.disposed_) return; // close() settled what was sent meanwhile
    if (!st.session_) {
      st.session_ = newSession();
      save(m, st, 'session', st.session_);
    }
    for (const entry of st.out_) if (!entry.id_) number(m, st, entry);
  };

  /** An incoming `msg`: delivered once, remembered, then acknowledged on its connection. */
  const receive = (m: Host, st: State, attempt: Connection, frame: Msg): void => {
    const seen = st.seen_;
    if (seen.has(frame.id)) st.duplicates_++;
    else {
      m.deliver_(frame.data as Data);
      seen.add(frame.id);
      if (seen.size > window) seen.delete(seen.values().next().value as string);
      save(m, st, 'seen', [...seen]);
    }
    if (m.attempt_ === attempt) write(m, attempt.socket, { rs: 'ack', id: frame.id });
  };

  const feature: Feature & {
    readonly options_: object;
    sendReliable(m: Host, me: number, data: unknown): Promise<void>;
    counts_(m: Host, me: number): { pending: number; acked: number; resent: number; duplicates: number };
  } = {
    name: 'delivery',
    rank: 15,
    slots: 1,
    options_: config,
    init(m, me) {
      const st = newState(store);
      setData(m, me, st);
      if (!store) return;
      st.wait_ = new Promise((resolve) => {
        st.ready_ = resolve;
      });
      setTimer(m, me, DUE, m.config_.connectTimeout);
      new Promise<Iterable<[string, unknown]>>((resolve) => resolve(store.load()))
        .then((entries) => {
          // Unless it outlasted its deadline (then the store was let go).
          if (st.ready_ && st.store_ && !m.disposed_) restore(st, entries, window);
        })
        .then(undefined, (thrown: unknown) => failed(m, st, thrown))
        .then(() => ready(m, me, st));
    },
    gate(m, me, attempt) {
      const st = stateOf(m, me);
      st.inbox_ = [];
      const hello = (): void => {
        if (m.attempt_ === attempt) write(m, attempt.socket, { rs: 'hello', session: st.session_ });
      };
      if (st.wait_) return st.wait_.then(hello);
      hello();
      return undefined;
    },
    open(m, me, attempt) {
      const st = stateOf(m, me);
      // Sent for the last time on a connection that ended: its acknowledgement can no longer come.
      exhaust(m, st);
      if (m.attempt_ !== attempt) return; // a drop listener ended the connection
      st.live_ = attempt;
      for (const entry of st.out_) send(m, st, entry);
      if (st.out_.length) setTimer(m, me, DUE, ackTimeout);
      const inbox = st.inbox_;
      // After `open` is emitted: listeners hear of the connection before its messages.
      if (inbox.length) {
        Promise.resolve().then(() => {
          for (const frame of inbox) if (st.live_ === attempt) receive(m, st, attempt, frame);
        });
      }
    },
    message(m, me, attempt, data) {
      const st = stateOf(m, me);
      let frame: Frame | undefined;
      try {
        frame = codec.decode(data);
      } catch (thrown) {
        codecFailed(m, 'decode', thrown);
      }
      if (!frame) return false;
      // A sign of life for the heartbeat (later in rank, it does not see what is consumed here).
      const heartbeat = findFeature(m, 'heartbeat');
      heartbeat?.[0].message?.(m, heartbeat[1], attempt, data);
      if (frame.rs === 'msg') {
        if (attempt.opened) receive(m, st, attempt, frame);
        else st.inbox_.push(frame);
      } else if (frame.rs === 'ack') {
        const id = frame.id;
        // Only a message sent already: one waiting for the store has no id yet.
        const entry = st.out_.find((e) => e.id_ === id && e.sends_);
        if (entry) {
          st.out_.splice(st.out_.indexOf(entry), 1);
          save(m, st, `out:${id}`);
          st.acked_++;
          entry.ok_();
          m.emit_('acked', { id, data: entry.data_ });
        }
      }
      return true;
    },
    timer(m, me) {
      const st = stateOf(m, me);
      if (st.ready_) {
        failed(
          m,
          st,
          new Error(
            process.env.NODE_ENV !== 'production'
              ? `it did not load within ${m.config_.connectTimeout} ms (\`connectTimeout\`)`
              : '',
          ),
        );
        ready(m, me, st);
        return;
      }
      const now = m.config_.clock.now();
      if (st.live_) exhaust(m, st, now);
      let next = Number.POSITIVE_INFINITY;
      for (const entry of st.out_) {
        if (!st.live_) return; // the connection ended (a drop listener) or never was
        if (entry.at_ + ackTimeout <= now) send(m, st, entry);
        next = Math.min(next, entry.at_ + ackTimeout);
      }
      if (next < Number.POSITIVE_INFINITY) setTimer(m, me, DUE, next - now);
    },
    end(m, me) {
      stateOf(m, me).live_ = undefined;
    },
    state(m, me, _previous, next) {
      // A give-up (close() is the `dispose` hook): after the core told of it, unless open() followed.
      if (next === 'closed' && !m.disposed_) {
        Promise.resolve().then(() => m.state_ === 'closed' && !m.disposed_ && stop(m, stateOf(m, me)));
      }
    },
    dispose(m, me) {
      stop(m, stateOf(m, me));
    },
    sendReliable(m, me, data) {
      const st = stateOf(m, me);
      return new Promise<void>((ok, no) => {
        if (m.disposed_ || m.state_ === 'closed') {
          m.drop_('closed', [data as Data]);
          throw error(
            'ERR_RS_DELIVERY_STOPPED',
            process.env.NODE_ENV !== 'production'
              ? `sendReliable() on a ${m.disposed_ ? 'socket closed for good' : 'socket that gave up (open() starts it again)'}`
              : '',
          );
        }
        if (st.out_.length >= maxPending) {
          throw error(
            'ERR_RS_BUFFER_OVERFLOW',
            process.env.NODE_ENV !== 'production'
              ? `${maxPending} reliable messages already wait for their acknowledgement (\`delivery.maxPending\`)`
              : '',
          );
        }
        let raw: unknown;
        try {
          raw = codec.encode({ rs: 'msg', id: String(st.seq_ + 1), data });
        } catch (thrown) {
          throw typeError(
            'data',
            process.env.NODE_ENV !== 'production'
              ? `sendReliable() cannot encode \`data\`: ${describeThrown(thrown)}`
              : '',
          );
        }
        const entry: Entry = { id_: '', data_: data, sends_: 0, at_: 0, ok_: ok, no_: no };
        st.out_.push(entry);
        if (st.wait_) return;
        number(m, st, entry);
        if (!st.live_) return;
        send(m, st, entry, raw);
        if (!hasTimer(m, me, DUE)) setTimer(m, me, DUE, ackTimeout);
      });
    },
    counts_(m, me) {
      const st = stateOf(m, me);
      return { pending: st.out_.length, acked: st.acked_, resent: st.resent_, duplicates: st.duplicates_ };
    },
  };
  return intern(feature);
}
