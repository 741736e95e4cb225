/**
 * One socket's delivery: its outbox (in first-sent order), session id, sequence, de-duplication
 * window and counters, as the variables of one closure made with the socket (the feature's
 * `init`), and the hooks that work on them. The outbox is a Map by id (a message still waiting for
 * its id is its own key): insertion order is first-sent order, and an acknowledgement finds and
 * takes out its message in constant time, however many wait.
 *
 * Its one timer slot holds, while the store loads, the load's deadline (the socket's
 * `connectTimeout`); afterwards, the earliest acknowledgement deadline.
 */
import type { Connection } from '../../core/connection.js';
import type { DropReason } from '../../core/events.js';
import { findFeature, type Host } from '../../core/feature.js';
import type { SocketState } from '../../core/states.js';
import type { Data } from '../../data.js';
import { type ErrorCode, ResilientSocketError } from '../../errors.js';
import { describeThrown, typeError } from '../../validation.js';
import type { DeliveryCodec, Frame } from './codec.js';
import type { DeliveryConfig } from './options.js';

/** A reliable message in the outbox. */
interface Entry {
  /** Its id ('' while the store loads: ids are given out once the sequence is known). */
  id_: string;
  readonly data_: unknown;
  /** Sends so far, in this socket's life. */
  sends_: number;
  /** When it was last sent (clock time). */
  at_: number;
  /** Its promise's (none for a message loaded from the store). */
  ok_?: () => void;
  no_?: (error: ResilientSocketError) => void;
}

/** A `msg` frame. */
type Msg = Extract<Frame, { rs: 'msg' }>;

/** A session id: random, made once per store (randomUUID exists in secure contexts and Node). */
const newSession = (): string =>
  (globalThis as { crypto?: { randomUUID?(): string } }).crypto?.randomUUID?.() ?? `${Date.now()}${Math.random()}`;

/** The hooks and services the feature hands to the socket's delivery, in the order {@link startDelivery} returns them. */
export const HOOKS = 'gate open message timer end state dispose sendReliable counts';

