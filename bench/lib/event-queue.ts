/**
 * A binary min-heap of timed events for discrete-event simulations. Each event is a time (ms, any
 * finite number) and an integer payload (e.g. `client * 4 + kind`); events with equal times come
 * out in the order they were pushed, so a run is deterministic however the times tie.
 *
 * Stored in parallel typed arrays (no object per event, no GC pressure); grows by doubling.
 */
export class EventQueue {
  private times: Float64Array;
  private seqs: Float64Array;
  private payloads: Int32Array;
  private count = 0;
  private nextSeq = 0;

  constructor(initialCapacity = 64) {
    const capacity = Math.max(1, Math.floor(initialCapacity));
    this.times = new Float64Array(capacity);
    this.seqs = new Float64Array(capacity);
    this.payloads = new Int32Array(capacity);
  }

  /** Number of pending events. */
  get size(): number {
    return this.count;
  }

  /** Time of the earliest event; `Infinity` when empty. */
  peekTime(): number {
    return this.count === 0 ? Number.POSITIVE_INFINITY : (this.times[0] as number);
  }

  /** Forgets every event (keeps the storage). Insertion order restarts from zero. */
  clear(): void {
    this.count = 0;
    this.nextSeq = 0;
  }

  /** Schedules `payload` (a 32-bit integer) at `time`. */
  push(time: number, payload: number): void {
    if (this.count === this.times.length) this.grow();
    const seq = this.nextSeq++;
    const times = this.times;
    const seqs = this.seqs;
    const payloads = this.payloads;
    // Sift the hole up from the end, then drop the new event into it.
    let i = this.count++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent] as number;
      if (pt < time || (pt === time && (seqs[parent] as number) < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[parent] as number;
      payloads[i] = payloads[parent] as number;
      i = parent;
    }
    times[i] = time;
    seqs[i] = seq;
    payloads[i] = payload;
  }

  /** Removes the earliest event and returns its payload. Read its time with `peekTime()` first. */
  pop(): number {
    if (this.count === 0) throw new RangeError('pop() on an empty EventQueue');
    const times = this.times;
    const seqs = this.seqs;
    const payloads = this.payloads;
    const top = payloads[0] as number;
    const last = --this.count;
    if (last === 0) return top;
    // Move the last event into the root's hole and sift it down.
    const time = times[last] as number;
    const seq = seqs[last] as number;
    const payload = payloads[last] as number;
    const n = last;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n) {
        const ct = times[child] as number;
        const rt = times[right] as number;
        if (rt < ct || (rt === ct && (seqs[right] as number) < (seqs[child] as number))) child = right;
      }
      const ct = times[child] as number;
      if (time < ct || (time === ct && seq < (seqs[child] as number))) break;
      times[i] = ct;
      seqs[i] = seqs[child] as number;
      payloads[i] = payloads[child] as number;
      i = child;
    }
    times[i] = time;
    seqs[i] = seq;
    payloads[i] = payload;
    return top;
  }

  private grow(): void {
    const capacity = this.times.length * 2;
    const times = new Float64Array(capacity);
    const seqs = new Float64Array(capacity);
    const payloads = new Int32Array(capacity);
    times.set(this.times);
    seqs.set(this.seqs);
    payloads.set(this.payloads);
    this.times = times;
    this.seqs = seqs;
    this.payloads = payloads;
  }
}
