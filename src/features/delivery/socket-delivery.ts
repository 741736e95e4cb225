/**
 * One socket's delivery: its outbox (`./outbox.ts`), session id, sequence, de-duplication window
 * and counters, as the variables of one closure made with the socket (the feature's `init`), and
 * the hooks that work on them.
 *
 * A message is encoded once, when `sendReliable()` is called (or, while the store loads, when it
 * gets its id, from a copy taken at the call): every send writes those same bytes, so what the
 * peer gets is the data as it was then, whatever the app does to its object afterwards. The bytes
 * of the messages not yet written on the current connection count in the socket's
 * `bufferedAmount` (the `buffered` hook), and a resend waits while earlier writes are still in the
 * WebSocket's buffer, so that a peer that does not read is not sent the outbox again and again.
 *
 * Its one timer slot holds, while the store loads, the load's deadline (the socket's
 * `connectTimeout`); afterwards, the earliest acknowledgement deadline.
 */
import type { Connection } from '../../core/connection.js';
import type { DropReason } from '../../core/events.js';
import { clearTimer, findFeature, type Host, setTimer } from '../../core/feature.js';
import type { DeliveryStats } from '../../core/socket.js';
import type { SocketState } from '../../core/states.js';
import { byteLengthOf, type Data } from '../../data.js';
import { type ErrorCode, ResilientSocketError } from '../../errors.js';
import { describeThrown, typeError } from '../../validation.js';
import { callCodec, type Frame, MAX_ID_LENGTH } from './codec.js';
import type { DeliveryConfig } from './options.js';
import { copyOf, type Entry, encodeEntry, newEntry, Outbox } from './outbox.js';

/** A `msg` frame. */
type Msg = Extract<Frame, { rs: 'msg' }>;

/** How often a resend held back by a full WebSocket buffer looks again, at most, in ms. */
const PACE = 1_000;

/** A session id: random, made once per store (randomUUID exists in secure contexts and Node). */
const newSession = (): string =>
  (globalThis as { crypto?: { randomUUID?(): string } }).crypto?.randomUUID?.() ?? `${Date.now()}${Math.random()}`;

/** A socket's delivery: the hooks and services `./delivery.ts` hands to it, by name. */
export type SocketDelivery = ReturnType<typeof startDelivery>;

