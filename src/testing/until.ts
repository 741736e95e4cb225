/**
 * `until(socket, 'open')`: await what a socket does next, bounded, in real or fake time.
 */
import { EVENT_NAMES, type ResilientSocketEvents } from '../core/events.js';
import type { BaseSocket } from '../core/socket.js';
import type { SocketState } from '../core/states.js';
import { bypassHint, flakySocketsAt, isUntouched } from './flaky-registry.js';
import { checkTiming, FAKE_TIMERS_HINT, fakeTimersInstalled, realClearTimeout, realSetTimeout } from './timing.js';

const EVENT_TARGETS: readonly UntilEvent[] = EVENT_NAMES;
const STATE_TARGETS: ReadonlySet<string> = /* @__PURE__ */ new Set<UntilState>(['idle', 'closing', 'closed']);
const TARGETS: ReadonlySet<string> = /* @__PURE__ */ new Set([...EVENT_TARGETS, ...STATE_TARGETS]);
/**
 * Events named like a state, each emitted as the socket enters that state: called while the
 * socket is already there, `until` waits for the next time it enters it.
 */
const STATE_EVENTS: ReadonlySet<string> = /* @__PURE__ */ new Set<Extract<SocketState, UntilEvent>>([
  'connecting',
  'open',
  'reconnecting',
]);
/** Every option of `until`: any other key is refused (a misspelling would otherwise be ignored). */
const UNTIL_OPTIONS: readonly (keyof UntilOptions<UntilEvent>)[] = ['where', 'within', 'advance', 'step'];
/** Events that may still be emitted in the turn the socket becomes closed. */
const AFTER_CLOSED: ReadonlySet<string> = /* @__PURE__ */ new Set(['close', 'giveup', 'drop', 'error', 'state']);

/** Event names of a socket: `until` waits for the next one. */
export type UntilEvent = keyof ResilientSocketEvents;
/** States that are not also event names: `until` resolves at once if the socket is already there. */
export type UntilState = Exclude<SocketState, UntilEvent>;

/** What `until` resolves with: the event's payload, or the state change that reached the state. */
export type UntilResult<T extends UntilEvent | UntilState> = T extends UntilEvent
  ? ResilientSocketEvents[T] extends [infer P, ...unknown[]]
    ? P
    : undefined
  : {
      /** The state the socket reached. */
      readonly state: T;
    };

/** Options of {@link until}. */
export interface UntilOptions<T extends UntilEvent | UntilState> {
  /**
   * Wait for an occurrence that also passes this test, e.g. `where: (data) => data === 'pong'`.
   * @default undefined (the first occurrence)
   * @example
   * ```ts
   * await until(socket, 'message', { where: (data) => data === 'pong' })
   * ```
   */
  where?: (result: UntilResult<T>) => boolean;
  /**
   * Give up after this many milliseconds: of real time (timers that fake-timer libraries do not
   * patch), or of fake time when `advance` is given. The promise then rejects with a message that
   * names the target and the socket's state.
   * @default 10_000
   * @example
   * ```ts
   * await until(socket, 'open', { within: 2_000 })
   * ```
   */
  within?: number;
  /**
   * Moves fake time by `ms`, e.g. `vi.advanceTimersByTimeAsync`, `jest.advanceTimersByTimeAsync`
   * or a {@link TestClock}'s `advance`. When given, `until` drives time itself, `step` ms at a time,
   * until the target happens or `within` fake milliseconds have passed.
   * @default undefined (wait in real time)
   * @example
   * ```ts
   * await until(socket, 'open', { advance: vi.advanceTimersByTimeAsync })
   * ```
   */
  advance?: (ms: number) => unknown;
  /**
   * How far each `advance` call moves time, in ms. Time overshoots the target by less than one step.
   * @default 1
   * @example
   * ```ts
   * await until(socket, 'giveup', { advance: (ms) => clock.advance(ms), step: 100, within: 600_000 })
   * ```
   */
  step?: number;
}

