/**
 * What the core lends its features ({@link Host}): one table of functions over a socket's machine,
 * shared by every socket (no closure per socket). A feature gets the machine as an opaque handle.
 */
import type { Feature, Host } from './feature.js';
import type { Machine } from './machine.js';
import { drop, reportUserError } from './report.js';

/** The slot of `local` among feature `me`'s timer slots. */
const slot = (m: Machine, me: number, local: number): number => (m.config_.slotBase[me] as number) + local;

export const HOST: Host = {
  state: (s) => (s as Machine).state_,
  attempt: (s) => (s as Machine).attempt_,
  now: (s) => (s as Machine).config_.clock.now(),
  data: (s, me) => (s as Machine).data_?.[me],
  setData: (s, me, value) => {
    const m = s as Machine;
    (m.data_ ??= Array(m.config_.features.length).fill(undefined))[me] = value;
  },
  setTimer: (s, me, local, ms) => (s as Machine).timers_.set(slot(s as Machine, me, local), ms),
  clearTimer: (s, me, local) => (s as Machine).timers_.clear(slot(s as Machine, me, local)),
  hasTimer: (s, me, local) => (s as Machine).timers_.has(slot(s as Machine, me, local)),
  emit: (s, event, ...args) => (s as Machine).emit_(event, ...args),
  report: (s, error) => (s as Machine).report_(error),
  reportUserError: (s, error) => reportUserError(s as Machine, error),
  drop: (s, reason, messages) => drop(s as Machine, reason, messages),
  expire: (s, before) => {
    const m = s as Machine;
    const out = m.queue_?.expire(before) ?? [];
    if (m.queue_?.length === 0) m.queue_ = undefined;
    return out;
  },
  oldest: (s) => (s as Machine).queue_?.oldest(),
  fail: (s, attempt, code, message, reason, cause) => (s as Machine).fail_(attempt, code, message, reason, cause),
  retryNow: (s, reason) => (s as Machine).startAttempt_(reason),
  pauseRetry: (s) => (s as Machine).timers_.clear(0),
  waiting: (s) => (s as Machine).state_ === 'reconnecting' && !(s as Machine).deciding_,
  wrote: (s) => {
    (s as Machine).messagesOut_++;
  },
  find: (s, name) => {
    const features = (s as Machine).config_.features;
    const me = features.findIndex((f) => f.name === name);
    return me < 0 ? undefined : [features[me] as Feature, me];
  },
  canPing: (s, ws) => (s as Machine).config_.wiring.transport.canPing(ws),
  user: (s) => (s as Machine).socket_,
  counters: (s) => s as Machine,
};
