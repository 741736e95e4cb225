/**
 * What tab sharing (`../tabs/`) may do to a machine that neither a face nor a feature may: one
 * tab's machine (the leader's) runs the connection, every other tab's is a **replica** that
 * mirrors it. Functions, not methods, so that a socket that shares nothing carries none of them.
 *
 * | function        | role    | what it does                                                                |
 * | --------------- | ------- | --------------------------------------------------------------------------- |
 * | `mirrorState`   | replica | takes the leader's state through the funnel, without deadline or `state` event |
 * | `emitAsReplica` | replica | tells its users an event of the leader's connection (or its own `role`)     |
 * | `handOver`      | replica | takes its queue out for the leader, oldest first (the stale ones dropped)  |
 * | `putBack`       | both    | messages a leader did not confirm: sent now, or back in front of the queue  |
 * | `dropUnsendable`| replica | messages the leader's WebSocket (or the channel) refused: an error, a drop  |
 * | `openSocket`    | leader  | the WebSocket of the open connection                                        |
 * | `takeOverRun`   | leader  | elected: connects, or takes the last leader's run over as its own loss        |
 * | `resign`        | leader  | deposed: lets its connection, timers and pending decision go, telling nobody |
 *
 * Besides these, the tab code uses the machine only as the other faces and the features do, so
 * that what it relies on is documented where they are:
 * - a face's actions (`BaseSocket`'s): `init_`, `alive_`, the commands of `./commands.ts` (`send`,
 *   `open`, `reconnect`, `close`), and `binaryType_`, set once;
 * - the reads behind a face's getters: `state_`, `disposed_`, `config_` (the clock, the limits,
 *   `unref`), `url_`, `runAttempts_`, `failures_`, `dropped_`, `queue_` (its length);
 * - what `Host` (`./feature.ts`) lends features: the leader writes a follower's message on
 *   `attempt_`'s socket with `write_`, which counts it, as a feature that writes does; a
 *   connection's id counts `connects_`; a follower that closes tells its own `close` (`emitClose_`).
 *
 * @internal
 */
import type { Data } from '../data.js';
import type { WebSocketLike } from '../transports/websocket-like.js';
import * as command from './commands.js';
import type { Loss } from './feature.js';
import { act } from './loss.js';
import type { Machine } from './machine.js';
import { Queue, type QueuedMessage } from './queue.js';
import type { SocketState } from './states.js';

// ─── a replica ───────────────────────────────────────────────────────────────────────────────

/**
 * The replica takes its leader's state `next` through the funnel (the features' `state` hooks run:
 * iterators end at `closed`), with no deadline (the leader's machine keeps them) and no `state`
 * event (the face tells what the leader said). Nothing once closed for good.
 */
export function mirrorState(machine: Machine, next: SocketState): void {
  if (machine.state_ === next || machine.disposed_) return;
  machine.enter_(next, '', undefined, true);
}

/**
 * Tells the replica's users `event` as its own machine would have had it: a `message` goes through
 * the `deliver` hooks first (async iterators), a `giveup` drops what is queued (`closed`). A
 * listener that throws is reported.
 */
export function emitAsReplica(machine: Machine, event: string, args: unknown[]): void {
  if (event === 'message') machine.run_('deliver', args[0]);
  if (event === 'giveup') machine.drop_('closed', machine.takeQueued_());
  (machine.emit_ as (event: string, ...args: unknown[]) => void)(event, ...args);
}

/**
 * Takes the replica's queue out for the leader, oldest first: the `flush` hooks first set aside
 * the stale messages (dropped as `expired` once the rest is handed over), then each goes to `hand`;
 * one that `hand` throws for is unsendable (reported and dropped) and the rest go on.
 */
export function handOver<T>(
  machine: Machine,
  hand: (context: T, data: Data, queuedAt: number) => void,
  context: T,
): void {
  const stale: Data[] = [];
  machine.run_('flush', stale);
  const queue = machine.queue_;
  for (let message = queue?.shift(); message; message = queue?.shift()) {
    try {
      hand(context, message.data, message.at);
    } catch (thrown) {
      machine.unsendable_([message.data], thrown);
    }
  }
  machine.queue_ = undefined;
  machine.drop_('expired', stale);
}

/**
 * Messages taken back from a leader that did not confirm them: a leader whose connection is open
 * (so nothing is queued) sends them now (`leads`); otherwise they go back in front of the queue, in
 * order, beyond its limits (they were admitted once).
 */
export function putBack(machine: Machine, messages: readonly QueuedMessage[], leads: boolean): void {
  if (leads && machine.state_ === 'open' && !machine.queue_) {
    for (const message of messages) command.send(machine, message.data, true);
    return;
  }
  const { maxMessages, maxBytes } = machine.config_;
  machine.queue_ ??= new Queue(maxMessages, maxBytes);
  for (let at = messages.length - 1; at >= 0; at--) machine.queue_.unshift(messages[at] as QueuedMessage);
}

/** Messages that can never be written (the leader's WebSocket, or the channel, refused them): an `ERR_RS_UNSENDABLE` error, then their drop. */
export function dropUnsendable(machine: Machine, messages: Data[], cause: unknown): 'dropped' {
  return machine.unsendable_(messages, cause);
}

// ─── the leader ──────────────────────────────────────────────────────────────────────────────

/** The WebSocket of the machine's connection while it is open (accepted, and the state `open`). */
export function openSocket(machine: Machine): WebSocketLike | undefined {
  const attempt = machine.attempt_;
  return attempt?.opened_ && machine.state_ === 'open' ? attempt.socket : undefined;
}

/** What a tab elected leader knew of the last leader's connection (the tabs' `View` of it). */
export interface LastRun {
  readonly state: SocketState;
  /** Attempts of its run so far. */
  readonly attempt: number;
  /** Failures in a row so far. */
  readonly failures: number;
}

/**
 * A replica elected leader takes the connection over where the last leader left it (`last`): with
 * none (or one still `idle`), it connects, unless it is `closed`; a connection that had not ended
 * is lost, as its own: the last leader's run so far (`attempt`s made, `failures` in a row) becomes
 * this machine's, then one more failure, the usual decision and backoff (`./loss.ts`), no sooner
 * than `minimumDelay` ms (≤ 0: none); a closed one stays closed.
 */
export function takeOverRun(machine: Machine, last: LastRun | undefined, minimumDelay: number): void {
  if (!last || last.state === 'idle') {
    if (machine.state_ !== 'closed') machine.startAttempt_('elected leader');
  } else if (last.state !== 'closed') {
    const close = last.state === 'open' ? { code: 1006, reason: 'the leader tab left', wasClean: false } : undefined;
    machine.runAttempts_ = last.attempt;
    machine.draws_ = last.failures;
    machine.failures_ = last.failures + 1;
    const loss: Loss = {
      attempt: last.attempt,
      error: undefined,
      close,
      rejection: undefined,
      stop: undefined,
      minimumDelay,
      immediate: false,
      notices: [],
    };
    act(machine, loss, true);
  }
}

/**
 * Another tab leads now: the machine lets its connection (and the one it was retiring), its timers
 * and a pending `shouldReconnect` go without a word; the new leader describes the connection.
 */
export function resign(machine: Machine): void {
  machine.dropRetiring_();
  machine.disarmAll_();
  machine.deciding_ = undefined;
  const attempt = machine.attempt_;
  if (attempt) machine.endAttempt_(attempt, 'abort');
}
