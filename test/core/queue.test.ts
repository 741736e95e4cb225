/**
 * The core's outbound queue (`src/core/queue.ts`): a bounded FIFO by count and bytes that evicts
 * the oldest to make room. What it does beyond that (the `overflow` policies, the ttl) is the
 * `bufferPolicy` feature's: test/features/buffer-policy/buffer-policy.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Queue, type QueuedMessage } from '../../src/core/queue.js';
import type { Data } from '../../src/data.js';

/** A queue with the socket's default limits, unless given. */
function queue(maxMessages = 1000, maxBytes = 1_048_576): Queue {
  return new Queue(maxMessages, maxBytes);
}

/** Shifts everything out, keeping each message whole (drain() gives the data alone). */
function shiftAll(q: Queue): QueuedMessage[] {
  const out: QueuedMessage[] = [];
  for (let m = q.shift(); m; m = q.shift()) out.push(m);
  return out;
}

/** Snapshot of the observable state, to show that a refused push changed nothing. */
function stateOf(q: Queue) {
  return { length: q.length, bytes: q.bytes, front: q.peek(), oldest: q.oldest() };
}

describe('Queue', () => {
  describe('FIFO', () => {
    it('starts empty', () => {
      const q = queue();
      expect(q.length).toBe(0);
      expect(q.bytes).toBe(0);
      expect(q.peek()).toBeUndefined();
      expect(q.shift()).toBeUndefined();
      expect(q.drain()).toEqual([]);
      expect(q.expire(1e12)).toEqual([]);
      expect(q.oldest()).toBeUndefined();
      expect(q.maxMessages).toBe(1000);
      expect(q.maxBytes).toBe(1_048_576);
    });

    it('shifts in push order with data, bytes and at', () => {
      const q = queue();
      expect(q.push('a', 10)).toEqual([]);
      q.push('bc', 11);
      q.push('def', 12);
      expect(q.length).toBe(3);
      expect(q.bytes).toBe(6);
      expect(q.peek()).toEqual({ data: 'a', bytes: 1, at: 10 });
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
      const rest = q.drain();
      expect(rest.length).toBe(100_000);
      expect(rest.every((data, i) => data === String(60_000 + i))).toBe(true);
      expect(q.length).toBe(0);
      expect(q.bytes).toBe(0);
    });
  });

  describe('eviction of the oldest', () => {
    it('evicts the oldest messages by count and returns them in order', () => {
      const q = queue(3);
      for (const [i, text] of ['a', 'b', 'c'].entries()) q.push(text, i);
      expect(q.push('d', 3)).toEqual(['a']);
      expect(q.push('e', 4)).toEqual(['b']);
      expect(q.length).toBe(3);
      expect(q.bytes).toBe(3);
      expect(q.drain()).toEqual(['c', 'd', 'e']);
    });

    it('evicts as many as needed by bytes (multibyte strings)', () => {
      const q = queue(1000, 10);
      q.push('é', 0); // 2
      q.push('€', 1); // 3
      q.push('😀', 2); // 4 → 9 bytes
      expect(q.push('€€', 3)).toEqual(['é', '€']); // 6 → must free 5: evict é (2) and € (3)
      expect(q.bytes).toBe(10);
      expect(q.peek()).toEqual({ data: '😀', bytes: 4, at: 2 });
      expect(q.oldest()).toBe(2);
      expect(q.drain()).toEqual(['😀', '€€']);
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
      const rest = q.drain();
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
      expect(q.fits(12)).toBe(false);
      expect(q.push('€€€€', 1)).toBeUndefined(); // 12 bytes
      expect(stateOf(q)).toEqual(before);
      expect(q.length).toBe(2);
      expect(q.bytes).toBe(6);
      expect(q.drain()).toEqual(['abc', 'def']);
    });

    it('maxMessages 0: every message is refused', () => {
      const q = queue(0);
      expect(q.fits(0)).toBe(false);
      expect(q.push('a', 0)).toBeUndefined();
      expect(q.push('', 0)).toBeUndefined();
      expect(q.length).toBe(0);
      expect(q.bytes).toBe(0);
      expect(q.oldest()).toBeUndefined();
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
      expect(q.fits(10)).toBe(true);
      expect(q.fits(11)).toBe(false);
      q.push('€', 0); // 3
      expect(q.fits(7)).toBe(true);
      expect(q.fits(8)).toBe(false);
      q.push('', 0);
      expect(q.fits(0)).toBe(false); // two messages already
      expect(q.length).toBe(2);
      expect(q.bytes).toBe(3);
    });
  });

  describe('expire', () => {
    it('removes, in order, every message stamped at or before `before`', () => {
      // With a ttl of 100, `before` is now - 100: a message that waited exactly the ttl goes.
      const q = queue();
      q.push('a', 0);
      q.push('b', 50);
      q.push('c', 100);
      expect(q.oldest()).toBe(0);
      expect(q.expire(-1)).toEqual([]);
      expect(q.expire(0)).toEqual(['a']);
      expect(q.oldest()).toBe(50);
      expect(q.expire(99)).toEqual(['b']);
      expect(q.length).toBe(1);
      expect(q.bytes).toBe(1);
      expect(q.oldest()).toBe(100);
      expect(q.expire(9_900)).toEqual(['c']);
      expect(q.length).toBe(0);
      expect(q.bytes).toBe(0);
      expect(q.oldest()).toBeUndefined();
    });

    it('push does not expire anything', () => {
      const q = queue(5);
      q.push('old', 0);
      expect(q.push('new', 1_000)).toEqual([]);
      expect(q.length).toBe(2);
      expect(q.expire(990)).toEqual(['old']);
    });

    it('expires nothing before -Infinity (a ttl of Infinity)', () => {
      const q = queue();
      q.push('a', 0);
      q.push('b', Number.MIN_SAFE_INTEGER);
      expect(q.expire(Number.NEGATIVE_INFINITY)).toEqual([]);
      expect(q.length).toBe(2);
    });

    it('handles fractional stamps', () => {
      const q = queue();
      q.push('a', 1);
      expect(q.oldest()).toBe(1);
      expect(q.expire(0.9)).toEqual([]);
      expect(q.expire(1)).toEqual(['a']);
    });

    it('expires every stale message even when now went backwards between pushes', () => {
      const q = queue();
      q.push('a', 500);
      q.push('b', 0); // the clock stepped back
      q.push('c', 600);
      expect(q.oldest()).toBe(0); // the earliest stamp, not the front's
      expect(q.expire(0)).toEqual(['b']);
      expect(q.bytes).toBe(2);
      expect(q.length).toBe(2);
      expect(q.peek()?.data).toBe('a');
      expect(q.oldest()).toBe(500);
      expect(q.expire(550)).toEqual(['a']);
      expect(q.drain()).toEqual(['c']);
    });

    it('returns the expired in queue order when out of order', () => {
      const q = queue();
      q.push('a', 30);
      q.push('b', 10);
      q.push('c', 20);
      q.push('d', 40);
      expect(q.oldest()).toBe(10);
      expect(q.expire(30)).toEqual(['a', 'b', 'c']);
      expect(q.oldest()).toBe(40);
      expect(q.length).toBe(1);
      expect(q.bytes).toBe(1);
    });
  });

  describe('unshift', () => {
    it('puts a shifted message back at the front, with its bytes', () => {
      const q = queue();
      q.push('one', 0);
      q.push('two', 1);
      const first = q.shift() as QueuedMessage;
      expect(q.bytes).toBe(3);
      q.unshift(first);
      expect(q.bytes).toBe(6);
      expect(q.peek()).toBe(first);
      expect(q.drain()).toEqual(['one', 'two']);
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
      expect(q.drain()).toEqual(['a', 'b', 'c', 'd']);
    });

    it('bypasses the limits; the next push brings the queue back within them', () => {
      const q = queue(2, 4);
      q.push('ab', 0);
      q.push('cd', 1);
      q.unshift({ data: 'xyz', bytes: 3, at: 0 });
      expect(q.length).toBe(3);
      expect(q.bytes).toBe(7);
      expect(q.fits(0)).toBe(false); // over the limits: a policy that does not evict refuses everything
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
      expect(q.drain()).toEqual(['z', 'a']);
    });

    it('a message put back in front of older ones still expires correctly', () => {
      const q = queue();
      q.push('old', 0);
      q.unshift({ data: 'young', bytes: 5, at: 8 });
      expect(q.peek()?.data).toBe('young');
      expect(q.oldest()).toBe(0); // the earliest stamp, not the front's
      expect(q.expire(0)).toEqual(['old']);
      expect(q.bytes).toBe(5);
      expect(q.oldest()).toBe(8);
      expect(q.expire(7)).toEqual([]);
      expect(q.expire(8)).toEqual(['young']);
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
      const all = q.drain();
      expect(all).toHaveLength(2);
      expect(all[0]).toBe(binary);
      expect(all[1]).toBe('x');
      expect(q.length).toBe(0);
      expect(q.bytes).toBe(0);
      expect(q.peek()).toBeUndefined();
      expect(q.oldest()).toBeUndefined();
      expect(q.drain()).toEqual([]);
      q.push('again', 3);
      expect(q.length).toBe(1);
      expect(q.bytes).toBe(5);
    });

    it('drains out-of-order stamps in queue order, and the queue works on afterwards', () => {
      const q = queue();
      q.push('a', 5);
      q.push('b', 1);
      expect(q.drain()).toEqual(['a', 'b']);
      expect(q.bytes).toBe(0);
      q.push('c', 3);
      q.push('d', 4);
      expect(q.oldest()).toBe(3);
      expect(q.expire(3)).toEqual(['c']);
      expect(q.drain()).toEqual(['d']);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Property: the queue against a plain-array model, with accounting of every message pushed.
// ---------------------------------------------------------------------------------------------

type PayloadKind = 'string' | 'bytes' | 'arraybuffer';

/** A string of exactly `size` UTF-8 bytes, mixing 1- to 4-byte characters. */
function utf8String(size: number, seed: number): string {
  const chars = ['😀', '€', 'é', 'a'];
  let text = '';
  let left = size;
  let i = seed;
  while (left > 0) {
    const char = chars[i++ % chars.length] as string;
    const width = Buffer.byteLength(char, 'utf8');
    if (width <= left) {
      text += char;
      left -= width;
    } else if (left < 4) {
      text += 'a'.repeat(left);
      left = 0;
    }
  }
  return text;
}

function payload(kind: PayloadKind, size: number, seed: number): Data {
  if (kind === 'bytes') return new Uint8Array(size);
  if (kind === 'arraybuffer') return new ArrayBuffer(size);
  return utf8String(size, seed);
}

/** Size computed independently of `byteLengthOf`. */
function oracleSize(data: Data): number {
  if (typeof data === 'string') return Buffer.byteLength(data, 'utf8');
  return (data as ArrayBuffer).byteLength;
}

type Op =
  | { readonly op: 'push'; readonly kind: PayloadKind; readonly size: number }
  | { readonly op: 'shift' }
  | { readonly op: 'drain' }
  | { readonly op: 'unshift' }
  | { readonly op: 'advance'; readonly by: number }
  | { readonly op: 'expire' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('push' as const),
      kind: fc.constantFrom<PayloadKind>('string', 'bytes', 'arraybuffer'),
      size: fc.nat({ max: 14 }),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ op: 'shift' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'drain' as const }) },
  { weight: 2, arbitrary: fc.constant({ op: 'unshift' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('advance' as const), by: fc.integer({ min: -3, max: 8 }) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'expire' as const }) },
);

const optionsArb = fc.record({
  maxMessages: fc.nat({ max: 6 }),
  maxBytes: fc.oneof(fc.nat({ max: 40 }), fc.constant(Number.POSITIVE_INFINITY)),
  ttl: fc.constantFrom(Number.POSITIVE_INFINITY, 4, 10),
});

interface Entry {
  readonly id: number;
  readonly data: Data;
  readonly size: number;
  readonly at: number;
}

type Fate = 'queued' | 'taken' | 'evicted' | 'refused' | 'expired';

describe('Queue properties', () => {
  it('matches a plain-array model; limits hold after push; nothing vanishes; order is kept', () => {
    fc.assert(
      fc.property(optionsArb, fc.array(opArb, { maxLength: 80 }), (options, ops) => {
        const { maxMessages, maxBytes, ttl } = options;
        const q = new Queue(maxMessages, maxBytes);
        const model: Entry[] = [];
        const fate = new Map<number, Fate>();
        /** Messages shifted out and not yet put back, most recent last. */
        const taken: { message: QueuedMessage; id: number }[] = [];
        let now = 1_000;
        let nextId = 0;

        const within = () => q.length <= maxMessages && q.bytes <= maxBytes;
        const leave = (id: number, to: Fate) => {
          expect(fate.get(id)).toBe('queued'); // leaves at most once
          fate.set(id, to);
        };
        /** The queue's output must be the model's, message for message (the very same objects). */
        const sameData = (data: readonly Data[], entries: readonly Entry[]) => {
          expect(data.length).toBe(entries.length);
          data.forEach((d, i) => {
            expect(d).toBe((entries[i] as Entry).data);
          });
        };
        const modelBytes = () => model.reduce((sum, e) => sum + e.size, 0);

        for (const step of ops) {
          switch (step.op) {
            case 'push': {
              const id = nextId++;
              const data = payload(step.kind, step.size, id);
              const size = oracleSize(data);
              expect(size).toBe(step.size);
              fate.set(id, 'queued');
              const withinBefore = within();
              const fits = () => model.length + 1 <= maxMessages && modelBytes() + size <= maxBytes;
              const fitsAlone = maxMessages >= 1 && size <= maxBytes;
              expect(q.fits(size)).toBe(fits());

              // Expected outcome from the spec, on the model.
              const expectedEvicted: Entry[] = [];
              if (fitsAlone) while (!fits()) expectedEvicted.push(model.shift() as Entry);

              const result = q.push(data, now);
              if (!fitsAlone) {
                expect(result).toBeUndefined();
                fate.set(id, 'refused');
              } else {
                expect(result).toBeDefined();
                sameData(result as Data[], expectedEvicted);
                for (const e of expectedEvicted) leave(e.id, 'evicted');
                model.push({ id, data, size, at: now });
              }
              // The limits hold after a push, unless an unshift broke them and the push could not fix it.
              if (withinBefore || result !== undefined) {
                expect(q.length).toBeLessThanOrEqual(maxMessages);
                expect(q.bytes).toBeLessThanOrEqual(maxBytes);
              }
              break;
            }
            case 'shift': {
              const message = q.shift();
              const entry = model.shift();
              if (entry === undefined) expect(message).toBeUndefined();
              else {
                expect(message?.data).toBe(entry.data);
                expect(message?.bytes).toBe(entry.size);
                expect(message?.at).toBe(entry.at);
                leave(entry.id, 'taken');
                taken.push({ message: message as QueuedMessage, id: entry.id });
              }
              break;
            }
            case 'drain': {
              const all = q.drain();
              const entries = model.splice(0);
              sameData(all, entries);
              for (const e of entries) leave(e.id, 'taken');
              taken.length = 0; // drained messages are sent, not put back
              break;
            }
            case 'unshift': {
              const last = taken.pop();
              if (last === undefined) break;
              q.unshift(last.message);
              const { data, bytes, at } = last.message;
              model.unshift({ id: last.id, data, size: bytes, at });
              expect(fate.get(last.id)).toBe('taken');
              fate.set(last.id, 'queued');
              break;
            }
            case 'advance':
              now += step.by; // may step back: a wall clock can be adjusted
              break;
            case 'expire': {
              // What the bufferPolicy feature asks: everything that waited at least ttl.
              const expired = q.expire(now - ttl);
              const stale = model.filter((e) => now - e.at >= ttl);
              sameData(expired, stale);
              for (const e of stale) leave(e.id, 'expired');
              model.splice(0, model.length, ...model.filter((e) => now - e.at < ttl));
              break;
            }
          }

          // After every step: same length, exact bytes, same front, same oldest stamp.
          expect(q.length).toBe(model.length);
          expect(q.bytes).toBe(modelBytes());
          expect(q.peek()?.data).toBe(model[0]?.data);
          expect(q.peek()?.at).toBe(model[0]?.at);
          expect(q.oldest()).toBe(model.length === 0 ? undefined : Math.min(...model.map((e) => e.at)));
          expect([...fate.values()].filter((f) => f === 'queued').length).toBe(model.length);
        }

        // Finally drain: everything still queued comes out in model order, and every message
        // pushed has exactly one fate.
        const rest = q.drain();
        sameData(rest, model);
        for (const e of model) leave(e.id, 'taken');
        expect(q.bytes).toBe(0);
        expect(q.length).toBe(0);
        expect(fate.size).toBe(nextId);
        expect([...fate.values()].every((f) => f !== 'queued')).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
