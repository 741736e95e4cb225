/**
 * A process's channel on Redis, `<prefix>p:<process id>`: where the other processes tell it of a
 * message for a session it holds (`msg`), of a session another process took (`moved`), and of
 * what became of a message it sent (`ack`, `gaveup`). The scripts publish there (see
 * `./redis-scripts.ts`); this file listens.
 *
 * Pub/sub keeps nothing for a subscriber that is away: what is published while the subscription
 * is down is missed. So the channel says when it is **live**: from its first subscription on,
 * then not from a failure until a probe it publishes to itself comes back (proof that it hears
 * again). The cluster reads everything it may have missed from Redis then (`back`).
 */
import type { TimerHandle } from '../clock.js';
import { closeCopy, type RedisConnectionLike, type RedisStore } from './redis-store.js';

/** What another process told this one. */
export interface Notice {
  readonly t: 'msg' | 'moved' | 'ack' | 'gaveup';
  /** The session. */
  readonly s: string;
  /** The message (not for `moved`). */
  readonly id: string;
  /** The stored frame (`msg` only). */
  readonly f: string;
}

/** What the channel tells the cluster. */
export interface ChannelHost {
  heard(notice: Notice): void;
  /** The subscription failed (told once until it is live again). */
  failed(error: unknown): void;
  /** Live again after a failure: what was published meanwhile was missed. */
  back(): void;
  arm(callback: () => void, ms: number): TimerHandle;
}

const KINDS = new Set(['msg', 'moved', 'ack', 'gaveup']);

export class Channel {
  readonly #store: RedisStore;
  readonly #name: string;
  readonly #host: ChannelHost;
  #copy: RedisConnectionLike | undefined;
  /** The copy while it connects and subscribes (a Redis that is away keeps it trying): `close()` ends it too. */
  #connecting: RedisConnectionLike | undefined;
  #closed = false;
  #live = false;
  /** A failure was told, and the channel was not live since. */
  #told = false;
  /** The last probe published, to tell it from an older one. */
  #probe = 0;
  /** Resolves once the channel is first live (never rejects: failures go to `failed`). */
  readonly ready: Promise<void>;

  constructor(store: RedisStore, name: string, host: ChannelHost) {
    this.#store = store;
    this.#name = name;
    this.#host = host;
    this.ready = this.#listen();
  }

  /** Whether nothing published to the channel can be missed now. */
  get live(): boolean {
    return this.#live;
  }

  /** Tries again to prove the channel live, if it is not (called by the cluster's refresh too). */
  check(): void {
    if (this.#live || this.#closed || this.#copy === undefined) return;
    this.#probe += 1;
    this.#store.command(['PUBLISH', this.#name, JSON.stringify({ t: 'probe', n: this.#probe })]).catch(() => {
      // Redis is away: its `ready` (or the next refresh) tries again.
    });
  }

  close(): void {
    this.#closed = true;
    this.#live = false;
    closeCopy(this.#copy);
    closeCopy(this.#connecting);
    this.#copy = this.#connecting = undefined;
  }

  /** Subscribes (again every second until it works, the first failure told). */
  async #listen(): Promise<void> {
    while (!this.#closed) {
      try {
        const copy = await this.#store.listen(
          this.#name,
          (message) => this.#heard(message),
          (error) => this.#failed(error),
          (made) => {
            this.#connecting = made;
          },
        );
        this.#connecting = undefined;
        // node-redis connects again by itself and subscribes again: prove it hears.
        // A connection lost without an error first is a failure too: something may be missed.
        copy.on('reconnecting', () => this.#failed(new Error('the subscription is reconnecting')));
        copy.on('ready', () => this.check());
        if (this.#closed) {
          closeCopy(copy);
          return;
        }
        this.#copy = copy;
        this.#live = true;
        this.#told = false;
        return;
      } catch (error) {
        this.#connecting = undefined; // closed by `listen`
        this.#failed(error);
        await new Promise<void>((resolve) => this.#host.arm(resolve, 1_000));
      }
    }
  }

  #failed(error: unknown): void {
    if (this.#closed) return;
    this.#live = false;
    if (this.#told) return;
    this.#told = true;
    this.#host.failed(error);
  }

  #heard(message: string): void {
    let m: { t?: unknown; s?: unknown; id?: unknown; f?: unknown; n?: unknown };
    try {
      m = JSON.parse(message) as typeof m;
    } catch {
      return;
    }
    if (m.t === 'probe') {
      if (m.n === this.#probe && !this.#live && !this.#closed) {
        this.#live = true;
        this.#told = false;
        this.#host.back();
      }
      return;
    }
    if (typeof m.t !== 'string' || !KINDS.has(m.t) || typeof m.s !== 'string') return;
    if (m.t !== 'moved' && typeof m.id !== 'string') return;
    if (m.t === 'msg' && typeof m.f !== 'string') return;
    this.#host.heard({ t: m.t as Notice['t'], s: m.s, id: String(m.id ?? ''), f: String(m.f ?? '') });
  }
}
