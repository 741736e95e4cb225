/**
 * A follower tab: it hears its leader (who leads, in which term; the connection as it now is; its
 * events; what became of the messages handed over), mirrors the connection in its own machine
 * (which keeps no deadline: the leader's does), and hands its messages to the leader, in order,
 * while the leader's connection is open (else they wait in its own queue, under the usual limits).
 *
 * @internal
 */

import type { SendResult } from '../core/commands.js';
import { dropUnsendable, emitAsReplica, handOver, mirrorState } from '../core/tab-replica.js';
import { byteLengthOf, type Data, ownCopy } from '../data.js';
import { refused, takeBack } from './outbox.js';
import { decode, type View, type Wire } from './protocol.js';
import { now, post, type Tab } from './tab.js';

/** A message of the leader (one with a term, not older than this tab's), heard by a follower. */
export function follow(tab: Tab, wire: Wire): void {
  // Another tab took the lock from the leader this tab knew: what it handed that one comes back, warily.
  if (tab.leader_ !== undefined && tab.leader_ !== wire.from) takeBack(tab, true);
  tab.leader_ = wire.from;
  tab.term_ = wire.term as number;
  tab.heardAt_ = now(tab);
  // `lead` or `event`: the connection as it now is (a `message` may come without: nothing changed), then
  // what happened (or, to a tab that asked, a greeting).
  if (wire.view) see(tab, wire.view);
  if (wire.type === 'event') emitAsReplica(tab.machine_, wire.event as string, (wire.args as unknown[]).map(decode));
  else if (wire.view) greet(tab, wire.view);
  // Its place among the followers: the roster comes only in answer to it, so it is on it.
  if (wire.roster) tab.rank_ = wire.roster.indexOf(tab.id_);
  // (an `ack` is taken before, whoever sent it: `hear` in `./shared-socket.ts`)
  if (wire.type === 'nack') {
    if (wire.batch === tab.batch_) retake(tab);
  } else if (wire.type === 'reject') {
    const message = refused(tab, wire.seq as number);
    if (message) dropUnsendable(tab.machine_, [message.data], new Error(wire.reason));
  }
}

/** The connection as the leader now describes it: mirrored here; a new or ended connection moves what was handed over. */
function see(tab: Tab, view: View): void {
  const before = tab.view_;
  tab.view_ = view;
  tab.viewAt_ = now(tab);
  mirrorState(tab.machine_, view.state);
  if (before?.connection !== view.connection) retake(tab);
}

/** Takes back what was handed over and hands it over again (if the connection is open). */
function retake(tab: Tab): void {
  takeBack(tab);
  flush(tab);
}

/** A tab that joined (or found a new leader) hears how the connection is: its own `state`, and `open` if it is. */
function greet(tab: Tab, view: View): void {
  const machine = tab.machine_;
  // (the socket's `emit_` fills in the previous and the current state, as this tab sees them)
  emitAsReplica(machine, 'state', [{ reason: 'joined the shared connection' }]);
  if (view.connection && tab.opens_ === 0)
    emitAsReplica(machine, 'open', [{ attempt: view.attempt, reconnected: false }]);
}

/** Whether a follower's message can go to the leader now (it has an open connection, and nothing is held back). */
export function through(tab: Tab): boolean {
  return tab.leader_ !== undefined && tab.view_?.connection !== undefined && !tab.holdUntil_;
}

/** A follower's `send()` while the leader's connection is open: what waits goes first, then this message. */
export function pass(tab: Tab, data: Data): SendResult {
  flush(tab);
  try {
    hand(tab, ownCopy(data), now(tab));
  } catch (thrown) {
    return dropUnsendable(tab.machine_, [data], thrown);
  }
  return 'sent';
}

/** Hands this tab's queue to the leader, oldest first, while its connection is open. */
export function flush(tab: Tab): void {
  if (tab.leads_ || !through(tab) || !tab.machine_.queue_?.length) return;
  handOver(tab.machine_, hand, tab);
}

/**
 * Hands one message (queued `at`) to the leader; it stays in the outbox until confirmed.
 * @throws what the channel threw.
 */
function hand(tab: Tab, data: Data, at: number): void {
  const seq = ++tab.seq_;
  const handedAt = now(tab);
  tab.handed_.push({ seq, data, bytes: byteLengthOf(data), at, handedAt });
  try {
    post(tab, {
      type: 'send',
      to: tab.leader_,
      connection: tab.view_?.connection,
      batch: tab.batch_,
      seq,
      data,
      sentAt: handedAt,
    });
  } catch (thrown) {
    refused(tab, seq);
    throw thrown;
  }
}

/** This tab has no leader now: it takes back what it handed over and asks who leads. */
export function lost(tab: Tab): void {
  tab.leader_ = undefined;
  if (tab.view_) see(tab, { ...tab.view_, connection: undefined });
  tab.heardAt_ = now(tab);
  tab.pingedAt_ = undefined;
  post(tab, { type: 'hi' });
}
