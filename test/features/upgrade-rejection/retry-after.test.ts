import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../src/features/upgrade-rejection/retry-after.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');

describe('parseRetryAfter (RFC 9110 §10.2.3)', () => {
  it('delay-seconds: a whole number of seconds, in ms', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(' 5 ', NOW)).toBe(5_000);
  });

  it('HTTP-date: the time left until then, from now; a date already past means no wait', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:30 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:59:00 GMT', NOW)).toBe(0);
  });

  it('a header sent twice (ws gives an array): the first counts', () => {
    expect(parseRetryAfter(['2', '9'], NOW)).toBe(2_000);
  });

  it('absent, empty or unparsable: undefined (the backoff alone decides)', () => {
    for (const header of [undefined, '', '   ', 'soon', '-5', '1.5', 7, null, []]) {
      expect(parseRetryAfter(header, NOW), JSON.stringify(header)).toBeUndefined();
    }
  });
});
