/** Small statistics helpers for the benchmark reports. */

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The p-th percentile (0–100) by nearest rank. */
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
