/**
 * What the leader tab does for the others: tells them every shared event of its connection,
 * answers who leads and whether it is alive, writes their messages on its connection (each
 * confirmed, or handed back), runs their `open()` and `reconnect()`, and takes over what a follower
 * that closes had handed over. Also how a tab takes the connection over when it is elected.
 *
 * @internal
 */
import * as command from '../core/commands.js';
import { SNAPSHOT, serviceOf } from '../core/services.js';
import { takeOverRun } from '../core/tab-replica.js';
import type { ResilientSocketError } from '../errors.js';
import { describeThrown } from '../validation.js';
import { settle, takeBack } from './outbox.js';
import { encode, LEADER_TIMEOUT, STALE_AFTER, type Wire } from './protocol.js';
import { connection, current, now, post, type Tab, tellRole } from './tab.js';

/** WebSocket `readyState` OPEN. */
const OPEN = 1;

/** The events that concern only this tab, never told to the others: its drops, its role, its own sends' `drain`. */
const OWN_EVENTS = ['drop', 'role', 'drain'];
/** Errors about one tab's own doing (its listeners, its messages), never told to the others. */
const OWN_ERRORS = ['ERR_RS_LISTENER_THREW', 'ERR_RS_UNSENDABLE', 'ERR_RS_CALLBACK_FAILED'];

/** An event of the machine: a leader tells its followers the shared ones, with the connection after it. */
export function tell(tab: Tab, event: string, args: unknown[]): void {
  if (tab.leads_ && event === 'state') settle(tab); // held messages go first, once their hold is over
  if (
    tab.leads_ &&
    !tab.closed_ &&
    !OWN_EVENTS.includes(event) &&
    !(event === 'error' && OWN_ERRORS.includes((args[0] as ResilientSocketError).code))
  ) {
    // A message changes nothing of the connection but its counters: the view goes with it only for `stats`.
    const view = event !== 'message' || serviceOf(tab.machine_, SNAPSHOT) ? current(tab) : undefined;
    post(tab, { type: 'event', event, args: args.map(encode), view });
  }
}

/**
 * A follower's message (one without a term): a goodbye, "who leads?" or "are you alive?" (the
 * answer carries the roster), a command, or a message to write.
 */
export function serve(tab: Tab, wire: Wire): void {
  const { machine_: machine, roster_: roster } = tab;
  const { from } = wire;
  const at = now(tab);
  if (wire.type === 'bye') {
    // A follower closed: what it had handed over and is not known to be written is this tab's to send now.
    const written = tab.written_.get(from) ?? 0;
    for (const { seq, data } of wire.unwritten ?? [])
      if (seq > written && !machine.disposed_) command.send(machine, data, true);
    tab.written_.delete(from);
    tab.batches_.delete(from);
    roster.delete(from);
    return;
  }
  roster.set(from, at);
  if (wire.type === 'hi' || wire.type === 'ping') {
    for (const [follower, heard] of roster) if (at - heard > 4 * LEADER_TIMEOUT) roster.delete(follower);
    const followers = [...roster.keys()];
    // The answer to both: who leads, the connection as it is now (a follower that missed something
    // catches up), and the followers in joining order.
    post(tab, { type: 'lead', to: from, view: current(tab), roster: followers });
  } else if (wire.type === 'cmd') {
    if (machine.disposed_) return;
    // A follower checked the code and reason (a bad one would fail in the WebSocket's close(), caught there).
    if (wire.event === 'open') command.open(machine);
    else command.reconnect(machine, ...((wire.args ?? []) as [number, string]));
  } else if (wire.type === 'send') write(tab, wire, at);
}

/** Writes a follower's message on the open connection, or hands it (and the rest of its batch) back. */
function write(tab: Tab, wire: Wire, at: number): void {
  const { from, batch = 0, seq = 0 } = wire;
  if ((tab.batches_.get(from) ?? 0) > batch) return; // handed back already
  // Written only on the connection it was meant for, while open, and if not too old (its sender
  // may have taken it back and given it to another leader since); else handed back.
  const machine = tab.machine_;
  const ws = machine.attempt_?.socket;
  if (wire.connection === connection(tab) && at - (wire.sentAt ?? 0) <= STALE_AFTER && ws?.readyState === OPEN) {
    try {
      machine.write_(ws, wire.data); // counted as the machine's own, as a feature's writes are (`Host`)
      tab.written_.set(from, seq);
      post(tab, { type: 'ack', to: from, seq });
      return;
    } catch (thrown) {
      if (ws.readyState === OPEN) {
        post(tab, { type: 'reject', to: from, seq, reason: describeThrown(thrown) });
        return;
      }
    }
  }
  tab.batches_.set(from, batch + 1);
  post(tab, { type: 'nack', to: from, batch });
}

/**
 * This tab got the lock: it leads (a new term), and takes over the connection where the last
 * leader left it, as the loss of a connection (or of an attempt): the usual decision, then the
 * usual backoff, from the failure count it had, and no sooner than what it took back is released
 * (`./outbox.ts`). What it had handed to the last leader, it writes itself.
 */
export function lead(tab: Tab): void {
  const view = tab.view_;
  // The last leader did not say goodbye (it crashed, or froze and was taken over): wary of it.
  const wary = tab.leader_ !== undefined;
  tab.leads_ = true;
  tab.leader_ = tab.id_;
  tab.term_++;
  tab.written_ = new Map();
  tab.batches_ = new Map();
  tab.roster_ = new Map();
  takeBack(tab, wary);
  tellRole(tab, 'leader');
  if (tab.closed_ || !tab.leads_) return;
  post(tab, { type: 'lead', view: current(tab) });
  takeOverRun(tab.machine_, view, tab.holdUntil_ - now(tab));
}
