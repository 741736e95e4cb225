/**
 * `until(socket, 'open')`: await what a socket does next, bounded, in real or fake time.
 */
import { EVENT_NAMES, type ResilientSocketEvents } from '../socket/events.js';
import type { ResilientSocket } from '../socket/resilient-socket.js';
import type { SocketState } from '../socket/states.js';
import { checkTiming, realClearTimeout, realSetTimeout } from './timing.js';

const EVENT_TARGETS: readonly UntilEvent[] = EVENT_NAMES;
const STATE_TARGETS: ReadonlySet<string> = new Set<UntilState>(['idle', 'closing', 'closed']);
const TARGETS: ReadonlySet<string> = new Set([...EVENT_TARGETS, ...STATE_TARGETS]);
/** Events that may still be emitted in the turn the socket becomes closed. */
const AFTER_CLOSED: ReadonlySet<string> = new Set(['close', 'giveup', 'drop', 'error', 'state']);

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
 * is not seen (`const opened = until(socket, 'open', time); server.up(); await opened;`).
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
  socket: ResilientSocket,
  target: T,
  options: UntilOptions<T> = {},
): Promise<UntilResult<T>> {
  const { within, step, advance } = checkTiming(options);
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

  return new Promise((resolve, reject) => {
    let done = false;
    let lastReason = '';
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
    const closedError = (reason: string) =>
      new Error(`until(socket, '${target}'): the socket closed (${reason}) before it happened`);

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
        if (matches(args[0])) finish(undefined, args[0]);
      });
    }
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
            `state is '${socket.state}'${lastReason ? ` (${lastReason})` : ''}` +
            (advance ? '' : '. With fake timers, pass `advance` (e.g. vi.advanceTimersByTimeAsync)'),
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
