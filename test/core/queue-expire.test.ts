/**
 * Expiry in the core's outbound queue (`src/core/queue.ts`): expire(before) removes, in queue order,
 * every message stamped at or before `before`, whatever order the stamps came in. The ttl built on it
 * is the `bufferPolicy` feature's: test/features/buffer-policy/ttl.test.ts.
 */

import { describe, expect, it } from 'vitest';
import { expireQueued, oldestQueued } from '../../src/core/queue.js';
import { queue } from './helpers.js';

describe('Queue', () => {
  describe('expire', () => {
    it('removes, in order, every message stamped at or before `before`', () => {
      // With a ttl of 100, `before` is now - 100: a message that waited exactly the ttl goes.
      const q = queue();
      q.push('a', 0);
      q.push('b', 50);
      q.push('c', 100);
      expect(oldestQueued(q)).toBe(0);
      expect(expireQueued(q, -1)).toEqual([]);
      expect(expireQueued(q, 0)).toEqual(['a']);
      expect(oldestQueued(q)).toBe(50);
      expect(expireQueued(q, 99)).toEqual(['b']);
      expect(q.length).toBe(1);
      expect(q.bytes).toBe(1);
      expect(oldestQueued(q)).toBe(100);
      expect(expireQueued(q, 9_900)).toEqual(['c']);
      expect(q.length).toBe(0);
      expect(q.bytes).toBe(0);
      expect(oldestQueued(q)).toBeUndefined();
    });

    it('push does not expire anything', () => {
      const q = queue(5);
      q.push('old', 0);
      expect(q.push('new', 1_000)).toEqual([]);
      expect(q.length).toBe(2);
      expect(expireQueued(q, 990)).toEqual(['old']);
    });

    it('expires nothing before -Infinity (a ttl of Infinity)', () => {
      const q = queue();
      q.push('a', 0);
      q.push('b', Number.MIN_SAFE_INTEGER);
      expect(expireQueued(q, Number.NEGATIVE_INFINITY)).toEqual([]);
      expect(q.length).toBe(2);
    });

    it('handles fractional stamps', () => {
      const q = queue();
      q.push('a', 1);
      expect(oldestQueued(q)).toBe(1);
      expect(expireQueued(q, 0.9)).toEqual([]);
      expect(expireQueued(q, 1)).toEqual(['a']);
    });

    it('expires every stale message even when now went backwards between pushes', () => {
      const q = queue();
      q.push('a', 500);
      q.push('b', 0); // the clock stepped back
      q.push('c', 600);
      expect(oldestQueued(q)).toBe(0); // the earliest stamp, not the front's
      expect(expireQueued(q, 0)).toEqual(['b']);
      expect(q.bytes).toBe(2);
      expect(q.length).toBe(2);
      expect(q.peek_()?.data).toBe('a');
      expect(oldestQueued(q)).toBe(500);
      expect(expireQueued(q, 550)).toEqual(['a']);
      expect(q.drain_()).toEqual(['c']);
    });

    it('returns the expired in queue order when out of order', () => {
      const q = queue();
      q.push('a', 30);
      q.push('b', 10);
      q.push('c', 20);
      q.push('d', 40);
      expect(oldestQueued(q)).toBe(10);
      expect(expireQueued(q, 30)).toEqual(['a', 'b', 'c']);
      expect(oldestQueued(q)).toBe(40);
      expect(q.length).toBe(1);
      expect(q.bytes).toBe(1);
    });
  });
});
