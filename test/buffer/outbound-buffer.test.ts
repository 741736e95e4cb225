import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BUFFER_DEFAULTS,
  type BufferOptions,
  OutboundBuffer,
  type OverflowPolicy,
  type PushResult,
  type QueuedMessage,
  resolveBufferOptions,
} from '../../src/buffer/outbound-buffer.js';
import type { Data } from '../../src/data.js';
import { isResilientSocketError, ResilientSocketError } from '../../src/errors.js';

function buffer(options: BufferOptions = {}): OutboundBuffer {
  return new OutboundBuffer(resolveBufferOptions(options));
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw, but it returned');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Asserts exactly `Type`, a message naming `` `name` `` and ending with `got <received>`. */
function expectOptionError(fn: () => unknown, Type: ErrorConstructor, name: string, received: string): Error {
  const error = thrown(fn) as Error;
  expect(error).toBeInstanceOf(Type);
  expect(error.constructor).toBe(Type);
  expect(error.message).toMatch(new RegExp(`\`${escapeRegExp(name)}\`.*got ${escapeRegExp(received)}$`));
  return error;
}

/** Snapshot of the observable state, to show that a failed push changed nothing. */
function stateOf(b: OutboundBuffer) {
  return { length: b.length, bytes: b.bytes, front: b.peek(), next: b.nextExpiry() };
}

/** The `data` of each message. */
const dataOf = (messages: readonly QueuedMessage[]): Data[] => messages.map((m) => m.data);

describe('resolveBufferOptions', () => {
  it('defaults to 1000 messages, 1 MiB, drop-oldest, no ttl', () => {
    const expected = { maxMessages: 1000, maxBytes: 1_048_576, overflow: 'drop-oldest', ttl: Number.POSITIVE_INFINITY };
    expect(resolveBufferOptions(undefined)).toEqual(expected);
    expect(resolveBufferOptions({})).toEqual(expected);
    expect(BUFFER_DEFAULTS).toEqual(expected);
    expect(Object.isFrozen(resolveBufferOptions(undefined))).toBe(true);
  });

  it('keeps the given values', () => {
    const options = { maxMessages: 0, maxBytes: Number.POSITIVE_INFINITY, overflow: 'error', ttl: 0.5 } as const;
    expect(resolveBufferOptions(options)).toEqual(options);
    expect(resolveBufferOptions({ maxBytes: 0, overflow: 'drop-newest', ttl: 30_000 })).toEqual({
      maxMessages: 1000,
      maxBytes: 0,
      overflow: 'drop-newest',
      ttl: 30_000,
    });
  });

  it.each([
    [null, 'null'],
    [[], 'an array of length 0'],
    [5, 'number 5'],
    ['drop-oldest', 'string "drop-oldest"'],
  ])('throws a TypeError when options is %j', (options, shown) => {
    expectOptionError(() => resolveBufferOptions(options), TypeError, 'buffer', shown);
  });

  it.each([
    ['buffer.maxMessages', { maxMessages: '10' }, 'string "10"'],
    ['buffer.maxMessages', { maxMessages: null }, 'null'],
    ['buffer.maxMessages', { maxMessages: 10n }, 'bigint 10n'],
    ['buffer.maxBytes', { maxBytes: '1024' }, 'string "1024"'],
    ['buffer.maxBytes', { maxBytes: true }, 'boolean true'],
    ['buffer.overflow', { overflow: 1 }, 'number 1'],
    ['buffer.overflow', { overflow: null }, 'null'],
    ['buffer.overflow', { overflow: ['error'] }, 'an array of length 1'],
    ['buffer.ttl', { ttl: '1000' }, 'string "1000"'],
    ['buffer.ttl', { ttl: {} }, 'an object'],
  ])('throws a TypeError naming `%s` for a wrong type: %o', (name, options, shown) => {
    expectOptionError(() => resolveBufferOptions(options), TypeError, name, shown);
  });

  it.each([
    ['buffer.maxMessages', { maxMessages: -1 }, '-1', 'an integer >= 0'],
    ['buffer.maxMessages', { maxMessages: 1.5 }, '1.5', 'an integer >= 0'],
    ['buffer.maxMessages', { maxMessages: Number.NaN }, 'NaN', 'an integer >= 0'],
    ['buffer.maxMessages', { maxMessages: Number.POSITIVE_INFINITY }, 'Infinity', 'an integer >= 0'],
    ['buffer.maxBytes', { maxBytes: -1 }, '-1', 'an integer >= 0 or Infinity'],
    ['buffer.maxBytes', { maxBytes: 0.5 }, '0.5', 'an integer >= 0 or Infinity'],
    ['buffer.maxBytes', { maxBytes: Number.NEGATIVE_INFINITY }, '-Infinity', 'an integer >= 0 or Infinity'],
    ['buffer.ttl', { ttl: 0 }, '0', 'a finite number > 0 or Infinity'],
    ['buffer.ttl', { ttl: -5 }, '-5', 'a finite number > 0 or Infinity'],
    ['buffer.ttl', { ttl: Number.NaN }, 'NaN', 'a finite number > 0 or Infinity'],
  ])('throws a RangeError naming `%s` for a bad value: %o', (name, options, shown, rule) => {
    const error = expectOptionError(() => resolveBufferOptions(options), RangeError, name, shown);
    expect(error.message).toBe(`Expected \`${name}\` to be ${rule}, got ${shown}`);
  });

  it('throws a RangeError listing the policies for an unknown overflow string', () => {
    const error = expectOptionError(
      () => resolveBufferOptions({ overflow: 'drop-all' }),
      RangeError,
      'buffer.overflow',
      '"drop-all"',
    );
    expect(error.message).toBe(
      'Expected `buffer.overflow` to be "drop-oldest", "drop-newest" or "error", got "drop-all"',
    );
    expectOptionError(
      () => resolveBufferOptions({ overflow: 'DROP-OLDEST' }),
      RangeError,
      'buffer.overflow',
      '"DROP-OLDEST"',
    );
    expectOptionError(() => resolveBufferOptions({ overflow: '' }), RangeError, 'buffer.overflow', '""');
  });

  it('lists the policies in the TypeError too', () => {
    const error = expectOptionError(
      () => resolveBufferOptions({ overflow: 2 }),
      TypeError,
      'buffer.overflow',
      'number 2',
    );
    expect(error.message).toContain('"drop-oldest", "drop-newest" or "error"');
  });

  it('the OutboundBuffer constructor validates as well', () => {
    expectOptionError(
      () => new OutboundBuffer({ ...BUFFER_DEFAULTS, maxMessages: -1 }),
      RangeError,
      'buffer.maxMessages',
      '-1',
    );
    expect(buffer({ maxMessages: 3 }).options).toEqual({ ...BUFFER_DEFAULTS, maxMessages: 3 });
  });
});

describe('OutboundBuffer', () => {
  describe('FIFO', () => {
    it('starts empty', () => {
      const b = buffer();
      expect(b.length).toBe(0);
      expect(b.bytes).toBe(0);
      expect(b.peek()).toBeUndefined();
      expect(b.shift()).toBeUndefined();
      expect(b.drain()).toEqual([]);
      expect(b.expire(1e12)).toEqual([]);
      expect(b.nextExpiry()).toBeUndefined();
    });

    it('shifts in push order with data, bytes and enqueuedAt', () => {
      const b = buffer();
      expect(b.push('a', 10)).toEqual({ status: 'buffered', evicted: [] });
      b.push('bc', 11);
      b.push('def', 12);
      expect(b.length).toBe(3);
      expect(b.bytes).toBe(6);
      expect(b.peek()).toEqual({ data: 'a', bytes: 1, enqueuedAt: 10 });
      expect(b.length).toBe(3);
      expect(b.shift()).toEqual({ data: 'a', bytes: 1, enqueuedAt: 10 });
      expect(b.bytes).toBe(5);
      b.push('ghij', 13);
      expect(dataOf([b.shift(), b.shift(), b.shift()] as QueuedMessage[])).toEqual(['bc', 'def', 'ghij']);
      expect(b.shift()).toBeUndefined();
      expect(b.length).toBe(0);
      expect(b.bytes).toBe(0);
    });

    it('keeps the payload objects themselves (no copies)', () => {
      const b = buffer();
      const bytes = new Uint8Array([1, 2, 3]);
      const raw = new ArrayBuffer(8);
      b.push(bytes, 0);
      b.push(raw, 0);
      expect(b.shift()?.data).toBe(bytes);
      expect(b.shift()?.data).toBe(raw);
    });

    it('counts UTF-8 bytes for strings, byteLength for binary, size for Blobs', () => {
      const b = buffer();
      b.push('é', 0); // 2
      b.push('€', 0); // 3
      b.push('😀', 0); // 4 (a surrogate pair)
      b.push('', 0); // 0
      b.push(new Uint8Array(5), 0);
      b.push(new Uint16Array(3), 0); // 6
      b.push(new Uint8Array(new ArrayBuffer(16), 4, 7), 0); // a view counts its own bytes: 7
      b.push(new ArrayBuffer(9), 0);
      b.push(new DataView(new ArrayBuffer(11)), 0);
      b.push(new Blob(['abc', 'é']), 0); // 5
      expect(b.drain().map((m) => m.bytes)).toEqual([2, 3, 4, 0, 5, 6, 7, 9, 11, 5]);
    });

    it('keeps order and exact bytes over 100 000 messages (push, shift, interleaved, drain)', () => {
      const b = buffer({ maxMessages: 200_000, maxBytes: Number.POSITIVE_INFINITY });
      for (let i = 0; i < 100_000; i++) b.push(String(i), i);
      expect(b.length).toBe(100_000);
      for (let i = 0; i < 60_000; i++) {
        const message = b.shift();
        if (message?.data !== String(i)) throw new Error(`expected ${i}, got ${String(message?.data)}`);
        b.push(String(100_000 + i), 0);
      }
      const rest = b.drain();
      expect(rest.length).toBe(100_000);
      expect(rest.every((m, i) => m.data === String(60_000 + i))).toBe(true);
      expect(b.length).toBe(0);
      expect(b.bytes).toBe(0);
    });
  });

  describe("overflow 'drop-oldest'", () => {
    it('evicts the oldest messages by count and returns them in order', () => {
      const b = buffer({ maxMessages: 3 });
      for (const [i, text] of ['a', 'b', 'c'].entries()) b.push(text, i);
      const result = b.push('d', 3);
      expect(result).toEqual({ status: 'buffered', evicted: [{ data: 'a', bytes: 1, enqueuedAt: 0 }] });
      expect(b.push('e', 4).evicted.map((m) => m.data)).toEqual(['b']);
      expect(b.length).toBe(3);
      expect(b.bytes).toBe(3);
      expect(dataOf(b.drain())).toEqual(['c', 'd', 'e']);
    });

    it('evicts as many as needed by bytes (multibyte strings)', () => {
      const b = buffer({ maxBytes: 10 });
      b.push('é', 0); // 2
      b.push('€', 1); // 3
      b.push('😀', 2); // 4 → 9 bytes
      const result = b.push('€€', 3); // 6 → must free 5: evict é (2) and € (3)
      expect(result.status).toBe('buffered');
      expect(result.evicted).toEqual([
        { data: 'é', bytes: 2, enqueuedAt: 0 },
        { data: '€', bytes: 3, enqueuedAt: 1 },
      ]);
      expect(b.bytes).toBe(10);
      expect(dataOf(b.drain())).toEqual(['😀', '€€']);
    });

    it('evicts by bytes with Uint8Array and ArrayBuffer payloads', () => {
      const b = buffer({ maxBytes: 16 });
      const first = new Uint8Array(6);
      const second = new ArrayBuffer(6);
      const third = new Uint8Array(4);
      b.push(first, 0);
      b.push(second, 0);
      b.push(third, 0);
      expect(b.bytes).toBe(16);
      const incoming = new ArrayBuffer(8);
      const result = b.push(incoming, 1);
      expect(result.status).toBe('buffered');
      expect(result.evicted.map((m) => m.data)).toEqual([first, second]);
      expect(result.evicted[0]?.data).toBe(first);
      expect(result.evicted[1]?.data).toBe(second);
      expect(b.bytes).toBe(12);
      expect(b.drain().map((m) => m.data)).toEqual([third, incoming]);
    });

    it('may evict everything to fit a message exactly maxBytes long', () => {
      const b = buffer({ maxBytes: 8 });
      b.push('abc', 0);
      b.push('def', 0);
      const result = b.push(new Uint8Array(8), 1);
      expect(dataOf(result.evicted)).toEqual(['abc', 'def']);
      expect(b.length).toBe(1);
      expect(b.bytes).toBe(8);
    });

    it('drops a message bigger than maxBytes without evicting anything', () => {
      const b = buffer({ maxBytes: 10 });
      b.push('abc', 0);
      b.push('def', 0);
      expect(b.push('€€€€', 1)).toEqual({ status: 'dropped', evicted: [] }); // 12 bytes
      expect(b.length).toBe(2);
      expect(b.bytes).toBe(6);
      expect(dataOf(b.drain())).toEqual(['abc', 'def']);
    });

    it('maxMessages 0: every message is dropped', () => {
      const b = buffer({ maxMessages: 0 });
      expect(b.push('a', 0)).toEqual({ status: 'dropped', evicted: [] });
      expect(b.push('', 0)).toEqual({ status: 'dropped', evicted: [] });
      expect(b.length).toBe(0);
      expect(b.bytes).toBe(0);
    });

    it('maxBytes 0 still buffers empty payloads, up to maxMessages', () => {
      const b = buffer({ maxBytes: 0, maxMessages: 2 });
      expect(b.push('', 0).status).toBe('buffered');
      expect(b.push(new Uint8Array(0), 0).status).toBe('buffered');
      expect(dataOf(b.push(new ArrayBuffer(0), 0).evicted)).toEqual(['']);
      expect(b.push('x', 0)).toEqual({ status: 'dropped', evicted: [] });
      expect(b.length).toBe(2);
      expect(b.bytes).toBe(0);
    });

    it('maxBytes Infinity limits by count only', () => {
      const b = buffer({ maxBytes: Number.POSITIVE_INFINITY, maxMessages: 2 });
      b.push(new ArrayBuffer(5_000_000), 0);
      b.push(new ArrayBuffer(5_000_000), 0);
      expect(b.bytes).toBe(10_000_000);
      expect(b.push('x', 0).evicted).toHaveLength(1);
      expect(b.bytes).toBe(5_000_001);
    });
  });

  describe("overflow 'drop-newest'", () => {
    it('drops the new message by count and keeps the queue', () => {
      const b = buffer({ maxMessages: 2, overflow: 'drop-newest' });
      b.push('a', 0);
      b.push('b', 0);
      expect(b.push('c', 0)).toEqual({ status: 'dropped', evicted: [] });
      expect(b.length).toBe(2);
      expect(b.shift()?.data).toBe('a');
      expect(b.push('d', 0).status).toBe('buffered');
      expect(dataOf(b.drain())).toEqual(['b', 'd']);
    });

    it('drops by bytes (multibyte, Uint8Array, ArrayBuffer)', () => {
      const b = buffer({ maxBytes: 10, overflow: 'drop-newest' });
      b.push('😀€', 0); // 7
      expect(b.push('😀', 0).status).toBe('dropped'); // 7 + 4 > 10
      expect(b.push(new Uint8Array(4), 0).status).toBe('dropped');
      expect(b.push(new ArrayBuffer(4), 0).status).toBe('dropped');
      expect(b.push('€', 0).status).toBe('buffered'); // 7 + 3 = 10 exactly
      expect(b.push('', 0).status).toBe('buffered'); // 0 bytes still fit
      expect(b.bytes).toBe(10);
      expect(b.length).toBe(3);
    });

    it('drops a message bigger than maxBytes, and everything with maxMessages 0', () => {
      expect(buffer({ maxBytes: 3, overflow: 'drop-newest' }).push('abcd', 0)).toEqual({
        status: 'dropped',
        evicted: [],
      });
      const none = buffer({ maxMessages: 0, overflow: 'drop-newest' });
      expect(none.push('', 0).status).toBe('dropped');
      expect(none.length).toBe(0);
    });
  });

  describe("overflow 'error'", () => {
    function expectOverflow(b: OutboundBuffer, data: Data): ResilientSocketError {
      const before = stateOf(b);
      const error = thrown(() => b.push(data, 99));
      expect(error).toBeInstanceOf(ResilientSocketError);
      expect(isResilientSocketError(error)).toBe(true);
      expect((error as ResilientSocketError).code).toBe('ERR_RS_BUFFER_OVERFLOW');
      expect((error as ResilientSocketError).name).toBe('ResilientSocketError');
      expect(stateOf(b)).toEqual(before);
      return error as ResilientSocketError;
    }

    it('throws ERR_RS_BUFFER_OVERFLOW by count and leaves the queue unchanged', () => {
      const b = buffer({ maxMessages: 2, overflow: 'error' });
      b.push('a', 0);
      b.push('bc', 1);
      const error = expectOverflow(b, 'd');
      expect(error.message).toBe(
        'Outbound buffer overflow: the buffer holds 2 messages of 2 and 3 bytes of 1048576; ' +
          'a message of 1 byte does not fit (`buffer.overflow` is "error")',
      );
      expect(dataOf(b.drain())).toEqual(['a', 'bc']);
    });

    it('throws by bytes (multibyte, Uint8Array, ArrayBuffer)', () => {
      const b = buffer({ maxBytes: 8, overflow: 'error' });
      b.push('€€', 0); // 6
      expect(expectOverflow(b, 'é€').message).toContain('holds 1 message of 1000 and 6 bytes of 8');
      expect(expectOverflow(b, new Uint8Array(3)).message).toContain('a message of 3 bytes does not fit');
      expectOverflow(b, new ArrayBuffer(3));
      expect(b.push('é', 0).status).toBe('buffered'); // exactly 8
      expect(b.bytes).toBe(8);
    });

    it('throws for a message bigger than maxBytes, and for any message with maxMessages 0', () => {
      const big = buffer({ maxBytes: 4, overflow: 'error' });
      expect(expectOverflow(big, '€€').message).toContain('a message of 6 bytes is larger than `buffer.maxBytes`');
      const none = buffer({ maxMessages: 0, overflow: 'error' });
      expect(expectOverflow(none, '').message).toContain('buffering is disabled (`buffer.maxMessages` is 0)');
    });
  });

  describe('ttl', () => {
    it('expires, in order, every message that waited at least ttl', () => {
      const b = buffer({ ttl: 100 });
      b.push('a', 0);
      b.push('b', 50);
      b.push('c', 100);
      expect(b.nextExpiry()).toBe(100);
      expect(b.expire(99)).toEqual([]);
      expect(b.expire(100)).toEqual([{ data: 'a', bytes: 1, enqueuedAt: 0 }]); // now - enqueuedAt >= ttl
      expect(b.nextExpiry()).toBe(150);
      expect(dataOf(b.expire(199))).toEqual(['b']);
      expect(b.length).toBe(1);
      expect(b.bytes).toBe(1);
      expect(b.nextExpiry()).toBe(200);
      expect(dataOf(b.expire(10_000))).toEqual(['c']);
      expect(b.length).toBe(0);
      expect(b.bytes).toBe(0);
      expect(b.nextExpiry()).toBeUndefined();
    });

    it('push does not expire anything', () => {
      const b = buffer({ ttl: 10, maxMessages: 5 });
      b.push('old', 0);
      expect(b.push('new', 1_000)).toEqual({ status: 'buffered', evicted: [] });
      expect(b.length).toBe(2);
      expect(dataOf(b.expire(1_000))).toEqual(['old']);
    });

    it('never expires with ttl Infinity (the default)', () => {
      const b = buffer();
      b.push('a', 0);
      expect(b.expire(Number.MAX_SAFE_INTEGER)).toEqual([]);
      expect(b.nextExpiry()).toBeUndefined();
      expect(b.length).toBe(1);
    });

    it('handles a fractional ttl', () => {
      const b = buffer({ ttl: 0.5 });
      b.push('a', 1);
      expect(b.nextExpiry()).toBe(1.5);
      expect(b.expire(1.4)).toEqual([]);
      expect(dataOf(b.expire(1.5))).toEqual(['a']);
    });

    it('expires every stale message even when now went backwards between pushes', () => {
      const b = buffer({ ttl: 100 });
      b.push('a', 500);
      b.push('b', 0); // the clock stepped back
      b.push('c', 600);
      expect(b.nextExpiry()).toBe(100); // from the earliest enqueuedAt, not the front
      expect(dataOf(b.expire(100))).toEqual(['b']);
      expect(b.bytes).toBe(2);
      expect(b.nextExpiry()).toBe(600);
      expect(dataOf(b.expire(650))).toEqual(['a']);
      expect(dataOf(b.drain())).toEqual(['c']);
    });
  });

  describe('unshift', () => {
    it('puts a shifted message back at the front, with its bytes', () => {
      const b = buffer();
      b.push('one', 0);
      b.push('two', 1);
      const first = b.shift() as QueuedMessage;
      expect(b.bytes).toBe(3);
      b.unshift(first);
      expect(b.bytes).toBe(6);
      expect(b.peek()).toBe(first);
      expect(dataOf(b.drain())).toEqual(['one', 'two']);
    });

    it('works on an empty buffer and on a freshly compacted one', () => {
      const b = buffer();
      b.push('a', 0);
      const a = b.shift() as QueuedMessage;
      b.unshift(a);
      expect(b.length).toBe(1);
      b.push('b', 1);
      b.push('c', 2);
      b.push('d', 3);
      const taken = [b.shift(), b.shift()] as QueuedMessage[]; // compacts: head reached half
      b.unshift(taken[1] as QueuedMessage);
      b.unshift(taken[0] as QueuedMessage);
      expect(dataOf(b.drain())).toEqual(['a', 'b', 'c', 'd']);
    });

    it('bypasses the limits; the next push brings the buffer back within them (drop-oldest)', () => {
      const b = buffer({ maxMessages: 2, maxBytes: 4 });
      b.push('ab', 0);
      b.push('cd', 1);
      b.unshift({ data: 'xyz', bytes: 3, enqueuedAt: 0 });
      expect(b.length).toBe(3);
      expect(b.bytes).toBe(7);
      const result = b.push('e', 2);
      expect(dataOf(result.evicted)).toEqual(['xyz', 'ab']);
      expect(b.length).toBe(2);
      expect(b.bytes).toBe(3);
    });

    it('keeps the queue over the limits with drop-newest until it is shifted down', () => {
      const b = buffer({ maxMessages: 1, overflow: 'drop-newest' });
      b.push('a', 0);
      b.unshift({ data: 'z', bytes: 1, enqueuedAt: 0 });
      expect(b.push('b', 0).status).toBe('dropped');
      expect(b.length).toBe(2);
    });

    it('a message put back in front of older ones still expires correctly', () => {
      const b = buffer({ ttl: 10 });
      b.push('old', 0);
      b.unshift({ data: 'young', bytes: 5, enqueuedAt: 8 });
      expect(b.nextExpiry()).toBe(10);
      expect(dataOf(b.expire(10))).toEqual(['old']);
      expect(b.bytes).toBe(5);
      expect(b.nextExpiry()).toBe(18);
    });
  });

  describe('drain', () => {
    it('returns everything in order, empties the buffer and resets bytes', () => {
      const b = buffer();
      b.push('é', 0);
      b.push(new Uint8Array(3), 1);
      b.shift();
      b.push('x', 2);
      const all = b.drain();
      expect(all.map((m) => m.bytes)).toEqual([3, 1]);
      expect(b.length).toBe(0);
      expect(b.bytes).toBe(0);
      expect(b.peek()).toBeUndefined();
      expect(b.drain()).toEqual([]);
      b.push('again', 3);
      expect(b.length).toBe(1);
      expect(b.bytes).toBe(5);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Property: the buffer against a plain-array model, with accounting of every message pushed.
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
  overflow: fc.constantFrom<OverflowPolicy>('drop-oldest', 'drop-newest', 'error'),
  ttl: fc.constantFrom(Number.POSITIVE_INFINITY, 4, 10),
});

interface Entry {
  readonly id: number;
  readonly data: Data;
  readonly size: number;
  readonly at: number;
}

type Fate = 'queued' | 'taken' | 'evicted' | 'dropped' | 'expired';

describe('OutboundBuffer properties', () => {
  it('matches a plain-array model; limits hold after push; nothing vanishes; order is kept', () => {
    fc.assert(
      fc.property(optionsArb, fc.array(opArb, { maxLength: 80 }), (options, ops) => {
        const b = new OutboundBuffer(resolveBufferOptions(options));
        const { maxMessages, maxBytes, overflow, ttl } = options;
        const model: Entry[] = [];
        const fate = new Map<number, Fate>();
        /** Messages shifted out and not yet put back, most recent last. */
        const taken: { message: QueuedMessage; id: number }[] = [];
        let now = 1_000;
        let nextId = 0;

        const within = () => b.length <= maxMessages && b.bytes <= maxBytes;
        const leave = (id: number, to: Fate) => {
          expect(fate.get(id)).toBe('queued'); // leaves at most once
          fate.set(id, to);
        };
        /** The buffer's output must be the model's, message for message. */
        const sameAs = (messages: readonly QueuedMessage[], entries: readonly Entry[]) => {
          expect(messages.length).toBe(entries.length);
          messages.forEach((m, i) => {
            const e = entries[i] as Entry;
            expect(m.data).toBe(e.data);
            expect(m.bytes).toBe(e.size);
            expect(m.enqueuedAt).toBe(e.at);
          });
        };

        for (const step of ops) {
          switch (step.op) {
            case 'push': {
              const id = nextId++;
              const data = payload(step.kind, step.size, id);
              const size = oracleSize(data);
              expect(size).toBe(step.size);
              fate.set(id, 'queued');
              const entry: Entry = { id, data, size, at: now };
              const withinBefore = within();
              const fits = (n: number, bytes: number) => n + 1 <= maxMessages && bytes + size <= maxBytes;
              const modelBytes = () => model.reduce((sum, e) => sum + e.size, 0);
              const fitsAlone = maxMessages >= 1 && size <= maxBytes;

              // Expected outcome from the spec, on the model.
              let expected: 'buffered' | 'dropped' | 'error';
              const expectedEvicted: Entry[] = [];
              if (fits(model.length, modelBytes())) expected = 'buffered';
              else if (overflow === 'error') expected = 'error';
              else if (overflow === 'drop-newest' || !fitsAlone) expected = 'dropped';
              else {
                expected = 'buffered';
                while (!fits(model.length, modelBytes())) expectedEvicted.push(model.shift() as Entry);
              }

              let result: PushResult | undefined;
              const error = expected === 'error' ? thrown(() => b.push(data, now)) : undefined;
              if (expected === 'error') {
                expect(isResilientSocketError(error)).toBe(true);
                expect((error as ResilientSocketError).code).toBe('ERR_RS_BUFFER_OVERFLOW');
                fate.set(id, 'dropped');
              } else {
                result = b.push(data, now);
                expect(result.status).toBe(expected);
                sameAs(result.evicted, expectedEvicted);
                for (const e of expectedEvicted) leave(e.id, 'evicted');
                if (expected === 'buffered') model.push(entry);
                else fate.set(id, 'dropped');
              }
              // The limits hold after a push, unless an unshift broke them and the push could not fix it.
              if (withinBefore || result?.status === 'buffered') {
                expect(b.length).toBeLessThanOrEqual(maxMessages);
                expect(b.bytes).toBeLessThanOrEqual(maxBytes);
              }
              break;
            }
            case 'shift': {
              const message = b.shift();
              const entry = model.shift();
              if (entry === undefined) expect(message).toBeUndefined();
              else {
                sameAs([message as QueuedMessage], [entry]);
                leave(entry.id, 'taken');
                taken.push({ message: message as QueuedMessage, id: entry.id });
              }
              break;
            }
            case 'drain': {
              const all = b.drain();
              const entries = model.splice(0);
              sameAs(all, entries);
              for (const e of entries) leave(e.id, 'taken');
              taken.length = 0; // drained messages are sent, not put back
              break;
            }
            case 'unshift': {
              const last = taken.pop();
              if (last === undefined) break;
              b.unshift(last.message);
              const { data, bytes, enqueuedAt } = last.message;
              model.unshift({ id: last.id, data, size: bytes, at: enqueuedAt });
              expect(fate.get(last.id)).toBe('taken');
              fate.set(last.id, 'queued');
              break;
            }
            case 'advance':
              now += step.by; // may step back: a wall clock can be adjusted
              break;
            case 'expire': {
              const expired = b.expire(now);
              const stale = model.filter((e) => now - e.at >= ttl);
              sameAs(expired, stale);
              for (const e of stale) leave(e.id, 'expired');
              model.splice(0, model.length, ...model.filter((e) => now - e.at < ttl));
              break;
            }
          }

          // After every step: same contents size, exact bytes, same front, same next expiry.
          expect(b.length).toBe(model.length);
          expect(b.bytes).toBe(model.reduce((sum, e) => sum + e.size, 0));
          expect(b.peek()?.data).toBe(model[0]?.data);
          const earliest = model.length === 0 ? undefined : Math.min(...model.map((e) => e.at));
          expect(b.nextExpiry()).toBe(
            ttl === Number.POSITIVE_INFINITY || earliest === undefined ? undefined : earliest + ttl,
          );
          expect([...fate.values()].filter((f) => f === 'queued').length).toBe(model.length);
        }

        // Finally drain: everything still queued comes out in model order, and every message
        // pushed has exactly one fate.
        const rest = b.drain();
        sameAs(rest, model);
        for (const e of model) leave(e.id, 'taken');
        expect(b.bytes).toBe(0);
        expect(fate.size).toBe(nextId);
        expect([...fate.values()].every((f) => f !== 'queued')).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
