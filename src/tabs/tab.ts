/**
 * One tab's part in a `SharedSocket`: its state, held in one record the socket keeps private (as
 * the core keeps its machine, `../core/machine.ts`), and what both roles do with it (say something
 * on the channel, describe the connection, tell the role). The rest is in modules of functions
 * over this record:
 *
 * | module        | what it does                                                                         |
 * | ------------- | ------------------------------------------------------------------------------------ |
 * | `election.ts` | the lock (join, steal, leave); the liveness watch, a pure step, and its tick; becoming leader, being deposed |
 * | `leader.ts`   | the leader's duties: tells the followers its connection's events, hears them, writes their messages, runs their commands; takes a connection over, lets it go |
 * | `follower.ts` | a follower hears its leader: mirrors the connection and its events; hands its messages over, in order |
 * | `outbox.ts`   | a follower's messages handed over and not yet confirmed                              |
 * | `protocol.ts` | the messages on the channel, the timings, errors across the channel                  |
 *
 * The tab reaches its machine only through the functions of `../core/tab-replica.ts` and what the
 * other faces and the features use (a face's actions and getters' reads, `Host`'s few members;
 * that module lists them).
 *
 * Members end in `_`: the build shortens those names (`mangleProps`), and they stay out of sight of
 * `util.inspect` and `JSON.stringify` of the socket, which holds this record in a `#private` field.
 *
 * @internal
 */

import type { Machine } from '../core/machine.js';
import { SNAPSHOT, serviceOf, statsOf } from '../core/services.js';
import type { SocketState } from '../core/states.js';
import { emitAsReplica, openSocket } from '../core/tab-replica.js';
import type { Watch } from './election.js';
import type { Handed } from './outbox.js';
import { encode, type Say, type View, type Wire } from './protocol.js';
import type { BroadcastChannelConstructorLike, BroadcastChannelLike, LockManagerLike, Role } from './types.js';

/** One tab's part in a `SharedSocket` (see above); the socket holds it, the modules of this folder work on it. */
export class Tab implements Watch {
  /** The core's machine: the leader's runs the connection; a follower's mirrors it and queues. */
  readonly machine_: Machine;
  /** This tab's id on the channel. */
  readonly id_: string;
  /** The lock's and the channel's name (from the URL and `channel`). */
  readonly name_: string;
  /** The `locks` option (or `navigator.locks`). */
  readonly locks_: LockManagerLike;
  /** The `BroadcastChannel` option (or the global). */
  readonly channelClass_: BroadcastChannelConstructorLike;
  /** This tab holds the lock and the connection (`role` is `'leader'`). */
  leads_ = false;
  /** `close()` was called: this tab takes no part any more. */
  closed_ = false;
  /** Made when the tab joins the others (at once, or on `open()` with `autoConnect: false`). */
  channel_: BroadcastChannelLike | undefined;
  /** The current leader's id and term, as far as this tab knows. */
  leader_: string | undefined;
  term_ = 0;
  /** The connection as the leader last described it, and when (this tab's clock). */
  view_: View | undefined;
  viewAt_ = 0;
  /** The state this tab's listeners last heard of (the `previous` of the next `state`). */
  shown_: SocketState = 'idle';
  /** `open` events shown so far (the later ones are `reconnected`). */
  opens_ = 0;
  /** `binaryType` is `'blob'`: binary messages reach the listeners as Blobs. */
  blob_ = true;

  // ─── the watch (`./election.ts`; the fields `Watch` documents) ───────────────────────────
  /** The next tick's timer (the `clock` option's). */
  timer_: unknown;
  lastTick_ = 0;
  heardAt_ = 0;
  pingedAt_: number | undefined;
  rank_ = 0;

  // ─── the election (`./election.ts`) ──────────────────────────────────────────────────────
  /** Lets go of the lock this tab holds (resolves the promise its callback returned). */
  release_: (() => void) | undefined;
  /** Withdraws the request this tab has queued. */
  withdraw_: AbortController | undefined;
  /** Bumped by every request and by `leave`: what an older request learns comes too late. */
  round_ = 0;

  // ─── the outbox (`./outbox.ts`) ──────────────────────────────────────────────────────────
  /** What this tab handed to the leader, not yet confirmed, in order. */
  handed_: Handed[] = [];
  /** The last sequence number given. */
  seq_ = 0;
  /** Bumped whenever what was handed over comes back, so the leader ignores the rest of the old batch. */
  batch_ = 0;
  /** Until when what was handed to a leader that was taken over stays held (0: no hold; `./outbox.ts`). */
  holdUntil_ = 0;

  // ─── while this tab leads (`./leader.ts`: new maps for every term, made by `lead`) ──────────
  /** Per follower: the last of its messages written. */
  written_!: Map<string, number>;
  /** Per follower: the first batch still accepted (older batches were handed back). */
  batches_!: Map<string, number>;
  /** Per follower, in joining order: when it was last heard from. */
  roster_!: Map<string, number>;

  // Plain fields, not parameter properties: the build's declaration of one would keep its long name.
  constructor(
    machine: Machine,
    id: string,
    name: string,
    locks: LockManagerLike,
    Channel: BroadcastChannelConstructorLike,
  ) {
    this.machine_ = machine;
    this.id_ = id;
    this.name_ = name;
    this.locks_ = locks;
    this.channelClass_ = Channel;
  }
}

/**
 * Says `message` on the channel, as this tab (a leader's words carry its term). With the channel
 * closed it is lost; a message the channel cannot clone is lost too, or, if it is one handed to the
 * leader (`send`), the channel's error (a `DataCloneError` that says what it could not clone) is
 * thrown for the caller to report.
 */
export function post(tab: Tab, message: Say): void {
  try {
    tab.channel_?.postMessage({ ...message, from: tab.id_, term: tab.leads_ ? tab.term_ : undefined } satisfies Wire);
  } catch (thrown) {
    if (message.type === 'send') throw thrown;
  }
}

/** The connection as this tab knows it: its own machine's while it leads, else the leader's last view. */
export function current(tab: Tab): View {
  const machine = tab.machine_;
  if (!tab.leads_ && tab.view_) return tab.view_;
  return {
    state: machine.state_,
    attempt: machine.runAttempts_,
    failures: machine.failures_,
    url: machine.url_,
    protocol: openSocket(machine)?.protocol ?? '',
    connection: connection(tab),
    stats: tab.leads_ && serviceOf(machine, SNAPSHOT) ? encode(statsOf(machine)) : undefined,
  };
}

/** The id of this tab's open connection (its machine's, as a leader), while one is open and writable. */
export function connection(tab: Tab): string | undefined {
  const machine = tab.machine_;
  return openSocket(machine)?.readyState === 1 ? `${tab.id_}.${machine.connects_}` : undefined;
}

/** The time on this tab's clock (the `clock` option's). */
export function now(tab: Tab): number {
  return tab.machine_.config_.clock.now();
}

/** Tells this tab's listeners its new role (through the machine: a listener that throws is reported). */
export function tellRole(tab: Tab, role: Role): void {
  emitAsReplica(tab.machine_, 'role', [role]);
}
