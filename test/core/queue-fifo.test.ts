/**
 * The core's outbound queue (`src/core/queue.ts`) as a FIFO: it shifts in push order with each
 * message's bytes and stamp, keeps the payloads themselves, counts bytes per payload type, and
 * drain() empties it in order.
 */
import { describe, expect, it } from 'vitest';
import { expireQueued, oldestQueued, type Queue, type QueuedMessage } from '../../src/core/queue.js';
import { queue } from './helpers.js';

/** Shifts everything out, keeping each message whole (drain() gives the data alone). */
function shiftAll(q: Queue): QueuedMessage[] {
  const out: QueuedMessage[] = [];
  for (let m = q.shift(); m; m = q.shift()) out.push(m);
  return out;
}

describe('Queue', () => {
  describe('FIFO', () => {
    it('starts empty', () => {
      const q = queue();
      expect(q.length).toBe(0);
      expect(q.bytes).toBe(0);
      expect(q.peek_()).toBeUndefined();
      expect(q.shift()).toBeUndefined();
      expect(q.drain_()).toEqual([]);
      expect(expireQueued(q, 1e12)).toEqual([]);
      expect(oldestQueued(q)).toBeUndefined();
      expect(q.maxMessages_).toBe(1000);
      expect(q.maxBytes_).toBe(1_048_576);
    });

    it('shifts in push order with data, bytes and at', () => {
      const q = queue();
      expect(q.push('a', 10)).toEqual([]);
      q.push('bc', 11);
      q.push('def', 12);
      expect(q.length).toBe(3);
      expect(q.bytes).toBe(6);
      expect(q.peek_()).toEqual({ data: 'a', bytes: 1, at: 10 });
      expect(q.length).toBe(3);
      expect(q.shift()).toEqual({ data: 'a', bytes: 1, at: 10 });
      expect(q.bytes).toBe(5);
      q.push('ghij', 13);
      expect([q.shift(), q.shift(), q.shift()].map((m) => m?.data)).toEqual(['bc', 'def', 'ghij']);
      expect(q.shift()).toBeUndefined();
      expect(q.length).toBe(0);
      expect(q.bytes).toBe(0);
    });

    it('keeps the payload objects themselves (no copies)', () => {
      const q = queue();
      const bytes = new Uint8Array([1, 2, 3]);
      const raw = new ArrayBuffer(8);
      q.push(bytes, 0);
      q.push(raw, 0);
      expect(q.shift()?.data).toBe(bytes);
      expect(q.shift()?.data).toBe(raw);
    });

    it('counts UTF-8 bytes for strings, byteLength for binary, size for Blobs', () => {
      const q = queue();
      q.push('é', 0); // 2
      q.push('€', 0); // 3
      q.push('😀', 0); // 4 (a surrogate pair)
      q.push('', 0); // 0
      q.push(new Uint8Array(5), 0);
      q.push(new Uint16Array(3), 0); // 6
      q.push(new Uint8Array(new ArrayBuffer(16), 4, 7), 0); // a view counts its own bytes: 7
      q.push(new ArrayBuffer(9), 0);
      q.push(new DataView(new ArrayBuffer(11)), 0);
      q.push(new Blob(['abc', 'é']), 0); // 5
      expect(q.bytes).toBe(52);
      expect(shiftAll(q).map((m) => m.bytes)).toEqual([2, 3, 4, 0, 5, 6, 7, 9, 11, 5]);
      expect(q.bytes).toBe(0);
    });

    it('keeps order and exact bytes over 100 000 messages (push, shift, interleaved, drain)', () => {
      const q = queue(200_000, Number.POSITIVE_INFINITY);
      let bytes = 0;
      for (let i = 0; i < 100_000; i++) {
        q.push(String(i), i);
        bytes += String(i).length;
      }
      expect(q.length).toBe(100_000);
      expect(q.bytes).toBe(bytes);
      for (let i = 0; i < 60_000; i++) {
        const message = q.shift();
        if (message?.data !== String(i)) throw new Error(`expected ${i}, got ${String(message?.data)}`);
        q.push(String(100_000 + i), 0);
        bytes += String(100_000 + i).length - String(i).length;
      }
      expect(q.bytes).toBe(bytes);
      const rest = q.drain_();
      expect(rest.length).toBe(100_000);
      expect(rest.every((data, i) => data === String(60_000 + i))).toBe(true);
      expect(q.length).toBe(0);
      expect(q.bytes).toBe(0);
    });
  });

  describe('drain', () => {
    it('returns everything in order, empties the queue and resets bytes', () => {
      const q = queue();
      const binary = new Uint8Array(3);
      q.push('é', 0);
      q.push(binary, 1);
      q.shift();
      q.push('x', 2);
      const all = q.drain_();
      expect(all).toHaveLength(2);
      expect(all[0]).toBe(binary);
      expect(all[1]).toBe('x');
      expect(q.length).toBe(0);
      expect(q.bytes).toBe(0);
      expect(q.peek_()).toBeUndefined();
      expect(oldestQueued(q)).toBeUndefined();
      expect(q.drain_()).toEqual([]);
      q.push('again', 3);
      expect(q.length).toBe(1);
      expect(q.bytes).toBe(5);
    });

    it('drains out-of-order stamps in queue order, and the queue works on afterwards', () => {
      const q = queue();
      q.push('a', 5);
      q.push('b', 1);
      expect(q.drain_()).toEqual(['a', 'b']);
      expect(q.bytes).toBe(0);
      q.push('c', 3);
      q.push('d', 4);
      expect(oldestQueued(q)).toBe(3);
      expect(expireQueued(q, 3)).toEqual(['c']);
      expect(q.drain_()).toEqual(['d']);
    });
  });
});
