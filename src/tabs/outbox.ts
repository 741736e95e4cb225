/**
 * A follower's messages on their way through the leader: what it handed over and the leader has
 * not yet confirmed as written, in order (the record's `handed_`, numbered by `seq_`, in batch
 * `batch_`). Nothing leaves it unaccounted for: a message is confirmed (`ack`), refused as
 * unsendable (`reject`, reported as a drop), or put back in front of the tab's own queue (a `nack`, a
 * connection that ended, a new leader) to be handed over again.
 *
 * @internal
 */
import type { QueuedMessage } from '../core/queue.js';
import { putBack } from '../core/tab-replica.js';
import { STALE_AFTER } from './protocol.js';
import { now, type Tab } from './tab.js';

/**
 * Beyond {@link STALE_AFTER}: time for a confirmation from a leader that wrote the message at the
 * last moment to arrive, in ms. A busy machine delays messages between tabs by tens of ms, now and
 * then by more than 100; a confirmation that comes after the hold finds the message handed to the
 * next leader already, and it is written twice.
 */
const GRACE = 250;

/** A message handed to the leader, not yet confirmed (`at`: when it was queued or handed over; the `bufferPolicy` ttl counts from it). */
export interface Handed extends QueuedMessage {
  /** Its number in this tab's sequence. */
  readonly seq: number;
  /** When it was handed over (last). */
  readonly handedAt: number;
}

/** The leader wrote every message up to `seq`. */
export function written(tab: Tab, seq: number): void {
  const handed = tab.handed_;
  while (handed.length && (handed[0] as Handed).seq <= seq) handed.shift();
}

/** Message `seq` is taken out (the leader's WebSocket refused it, or it could not be handed over), to be reported. */
export function refused(tab: Tab, seq: number): Handed | undefined {
  const at = tab.handed_.findIndex((message) => message.seq === seq);
  return at < 0 ? undefined : tab.handed_.splice(at, 1)[0];
}

/**
 * Takes back every message not confirmed, to be handed over again (a new batch starts: the leader
 * ignores the rest of the old one). `wary`: the leader they were handed to left without a word
 * (taken over: it may be frozen, and write them when it thaws, if they are young enough then), so
 * the messages handed less than {@link STALE_AFTER} (+ a grace) ago are held until that leader
 * would refuse them; a confirmation that arrives meanwhile still counts. Messages sent meanwhile
 * wait behind them.
 */
export function takeBack(tab: Tab, wary?: boolean): void {
  tab.batch_++;
  if (wary && tab.handed_.length) {
    const until = (tab.handed_.at(-1) as Handed).handedAt + STALE_AFTER + GRACE; // the youngest is last
    if (until > now(tab)) tab.holdUntil_ = Math.max(tab.holdUntil_, until);
  }
  settle(tab);
}

/**
 * Once no hold is due: the messages not confirmed go back in front of the machine's queue, in
 * order (the queue's limits are not applied to them: they were admitted once); or, in a leader
 * whose connection is open (so nothing is queued), they are written now.
 */
export function settle(tab: Tab): void {
  const handed = tab.handed_;
  if (now(tab) < tab.holdUntil_) return;
  tab.holdUntil_ = 0;
  if (!handed.length) return;
  tab.handed_ = [];
  putBack(tab.machine_, handed, tab.leads_);
}