/**
 * Resolves on the socket's next `target` event with its payload (`until(socket, 'message')`
 * gives the data), or, for the states `'closed'`, `'closing'` and `'idle'`, once the socket is in
 * that state (at once if it already is).
 *
 * It rejects, rather than hang, when the target does not happen within `within` ms, and as soon
 * as the socket is `closed` while waiting for something else (the error says why it closed).
 * It never leaves a listener or a timer behind, and with `advance` it settles only once the
 * advance in progress has returned, so time stands still when your test resumes.
 *
 * Start it before the action that causes the event: an event emitted before `until` is called
 * is not seen (`const opened = until(socket, 'open', time); server.up(); await opened;`). That
 * holds for the events named like states too: `until(socket, 'open')` on an open socket waits for
 * the next `open` (after a reconnect), and if it times out, the error says the socket was already
 * open when `until` was called. When the socket connects to a `FlakyServer`'s URL without
 * `{ WebSocket: server.WebSocket }`, the error says that instead of timing out silently.
 * Bad arguments throw at once (TypeError for a wrong type, RangeError for a bad value).
 *
 * ```ts
 * vi.useFakeTimers();
 * const time = { advance: vi.advanceTimersByTimeAsync };
 * server.drop();
 * const { attempt } = await until(socket, 'reconnecting', time);
 * await until(socket, 'open', time);
 * ```
 */
