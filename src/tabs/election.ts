/**
 * The election of a `SharedSocket`'s leader, on the Web Locks API: every tab of the origin asks
 * for one exclusive lock; the holder leads and keeps it until it leaves. The browser releases it
 * when the tab closes or crashes and grants it to the next tab in the queue (joining order). A
 * frozen or hung leader keeps its lock: a follower that hears nothing from it takes the lock with
 * a steal, which rejects the old holder's request; that tab is told it was deposed when it runs again.
 *
 * The follower's side of that is the watch: every {@link PING_EVERY} ms it asks its leader whether
 * it is alive, and steals the lock when an answer is overdue. `watch` is the decision, a pure
 * function of the record's watch fields and the time; `tick` runs it.
 *
 * @internal
 */

import { unrefTimer } from '../clock.js';
import { resign } from '../core/tab-replica.js';
import { flush, lost } from './follower.js';
import { lead } from './leader.js';
import { settle } from './outbox.js';
import { LEADER_TIMEOUT, PING_EVERY, STAGGER } from './protocol.js';
import { post, type Tab, tellRole } from './tab.js';

/** What the watch reads (of the record, `./tab.ts`). */
export interface Watch {
  /** When the last tick ran (this tab's clock). */
  readonly lastTick_: number;
  /** When this tab last heard from its leader. */
  readonly heardAt_: number;
  /** When it asked and has not heard since (or `undefined`: no question pending). */
  readonly pingedAt_: number | undefined;
  /** Its place among the followers (from the leader's roster): how long it waits before taking over. */
  readonly rank_: number;
}

/**
 * What a follower's watch does at a tick at `now`: `'ask'` (ping the leader, or ask who leads),
 * `'steal'` (the leader stopped answering: frozen or hung; each follower after the first waits
 * {@link STAGGER} ms longer), or nothing. A tick that comes late (this tab was frozen itself) asks
 * again rather than blame the leader. The caller records `now` as the last tick, and as the time it
 * asked (`'ask'`) or no question pending (`'steal'`).
 */
export function watch(tab: Watch, now: number): 'ask' | 'steal' | undefined {
  const slept = now - tab.lastTick_ > 4 * PING_EVERY + LEADER_TIMEOUT;
  if (slept || tab.pingedAt_ === undefined || tab.heardAt_ >= tab.pingedAt_) return 'ask';
  return now - tab.pingedAt_ > LEADER_TIMEOUT + STAGGER * tab.rank_ ? 'steal' : undefined;
}

/** Runs the watch every {@link PING_EVERY} ms (a leader's ticks do nothing), from the tab's join to its `close()`. */
export function tick(tab: Tab): void {
  const { clock, unref } = tab.machine_.config_;
  tab.timer_ = clock.setTimeout(() => tick(tab), PING_EVERY);
  if (unref) unrefTimer(tab.timer_); // the `unref()` feature: the watch does not hold a Node process open either
  const now = clock.now();
  const step = watch(tab, now);
  tab.lastTick_ = now;
  if (tab.closed_) return;
  if (tab.holdUntil_) {
    settle(tab); // a hold that is over: what was held goes first
    if (!tab.leads_) flush(tab);
  }
  if (tab.leads_) return;
  if (step === 'ask') {
    tab.pingedAt_ = now;
    post(tab, { type: tab.leader_ ? 'ping' : 'hi', to: tab.leader_ });
  } else if (step === 'steal') {
    tab.pingedAt_ = undefined;
    join(tab, true);
  }
}

/** Queues for the lock (`steal`: takes it from its holder now). */
export function join(tab: Tab, steal?: boolean): void {
  const round = ++tab.round_;
  tab.withdraw_?.abort();
  const withdraw = steal ? undefined : new AbortController();
  tab.withdraw_ = withdraw;
  let held = false;
  // A request that throws (a stand-in for `locks`) rejects: told like a withdrawn one, to nobody.
  const request = new Promise((resolve) =>
    resolve(
      tab.locks_.request(tab.name_, withdraw ? { signal: withdraw.signal } : { steal: true }, () => {
        if (round !== tab.round_) return undefined; // left, or asked again since: let it go at once
        held = true;
        tab.withdraw_ = undefined;
        return new Promise<void>((release) => {
          tab.release_ = release;
          if (!tab.closed_) lead(tab);
        });
      }),
    ),
  );
  request.catch(() => {
    // Rejected: withdrawn (nothing to do), or stolen while held.
    if (held && round === tab.round_) {
      tab.release_ = undefined;
      deposed(tab);
    }
  });
}

/** Leaves for good: withdraws a queued request, or lets go of the lock. */
export function leave(tab: Tab): void {
  tab.round_++;
  tab.withdraw_?.abort();
  tab.withdraw_ = undefined;
  tab.release_?.();
  tab.release_ = undefined;
}

/**
 * Another tab took the lock from this one (or leads in a later term): it lets its connection go,
 * takes back what it handed over, asks who leads, and queues for the lock again (unless a `role`
 * listener closed it).
 */
export function deposed(tab: Tab): void {
  if (tab.closed_ || !tab.leads_) return;
  // Its connection, timers and retry go without a word: the new leader describes the connection.
  tab.leads_ = false;
  resign(tab.machine_);
  tab.view_ = undefined; // (`lost`, next, forgets the leader)
  tellRole(tab, 'follower');
  lost(tab);
  if (!tab.closed_) join(tab);
}
