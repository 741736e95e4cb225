/** `ReliableServer`'s options: what each means, its default, and the check that refuses a bad one. */
import { assertClock, type Clock, steadyClock, systemClock } from '../clock.js';
import {
  assertKnownKeys,
  assertNumber,
  assertOptionsObject,
  expectedText,
  rangeError,
  typeError,
  withDefault,
} from '../validation.js';
import { type DeliveryCodec, jsonCodec } from './codec.js';
import { RedisStore, type ServerStore } from './redis-store.js';

/** The longest a `setTimeout` can wait (2^31 - 1 ms, about 24.8 days); longer ones fire at once. @internal */
export const MAX_DELAY = 2 ** 31 - 1;

/**
 * The options of `new ReliableServer(wss, options)`. Each bound keeps the helper's memory finite
 * whatever clients do: see the worst case in `docs/guide/protocol.md` ("The Node helper").
 */
export interface ReliableServerOptions {
  /**
   * How long a message sent on an open connection may wait for its acknowledgement before it is
   * sent again on that connection, in ms (> 0). On Redis it is also how often a process checks
   * what became of the `send()`s it waits for (an acknowledgement it could not hear, an expiry).
   * @default 10_000
   * @example
   * ```ts
   * new ReliableServer(wss, { ackTimeout: 5_000 })
   * ```
   */
  ackTimeout?: number;
  /**
   * How many times one message is sent (the first time included) before `send()` gives up: a
   * message that would be sent once more is not, and its promise rejects with
   * `ERR_RS_NOT_ACKNOWLEDGED`. An integer >= 1, or `Infinity` (never give up; the session's expiry
   * still ends it). On Redis the process holding the client's connection counts its own writes: a
   * process that takes the session over counts from zero.
   * @default Infinity
   * @example
   * ```ts
   * new ReliableServer(wss, { maxAttempts: 5 })
   * ```
   */
  maxAttempts?: number;
  /**
   * How many messages one session may have waiting for their acknowledgement (an integer >= 1).
   * Past it `send()` rejects at once with `ERR_RS_BUFFER_OVERFLOW`: nothing is queued. On Redis it
   * bounds the session's outbox there, whichever processes sent what waits.
   * @default 1000
   * @example
   * ```ts
   * new ReliableServer(wss, { maxPending: 100 })
   * ```
   */
  maxPending?: number;
  /**
   * How many recent incoming message ids each session remembers to drop duplicates (an integer
   * >= 1). A message resent after its id left the window is delivered again: keep it at least as
   * large as the number of messages a client may have waiting for acknowledgement at once. On
   * Redis the window is the session's, in Redis, shared by every process.
   * @default 1000
   * @example
   * ```ts
   * new ReliableServer(wss, { window: 10_000 })
   * ```
   */
  window?: number;
  /**
   * How long a session with no connection is kept, in ms (>= 0, at most 2^31 - 1, or `Infinity`):
   * a client that says hello again within it finds its pending messages and its window; after
   * it the session is forgotten and its pending `send()` promises reject with
   * `ERR_RS_DELIVERY_STOPPED`. On Redis every key of a session expires `sessionTtl` after the
   * session was last held by a process (whichever, a killed one too; a second at least while held).
   * @default 300_000 (5 minutes)
   * @example
   * ```ts
   * new ReliableServer(wss, { sessionTtl: 60_000 })
   * ```
   */
  sessionTtl?: number;
  /**
   * How many sessions are kept at most (an integer >= 1), connected or not: a session is kept
   * until `sessionTtl` after its client went away, and never forgotten to make room for another.
   * When `maxSessions` are kept, a client that says hello for a new session has its connection
   * closed with 1013 (try again later) and `error` reports `ERR_RS_BUFFER_OVERFLOW`; a `send()` to
   * a new session rejects with it. On Redis it bounds the sessions this process holds a connection
   * for (a session with no connection lives in Redis, for `sessionTtl`).
   * @default 10_000
   * @example
   * ```ts
   * new ReliableServer(wss, { maxSessions: 50_000 })
   * ```
   */
  maxSessions?: number;
  /**
   * How many bytes one session may keep in its window of incoming ids and its outbox (an integer
   * >= 0, or `Infinity`), counted as `docs/guide/protocol.md` says (2 bytes per character of a
   * string, the `byteLength` of binary data, plus a fixed overhead per id and per message). Past
   * it the window forgets its oldest ids (as past `window`; the newest always stays), and `send()`
   * rejects at once with `ERR_RS_BUFFER_OVERFLOW`, nothing queued; for a connected session the bytes
   * its connection has not written yet (`bufferedAmount`) count too. On Redis it bounds both what
   * this process keeps for the session and the session's outbox in Redis.
   * @default 1_048_576 (1 MiB), or `maxBytes` when that is less
   * @example
   * ```ts
   * new ReliableServer(wss, { maxSessionBytes: 256 * 1024 })
   * ```
   */
  maxSessionBytes?: number;
  /**
   * How many bytes all sessions together may keep (an integer >= 0, or `Infinity`): each
   * session's fixed cost and id, its window and its outbox, counted as for `maxSessionBytes`, and
   * at least `maxSessionBytes`. Past it a client that says hello for a new session is refused like
   * one past `maxSessions` (close 1013, `ERR_RS_BUFFER_OVERFLOW`), `send()` rejects with
   * `ERR_RS_BUFFER_OVERFLOW`, and windows forget their oldest ids rather than grow. On Redis it
   * bounds what this process keeps for the sessions it holds (the messages themselves stay in Redis).
   * @default 134_217_728 (128 MiB)
   * @example
   * ```ts
   * new ReliableServer(wss, { maxBytes: 512 * 1024 * 1024 })
   * ```
   */
  maxBytes?: number;
  /**
   * How frames are written and read: the same codec as the clients'.
   * @default jsonCodec
   * @example
   * ```ts
   * new ReliableServer(wss, { codec: myProtocolCodec })
   * ```
   */
  codec?: DeliveryCodec;
  /**
   * Where the sessions live: in this process's memory (the default), or on Redis with
   * {@link redisStore}, shared by every process given a store on the same Redis and prefix (see
   * `docs/guide/cluster.md`).
   * @default undefined (this process's memory)
   * @example
   * ```ts
   * new ReliableServer(wss, { store: redisStore(redis, { prefix: 'app:' }) })
   * ```
   */
  store?: ServerStore;
  /**
   * The clock for the acknowledgement and expiry timers; inject one to drive time in tests. Its
   * timers, when they have `unref` (Node's), never keep the process alive. Its `now()` must return
   * a finite number when the server is made (else a RangeError); a later reading that is not one
   * stands for the last good reading, and `error` reports it once (`ERR_RS_CALLBACK_FAILED`).
   * @default the runtime's timers and `Date.now()`
   * @example
   * ```ts
   * const clock = new TestClock(); // from resilient-socket/testing
   * new ReliableServer(wss, { clock });
   * await clock.advance(10_000);
   * ```
   */
  clock?: Clock;
}

