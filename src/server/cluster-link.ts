/**
 * How one process of the cluster reaches Redis (`./cluster.ts`, `./cluster-sends.ts`): the
 * scripts with a session's keys, the TTL and the channels' prefix; single commands; timers of the
 * server's clock that never hold the process open; and failures told once until Redis answers
 * again (Redis away for a while would otherwise be told once per session and per timer).
 */
import { type Clock, type TimerHandle, unrefTimer } from '../clock.js';
import type { ResilientSocketError } from '../errors.js';
import { storeFailed } from './failures.js';
import type { ResolvedServerOptions } from './options.js';
import type { RedisStore, Script, SessionKeys } from './redis-store.js';

export class Link {
  /** This process: its id, and its channel's (random: a process started again is another). */
  readonly me: string = Array.from({ length: 4 }, () => Math.floor(Math.random() * 0x10000).toString(16)).join('');
  readonly #clock: Clock;
  readonly #report: (error: ResilientSocketError) => void;
  /** A failure was told, and nothing worked since: the next is not told. */
  #troubled = false;
  closed = false;

  constructor(
    readonly store: RedisStore,
    readonly options: ResolvedServerOptions,
    report: (error: ResilientSocketError) => void,
  ) {
    this.#clock = options.clock;
    this.#report = report;
  }

  /** The TTL the scripts give: `sessionTtl`, or none (`'0'`) for `Infinity`. */
  ttl(): string {
    const ttl = this.options.sessionTtl;
    return ttl === Number.POSITIVE_INFINITY ? '0' : String(Math.max(1, Math.ceil(ttl)));
  }

  /** Runs `s` on a session's keys with the TTL and the channels' prefix, then `args`. */
  run(s: Script, keys: SessionKeys, args: string[]): Promise<unknown> {
    return this.#fine(this.store.run(s, keys, [this.ttl(), this.store.channels, ...args]));
  }

  /** One command. */
  command(args: string[]): Promise<unknown> {
    return this.#fine(this.store.command(args));
  }

  /** A command failed: told on `error` (once until one works again). What it was for is done again. */
  trouble(what: string, error: unknown): void {
    if (this.#troubled || this.closed) return;
    this.#troubled = true;
    this.#report(storeFailed(what, error));
  }

  /** A timer of the server's clock, never holding the process open. */
  arm(callback: () => void, ms: number): TimerHandle {
    const handle = this.#clock.setTimeout(callback, ms);
    unrefTimer(handle);
    return handle;
  }

  disarm(handle: TimerHandle | undefined): void {
    if (handle !== undefined) this.#clock.clearTimeout(handle);
  }

  now(): number {
    return this.#clock.now();
  }

  #fine<T>(done: Promise<T>): Promise<T> {
    return done.then((value) => {
      this.#troubled = false;
      return value;
    });
  }
}
