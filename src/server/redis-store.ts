/**
 * `redisStore(redis, { prefix })`: `ReliableServer`'s sessions on Redis, shared by every process
 * given a store on the same Redis and prefix (`./cluster.ts` speaks the protocol on it). It needs
 * a node-redis client (version 5 or later; any client with `sendCommand` and `duplicate` will do),
 * connected: the client stays yours. Each server that uses the store makes its own copy of it for
 * its subscription (a client that subscribes can do nothing else), and closes that copy at
 * `close()`.
 *
 * A session's keys are named after a hash of its id, `<prefix>{<sha1>}:m|w|o|q` (the braces keep
 * them in one slot of a Redis Cluster, so that a script can take them all), whatever the id holds.
 */
import { createHash } from 'node:crypto';
import { assertKnownKeys, assertOptionsObject, assertThat, expectedText, typeError } from '../validation.js';

/** What `redisStore()` needs of a client: node-redis's `sendCommand` and `duplicate` (version 5 or later). */
export interface RedisClientLike {
  /** Sends one command, e.g. `['HGET', key, field]`; resolves with its reply. */
  sendCommand(args: string[]): Promise<unknown>;
  /** A new client with the same options, not connected yet (the store connects and owns it). */
  duplicate(): RedisConnectionLike;
  /** Whether the client is connected (node-redis's `isOpen`). */
  readonly isOpen?: boolean;
}

/** What the store does with its own copy of the client: connect it, subscribe, and close it. */
export interface RedisConnectionLike {
  /** Connects the copy. */
  connect(): Promise<unknown>;
  /** Subscribes to `channel`: `listener` hears each message published there. */
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  /** Listens to the copy's events (`error`, `ready`, `reconnecting`). */
  // biome-ignore lint/suspicious/noExplicitAny: node-redis's own listener types differ by event.
  on(event: string, listener: (...args: any[]) => void): unknown;
  /** node-redis 5: closes at once. */
  destroy?(): void;
  /** node-redis 4. */
  disconnect?(): Promise<unknown>;
}

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /**
   * What every key and channel of the store starts with: give each application (or environment)
   * sharing a Redis its own.
   * @default 'rs:'
   * @example
   * ```ts
   * redisStore(redis, { prefix: 'orders:' })
   * ```
   */
  prefix?: string;
}

/**
 * Where `ReliableServer` keeps its sessions: give it as the `store` option. Made by
 * {@link redisStore}; nothing of it is for you to call.
 */
export interface ServerStore {
  /** `'redis'`. */
  readonly kind: 'redis';
}

/** A Lua script: its source and the SHA1 Redis knows it by. */
export interface Script {
  readonly source: string;
  readonly sha: string;
}

/** The four keys of a session (see `./redis-scripts.ts`). */
export type SessionKeys = readonly [meta: string, window: string, outbox: string, order: string];

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

/** A script, ready to run. */
export function script(source: string): Script {
  return { source, sha: sha1(source) };
}

/** The store behind a `ServerStore`: the client, the prefix, and how the protocol reaches Redis. @internal */
export class RedisStore implements ServerStore {
  readonly kind = 'redis' as const;
  readonly #client: RedisClientLike;
  readonly prefix: string;

  constructor(client: RedisClientLike, prefix: string) {
    this.#client = client;
    this.prefix = prefix;
  }

  /** The keys of session `id`. */
  keys(id: string): SessionKeys {
    const base = `${this.prefix}{${sha1(id)}}:`;
    return [`${base}m`, `${base}w`, `${base}o`, `${base}q`];
  }

  /** What a process's channel is named after: `<prefix>p:` and its id. */
  get channels(): string {
    return `${this.prefix}p:`;
  }

  /** One command. */
  command(args: string[]): Promise<unknown> {
    return this.#client.sendCommand(args);
  }