/** The socket `m`'s delivery (`me` its feature's position): its hooks and services. */
export function startDelivery(
  m: Host,
  me: number,
  [ackTimeout, maxAttempts, window, maxPending, store, codec]: DeliveryConfig,
) {
  /** The outbox, in first-sent order (what the store held first, then what was sent while it loaded). */
  const out = new Outbox();
  /** The ids of the latest incoming messages, oldest first. */
  let seen = new Set<string>();
  /** The store; let go (memory only) after it failed. */
  let kept = store;
  let session = store ? '' : newSession();
  /** The last sequence number given out. */
  let seq = 0;
  /** While the store loads: what the first connection waits for, and what ends the wait. */
  let wait: Promise<void> | undefined;
  let ready: (() => void) | undefined;
  /** The open connection the outbox was sent on (messages sent now go straight out). */
  let live: Connection | undefined;
  /** Until the connection in its gates opens (a `msg` that arrives meanwhile waits for it), and what opens it. */
  let opening: Promise<void>;
  let opened: () => void;
  let acked = 0;
  let resent = 0;
  let duplicates = 0;
  /** Protocol frames are signs of life for the heartbeat (later in rank, it does not see what is consumed here). */
  const heartbeat = findFeature(m, 'heartbeat');
  /** The feature's one timer slot. */
  const arm = (ms: number): void => setTimer(m, me, 0, ms);
  /** Back-pressure looks again (what this wrote or holds is in `bufferedAmount`). */
  const pressure = (): void => {
    if (!m.above_ && !m.disposed_) m.pressure_();
  };
  const now = (): number => m.config_.clock.now();

  /** Calls the codec; what a user codec throws is reported, never thrown into the socket. */
  const call = <K extends 'encode' | 'decode'>(what: K, value: unknown) => callCodec(m, codec, what, value);

  /**
   * Sends `frame` (or its encoding `raw`) on `attempt` if it is open (a socket that refuses it is
   * going down: its close tells); whether it was written.
   */
  const write = (attempt: Connection | undefined, frame: Frame | undefined, raw?: unknown): boolean => {
    const ws = attempt?.socket;
    raw ??= frame && call('encode', frame);
    try {
      if (raw !== undefined && ws?.readyState === 1) {
        ws.send(raw as never);
        m.messagesOut_++;
        return true;
      }
    } catch {
      // the socket is going down: its close tells
    }
    return false;
  };

  /** The store failed: let go (reported once, not after close()). */
  const failed = (thrown: unknown): void => {
    if (kept && !m.disposed_) {
      kept = undefined;
      m.report_(
        new ResilientSocketError(
          'ERR_RS_STORE_FAILED',
          process.env.NODE_ENV !== 'production'
            ? `The delivery store failed (${describeThrown(thrown)}); delivery goes on in memory`
            : '',
          { cause: thrown },
        ),
      );
    }
  };

  /** A store call (a delete without `value`), not waited for. */
  const save = (key: string, value?: unknown): void => {
    const to = kept;
    if (to) (async () => to[value === undefined ? 'delete' : 'put'](key, value))().catch(failed);
  };

  /** Encodes `entry` once it has its id; one the codec cannot encode is given up (its promise rejects). */
  const encode = (entry: Entry): void => {
    try {
      encodeEntry(out, codec, entry);
    } catch (error) {
      out.take_(entry.id_);
      save(`out:${entry.id_}`);
      entry.no_?.(error as Error);
    }
  };

  /** Gives `entry` its id and puts it in the store (what is stored: the copy taken at the call). */
  const number = (entry: Entry, copy: unknown): void => {
    entry.id_ = String(++seq);
    if (kept) {
      save(`out:${entry.id_}`, { data: copy });
      save('seq', seq);
    }
  };

  /**
   * Sends `entry` on the open connection (the bytes encoded once); a send counts only if written,
   * and the next is due `ackTimeout` later either way.
   */
  const send = (entry: Entry): void => {
    entry.at_ = now();
    if (!write(live, undefined, entry.raw_)) return;
    if (entry.sends_++) resent++;
    out.count_(entry, false);
  };

  /** Takes the messages `lost` picks out of the outbox and the store, rejects their promises and reports them dropped. */
  const forget = (lost: (entry: Entry) => unknown, code: ErrorCode, text: string, reason: DropReason): void => {
    let failure: ResilientSocketError | undefined; // made once something is lost (an error captures a stack)
    const gone = out.takeIf_(lost);
    for (const entry of gone) {
      if (entry.id_) save(`out:${entry.id_}`);
      failure ??= new ResilientSocketError(code, text);
      entry.no_?.(failure);
    }
    m.drop_(
      reason,
      gone.map((entry) => entry.data_ as Data),
    );
  };

  /** Gives up the messages sent `maxAttempts` times whose last send was at `before` or earlier. */
  const exhaust = (before: number): unknown =>
    maxAttempts < Infinity &&
    forget(
      (entry) => entry.sends_ >= maxAttempts && entry.at_ <= before,
      'ERR_RS_NOT_ACKNOWLEDGED',
      process.env.NODE_ENV !== 'production'
        ? `No acknowledgement after ${maxAttempts} sends (\`delivery.maxAttempts\`)`
        : '',
      'unacknowledged',
    );

  /**
   * `close()` or a give-up: a persistent store keeps what it holds for the next session (the
   * promises reject with `ERR_RS_DELIVERY_DEFERRED`; after a give-up the messages also stay here,
   * sent again if `open()` starts the socket again); otherwise every message is given up
   * (`ERR_RS_DELIVERY_STOPPED`, a `drop` with reason `'closed'`). A message sent while the store
   * loaded is not in it: it is given up too.
   */
  const stop = (): void => {
    const deferred = new ResilientSocketError(
      'ERR_RS_DELIVERY_DEFERRED',
      process.env.NODE_ENV !== 'production'
        ? `The socket ${m.disposed_ ? 'was closed' : 'gave up'} before the acknowledgement; the message stays in the persistent store and is sent by ${m.disposed_ ? 'the next socket on it' : 'open() or the next socket on it'}`
        : '',
    );
    forget(
      // A message the store keeps is told so (`no_` returns nothing) and stays.
      (entry) => !(kept?.persistent && entry.id_ && !entry.no_?.(deferred)),
      'ERR_RS_DELIVERY_STOPPED',
      process.env.NODE_ENV !== 'production'
        ? `The socket ${m.disposed_ ? 'was closed' : 'gave up'} before the acknowledgement, and the store keeps nothing across sessions`
        : '',
      'closed',
    );
    if (m.disposed_) out.clear_();
  };

  /** The store loaded (or failed, or outlasted its deadline): the session, and ids for what was sent meanwhile. */
  const loaded = (): void => {
    if (ready) {
      ready();
      wait = ready = undefined;
      clearTimer(m, me, 0);
      if (m.disposed_) return; // close() settled what was sent meanwhile
      if (!session) {
        session = newSession();
        save('session', session);
      }
      // Ids for what was sent meanwhile, the outbox keyed by them, and their frames.
      for (const entry of out.entries_.values()) if (!entry.id_) number(entry, entry.data_);
      out.rekey_();
      for (const entry of [...out.entries_.values()]) if (entry.raw_ === undefined) encode(entry);
    }
  };

  /**
   * Takes in what the store held: the session, the sequence (at least the highest id in the outbox,
   * should the two writes have been cut apart), the latest `window` ids seen, and the outbox in
   * sequence order, before what was sent while it loaded. Values it cannot read are left out.
   */
  const restore = (entries: Iterable<[string, unknown]>): void => {
    // Unless it outlasted its deadline (then the store was let go).
    if (!ready || !kept || m.disposed_) return;
    const stored: Entry[] = [];
    for (const [key, value] of entries) {
      const id = key.slice(4);
      if (key === 'session' && typeof value === 'string') session = value;
      else if (key === 'seen' && Array.isArray(value)) seen = new Set(value.slice(-window).map(String));
      else if (key === 'seq') seq = Math.max(seq, Number(value) || 0);
      else if (key === `out:${id}` && (value as { data?: unknown } | undefined)?.data !== undefined) {
        seq = Math.max(seq, Number(id) || 0);
        const entry = newEntry((value as { data: unknown }).data, undefined, 0);
        entry.id_ = id;
        stored.push(entry);
      }
    }
    out.prepend_(stored.sort((a, b) => +a.id_ - +b.id_));
  };

  /** An incoming `msg`: delivered once, remembered, then acknowledged on its connection. */
  const receive = (attempt: Connection, { id, data }: Msg): void => {
    if (m.attempt_ !== attempt) return; // a listener ended the connection
    if (seen.has(id)) duplicates++;
    else {
      m.deliver_(data as Data);
      seen.add(id);
      if (seen.size > window) seen.delete(seen.values().next().value as string);
      if (kept) save('seen', [...seen]); // not a copy per message with no store
    }
    if (m.attempt_ === attempt) write(attempt, { rs: 'ack', id });
  };

  if (store) {
    wait = new Promise((resolve) => {
      ready = resolve;
    });
    arm(m.config_.connectTimeout);
    (async () => restore(await store.load()))().catch(failed).then(loaded);
  }

  return {
    gate: (attempt: Connection): PromiseLike<void> | undefined => {
      opening = new Promise((resolve) => {
        opened = resolve;
      });
      const hello = (): undefined => {
        if (m.attempt_ === attempt) write(attempt, { rs: 'hello', session });
        return undefined;
      };
      return wait?.then(hello) ?? hello();
    },
    open: (attempt: Connection): void => {
      // Sent for the last time on a connection that ended: its acknowledgement can no longer come.
      exhaust(Infinity);
      if (m.attempt_ !== attempt) return; // a drop listener ended the connection
      live = attempt;
      for (const entry of out.entries_.values()) if (entry.raw_ !== undefined) send(entry);
      if (out.entries_.size) arm(ackTimeout);
      pressure();
      // What arrived in the gates, after `open` is emitted: listeners hear of the connection first.
      opened();
    },
    message: (attempt: Connection, data: Data): boolean => {
      const frame = call('decode', data);
      if (!frame) return false;
      heartbeat?.[0].message?.(m, heartbeat[1], attempt, data);
      if (frame.rs !== 'hello' && frame.id.length > MAX_ID_LENGTH) {
        // A peer that could make this socket keep ids of any size: refused, the connection cut.
        m.fail_(
          attempt,
          'ERR_RS_PROTOCOL_VIOLATION',
          process.env.NODE_ENV !== 'production'
            ? `The peer sent an ${frame.rs} whose id has ${frame.id.length} characters (at most ${MAX_ID_LENGTH})`
            : '',
          'protocol violation',
        );
        return true;
      }
      if (frame.rs === 'msg') {
        if (attempt.opened) receive(attempt, frame);
        else opening.then(() => live === attempt && receive(attempt, frame));
      }
      if (frame.rs === 'ack') {
        const id = frame.id;
        // Only a message sent already (one waiting for the store has no id yet).
        if (out.entries_.get(id)?.sends_) {
          const entry = out.take_(id) as Entry;
          save(`out:${id}`);
          acked++;
          entry.ok_?.();
          m.emit_('acked', { id, data: entry.data_ });
        }
      }
      return true;
    },
    timer: (): void => {
      if (ready) {
        failed(
          new Error(
            process.env.NODE_ENV !== 'production'
              ? `it did not load within ${m.config_.connectTimeout} ms (\`connectTimeout\`)`
              : '',
          ),
        );
        loaded();
        return;
      }
      if (!live) return; // the connection ended
      const time = now();
      exhaust(time - ackTimeout);
      if ((live?.socket?.bufferedAmount ?? 0) > 0) {
        // Earlier writes are still in the WebSocket's buffer (the peer reads slowly, or not at
        // all): nothing is written again until it has gone out. Looked at again in a while.
        if (out.entries_.size) arm(Math.min(ackTimeout, PACE));
        return;
      }
      let first = time;
      for (const entry of out.entries_.values()) {
        if (!live) return; // a listener ended the connection
        if (entry.at_ + ackTimeout <= time) send(entry);
        first = Math.min(first, entry.at_);
      }
      if (out.entries_.size) arm(first + ackTimeout - time);
    },
    end: (): void => {
      live = undefined;
      out.rewind_(); // on the next connection everything waits to be written again
    },
    state: (_previous: SocketState, next: SocketState): void => {
      // A give-up (close() is the `dispose` hook): after the core told of it, unless open() followed.
      if (next === 'closed') Promise.resolve().then(() => m.state_ === 'closed' && !m.disposed_ && stop());
    },
    dispose: stop,
    buffered: (): number => out.unsent_,
    sendReliable: (data: unknown): Promise<void> =>
      new Promise<void>((ok, no) => {
        if (m.disposed_ || m.state_ === 'closed') {
          m.drop_('closed', [data as Data]);
          throw new ResilientSocketError(
            'ERR_RS_DELIVERY_STOPPED',
            process.env.NODE_ENV !== 'production'
              ? `sendReliable() on a ${m.disposed_ ? 'socket closed for good' : 'socket that gave up (open() starts it again)'}`
              : '',
          );
        }
        if (out.entries_.size >= maxPending) {
          throw new ResilientSocketError(
            'ERR_RS_BUFFER_OVERFLOW',
            process.env.NODE_ENV !== 'production'
              ? `${maxPending} reliable messages already wait for their acknowledgement (\`delivery.maxPending\`)`
              : '',
          );
        }
        let raw: unknown;
        try {
          raw = codec.encode({ rs: 'msg', id: String(seq + 1), data });
        } catch (thrown) {
          throw typeError(
            'data',
            process.env.NODE_ENV !== 'production'
              ? `sendReliable() cannot encode \`data\`: ${describeThrown(thrown)}`
              : '',
          );
        }
        // While the store loads, the id is not known: a copy is kept, and encoded once it is.
        const copy = wait || kept ? copyOf(codec, raw, data) : data;
        const entry = newEntry(wait ? copy : data, wait ? undefined : raw, byteLengthOf(raw as Data), ok, no);
        out.count_(entry, true);
        if (wait) {
          out.entries_.set(entry, entry); // its id comes once the store loaded
          pressure();
          return;
        }
        number(entry, copy);
        out.entries_.set(entry.id_, entry);
        if (live) {
          send(entry);
          // While connected, the timer runs whenever the outbox holds anything: arm it for the first.
          if (out.entries_.size === 1) arm(ackTimeout);
        }
        pressure();
      }),
    counts: (): DeliveryStats => ({ pending: out.entries_.size, acked, resent, duplicates }),
  };
}
