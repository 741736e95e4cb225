/**
 * Parses an HTTP `Retry-After` header (RFC 9110 §10.2.3): either a number of seconds or an
 * HTTP-date. Returns milliseconds to wait from `now`, or `undefined` when absent or unparsable.
 */
export function parseRetryAfter(header: unknown, now: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP-date form names its month; without one, Date.parse would read "-5" or "1.5" as a year.
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
