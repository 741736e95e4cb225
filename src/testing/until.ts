/**
 * `until(socket, 'open')`: await what a socket does next, bounded, in real or fake time.
 */
import type { ResilientSocketEvents } from '../socket/events.js';
import type { ResilientSocket } from '../socket/resilient-socket.js';
import type { SocketState } from '../socket/states.js';

/** Event names of a socket: `until` waits for the next one. */
export type UntilEvent = keyof ResilientSocketEvents;
/** States that are not also event names: `until` resolves at once if the socket is already there. */
export type UntilState = Exclude<SocketState, UntilEvent>;

/** What `until` resolves with: the event's payload, or the state change that reached the state. */
export type UntilResult<T extends UntilEvent | UntilState> = T extends UntilEvent
  ? ResilientSocketEvents[T] extends [infer P, ...unknown[]]
    ? P
    : undefined
  : { readonly state: T };

/** Options of {@link until}. */
export interface UntilOptions<T extends UntilEvent | UntilState> {
  /**
   * Wait for an occurrence that also passes this test, e.g. `where: (data) => data === 'pong'`.
   * @default undefined (the first occurrence)
   */
  where?: (result: UntilResult<T>) => boolean;
  /**
   * Give up after this many milliseconds: of real time, or of fake time when `advance` is given.
   * The promise then rejects with a message that names the target and the socket's state.
   * @default 10_000
   */
  within?: number;
  /**
   * Moves fake time by `ms`, e.g. `vi.advanceTimersByTimeAsync`, `jest.advanceTimersByTimeAsync`
   * or a {@link TestClock}'s `advance`. When given, `until` drives time itself, `step` ms at a time,
   * until the target happens or `within` fake milliseconds have passed.
   * @default undefined (wait in real time)
   */
  advance?: (ms: number) => unknown;
  /**
   * How far each `advance` call moves time, in ms. Time overshoots the target by less than one step.
   * @default 1
   */
  step?: number;
}

/**
 * Resolves on the socket's next `target` event with its payload (`until(socket, 'message')`
 * gives the data), or, for the states `'closed'`, `'closing'` and `'idle'`, once the socket is in
 * that state (at once if it already is).
 *
 * It rejects, rather than hang, when the target does not happen within `within` ms, and as soon
 * as the socket reaches `closed` while waiting for something else (the error says why it closed).
 * It never leaves a listener or a timer behind.
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
  const within = options.within ?? 10_000;
  const step = options.step ?? 1;
  if (typeof target !== 'string') throw new TypeError(`Expected \`target\` to be an event or state name`);
  if (!(within >= 0)) throw new RangeError(`Expected \`within\` to be >= 0, got ${within}`);
  if (!(step > 0)) throw new RangeError(`Expected \`step\` to be > 0, got ${step}`);
  if (options.advance !== undefined && typeof options.advance !== 'function') {
    throw new TypeError('Expected `advance` to be a function');
  }
  const where = options.where as ((result: unknown) => boolean) | undefined;
  const isState = target === 'closed' || target === 'closing' || target === 'idle';

  return new Promise((resolve, reject) => {
    let done = false;
    let lastReason = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const listeners: [string, (...args: unknown[]) => void][] = [];
    const on = (event: string, listener: (...args: unknown[]) => void) => {
      listeners.push([event, listener]);
      (socket.on as (e: string, l: (...a: unknown[]) => void) => unknown)(event, listener);
    };
    const finish = (error: Error | undefined, value?: unknown) => {
      if (done) return;
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      for (const [event, listener] of listeners) {
        (socket.off as (e: string, l: (...a: unknown[]) => void) => unknown)(event, listener);
      }
      if (error) reject(error);
      else resolve(value as UntilResult<T>);
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
    const describe = () => `state is '${socket.state}'${lastReason ? ` (${lastReason})` : ''}`;

    if (isState) {
      const value = { state: target };
      if (socket.state === target && matches(value)) return finish(undefined, value);
    } else {
      on(target, (...args: unknown[]) => {
        if (matches(args[0])) finish(undefined, args[0]);
      });
    }
    on('state', (...args: unknown[]) => {
      const change = args[0] as ResilientSocketEvents['state'][0];
      lastReason = change.reason;
      if (isState && change.current === target) {
        const value = { state: target };
        if (matches(value)) finish(undefined, value);
        return;
      }
      if (change.current === 'closed' && target !== 'close' && target !== 'giveup' && target !== 'drop') {
        // The socket is closed for good: what we wait for cannot happen any more.
        queueMicrotask(() =>
          finish(new Error(`until(socket, '${target}'): the socket closed (${change.reason}) before it happened`)),
        );
      }
    });
    if (done) return;

    const timeout = () =>
      finish(new Error(`until(socket, '${target}'): did not happen within ${within} ms; ${describe()}`));
    const { advance } = options;
    if (advance === undefined) {
      timer = setTimeout(timeout, within);
      return;
    }
    void (async () => {
      for (let elapsed = 0; !done && elapsed < within; elapsed += step) {
        try {
          await advance(Math.min(step, within - elapsed));
        } catch (thrown) {
          return finish(thrown instanceof Error ? thrown : new Error(String(thrown)));
        }
      }
      timeout();
    })();
  });
}