/** The socket `m`'s delivery (`me` its feature's position): its hooks and services, in the order of {@link HOOKS}. */
export function startDelivery(
  m: Host,
  me: number,
  [ackTimeout, maxAttempts, window, maxPending, store, codec]: DeliveryConfig,
) {
  /** The outbox, in first-sent order (what the store held first, then what was sent while it loaded). */
  let out = new Map<unknown, Entry>();
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
  /** The timer slot. */
  const slot = m.config_.slotBase[me] as number;
  const arm = (ms: number): unknown => m.disposed_ || m.arm_(slot, ms);
  const now = (): number => m.config_.clock.now();

  /** Calls the codec; what a user codec throws is reported (`ERR_RS_CALLBACK_FAILED`), never thrown into the socket. */
  const call = <K extends 'encode' | 'decode'>(what: K, value: unknown): ReturnType<DeliveryCodec[K]> | undefined => {
    try {
      return codec[what](value as never) as ReturnType<DeliveryCodec[K]>;
    } catch (thrown) {
      m.reportUserError_(
        new ResilientSocketError(
          'ERR_RS_CALLBACK_FAILED',
          process.env.NODE_ENV !== 'production' ? `\`delivery.codec.${what}\` threw: ${describeThrown(thrown)}` : '',
          { cause: thrown },
        ),
      );
      return undefined;
    }
  };

  /** Sends `frame` (or its encoding `raw`) on `attempt` if it is open (a socket that refuses it is going down: its close tells). */
  const write = (attempt: Connection | undefined, frame: Frame, raw?: unknown): void => {
    const ws = attempt?.socket;
    raw ??= call('encode', frame);
    try {
      if (raw !== undefined && ws?.readyState === 1) {
        ws.send(raw as never);
        m.messagesOut_++;
      }
    } catch {
      // the socket is going down: its close tells
    }
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

  /** Gives `entry` its id and puts it in the store. */
  const number = (entry: Entry): void => {
    entry.id_ = String(++seq);
    if (kept) {
      save(`out:${entry.id_}`, { data: entry.data_ });
      save('seq', seq);
    }
  };

  /** Sends `entry` on the open connection. */
  const send = (entry: Entry, raw?: unknown): void => {
    write(live, { rs: 'msg', id: entry.id_, data: entry.data_ }, raw);
    if (entry.sends_++) resent++;
    entry.at_ = now();
  };

  /** Takes the messages `lost` picks out of the outbox and the store, rejects their promises and reports them dropped. */
  const forget = (lost: (entry: Entry) => unknown, code: ErrorCode, text: string, reason: DropReason): void => {
    let failure: ResilientSocketError | undefined; // made once something is lost (an error captures a stack)
    const gone: Data[] = [];
    for (const [key, entry] of out) {
      if (lost(entry)) {
        out.delete(key);
        if (entry.id_) save(`out:${entry.id_}`);
        failure ??= new ResilientSocketError(code, text);
        entry.no_?.(failure);
        gone.push(entry.data_ as Data);
      }
    }
    m.drop_(reason, gone);
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
    if (m.disposed_) out.clear();
  };

  /** The store loaded (or failed, or outlasted its deadline): the session, and ids for what was sent meanwhile. */
  const loaded = (): void => {
    if (ready) {
      ready();
      wait = ready = undefined;
      m.disarm_(slot);
      if (m.disposed_) return; // close() settled what was sent meanwhile
      if (!session) {
        session = newSession();
        save('session', session);
      }
      // Ids for what was sent meanwhile, and the outbox keyed by them.
      out = new Map(
        [...out.values()].map((entry) => {
          if (!entry.id_) number(entry);
          return [entry.id_, entry];
        }),
      );
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
        stored.push({ id_: id, data_: (value as { data: unknown }).data, sends_: 0, at_: 0 });
      }
    }
    out = new Map([...stored.sort((a, b) => +a.id_ - +b.id_).map((e): [unknown, Entry] => [e.id_, e]), ...out]);
  };

  /** An incoming `msg`: delivered once, remembered, then acknowledged on its connection. */
  const receive = (attempt: Connection, { id, data }: Msg): void => {
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

  // In the order of HOOKS.
  return [
    (attempt: Connection): PromiseLike<void> | undefined => {
      opening = new Promise((resolve) => {
        opened = resolve;
      });
      const hello = (): undefined => {
        if (m.attempt_ === attempt) write(attempt, { rs: 'hello', session });
        return undefined;
      };
      return wait?.then(hello) ?? hello();
    },
    (attempt: Connection): void => {
      // Sent for the last time on a connection that ended: its acknowledgement can no longer come.
      exhaust(Infinity);
      if (m.attempt_ !== attempt) return; // a drop listener ended the connection
      live = attempt;
      for (const entry of out.values()) send(entry);
      if (out.size) arm(ackTimeout);
      // What arrived in the gates, after `open` is emitted: listeners hear of the connection first.
      opened();
    },
    (attempt: Connection, data: Data): boolean => {
      const frame = call('decode', data);
      if (!frame) return false;
      heartbeat?.[0].message?.(m, heartbeat[1], attempt, data);
      if (frame.rs === 'msg') {
        if (attempt.opened) receive(attempt, frame);
        else opening.then(() => live === attempt && receive(attempt, frame));
      }
      if (frame.rs === 'ack') {
        const id = frame.id;
        // Only a message sent already (one waiting for the store has no id yet).
        const entry = out.get(id);
        if (entry?.sends_) {
          out.delete(id);
          save(`out:${id}`);
          acked++;
          entry.ok_?.();
          m.emit_('acked', { id, data: entry.data_ });
        }
      }
      return true;
    },
    (): void => {
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
      let first = time;
      for (const entry of out.values()) {
        if (!live) return; // a listener ended the connection
        if (entry.at_ + ackTimeout <= time) send(entry);
        first = Math.min(first, entry.at_);
      }
      if (out.size) arm(first + ackTimeout - time);
    },
    (): void => {
      live = undefined;
    },
    (_previous: SocketState, next: SocketState): void => {
      // A give-up (close() is the `dispose` hook): after the core told of it, unless open() followed.
      if (next === 'closed') Promise.resolve().then(() => m.state_ === 'closed' && !m.disposed_ && stop());
    },
    stop,
    (data: unknown): Promise<void> =>
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
        if (out.size >= maxPending) {
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
        const entry: Entry = { id_: '', data_: data, sends_: 0, at_: 0, ok_: ok, no_: no };
        if (wait) {
          out.set(entry, entry); // its id comes once the store loaded
          return;
        }
        number(entry);
        out.set(entry.id_, entry);
        if (!live) return;
        send(entry, raw);
        // While connected, the timer runs whenever the outbox holds anything: arm it for the first.
        if (out.size === 1) arm(ackTimeout);
      }),
    () => ({ pending: out.size, acked, resent, duplicates }),
  ];
}
