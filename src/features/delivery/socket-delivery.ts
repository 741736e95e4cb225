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
import { clearTimer, type Host, setTimer } from '../../core/feature.js';
import { LIVENESS, serviceOf } from '../../core/services.js';
import type { SocketState } from '../../core/states.js';
import { byteLengthOf, type Data } from '../../data.js';
import { type ErrorCode, ResilientSocketError } from '../../errors.js';
import { describeThrown } from '../../validation.js';
import { callCodec, encodeMsg, type Frame, MAX_ID_LENGTH } from './codec.js';
import type { DeliveryStats, SocketDelivery } from './handed.js';
import type { DeliveryConfig } from './options.js';
import { copyOf, type Entry, newEntry, Outbox } from './outbox.js';

/** A `msg` frame. */
type Msg = Extract<Frame, { rs: 'msg' }>;

/** How often a resend held back by a full WebSocket buffer looks again, at most, in ms. */
const PACE = 1_000;

/** A session id: random, made once per store (randomUUID exists in secure contexts and Node). */
const newSession = (): string =>
  (globalThis as { crypto?: { randomUUID?(): string } }).crypto?.randomUUID?.() ?? `${Date.now()}${Math.random()}`;

/** The delivery of the socket `host` (`position` its feature's place among the socket's features): its hooks and services. */
export function startDelivery(
  host: Host,
  position: number,
  { ackTimeout, maxAttempts, window, maxPending, store, codec }: DeliveryConfig,
): SocketDelivery {
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
  const heartbeat = serviceOf(host, LIVENESS);
  /** The feature's one timer slot. */
  const arm = (ms: number): void => setTimer(host, position, 0, ms);
  /** Back-pressure looks again (what this wrote or holds is in `bufferedAmount`). */
  const pressure = (): void => {
    if (!host.above_ && !host.disposed_) host.pressure_();
  };
  const now = (): number => host.config_.clock.now();

  /**
   * Writes `raw` (a frame as the codec encoded it; `undefined` if it could not) on `attempt` if it
   * is open (a socket that refuses it is going down: its close tells); whether it was written.
   */
  const write = (attempt: Connection | undefined, raw: unknown): boolean => {
    const ws = attempt?.socket;
    try {
      if (raw !== undefined && ws?.readyState === 1) {
        host.write_(ws, raw);
        return true;
      }
    } catch {
      // the socket is going down: its close tells
    }
    return false;
  };

  /** Encodes and writes `frame` (a hello, an ack) on `attempt`, unless a listener ended that connection. */
  const reply = (attempt: Connection, frame: Frame): void => {
    if (host.attempt_ === attempt) write(attempt, callCodec(host, codec, 'encode', frame));
  };

  /** The store failed: let go (reported once, not after close()). */
  const failed = (thrown: unknown): void => {
    if (kept && !host.disposed_) {
      kept = undefined;
      host.report_(
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

  /**
   * Encodes `entry`'s frame once it has its id (a message from the store, or one sent while it
   * loaded) and counts it as waiting; one the codec cannot encode is given up (its promise rejects).
   */
  const encode = (entry: Entry): void => {
    try {
      const raw = encodeMsg(codec, entry.id_, entry.data_);
      out.count_(entry, false);
      entry.raw_ = raw;
      entry.bytes_ = byteLengthOf(raw as Data);
      out.count_(entry, true);
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
    if (!write(live, entry.raw_)) return;
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
    host.drop_(
      reason,
      gone.map((entry) => entry.data_ as Data),
    );
  };

  /** Gives up the messages sent `maxAttempts` times whose last send was at `before` or earlier. */
  const exhaust = (before: number): void =>
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
        ? `The socket ${host.disposed_ ? 'was closed' : 'gave up'} before the acknowledgement; the message stays in the persistent store and is sent by ${host.disposed_ ? 'the next socket on it' : 'open() or the next socket on it'}`
        : '',
    );
    forget(
      // A message the store keeps is told so (`no_` returns nothing) and stays.
      (entry) => !(kept?.persistent && entry.id_ && !entry.no_?.(deferred)),
      'ERR_RS_DELIVERY_STOPPED',
      process.env.NODE_ENV !== 'production'
        ? `The socket ${host.disposed_ ? 'was closed' : 'gave up'} before the acknowledgement, and the store keeps nothing across sessions`
        : '',
      'closed',
    );
    if (host.disposed_) out.clear_();
  };

  /** The store loaded (or failed, or outlasted its deadline): the session, and ids for what was sent meanwhile. */
  const loaded = (): void => {
    if (!ready) return;
    ready();
    wait = ready = undefined;
    clearTimer(host, position, 0);
    if (host.disposed_) return; // close() settled what was sent meanwhile
    if (!session) {
      session = newSession();
      save('session', session);
    }
    // Ids for what was sent meanwhile (last in the outbox, in order, now keyed by them), and frames.
    for (const entry of [...out.entries_.values()]) {
      if (!entry.id_) {
        number(entry, entry.data_);
        out.last_(entry);
      }
      if (entry.raw_ === undefined) encode(entry);
    }
  };

  /**
   * Takes in what the store held: the session, the sequence (at least the highest id in the outbox,
   * should the two writes have been cut apart), the latest `window` ids seen, and the outbox in
   * sequence order, before what was sent while it loaded. Values it cannot read are left out.
   */
  const restore = (entries: Iterable<[string, unknown]>): void => {
    // Unless it outlasted its deadline (then the store was let go).
    if (!ready || !kept || host.disposed_) return;
    const stored: Entry[] = [];
    for (const [key, value] of entries) {
      const id = key.slice(4);
      const data = (value as { data?: unknown } | undefined)?.data;
      if (key === 'session' && typeof value === 'string') session = value;
      else if (key === 'seen' && Array.isArray(value)) seen = new Set(value.slice(-window).map(String));
      else if (key === 'seq') seq = Math.max(seq, Number(value) || 0);
      else if (key === `out:${id}` && data !== undefined) {
        seq = Math.max(seq, Number(id) || 0);
        stored.push(newEntry(id, data, undefined, 0));
      }
    }
    // In sequence order, before what was sent while it loaded.
    for (const entry of [...stored.sort((a, b) => +a.id_ - +b.id_), ...out.entries_.values()]) out.last_(entry);
  };

  /** An incoming `msg`: delivered once, remembered, then acknowledged on its connection. */
  const receive = (attempt: Connection, { id, data }: Msg): void => {
    if (host.attempt_ !== attempt) return; // a listener ended the connection
    if (seen.has(id)) duplicates++;
    else {
      host.deliver_(data as Data);
      seen.add(id);
      if (seen.size > window) seen.delete(seen.values().next().value as string);
      if (kept) save('seen', [...seen]); // not a copy per message with no store
    }
    reply(attempt, { rs: 'ack', id });
  };

  if (store) {
    wait = new Promise((resolve) => {
      ready = resolve;
    });
    arm(host.config_.connectTimeout);
    (async () => restore(await store.load()))().catch(failed).then(loaded);
  }

  return {
    gate: (attempt: Connection): PromiseLike<void> | undefined => {
      opening = new Promise((resolve) => {
        opened = resolve;
      });
      const hello = (): undefined => {
        reply(attempt, { rs: 'hello', session });
      };
      return wait?.then(hello) ?? hello();
    },
    open: (attempt: Connection): void => {
      // Sent for the last time on a connection that ended: its acknowledgement can no longer come.
      exhaust(Infinity);
      if (host.attempt_ !== attempt) return; // a drop listener ended the connection
      live = attempt;
      for (const entry of out.entries_.values()) if (entry.raw_ !== undefined) send(entry);
      if (out.entries_.size) arm(ackTimeout);
      pressure();
      // What arrived in the gates, after `open` is emitted: listeners hear of the connection first.
      opened();
    },
    message: (attempt: Connection, data: Data): boolean => {
      const frame = callCodec(host, codec, 'decode', data);
      if (!frame) return false;
      heartbeat?.[0][LIVENESS].heard(host, heartbeat[1], attempt, data);
      if (frame.rs !== 'hello' && frame.id.length > MAX_ID_LENGTH) {
        // A peer that could make this socket keep ids of any size: refused, the connection cut.
        host.fail_(
          attempt,
          'ERR_RS_PROTOCOL_VIOLATION',
          process.env.NODE_ENV !== 'production'
            ? `The peer sent an ${frame.rs} whose id has ${frame.id.length} characters (at most ${MAX_ID_LENGTH})`
            : '',
          'protocol violation',
        );
      } else if (frame.rs === 'msg') {
        if (attempt.opened_) receive(attempt, frame);
        else opening.then(() => live === attempt && receive(attempt, frame));
      } else if (frame.rs === 'ack') {
        const id = frame.id;
        const entry = out.entries_.get(id);
        // Only a message sent already (one waiting for the store has no id yet).
        if (entry?.sends_) {
          out.take_(id);
          save(`out:${id}`);
          acked++;
          entry.ok_?.();
          host.emit_('acked', { id, data: entry.data_ });
        }
      }
      return true;
    },
    timer: (): void => {
      if (ready) {
        failed(
          new Error(
            process.env.NODE_ENV !== 'production'
              ? `it did not load within ${host.config_.connectTimeout} ms (\`connectTimeout\`)`
              : '',
          ),
        );
        loaded();
        return;
      }
      if (!live) return; // the connection ended
      const time = now();
      exhaust(time - ackTimeout);
      // Earlier writes still in the WebSocket's buffer (the peer reads slowly, or not at all):
      // nothing is written again until they have gone out, looked at again in a while.
      const held = (live?.socket?.bufferedAmount ?? 0) > 0;
      let next = held ? Math.min(ackTimeout, PACE) : ackTimeout;
      if (!held) {
        for (const entry of out.entries_.values()) {
          if (!live) return; // a listener ended the connection
          if (entry.at_ + ackTimeout <= time) send(entry);
          next = Math.min(next, entry.at_ + ackTimeout - time);
        }
      }
      if (out.entries_.size) arm(next);
    },
    end: (): void => {
      live = undefined;
      out.rewind_(); // on the next connection everything waits to be written again
    },
    state: (_previous: SocketState, next: SocketState): void => {
      // A give-up (close() is the `dispose` hook): after the core told of it, unless open() followed.
      if (next === 'closed') Promise.resolve().then(() => host.state_ === 'closed' && !host.disposed_ && stop());
    },
    dispose: stop,
    buffered: (): number => out.unsent_,
    sendReliable: (data: unknown): Promise<void> =>
      new Promise<void>((ok, no) => {
        if (host.disposed_ || host.state_ === 'closed') {
          host.drop_('closed', [data as Data]);
          throw new ResilientSocketError(
            'ERR_RS_DELIVERY_STOPPED',
            process.env.NODE_ENV !== 'production'
              ? `sendReliable() on a ${host.disposed_ ? 'socket closed for good' : 'socket that gave up (open() starts it again)'}`
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
        const raw = encodeMsg(codec, String(seq + 1), data);
        // While the store loads, the id is not known: a copy is kept, and encoded once it is.
        const copy = wait || kept ? copyOf(codec, raw, data) : data;
        const entry = newEntry('', wait ? copy : data, wait ? undefined : raw, byteLengthOf(raw as Data), ok, no);
        out.count_(entry, true);
        // While the store loads, its id comes once it has loaded.
        if (!wait) number(entry, copy);
        out.last_(entry);
        if (live && !wait) {
          send(entry);
          // While connected, the timer runs whenever the outbox holds anything: arm it for the first.
          if (out.entries_.size === 1) arm(ackTimeout);
        }
        pressure();
      }),
    counts: (): DeliveryStats => ({ pending: out.entries_.size, acked, resent, duplicates }),
  };
}
