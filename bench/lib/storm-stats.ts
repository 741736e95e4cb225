/** Clock and statistics helpers of the reconnect-storm benchmark (bench/storm.ts). */

/** Milliseconds on CLOCK_MONOTONIC (`process.hrtime`), which every process of the machine shares. */
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Most timestamps in any half-open window [t, t + width) (sliding; `times` need not be sorted). */
export function slidingPeak(times: readonly number[], width: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) >= width) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

/** Counts per fixed bin [from + i·width, from + (i+1)·width), i < bins. */
export function bin(times: readonly number[], from: number, width: number, bins: number): number[] {
  const out = new Array<number>(bins).fill(0);
  for (const t of times) {
    const i = Math.floor((t - from) / width);
    if (i >= 0 && i < bins) out[i] = (out[i] as number) + 1;
  }
  return out;
}

export function countIn(times: readonly number[], from: number, to: number): number {
  let n = 0;
  for (const t of times) if (t >= from && t < to) n++;
  return n;
}
