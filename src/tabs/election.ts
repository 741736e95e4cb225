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
import { flush, lost } from './follower.js';
import { lead, letGo } from './leader.js';
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
export function watch(w: Watch, now: number): 'ask' | 'steal' | undefined {
  const slept = now - w.lastTick_ > 4 * PING_EVERY + LEADER_TIMEOUT;
  if (slept || w.pingedAt_ === undefined || w.heardAt_ >= w.pingedAt_) return 'ask';
  return now - w.pingedAt_ > LEADER_TIMEOUT + STAGGER * w.rank_ ? 'steal' : undefined;
}

/** Runs the watch every {@link PING_EVERY} ms (a leader's ticks do nothing), from the tab's join to its `close()`. */
export function tick(t: Tab): void {
  const { clock, unref } = t.m_.config_;
  t.timer_ = clock.setTimeout(() => tick(t), PING_EVERY);
  if (unref) unrefTimer(t.timer_); // the `unref()` feature: the watch does not hold a Node process open either
  const now = clock.now();
  const step = watch(t, now);
  t.lastTick_ = now;
  if (t.closed_) return;
  if (t.holdUntil_) {
    settle(t); // a hold that is over: what was held goes first
    if (!t.leads_) flush(t);
  }
  if (t.leads_) return;
  if (step === 'ask') {
    t.pingedAt_ = now;
    post(t, { t: t.leader_ ? 'ping' : 'hi', to: t.leader_ });
  } else if (step === 'steal') {
    t.pingedAt_ = undefined;
    join(t, true);
  }
}

/** Queues for the lock (`steal`: takes it from its holder now). */
export function join(t: Tab, steal?: boolean): void {
  const round = ++t.round_;
  t.withdraw_?.abort();
  const withdraw = steal ? undefined : new AbortController();
  t.withdraw_ = withdraw;
  let held = false;
  // A request that throws (a stand-in for `locks`) rejects: told like a withdrawn one, to nobody.
  const request = new Promise((resolve) =>
    resolve(
      t.locks_.request(t.name_, withdraw ? { signal: withdraw.signal } : { steal: true }, () => {
        if (round !== t.round_) return undefined; // left, or asked again since: let it go at once
        held = true;
        t.withdraw_ = undefined;
        return new Promise<void>((release) => {
          t.release_ = release;
          if (!t.closed_) lead(t);
        });
      }),
    ),
  );
  request.catch(() => {
    // Rejected: withdrawn (nothing to do), or stolen while held.
    if (held && round === t.round_) {
      t.release_ = undefined;
      deposed(t);
    }
  });
}

/** Leaves for good: withdraws a queued request, or lets go of the lock. */
export function leave(t: Tab): void {
  t.round_++;
  t.withdraw_?.abort();
  t.withdraw_ = undefined;
  t.release_?.();
  t.release_ = undefined;
}

/**
 * Another tab took the lock from this one (or leads in a later term): it lets its connection go,
 * takes back what it handed over, asks who leads, and queues for the lock again (unless a `role`
 * listener closed it).
 */
export function deposed(t: Tab): void {
  if (t.closed_ || !t.leads_) return;
  letGo(t);
  tellRole(t, 'follower');
  lost(t);
  if (!t.closed_) join(t);
}
