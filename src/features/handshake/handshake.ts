/**
 * `handshake(hook)`: your code runs on every new connection before anyone else sees it
 * (authenticate, resubscribe, await the server's ack); the socket becomes `open`, flushes its
 * queue and emits `open` only once the hook is done. A hook that throws, rejects or outlasts its
 * `timeout` fails the attempt, which is retried with backoff.
 *
 * The hook holds the open through the core's `gate`; while it runs, messages go to its
 * `nextMessage()` calls or wait in an inbox, delivered after `open`. Its state lives in the
 * socket's data slot only while it runs.
 */
import type { Connection } from '../../core/connection.js';
import { clearTimer, type Feature, getData, type Host, setData, setTimer } from '../../core/feature.js';
import type { Data } from '../../data.js';
import { ResilientSocketError } from '../../errors.js';
import type { WebSocketLike } from '../../transports/websocket-like.js';
import {
  assertFunction,
  assertKnownKeys,
  assertNumber,
  assertOptionsObject,
  describeReceived,
  describeThrown,
  typeError,
  withDefault,
} from '../../validation.js';
import { intern } from '../intern.js';

/** What the `handshake` hook receives: the fresh connection, before anyone else sees it. */
export interface HandshakeConnection {
  /** The URL of this attempt, whole (your own code: unlike events and errors, it is not redacted). */
  readonly url: string;
  /** The negotiated subprotocol ('' if none). */
  readonly protocol: string;
  /** The attempt number. */
  readonly attempt: number;
  /** Aborted when the attempt is abandoned (handshake timeout, close(), connection lost). */
  readonly signal: AbortSignal;
  /** Sends directly on this connection (bypassing the outbound buffer, which is flushed after the handshake). */
  send(data: Data): void;
  /**
   * Resolves with the next incoming message that `predicate` accepts (any message without one),
   * consuming it. Messages not consumed during the handshake are emitted as `message` after `open`.
   * Rejects if the attempt is abandoned.
   */
  nextMessage(predicate?: (data: Data) => boolean): Promise<Data>;
}

/** The hook: runs on every open, before the queue is flushed and `open` is emitted. */
export type HandshakeHook = (connection: HandshakeConnection) => void | PromiseLike<void>;

/** Options of {@link handshake}. */
export interface HandshakeOptions {
  /**
   * How long the hook may take, in ms (> 0). `Infinity` disables the limit. One that outlasts it
   * fails the attempt (`ERR_RS_HANDSHAKE_TIMEOUT`, close reason `'handshake timeout'`).
   * @default 10_000
   * @example
   * ```ts
   * handshake(authenticate, { timeout: 5_000 })
   * ```
   */
  timeout?: number;
}

/** The default of {@link HandshakeOptions.timeout}. */
export const HANDSHAKE_TIMEOUT = 10_000;

/** What {@link handshake} makes: a feature, for `features` or `ResilientSocket`'s `handshake` option. */
export interface HandshakeFeature extends Feature {
  readonly name: 'handshake';
}

/** A `nextMessage()` waiting for its message. */
interface Waiter {
  readonly predicate: ((data: Data) => boolean) | undefined;
  resolve(data: Data): void;
  reject(error: unknown): void;
}

/** A running handshake (the socket's data slot holds it while the hook runs). */
interface Running {
  readonly attempt: Connection;
  readonly controller: AbortController;
  /** Messages that arrived and no `nextMessage()` took yet. */
  readonly inbox: Data[];
  readonly waiters: Waiter[];
  /** The hook finished: its connection no longer sends or waits. */
  done: boolean;
}

const DEADLINE = 0;

function running(host: Host, index: number): Running | undefined {
  return getData(host, index) as Running | undefined;
}

/** Ends the handshake phase: its deadline, its waiters (rejected) and, when `abandoned`, its signal. */
function finish(host: Host, index: number, run: Running, abandoned: boolean): void {
  const over = run.done;
  run.done = true;
  clearTimer(host, index, DEADLINE);
  if (abandoned) {
    setData(host, index, undefined);
    if (!over) run.controller.abort(); // not once the hook succeeded
  }
  const error = new ResilientSocketError(
    'ERR_RS_CLOSED',
    process.env.NODE_ENV !== 'production'
      ? abandoned
        ? 'The handshake was abandoned'
        : 'The handshake already finished'
      : '',
  );
  for (const waiter of run.waiters.splice(0)) waiter.reject(error);
}

