/**
 * The limits of the core's outbound queue (`src/core/queue.ts`), by count and by bytes: push evicts
 * the oldest to make room, refuses a message that can never fit without evicting anything, and
 * fits() tells which without changing the queue. The `overflow` policies built on it are the
 * `bufferPolicy` feature's: test/features/buffer-policy/overflow.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { oldestQueued, type Queue } from '../../src/core/queue.js';
import type { Data } from '../../src/data.js';
import { queue } from './helpers.js';

/** Snapshot of the observable state, to show that a refused push changed nothing. */
function stateOf(q: Queue) {
  return { length: q.length, bytes: q.bytes, front: q.peek_(), oldest: oldestQueued(q) };
}

describe('Queue', () => {
  describe('eviction of the oldest', () => {
    it('evicts the oldest messages by count and returns them in order', () => {
      const q = queue(3);
      for (const [i, text] of ['a', 'b', 'c'].entries()) q.push(text, i);
      expect(q.push('d', 3)).toEqual(['a']);
      expect(q.push('e', 4)).toEqual(['b']);
      expect(q.length).toBe(3);
      expect(q.bytes).toBe(3);
      expect(q.drain_()).toEqual(['c', 'd', 'e']);
    });

    it('evicts as many as needed by bytes (multibyte strings)', () => {
      const q = queue(1000, 10);
      q.push('é', 0); // 2
      q.push('€', 1); // 3
      q.push('😀', 2); // 4 → 9 bytes
      expect(q.push('€€', 3)).toEqual(['é', '€']); // 6 → must free 5: evict é (2) and € (3)
      expect(q.bytes).toBe(10);
      expect(q.peek_()).toEqual({ data: '😀', bytes: 4, at: 2 });
      expect(oldestQueued(q)).toBe(2);
      expect(q.drain_()).toEqual(['😀', '€€']);
    });

    it('evicts by bytes with Uint8Array and ArrayBuffer payloads', () => {
      const q = queue(1000, 16);
      const first = new Uint8Array(6);
      const second = new ArrayBuffer(6);
      const third = new Uint8Array(4);
      q.push(first, 0);
      q.push(second, 0);
      q.push(third, 0);
      expect(q.bytes).toBe(16);
      const incoming = new ArrayBuffer(8);
      const evicted = q.push(incoming, 1) as Data[];
      expect(evicted).toEqual([first, second]);
      expect(evicted[0]).toBe(first);
      expect(evicted[1]).toBe(second);
      expect(q.bytes).toBe(12);
      const rest = q.drain_();
      expect(rest).toHaveLength(2);
      expect(rest[0]).toBe(third);
      expect(rest[1]).toBe(incoming);
    });

    it('may evict everything to fit a message exactly maxBytes long', () => {
      const q = queue(1000, 8);
      q.push('abc', 0);
      q.push('def', 0);
      expect(q.push(new Uint8Array(8), 1)).toEqual(['abc', 'def']);
      expect(q.length).toBe(1);
      expect(q.bytes).toBe(8);
    });

    it('refuses a message bigger than maxBytes without evicting anything', () => {
      const q = queue(1000, 10);
      q.push('abc', 0);
      q.push('def', 0);
      const before = stateOf(q);
      expect(q.fits_(12)).toBe(false);
      expect(q.push('€€€€', 1)).toBeUndefined(); // 12 bytes
      expect(stateOf(q)).toEqual(before);
      expect(q.length).toBe(2);
      expect(q.bytes).toBe(6);
      expect(q.drain_()).toEqual(['abc', 'def']);
    });

    it('maxMessages 0: every message is refused', () => {
      const q = queue(0);
      expect(q.fits_(0)).toBe(false);
      expect(q.push('a', 0)).toBeUndefined();
      expect(q.push('', 0)).toBeUndefined();
      expect(q.length).toBe(0);
      expect(q.bytes).toBe(0);
      expect(oldestQueued(q)).toBeUndefined();
    });

    it('maxBytes 0 still queues empty payloads, up to maxMessages', () => {
      const q = queue(2, 0);
      expect(q.push('', 0)).toEqual([]);
      expect(q.push(new Uint8Array(0), 0)).toEqual([]);
      expect(q.push(new ArrayBuffer(0), 0)).toEqual(['']);
      expect(q.push('x', 0)).toBeUndefined();
      expect(q.length).toBe(2);
      expect(q.bytes).toBe(0);
    });

    it('maxBytes Infinity limits by count only', () => {
      const q = queue(2, Number.POSITIVE_INFINITY);
      q.push(new ArrayBuffer(5_000_000), 0);
      q.push(new ArrayBuffer(5_000_000), 0);
      expect(q.bytes).toBe(10_000_000);
      expect(q.push('x', 0)).toHaveLength(1);
      expect(q.bytes).toBe(5_000_001);
    });

    it('fits() tells whether a message fits without evicting anything', () => {
      const q = queue(2, 10);
      expect(q.fits_(10)).toBe(true);
      expect(q.fits_(11)).toBe(false);
      q.push('€', 0); // 3
      expect(q.fits_(7)).toBe(true);
      expect(q.fits_(8)).toBe(false);
      q.push('', 0);
      expect(q.fits_(0)).toBe(false); // two messages already
      expect(q.length).toBe(2);
      expect(q.bytes).toBe(3);
    });
  });
});