export function until<T extends UntilEvent | UntilState>(
  socket: BaseSocket,
  target: T,
  options: UntilOptions<T> = {},
): Promise<UntilResult<T>> {
  const { within, step, advance } = checkTiming(options, UNTIL_OPTIONS, 'until()');
  if (typeof target !== 'string')
    throw new TypeError(`Expected \`target\` to be an event or state name, got ${typeof target}`);
  if (!TARGETS.has(target)) {
    throw new RangeError(`Expected \`target\` to be one of ${[...TARGETS].join(', ')}, got ${JSON.stringify(target)}`);
  }
  if (options.where !== undefined && typeof options.where !== 'function') {
    throw new TypeError(`Expected \`where\` to be a function, got ${typeof options.where}`);
  }
  const where = options.where as ((result: unknown) => boolean) | undefined;
  const isState = STATE_TARGETS.has(target);
  /** Called in the state its event announces: that occurrence is over, until waits for the next. */
  const alreadyThere = STATE_EVENTS.has(target) && socket.state === target;

  return new Promise((resolve, reject) => {
    let done = false;
    let lastReason = '';
    /** How many `target` events were emitted while waiting (matching `where` or not). */
    let occurrences = 0;
    /** The FlakyServer URL this socket tried to reach with some other WebSocket class, if any. */
    let bypassed: string | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    /** The advance() call in progress: until settles only after it returned, so time stands still then. */
    let moving: Promise<unknown> | undefined;
    const listeners: [string, (...args: unknown[]) => void][] = [];
    const on = (event: string, listener: (...args: unknown[]) => void) => {
      listeners.push([event, listener]);
      (socket.on as (e: string, l: (...a: unknown[]) => void) => unknown)(event, listener);
    };
    const finish = (error: Error | undefined, value?: unknown) => {
      if (done) return;
      done = true;
      if (timer !== undefined) realClearTimeout(timer);
      for (const [event, listener] of listeners) {
        (socket.off as (e: string, l: (...a: unknown[]) => void) => unknown)(event, listener);
      }
      const settle = () => (error ? reject(error) : resolve(value as UntilResult<T>));
      if (moving) moving.then(settle, settle);
      else settle();
    };
    const matches = (value: unknown): boolean => {
      if (!where) return true;
      try {
        return where(value);
      } catch (thrown) {
        finish(thrown instanceof Error ? thrown : new Error(String(thrown)));
        return false;
      }
    };
    /** What most likely went wrong, appended to a rejection: `; hint. hint.` or ''. */
    const hints = (): string => {
      const found: string[] = [];
      if (alreadyThere && occurrences === 0) {
        found.push(
          `the socket was already '${target}' when until() was called, and until() waits for the next ` +
            `'${target}' event, not for the state (the event that came with it had most likely been emitted ` +
            `already). Start until() before the action that causes it (const next = until(socket, '${target}'); …; await next)`,
        );
      }
      const url = bypassedUrl(socket, bypassed);
      if (url !== undefined) found.push(bypassHint(url));
      else if (advance === undefined && fakeTimersInstalled()) found.push(FAKE_TIMERS_HINT);
      return found.length === 0 ? '' : `; ${found.join('. ')}`;
    };
    const closedError = (reason: string) =>
      new Error(`until(socket, '${target}'): the socket closed (${reason}) before it happened${hints()}`);

    if (isState) {
      const value = { state: target };
      if (socket.state === target && matches(value)) finish(undefined, value);
      if (done) return;
    } else if (socket.state === 'closed' && target !== 'drop') {
      // Closed is final: no event but a `drop` (a send() after close) can come any more.
      finish(closedError('it was already closed'));
      return;
    } else {
      on(target, (...args: unknown[]) => {
        occurrences += 1;
        if (matches(args[0])) finish(undefined, args[0]);
      });
    }
    // A socket creates its WebSocket right after `connecting`: if the URL is a FlakyServer's and
    // no FlakyServer WebSocket was created by then, it uses another class and cannot reach it.
    on('connecting', (...args: unknown[]) => {
      const { url } = args[0] as ResilientSocketEvents['connecting'][0];
      const before = flakySocketsAt(url);
      if (before === undefined) return;
      queueMicrotask(() => {
        if (flakySocketsAt(url) === before) bypassed = url;
      });
    });
    on('state', (...args: unknown[]) => {
      const change = args[0] as ResilientSocketEvents['state'][0];
      lastReason = change.reason;
      if (isState) {
        if (change.current === target && matches({ state: target })) finish(undefined, { state: target });
        else if (change.current === 'closed') finish(closedError(change.reason));
        return;
      }
      if (change.current === 'closed' && !AFTER_CLOSED.has(target)) {
        // `close`, `giveup`, `drop` and `error` can still follow the change to closed in the same turn.
        queueMicrotask(() => finish(closedError(change.reason)));
      }
    });

    const timeout = () =>
      finish(
        new Error(
          `until(socket, '${target}'): did not happen within ${within} ms${advance ? ' of fake time' : ''}; ` +
            `state is '${socket.state}'${lastReason ? ` (${lastReason})` : ''}${hints()}`,
        ),
      );
    if (advance === undefined) {
      timer = realSetTimeout(timeout, within);
      return;
    }
    void (async () => {
      for (let elapsed = 0; !done && elapsed < within; elapsed += step) {
        try {
          moving = Promise.resolve(advance(Math.min(step, within - elapsed)));
          await moving;
        } catch (thrown) {
          moving = undefined;
          finish(thrown instanceof Error ? thrown : new Error(String(thrown)));
          return;
        }
        moving = undefined;
      }
      timeout();
    })();
  });
}

/**
 * The FlakyServer URL the socket tried to reach with another WebSocket class, if it did:
 * - `seen`: an attempt `until` watched created no FlakyServer WebSocket (it counts if the socket
 *   never opened: mock-socket's plain WebSocket class does reach the server);
 * - otherwise, from counters (attempts made before `until` was called): the socket has made
 *   attempts at a FlakyServer's URL, and nothing has ever tried to connect to that server.
 */
function bypassedUrl(socket: BaseSocket, seen: string | undefined): string | undefined {
  const { attempts, connects } = socket.stats;
  if (seen !== undefined) return connects === 0 ? seen : undefined;
  return attempts > 0 && isUntouched(socket.url) ? socket.url : undefined;
}
