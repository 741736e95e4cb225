import { clampDelay } from './backoff/policy.js';
import { type Clock, type TimerHandle, unrefTimer } from './clock.js';

/** The deadline of a slot that is not pending. */
const IDLE = Number.POSITIVE_INFINITY;

/** Where the clock timer comes from, and whether it may hold a Node process open. */
export interface TimerSettings {
  readonly clock: Clock;
  /** Unref the clock timer (it then does not keep a Node process alive). */
  readonly unref: boolean;
}

/**
 * How many slots there are and what to do when one is due. One spec serves every instance (the
 * owner is passed in), so an instance holds no closure per slot or per timer.
 */
export interface TimerSpec<Owner> {
  /** Slots are numbered 0 to `count − 1` (at most 30); among equal deadlines the lower fires first. */
  readonly count: number;
  fire(owner: Owner, slot: number): void;
}

/**
 * Numbered timer slots: each holds at most one pending deadline, re-arming a slot replaces it,
 * a slot is idle again when it fires or is cleared, and `clearAll()` is the teardown. Every timer
 * of a socket lives here, so "close() leaves no timer" is one call and tests can count what is
 * pending.
 *
 * However many slots are pending, a single clock timer is live, armed for the earliest one: a
 * Node `Timeout` and its callback cost about 200 bytes, and an open socket always has two or three
 * slots pending (stable, ping, pong).
 *
 * Deadlines are kept in slot time, which advances only as far as the clock timer proves. Between
 * two arms, slot time is the clock's progress since the arm, clamped to `[0, the armed delay]`;
 * when the timer fires, slot time is exactly the deadline it was armed for. So each slot fires
 * after its delay in the clock timer's own terms, as if it had a timer of its own: a clock whose
 * `now()` stands still (a test clock) or jumps (a wall clock set back, a machine waking from
 * sleep) moves no deadline, and the slot a timer was armed for fires when that timer fires,
 * whatever `now()` says.
 *
 * @internal
 */
export class TimerSlots<Owner> {
  readonly #spec: TimerSpec<Owner>;
  readonly #settings: TimerSettings;
  readonly #owner: Owner;
  /**
   * The deadline of each slot in slot time, `IDLE` when not pending, then
   * the slot time and the clock reading of the last arm. In one array the numbers are stored
   * unboxed; as fields, each would cost a 16-byte heap number.
   */
  readonly #times: number[];
  #handle: TimerHandle | undefined;
  /** The slot the clock timer is armed for; -1 when no timer is live. */
  #armed = -1;
  /**
   * While the clock timer's callback runs: the slots (a bit each) that were due when it fired and
   * have not fired yet. Setting or clearing a slot takes it out, so only what was due then fires
   * in that task, and the clock timer is armed again when the callback is done.
   */
  #due = 0;
  /** The clock timer's callback, bound once. */
  readonly #onClock: () => void;

  constructor(spec: TimerSpec<Owner>, settings: TimerSettings, owner: Owner) {
    this.#spec = spec;
    this.#settings = settings;
    this.#owner = owner;
    // Exactly sized (a spread or push would leave spare capacity) and holding doubles from the start.
    this.#times = new Array<number>(spec.count + 2).fill(0).fill(IDLE, 0, spec.count);
    this.#onClock = this.#fire.bind(this);
  }

  /** Arms `slot` to fire after `ms` (clamped to [0, 2^31 − 1]), replacing any pending deadline. */
  set(slot: number, ms: number): void {
    // Clamped here, for every timer: setTimeout fires after 1 ms for anything above 2^31 − 1.
    this.#put(slot, clampDelay(ms));
  }

  /** Cancels `slot` if pending. */
  clear(slot: number): void {
    this.#put(slot, IDLE);
  }

  /** Cancels every pending slot; no clock timer is left. */
  clearAll(): void {
    this.#times.fill(IDLE, 0, this.#spec.count);
    this.#due = 0;
    this.#arm(0, 0);
  }

  /** Whether `slot` is pending. */
  has(slot: number): boolean {
    return this.#times[slot] !== IDLE;
  }

  /** Gives `slot` the deadline `delay` from now (`IDLE`: none), keeping the clock timer on the earliest slot. */
  #put(slot: number, delay: number): void {
    const times = this.#times;
    const armed = this.#armed;
    this.#due &= ~(1 << slot);
    if (delay === IDLE && times[slot] === IDLE) return;
    // Slot time now (see the class comment): the clock's progress since the last arm, clamped.
    const count = times.length - 2;
    const reading = this.#settings.clock.now();
    const armedAt = times[count] as number;
    const now =
      armed < 0
        ? armedAt
        : armedAt + Math.min(Math.max(0, reading - (times[count + 1] as number)), (times[armed] as number) - armedAt);
    times[slot] = now + delay;
    // While the callback runs, it arms the clock timer when it is done.
    if (this.#due === 0 && (armed === slot || now + delay < (times[armed] ?? IDLE))) this.#arm(now, reading);
  }

  /** Points the clock timer at the earliest pending slot (none pending: no timer). */
  #arm(now: number, reading: number): void {
    const { clock, unref } = this.#settings;
    const times = this.#times;
    const count = times.length - 2;
    if (this.#handle !== undefined) clock.clearTimeout(this.#handle);
    this.#handle = undefined;
    this.#armed = -1;
    times[count] = now;
    times[count + 1] = reading;
    for (let slot = 0; slot < count; slot++) {
      if ((times[slot] as number) < (times[this.#armed] ?? IDLE)) this.#armed = slot;
    }
    if (this.#armed < 0) return;
    this.#handle = clock.setTimeout(this.#onClock, Math.max(0, (times[this.#armed] as number) - now));
    if (unref) unrefTimer(this.#handle);
  }

  /**
   * The clock timer fired: slot time is the deadline it was armed for, and every slot due by then
   * fires now, lowest slot first (as timers of their own with equal deadlines would). A
   * slot set meanwhile, even with 0 ms, waits for a later task, as a new timer would.
   */
  #fire(): void {
    const times = this.#times;
    const count = times.length - 2;
    const now = times[this.#armed] as number;
    if (now === undefined) return; // not armed: a clock whose clearTimeout missed
    this.#handle = undefined;
    this.#armed = -1;
    times[count] = now;
    for (let slot = 0; slot < count; slot++) if ((times[slot] as number) <= now) this.#due |= 1 << slot;
    try {
      for (let slot = 0; this.#due !== 0; slot++) {
        if (this.#due & (1 << slot)) {
          this.#due &= ~(1 << slot);
          times[slot] = IDLE;
          this.#spec.fire(this.#owner, slot);
        }
      }
    } finally {
      this.#due = 0;
      // Unless a callback armed the clock timer already (by setting a slot), arm it now.
      if (this.#armed < 0) this.#arm(now, this.#settings.clock.now());
    }
  }
}
