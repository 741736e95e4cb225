/**
 * unshift() on the core's outbound queue (`src/core/queue.ts`): a message shifted out and put back
 * (an interrupted flush) returns to the front with its bytes, may bring the queue over its limits
 * until the next push, and still expires by its own stamp.
 */
import { describe, expect, it } from 'vitest';
import { expireQueued, oldestQueued, type QueuedMessage } from '../../src/core/queue.js';
import { queue } from './helpers.js';

describe('Queue', () => {
  describe('unshift', () => {
    it('puts a shifted message back at the front, with its bytes', () => {
      const q = queue();
      q.push('one', 0);
      q.push('two', 1);
      const first = q.shift() as QueuedMessage;
      expect(q.bytes).toBe(3);
      q.unshift(first);
      expect(q.bytes).toBe(6);
      expect(q.peek_()).toBe(first);
      expect(q.drain_()).toEqual(['one', 'two']);
    });

    it('works on an empty queue and on a freshly compacted one', () => {
      const q = queue();
      q.push('a', 0);
      const a = q.shift() as QueuedMessage;
      q.unshift(a);
      expect(q.length).toBe(1);
      q.push('b', 1);
      q.push('c', 2);
      q.push('d', 3);
      const taken = [q.shift(), q.shift()] as QueuedMessage[]; // compacts: head reached half
      q.unshift(taken[1] as QueuedMessage);
      q.unshift(taken[0] as QueuedMessage);
      expect(q.bytes).toBe(4);
      expect(q.drain_()).toEqual(['a', 'b', 'c', 'd']);
    });

    it('bypasses the limits; the next push brings the queue back within them', () => {
      const q = queue(2, 4);
      q.push('ab', 0);
      q.push('cd', 1);
      q.unshift({ data: 'xyz', bytes: 3, at: 0 });
      expect(q.length).toBe(3);
      expect(q.bytes).toBe(7);
      expect(q.fits_(0)).toBe(false); // over the limits: a policy that does not evict refuses everything
      expect(q.push('e', 2)).toEqual(['xyz', 'ab']);
      expect(q.length).toBe(2);
      expect(q.bytes).toBe(3);
    });

    it('a refused push leaves a queue over the limits as it is', () => {
      const q = queue(1, 4);
      q.push('a', 0);
      q.unshift({ data: 'z', bytes: 1, at: 0 });
      expect(q.push('hello', 0)).toBeUndefined(); // could never fit
      expect(q.length).toBe(2);
      expect(q.bytes).toBe(2);
      expect(q.drain_()).toEqual(['z', 'a']);
    });

    it('a message put back in front of older ones still expires correctly', () => {
      const q = queue();
      q.push('old', 0);
      q.unshift({ data: 'young', bytes: 5, at: 8 });
      expect(q.peek_()?.data).toBe('young');
      expect(oldestQueued(q)).toBe(0); // the earliest stamp, not the front's
      expect(expireQueued(q, 0)).toEqual(['old']);
      expect(q.bytes).toBe(5);
      expect(oldestQueued(q)).toBe(8);
      expect(expireQueued(q, 7)).toEqual([]);
      expect(expireQueued(q, 8)).toEqual(['young']);
    });
  });
});
