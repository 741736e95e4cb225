/**
 * A follower tab: it hears its leader (who leads, in which term; the connection as it now is; its
 * events; what became of the messages handed over), mirrors the connection in its own machine
 * (which keeps no deadline: the leader's does), and hands its messages to the leader, in order,
 * while the leader's connection is open (else they wait in its own queue, under the usual limits).
 *
 * @internal
 */

import type { StateChange } from '../core/events.js';
import type { SendResult } from '../core/machine.js';
import type { SocketState } from '../core/states.js';
import { byteLengthOf, type Data, ownCopy } from '../data.js';
import { refused, takeBack } from './outbox.js';
import { decode, type View, type Wire } from './protocol.js';
import { now, post, type Tab } from './tab.js';

/** A message of the leader (one with a term, not older than this tab's), heard by a follower. */
export function follow(t: Tab, w: Wire): void {
  const m = t.m_;
  // Another tab took the lock from the leader this tab knew: what it handed that one comes back, warily.
  if (t.leader_ !== undefined && t.leader_ !== w.f) takeBack(t, true);
  t.leader_ = w.f;
  t.term_ = w.k as number;
  t.heardAt_ = now(t);
  // `lead` or `e`: the connection as it now is (a `message` may come without: nothing changed), then
  // what happened (or, to a tab that asked, a greeting).
  if (w.v) see(t, w.v);
  if (w.t === 'e') relay(t, w.e as string, (w.a as unknown[]).map(decode));
  else if (w.v) greet(t, w.v);
  // Its place among the followers: the roster comes only in answer to it, so it is on it.
  if (w.r) t.rank_ = w.r.indexOf(t.id_);
  // (an `ack` is taken before, whoever sent it: `hear` in `./shared-socket.ts`)
  if (w.t === 'nack') {
    if (w.g === t.batch_) retake(t);
  } else if (w.t === 'rej') {
    const message = refused(t, w.q as number);
    if (message) m.unsendable_([message.data], new Error(w.m));
  }
}

/** The connection as the leader now describes it: mirrored here; a new or ended connection moves what was handed over. */
function see(t: Tab, view: View): void {
  const before = t.view_;
  t.view_ = view;
  t.viewAt_ = now(t);
  mirror(t, view.s);
  if (before?.c !== view.c) retake(t);
}

/** Takes back what was handed over and hands it over again (if the connection is open). */
function retake(t: Tab): void {
  takeBack(t);
  flush(t);
}

/** An event of the connection, as this tab's machine would have had it. */
function relay({ m_: m }: Tab, event: string, args: unknown[]): void {
  if (event === 'message') m.run_('deliver', args[0]);
  if (event === 'giveup') m.drop_('closed', m.takeQueued_());
  (m.emit_ as (event: string, ...args: unknown[]) => void)(event, ...args);
}

/** A tab that joined (or found a new leader) hears how the connection is: its own `state`, and `open` if it is. */
function greet(t: Tab, view: View): void {
  const m = t.m_;
  // (the socket's `emit_` fills in the previous and the current state, as this tab sees them)
  m.emit_('state', { reason: 'joined the shared connection' } as StateChange);
  if (view.c && t.opens_ === 0) m.emit_('open', { attempt: view.a, reconnected: false });
}

/** The follower's machine takes the leader's state (no deadline: the leader's machine keeps those). */
export function mirror({ m_: m }: Tab, next: SocketState): void {
  if (m.state_ === next || m.disposed_) return;
  m.enter_(next, '', undefined, true);
}

/** Whether a follower's message can go to the leader now (it has an open connection, and nothing is held back). */
export function through(t: Tab): boolean {
  return t.leader_ !== undefined && t.view_?.c !== undefined && !t.holdUntil_;
}

/** A follower's `send()` while the leader's connection is open: what waits goes first, then this message. */
export function pass(t: Tab, data: Data): SendResult {
  const m = t.m_;
  flush(t);
  try {
    hand(t, ownCopy(data), now(t));
  } catch (thrown) {
    return m.unsendable_([data], thrown);
  }
  return 'sent';
}

/** Hands this tab's queue to the leader, oldest first, while its connection is open. */
export function flush(t: Tab): void {
  const m = t.m_;
  if (t.leads_ || !through(t) || !m.queue_?.length) return;
  const stale: Data[] = [];
  m.run_('flush', stale);
  const queue = m.queue_;
  for (let item = queue?.shift(); item; item = queue?.shift()) {
    try {
      hand(t, item.data, item.at);
    } catch (thrown) {
      m.unsendable_([item.data], thrown);
    }
  }
  m.queue_ = undefined;
  m.drop_('expired', stale);
}

/** Hands one message to the leader; it stays in the outbox until confirmed. @throws what the channel threw. */
function hand(t: Tab, data: Data, at: number): void {
  const q = ++t.seq_;
  const ts = now(t);
  t.handed_.push({ q, data, bytes: byteLengthOf(data), at, ts });
  try {
    post(t, { t: 's', to: t.leader_, c: t.view_?.c, g: t.batch_, q, d: data, ts });
  } catch (thrown) {
    refused(t, q);
    throw thrown;
  }
}

/** This tab has no leader now: it takes back what it handed over and asks who leads. */
export function lost(t: Tab): void {
  t.leader_ = undefined;
  if (t.view_) see(t, { ...t.view_, c: undefined });
  t.heardAt_ = now(t);
  t.pingedAt_ = undefined;
  post(t, { t: 'hi' });
}
