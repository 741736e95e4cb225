/**
 * The public types of `SharedSocket` (re-exported by `./shared-socket.ts` and the entry points): its
 * options, its events, the part a tab plays, and the shapes of the Web Locks API and
 * BroadcastChannel it uses (the globals by default, or stand-ins passed as options).
 */
import type { ResilientSocketEvents } from '../core/events.js';
import type { BaseSocketOptions } from '../core/options.js';

/** Which part a tab plays: `leader` holds the connection, a `follower` uses it through the leader. */
export type Role = 'leader' | 'follower';

/** What a SharedSocket needs of `navigator.locks` (the Web Locks API's `LockManager`). */
export interface LockManagerLike {
  /** Asks for lock `name`; `callback` runs once it is granted, and the lock is held until the promise it returns settles. */
  request(
    name: string,
    options: { signal?: AbortSignal; steal?: boolean },
    callback: (lock: unknown) => unknown,
  ): Promise<unknown>;
}

/** A BroadcastChannel, as a SharedSocket uses it. */
export interface BroadcastChannelLike {
  /** Sends `message` (a structured clone of it) to the other channels of that name. */
  postMessage(message: unknown): void;
  /** Stops sending and receiving. */
  close(): void;
  /** Receives what the other channels of that name send. */
  onmessage: ((event: { data: unknown }) => void) | null;
}

/** A BroadcastChannel constructor (the global one, or a stand-in for tests). */
export type BroadcastChannelConstructorLike = new (name: string) => BroadcastChannelLike;

/** The events of a `SharedSocket`: a `ResilientSocket`'s, plus `role`. */
export interface SharedSocketEvents extends ResilientSocketEvents {
  /** This tab became the leader (it holds the connection) or a follower. */
  role: [role: Role];
}

/** Options of `new SharedSocket(url, options)`: the core socket's, plus how tabs find each other. */
export interface SharedSocketOptions extends BaseSocketOptions {
  /**
   * Tabs share a connection when their URL and `channel` are equal. Give one to keep two apps of
   * one origin apart, or (required then) when `url` is a function.
   * @default ''
   * @example
   * ```ts
   * new SharedSocket(url, { channel: 'chat' })
   * ```
   */
  channel?: string;
  /**
   * The Web Locks API that elects the leader: a stand-in where there is none (tests, a worker
   * runtime that has its own).
   * @default globalThis.navigator.locks
   * @example
   * ```ts
   * new SharedSocket(url, { locks: fakeTab.locks }) // an in-memory LockManager in a Node test
   * ```
   */
  locks?: LockManagerLike;
  /**
   * The BroadcastChannel the tabs talk over: a stand-in where there is none, or for tests.
   * @default globalThis.BroadcastChannel
   * @example
   * ```ts
   * new SharedSocket(url, { BroadcastChannel: fakeTab.BroadcastChannel })
   * ```
   */
  BroadcastChannel?: BroadcastChannelConstructorLike;
}