  /**
   * Has Redis learn `scripts` (`SCRIPT LOAD`), so that the first burst of calls finds them rather
   * than each failing once (a failure here is left to `run`'s fallback).
   */
  load(scripts: readonly Script[]): Promise<void> {
    const loads = scripts.map((s) => this.#client.sendCommand(['SCRIPT', 'LOAD', s.source]));
    return Promise.all(loads).then(
      () => undefined,
      () => undefined,
    );
  }

  /** Runs `s` on a session's keys (by its SHA1; its source once Redis says it does not know it). */
  async run(s: Script, keys: SessionKeys, args: string[]): Promise<unknown> {
    const rest = [String(keys.length), ...keys, ...args];
    try {
      return await this.#client.sendCommand(['EVALSHA', s.sha, ...rest]);
    } catch (error) {
      if (!String((error as Error | undefined)?.message).startsWith('NOSCRIPT')) throw error;
      return await this.#client.sendCommand(['EVAL', s.source, ...rest]);
    }
  }

  /**
   * A copy of the client, connected and subscribed to `channel` (it reconnects and subscribes
   * again by itself, as node-redis does); its errors go to `failed` (a copy with no `error`
   * listener would end the process on the first one). `made` has the copy as soon as it exists, so
   * that it can be closed while it connects; a copy that fails to connect or subscribe is closed.
   */
  async listen(
    channel: string,
    heard: (message: string) => void,
    failed: (error: unknown) => void,
    made: (copy: RedisConnectionLike) => void,
  ): Promise<RedisConnectionLike> {
    const copy = this.#client.duplicate();
    made(copy); // closable from now on, while it connects (a Redis that is away keeps it trying)
    copy.on('error', failed);
    try {
      await copy.connect();
      await copy.subscribe(channel, heard);
    } catch (error) {
      closeCopy(copy);
      throw error;
    }
    return copy;
  }
}

/** Closes a copy of the client made by `listen` (at once: nothing is waited for). */
export function closeCopy(copy: RedisConnectionLike | undefined): void {
  try {
    if (typeof copy?.destroy === 'function') copy.destroy();
    else void copy?.disconnect?.().catch(() => undefined);
  } catch {
    // already closed
  }
}

/** A frame as Redis keeps it: `t` and the text, or `b` and the bytes in base64. */
export function storedFrame(frame: string | ArrayBuffer | Uint8Array): string {
  if (typeof frame === 'string') return `t${frame}`;
  const bytes = frame instanceof ArrayBuffer ? new Uint8Array(frame) : frame;
  return `b${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`;
}

/** The stored frame of an outbox entry as `SEND` writes it: `<sender> <bytes> <stored frame>`. */
export function storedOfEntry(entry: string): string {
  return entry.slice(entry.indexOf(' ', entry.indexOf(' ') + 1) + 1);
}

/** The frame a stored one is (see {@link storedFrame}). */
export function frameOf(stored: string): string | Uint8Array {
  return stored.startsWith('b') ? Buffer.from(stored.slice(1), 'base64') : stored.slice(1);
}

/**
 * `ReliableServer`'s sessions on Redis (its `store` option): every process given a store on the
 * same Redis and prefix serves every session, whichever process the client reaches. `redis` is a
 * connected node-redis client (version 5 or later), which stays yours; see `docs/guide/cluster.md`.
 * @throws TypeError naming `redis` or the option for bad input.
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { ReliableServer, redisStore } from 'resilient-socket/server';
 * const redis = createClient({ url: 'redis://127.0.0.1:6379' });
 * await redis.connect();
 * const server = new ReliableServer(wss, { store: redisStore(redis, { prefix: 'app:' }) });
 * ```
 */
export function redisStore(redis: RedisClientLike, options?: RedisStoreOptions): ServerStore {
  const r = redis as Partial<RedisClientLike> | null;
  if (typeof r !== 'object' || r === null || typeof r.sendCommand !== 'function' || typeof r.duplicate !== 'function') {
    throw typeError(
      'redis',
      process.env.NODE_ENV !== 'production'
        ? expectedText('redis', 'a node-redis client (createClient() from redis 5 or later)', redis)
        : '',
    );
  }
  if (r.isOpen === false) {
    throw typeError(
      'redis',
      process.env.NODE_ENV !== 'production'
        ? 'Expected `redis` to be connected: await redis.connect() before redisStore(redis)'
        : '',
    );
  }
  assertOptionsObject('options', options);
  assertKnownKeys('', options, ['prefix'], 'redisStore()');
  const prefix = options?.prefix ?? 'rs:';
  assertThat(typeof prefix === 'string', 'prefix', process.env.NODE_ENV !== 'production' ? 'a string' : '', prefix);
  return new RedisStore(redis, prefix);
}