/** The options once checked, with their defaults. @internal */
export interface ResolvedServerOptions {
  readonly ackTimeout: number;
  readonly maxAttempts: number;
  readonly maxPending: number;
  readonly window: number;
  readonly sessionTtl: number;
  readonly maxSessions: number;
  readonly maxSessionBytes: number;
  readonly maxBytes: number;
  readonly codec: DeliveryCodec;
  readonly clock: Clock;
  readonly store: ServerStore | undefined;
}

const KNOWN = [
  'ackTimeout',
  'maxAttempts',
  'maxPending',
  'window',
  'sessionTtl',
  'maxSessions',
  'maxSessionBytes',
  'maxBytes',
  'codec',
  'clock',
  'store',
] as const;

/**
 * Checks `options` and fills in the defaults. @throws TypeError / RangeError (with a code) naming
 * the option for bad input. @internal
 */
export function resolveServerOptions(options: ReliableServerOptions | undefined): ResolvedServerOptions {
  assertOptionsObject('options', options);
  assertKnownKeys('', options, KNOWN, '`ReliableServer`');
  const o: ReliableServerOptions = options ?? {};
  const ackTimeout = withDefault(o.ackTimeout, 10_000);
  assertNumber('ackTimeout', ackTimeout, { above: 0, max: MAX_DELAY });
  const maxAttempts = withDefault(o.maxAttempts, Number.POSITIVE_INFINITY);
  assertNumber('maxAttempts', maxAttempts, { min: 1, integer: true, allowInfinity: true });
  const maxPending = withDefault(o.maxPending, 1_000);
  assertNumber('maxPending', maxPending, { min: 1, integer: true });
  const window = withDefault(o.window, 1_000);
  assertNumber('window', window, { min: 1, integer: true });
  const sessionTtl = withDefault(o.sessionTtl, 300_000);
  assertNumber('sessionTtl', sessionTtl, { min: 0, max: MAX_DELAY, allowInfinity: true });
  const maxSessions = withDefault(o.maxSessions, 10_000);
  assertNumber('maxSessions', maxSessions, { min: 1, integer: true });
  const maxBytes = withDefault(o.maxBytes, 134_217_728);
  assertNumber('maxBytes', maxBytes, { min: 0, integer: true, allowInfinity: true });
  const maxSessionBytes = withDefault(o.maxSessionBytes, Math.min(1_048_576, maxBytes));
  assertNumber('maxSessionBytes', maxSessionBytes, { min: 0, integer: true, allowInfinity: true });
  if (maxBytes < maxSessionBytes) {
    throw rangeError(
      'maxBytes',
      process.env.NODE_ENV !== 'production'
        ? `Expected \`maxBytes\` to be >= \`maxSessionBytes\` (${maxSessionBytes}), got ${maxBytes}`
        : '',
    );
  }
  const codec = withDefault(o.codec, jsonCodec);
  const c = codec as Partial<DeliveryCodec> | null;
  if (typeof c !== 'object' || c === null || typeof c.encode !== 'function' || typeof c.decode !== 'function') {
    throw typeError(
      'codec',
      process.env.NODE_ENV !== 'production'
        ? expectedText('codec', 'an object with encode and decode functions', codec)
        : '',
    );
  }
  const clock = withDefault(o.clock, systemClock);
  assertClock('clock', clock, true);
  const store = o.store;
  if (store !== undefined && !(store instanceof RedisStore)) {
    throw typeError(
      'store',
      process.env.NODE_ENV !== 'production' ? expectedText('store', 'a store made by redisStore()', store) : '',
    );
  }
  return {
    ackTimeout,
    maxAttempts,
    maxPending,
    window,
    sessionTtl,
    maxSessions,
    maxSessionBytes,
    maxBytes,
    codec,
    clock,
    store,
  };
}

/**
 * The clock a server runs on: `given`, with a reading that is not a time standing for the last
 * good one, so that every wait stays a finite number; `bad` is told once, outside the operation
 * that read it. A view of its own per server, so that a clock shared by two servers tells each.
 */
export function serverClock(given: Clock, bad: (value: unknown) => void): Clock {
  if (given === systemClock) return given;
  const view: Clock = {
    setTimeout: (callback, ms) => given.setTimeout(callback, ms),
    clearTimeout: (handle) => given.clearTimeout(handle),
    now: () => given.now(),
  };
  return steadyClock(view, (value) => queueMicrotask(() => bad(value)));
}
