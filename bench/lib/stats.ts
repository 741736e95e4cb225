/** Small statistics helpers for the benchmark reports. */

/** The median (the mean of the two middle values for an even count); NaN when empty. Infinity counts as "never". */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The p-th percentile (0–100) by nearest rank; NaN when empty. Infinity counts as "never". */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** "Intel(R) Xeon … · 2 cores · Node v20 · 2026-11-21": what a reader needs to weigh a figure. */
export async function machine(): Promise<string> {
  const os = await import('node:os');
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${cpu} · ${os.cpus().length} cores · ${os.platform()} · Node ${process.version} · ${new Date().toISOString().slice(0, 10)}`;
}

/**
 * The measuring loop of the benchmarks that compare subjects on one server: each subject once at
 * `warmup` size (code loaded, JIT warm), then `runs` rounds of every subject in turn at `size`;
 * the median of each subject's runs.
 */
export async function alternate<K extends string>(
  subjects: Readonly<Record<K, (size: number) => Promise<number>>>,
  { warmup, size, runs }: { warmup: number; size: number; runs: number },
): Promise<Record<K, number>> {
  const entries = Object.entries(subjects) as [K, (size: number) => Promise<number>][];
  for (const [, measure] of entries) await measure(warmup);
  const samples = new Map<K, number[]>(entries.map(([key]) => [key, []]));
  for (let i = 0; i < runs; i++) {
    for (const [key, measure] of entries) samples.get(key)?.push(await measure(size));
  }
  return Object.fromEntries([...samples].map(([key, values]) => [key, median(values)])) as Record<K, number>;
}
