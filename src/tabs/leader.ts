/**
 * What the leader tab does for the others: tells them every shared event of its connection,
 * answers who leads and whether it is alive, writes their messages on its connection (each
 * confirmed, or handed back), runs their `open()` and `reconnect()`, and takes over what a follower
 * that closes had handed over. Also how a tab takes the connection over when it is elected, and
 * lets it go when another tab took the lock.
 *
 * @internal
 */
import { findFeature } from '../core/feature.js';
import { adoptRun } from '../core/record.js';
import type { ResilientSocketError } from '../errors.js';
import { describeThrown } from '../validation.js';
import { settle, takeBack } from './outbox.js';
import { encode, LEADER_TIMEOUT, STALE_AFTER, type View, type Wire } from './protocol.js';
import { connection, current, now, post, type Tab, tellRole } from './tab.js';

/** WebSocket `readyState` OPEN. */
const OPEN = 1;

/** The events that concern only this tab, never told to the others: its drops, its role, its own sends' `drain`. */
const OWN_EVENTS = ['drop', 'role', 'drain'];
/** Errors about one tab's own doing (its listeners, its messages), never told to the others. */
const OWN_ERRORS = ['ERR_RS_LISTENER_THREW', 'ERR_RS_UNSENDABLE', 'ERR_RS_CALLBACK_FAILED'];

/** An event of the machine: a leader tells its followers the shared ones, with the connection after it. */
export function tell(t: Tab, event: string, args: unknown[]): void {
  if (t.leads_ && event === 'state') settle(t); // held messages go first, once their hold is over
  if (
    t.leads_ &&
    !t.closed_ &&
    !OWN_EVENTS.includes(event) &&
    !(event === 'error' && OWN_ERRORS.includes((args[0] as ResilientSocketError).code))
  ) {
    // A message changes nothing of the connection but its counters: the view goes with it only for `stats`.
    const v = event !== 'message' || findFeature(t.m_, 'stats') ? current(t) : undefined;
    post(t, { t: 'e', e: event, a: args.map(encode), v });
  }
}

/**
 * A follower's message (one without a term): a goodbye, "who leads?" or "are you alive?" (the
 * answer carries the roster), a command, or a message to write.
 */
export function serve(t: Tab, w: Wire): void {
  const { m_: m, roster_: roster } = t;
  const { f } = w;
  const at = now(t);
  if (w.t === 'bye') {
    // A follower closed: what it had handed over and is not known to be written is this tab's to send now.
    const written = t.written_.get(f) ?? 0;
    for (const { q, data } of w.u ?? []) if (q > written && !m.disposed_) m.send_(data, true);
    t.written_.delete(f);
    t.batches_.delete(f);
    roster.delete(f);
    return;
  }
  roster.set(f, at);
  if (w.t === 'hi' || w.t === 'ping') {
    for (const [tab, heard] of roster) if (at - heard > 4 * LEADER_TIMEOUT) roster.delete(tab);
    const r = [...roster.keys()];
    // The answer to both: who leads, the connection as it is now (a follower that missed something
    // catches up), and the followers in joining order.
    post(t, { t: 'lead', to: f, v: current(t), r });
  } else if (w.t === 'cmd') {
    if (m.disposed_) return;
    // A follower checked the code and reason (a bad one would fail in the WebSocket's close(), caught there).
    if (w.e === 'open') m.open_();
    else m.reconnect_(...((w.a ?? []) as [number, string]));
  } else if (w.t === 's') write(t, w, at);
}

/** Writes a follower's message on the open connection, or hands it (and the rest of its batch) back. */
function write(t: Tab, w: Wire, at: number): void {
  const { f, g = 0, q = 0 } = w;
  if ((t.batches_.get(f) ?? 0) > g) return; // handed back already
  const m = t.m_;
  const ws = m.attempt_?.socket;
  // Written only on the connection it was meant for, while open, and if not too old (its sender
  // may have taken it back and given it to another leader since); else handed back.
  if (w.c === connection(t) && at - (w.ts ?? 0) <= STALE_AFTER && ws?.readyState === OPEN) {
    try {
      ws.send(w.d as never);
      m.messagesOut_++;
      t.written_.set(f, q);
      post(t, { t: 'ack', to: f, q });
      return;
    } catch (thrown) {
      if (ws.readyState === OPEN) {
        post(t, { t: 'rej', to: f, q, m: describeThrown(thrown) });
        return;
      }
    }
  }
  t.batches_.set(f, g + 1);
  post(t, { t: 'nack', to: f, g });
}

/**
 * This tab got the lock: it leads (a new term), and takes over the connection where the last
 * leader left it, as the loss of a connection (or of an attempt): the usual decision, then the
 * usual backoff, from the failure count it had. What it had handed to the last leader, it writes itself.
 */
export function lead(t: Tab): void {
  const { m_: m, view_: view } = t;
  // The last leader did not say goodbye (it crashed, or froze and was taken over): wary of it.
  const wary = t.leader_ !== undefined;
  t.leads_ = true;
  t.leader_ = t.id_;
  t.term_++;
  t.written_ = new Map();
  t.batches_ = new Map();
  t.roster_ = new Map();
  takeBack(t, wary);
  tellRole(t, 'leader');
  if (t.closed_ || !t.leads_) return;
  post(t, { t: 'lead', v: current(t) });
  if (!view || view.s === 'idle') {
    if (m.state_ !== 'closed') m.startAttempt_('elected leader');
  } else if (view.s !== 'closed') takeOver(t, view);
}

/**
 * Takes over the connection `view` describes: one more failure, then the usual backoff, and no
 * sooner than what it took back is released (`./outbox.ts`).
 */
function takeOver(t: Tab, view: View): void {
  const close = view.s === 'open' ? { code: 1006, reason: 'the leader tab left', wasClean: false } : undefined;
  adoptRun(t.m_, view.a, view.n, close, t.holdUntil_ - now(t) /* ≤ 0: none */);
}

/**
 * Another tab took the lock: this tab follows, and its connection, timers and retry go without a
 * word (nothing is told: the new leader describes the connection).
 */
export function letGo(t: Tab): void {
  const m = t.m_;
  t.leads_ = false;
  m.dropRetiring_();
  m.disarmAll_();
  m.deciding_ = undefined;
  const attempt = m.attempt_;
  if (attempt) m.endAttempt_(attempt, 'abort');
  t.view_ = undefined; // (`lost`, next, forgets the leader)
}