/** The connection the hook sees. */
function connectionFor(host: Host, run: Running, ws: WebSocketLike): HandshakeConnection {
  return {
    url: host.url_,
    protocol: ws.protocol ?? '',
    attempt: run.attempt.number,
    signal: run.controller.signal,
    send: (data) => {
      if (run.done) {
        throw new ResilientSocketError(
          'ERR_RS_CLOSED',
          process.env.NODE_ENV !== 'production' ? 'The handshake is over; use socket.send()' : '',
        );
      }
      host.write_(ws, data);
    },
    nextMessage: (predicate) => {
      if (run.done) {
        return Promise.reject(
          new ResilientSocketError(
            'ERR_RS_CLOSED',
            process.env.NODE_ENV !== 'production' ? 'The handshake is over' : '',
          ),
        );
      }
      if (predicate !== undefined && typeof predicate !== 'function') {
        return Promise.reject(
          typeError(
            'predicate',
            process.env.NODE_ENV !== 'production'
              ? `Expected \`predicate\` to be a function, got ${describeReceived(predicate)}`
              : '',
          ),
        );
      }
      const inbox = run.inbox;
      for (let i = 0; i < inbox.length; i++) {
        // A predicate that throws rejects this nextMessage() (the hook decides what that means).
        let match: unknown;
        try {
          match = !predicate || predicate(inbox[i] as Data);
        } catch (thrown) {
          return Promise.reject(thrown);
        }
        if (match) return Promise.resolve(inbox.splice(i, 1)[0] as Data);
      }
      return new Promise<Data>((resolve, reject) => run.waiters.push({ predicate, resolve, reject }));
    },
  };
}

/**
 * A message while the hook runs goes to the first `nextMessage()` whose predicate takes it, or
 * waits in the inbox. A predicate that throws rejects its own `nextMessage()` (never our caller:
 * this runs inside the transport's receive path).
 */
function route(run: Running, data: Data): void {
  const waiters = run.waiters;
  for (let i = 0; i < waiters.length; i++) {
    const waiter = waiters[i] as Waiter;
    let match: unknown;
    try {
      match = !waiter.predicate || waiter.predicate(data);
    } catch (thrown) {
      waiters.splice(i--, 1);
      waiter.reject(thrown);
      continue;
    }
    if (match) {
      waiters.splice(i, 1);
      waiter.resolve(data);
      return;
    }
  }
  run.inbox.push(data);
}

/**
 * The `handshake` feature: `hook` runs on every open before the queue is flushed and before
 * `open` is emitted (see {@link HandshakeConnection}). Given to a `BaseSocket` in `features`, or to
 * a `ResilientSocket` as its `handshake` option.
 * @throws TypeError / RangeError naming the option.
 * @example
 * ```ts
 * new BaseSocket(url, {
 *   features: [
 *     handshake(async (connection) => {
 *       connection.send(JSON.stringify({ type: 'auth', token: await getToken() }));
 *       await connection.nextMessage((data) => data === 'authenticated');
 *     }),
 *   ],
 * })
 * ```
 */
export function handshake(hook: HandshakeHook, options?: HandshakeOptions): HandshakeFeature {
  assertFunction('handshake', hook);
  assertOptionsObject('handshake options', options);
  assertKnownKeys('', options, ['timeout'], 'handshake()');
  const timeout = withDefault(options?.timeout, HANDSHAKE_TIMEOUT);
  assertNumber('handshake.timeout', timeout, { above: 0, allowInfinity: true });

  return intern<HandshakeFeature & { readonly options_: object }>({
    name: 'handshake',
    rank: 20,
    slots: 1,
    options_: { hook, timeout },
    gate(host, index, attempt) {
      const ws = attempt.socket as WebSocketLike;
      const run: Running = { attempt, controller: new AbortController(), inbox: [], waiters: [], done: false };
      setData(host, index, run);
      if (timeout < Number.POSITIVE_INFINITY) setTimer(host, index, DEADLINE, timeout);
      const current = (): boolean => running(host, index) === run && !run.controller.signal.aborted;
      return new Promise<void>((resolve) => resolve(hook(connectionFor(host, run, ws)))).then(
        () => {
          if (!current()) throw run.controller.signal.reason;
          finish(host, index, run, false); // the inbox stays, for the `open` hook to deliver
        },
        (error: unknown) => {
          if (current())
            host.fail_(
              attempt,
              'ERR_RS_HANDSHAKE_FAILED',
              process.env.NODE_ENV !== 'production' ? `The handshake failed: ${describeThrown(error)}` : '',
              'handshake failed',
              error,
            );
          throw error;
        },
      );
    },
    message(host, index, attempt, data) {
      const run = running(host, index);
      if (run?.attempt !== attempt) return false;
      route(run, data);
      return true;
    },
    open(host, index, _attempt, _ws, later) {
      later.push(...(running(host, index)?.inbox ?? []));
      setData(host, index, undefined);
    },
    timer(host, index) {
      const run = running(host, index);
      if (run && !run.done) {
        host.fail_(
          run.attempt,
          'ERR_RS_HANDSHAKE_TIMEOUT',
          process.env.NODE_ENV !== 'production' ? `The handshake did not finish within ${timeout} ms` : '',
          'handshake timeout',
        );
      }
    },
    end(host, index) {
      const run = running(host, index);
      if (run) finish(host, index, run, true);
    },
  });
}
