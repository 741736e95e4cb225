/**
 * The `bufferPolicy()` feature: the options of `ResilientSocket`'s `buffer` (and of the factory),
 * the `overflow` policies and the `ttl`, through real sockets on mock-socket. The queue itself
 * (FIFO, bytes, eviction of the oldest, expire) is tested in test/core/queue.test.ts; the basics
 * of buffering through a socket in test/full/send-buffer.test.ts.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../../src/backoff/constant.js';
import type { Host } from '../../../src/core/feature.js';
import { Queue } from '../../../src/core/queue.js';
import { BaseSocket } from '../../../src/core/socket.js';
import type { Data } from '../../../src/data.js';
import { ErrorCodes, isResilientSocketError, ResilientSocketError } from '../../../src/errors.js';
import {
  type BufferOptions,
  bufferPolicy,
  type OverflowPolicy,
} from '../../../src/features/buffer-policy/buffer-policy.js';
import { ResilientSocket } from '../../../src/node.js';
import { TestClock } from '../../../src/testing/test-clock.js';
import {
  advance,
  cleanup,
  createSocket,
  MOCK_DELAY,
  openSocket,
  record,
  startServer,
  thrown,
  uniqueUrl,
  WebSocketImpl,
} from '../../full/helpers.js';
import { expectInputError, inMode, productionMessage } from '../../helpers/mode.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The code of a TypeError (a wrong type) or a RangeError (a bad value) about an option. */
const codeOf = (Type: ErrorConstructor): string =>
  Type === TypeError ? 'ERR_RS_INVALID_TYPE' : 'ERR_RS_INVALID_VALUE';

/**
 * Asserts exactly `Type` with its code, naming `name`: in development `` `name` `` in a message
 * ending with `got <received>`.
 */
function expectOptionError(fn: () => unknown, Type: ErrorConstructor, name: string, received: string): Error {
  const pattern = new RegExp(`\`${escapeRegExp(name)}\`.*got ${escapeRegExp(received)}$`);
  return expectInputError(fn, Type, codeOf(Type), name, pattern);
}

/** The message of a TypeError (`Type`) or RangeError about `name`: `development`, or the production one. */
const optionMessage = (Type: ErrorConstructor, name: string, development: string): string =>
  inMode(development, productionMessage(name, codeOf(Type)));

/** Asserts a TypeError about the unknown option `name`; in development, the message `devText`. */
function expectUnknownOption(fn: () => unknown, name: string, devText: string): void {
  expectInputError(fn, TypeError, 'ERR_RS_UNKNOWN_OPTION', name, devText);
}

/** The message of `ERR_RS_BUFFER_OVERFLOW`: `development`, or (a production build) the code. */
const overflowMessage = (development: string): string => inMode(development, 'ERR_RS_BUFFER_OVERFLOW');

/**
 * A ResilientSocket that stays idle (everything it is sent is queued), tracked for cleanup. What it
 * still queues when the test ends is dropped by the cleanup's close(): heard, as an app would.
 */
function idleSocket(buffer?: BufferOptions): ResilientSocket {
  const socket = createSocket(
    uniqueUrl(),
    buffer === undefined ? { autoConnect: false } : { autoConnect: false, buffer },
  );
  socket.on('drop', () => undefined);
  return socket;
}

/** `new ResilientSocket` with only `buffer` (and mock-socket), for the option errors. */
function withBuffer(buffer: unknown): () => ResilientSocket {
  return () =>
    new ResilientSocket(uniqueUrl(), { WebSocket: WebSocketImpl, autoConnect: false, buffer: buffer as never });
}

/** Runs `socket.send(data)`, expects ERR_RS_BUFFER_OVERFLOW and nothing else to change, and returns the error. */
function expectOverflow(socket: ResilientSocket, data: Data): ResilientSocketError {
  const before = { count: socket.bufferedCount, dropped: socket.stats.dropped, timers: vi.getTimerCount() };
  const error = thrown(() => socket.send(data));
  expect(error).toBeInstanceOf(ResilientSocketError);
  expect(isResilientSocketError(error)).toBe(true);
  expect((error as ResilientSocketError).code).toBe(ErrorCodes.BUFFER_OVERFLOW);
  expect((error as ResilientSocketError).code).toBe('ERR_RS_BUFFER_OVERFLOW');
  expect((error as ResilientSocketError).name).toBe('ResilientSocketError');
  expect({ count: socket.bufferedCount, dropped: socket.stats.dropped, timers: vi.getTimerCount() }).toEqual(before);
  return error as ResilientSocketError;
}

const POLICIES = '"drop-oldest", "drop-newest" or "error"';

// ─── options ─────────────────────────────────────────────────────────────────────────────

describe('bufferPolicy() options', () => {
  it('takes no options, empty options, and every valid value', () => {
    expect(bufferPolicy().name).toBe('bufferPolicy');
    expect(() => bufferPolicy({})).not.toThrow();
    expect(() => bufferPolicy({ overflow: undefined, ttl: undefined } as never)).not.toThrow();
    for (const overflow of ['drop-oldest', 'drop-newest', 'error'] as const) {
      expect(() => bufferPolicy({ overflow })).not.toThrow();
    }
    for (const ttl of [0.5, 1, 30_000, Number.POSITIVE_INFINITY]) expect(() => bufferPolicy({ ttl })).not.toThrow();
  });

  it('defaults to drop-oldest and no ttl: the same feature as those options given', () => {
    // Factories hand out one object for equal options (sockets created alike share a config).
    expect(bufferPolicy({ overflow: 'drop-oldest', ttl: Number.POSITIVE_INFINITY })).toBe(bufferPolicy());
    expect(bufferPolicy({})).toBe(bufferPolicy());
    expect(bufferPolicy({ ttl: 5 })).not.toBe(bufferPolicy());
    expect(bufferPolicy({ overflow: 'error' })).not.toBe(bufferPolicy());
  });

  it.each([
    [null, 'null'],
    [[], 'an array of length 0'],
    [5, 'number 5'],
    ['drop-oldest', 'string "drop-oldest"'],
  ])('throws a TypeError when options is %j', (options, shown) => {
    const error = expectOptionError(() => bufferPolicy(options as never), TypeError, 'buffer', shown);
    expect(error.message).toBe(optionMessage(TypeError, 'buffer', `Expected \`buffer\` to be an object, got ${shown}`));
  });

  it.each([
    ['buffer.overflow', { overflow: 1 }, 'number 1'],
    ['buffer.overflow', { overflow: null }, 'null'],
    ['buffer.overflow', { overflow: ['error'] }, 'an array of length 1'],
    ['buffer.ttl', { ttl: '1000' }, 'string "1000"'],
    ['buffer.ttl', { ttl: {} }, 'an object'],
    ['buffer.ttl', { ttl: null }, 'null'],
  ])('throws a TypeError naming `%s` for a wrong type: %o', (name, options, shown) => {
    expectOptionError(() => bufferPolicy(options as never), TypeError, name, shown);
  });

  it.each([
    [{ ttl: 0 }, '0'],
    [{ ttl: -5 }, '-5'],
    [{ ttl: Number.NaN }, 'NaN'],
    [{ ttl: Number.NEGATIVE_INFINITY }, '-Infinity'],
  ])('throws a RangeError naming `buffer.ttl` for a bad value: %o', (options, shown) => {
    const error = expectOptionError(() => bufferPolicy(options), RangeError, 'buffer.ttl', shown);
    expect(error.message).toBe(
      optionMessage(
        RangeError,
        'buffer.ttl',
        `Expected \`buffer.ttl\` to be a finite number > 0 or Infinity, got ${shown}`,
      ),
    );
  });

  it('throws a RangeError listing the policies for an unknown overflow string', () => {
    const error = expectOptionError(
      () => bufferPolicy({ overflow: 'drop-all' as never }),
      RangeError,
      'buffer.overflow',
      '"drop-all"',
    );
    expect(error.message).toBe(
      optionMessage(RangeError, 'buffer.overflow', `Expected \`buffer.overflow\` to be ${POLICIES}, got "drop-all"`),
    );
    expectOptionError(
      () => bufferPolicy({ overflow: 'DROP-OLDEST' as never }),
      RangeError,
      'buffer.overflow',
      '"DROP-OLDEST"',
    );
    expectOptionError(() => bufferPolicy({ overflow: '' as never }), RangeError, 'buffer.overflow', '""');
  });

  it('lists the policies in the TypeError too', () => {
    const error = expectOptionError(
      () => bufferPolicy({ overflow: 2 as never }),
      TypeError,
      'buffer.overflow',
      'number 2',
    );
    expect(error.message).toBe(
      optionMessage(TypeError, 'buffer.overflow', `Expected \`buffer.overflow\` to be ${POLICIES}, got number 2`),
    );
  });

  it('an unknown option is a TypeError that suggests the right one, prefixed with `buffer.`', () => {
    expectUnknownOption(
      () => bufferPolicy({ TTL: 5 } as never),
      'buffer.TTL',
      'Unknown option `buffer.TTL`: did you mean `buffer.ttl`?',
    );
    expectUnknownOption(
      () => bufferPolicy({ overflw: 'error' } as never),
      'buffer.overflw',
      'Unknown option `buffer.overflw`: did you mean `buffer.overflow`?',
    );
    // The queue's limits are the socket's options, not the feature's.
    expectUnknownOption(
      () => bufferPolicy({ maxMessages: 5 } as never),
      'buffer.maxMessages',
      'Unknown option `buffer.maxMessages`: the options of bufferPolicy() are `overflow`, `ttl`',
    );
  });
});

describe("ResilientSocket's `buffer` option", () => {
  it('takes the given values', () => {
    expect(withBuffer(undefined)).not.toThrow();
    expect(withBuffer({})).not.toThrow();
    expect(
      withBuffer({ maxMessages: 0, maxBytes: Number.POSITIVE_INFINITY, overflow: 'error', ttl: 0.5 }),
    ).not.toThrow();
    expect(withBuffer({ maxBytes: 0, overflow: 'drop-newest', ttl: 30_000 })).not.toThrow();
  });

  it.each([
    [null, 'null'],
    [[], 'an array of length 0'],
    [5, 'number 5'],
    ['drop-oldest', 'string "drop-oldest"'],
  ])('throws a TypeError when `buffer` is %j', (buffer, shown) => {
    const error = expectOptionError(withBuffer(buffer), TypeError, 'buffer', shown);
    expect(error.message).toBe(optionMessage(TypeError, 'buffer', `Expected \`buffer\` to be an object, got ${shown}`));
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
  ])('throws a TypeError naming `%s` for a wrong type: %o', (name, buffer, shown) => {
    expectOptionError(withBuffer(buffer), TypeError, name, shown);
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
  ])('throws a RangeError naming `%s` for a bad value: %o', (name, buffer, shown, rule) => {
    const error = expectOptionError(withBuffer(buffer), RangeError, name, shown);
    expect(error.message).toBe(optionMessage(RangeError, name, `Expected \`${name}\` to be ${rule}, got ${shown}`));
  });

  it('throws a RangeError listing the policies for an unknown overflow string', () => {
    const error = expectOptionError(withBuffer({ overflow: 'drop-all' }), RangeError, 'buffer.overflow', '"drop-all"');
    expect(error.message).toBe(
      optionMessage(RangeError, 'buffer.overflow', `Expected \`buffer.overflow\` to be ${POLICIES}, got "drop-all"`),
    );
    expectOptionError(withBuffer({ overflow: 'DROP-OLDEST' }), RangeError, 'buffer.overflow', '"DROP-OLDEST"');
    expectOptionError(withBuffer({ overflow: '' }), RangeError, 'buffer.overflow', '""');
  });

  it('lists the policies in the TypeError too', () => {
    const error = expectOptionError(withBuffer({ overflow: 2 }), TypeError, 'buffer.overflow', 'number 2');
    expect(error.message).toContain(inMode(POLICIES, 'buffer.overflow'));
  });

  it('a misspelt option is a TypeError that suggests the right one, prefixed with `buffer.`', () => {
    expectUnknownOption(
      withBuffer({ maxMessage: 5 }),
      'buffer.maxMessage',
      'Unknown option `buffer.maxMessage`: did you mean `buffer.maxMessages`?',
    );
    expectUnknownOption(
      withBuffer({ TTL: 5 }),
      'buffer.TTL',
      'Unknown option `buffer.TTL`: did you mean `buffer.ttl`?',
    );
  });

  it('without a close match, lists the buffer’s options', () => {
    expectUnknownOption(
      withBuffer({ policy: 'error' }),
      'buffer.policy',
      'Unknown option `buffer.policy`: the options of `buffer` are `maxMessages`, `maxBytes`, `overflow`, `ttl`',
    );
  });
});

describe("BaseSocket's `buffer` option and the feature", () => {
  const base = (options: Record<string, unknown>) => () =>
    new BaseSocket(uniqueUrl(), { WebSocket: WebSocketImpl, autoConnect: false, ...options });

  it('`buffer.ttl` or `buffer.overflow` without the feature is a TypeError naming bufferPolicy', () => {
    expectInputError(
      base({ buffer: { ttl: 5 } }),
      TypeError,
      'ERR_RS_NEEDS_FEATURE',
      'buffer.ttl',
      "`buffer.ttl` belongs to the bufferPolicy() feature: import { bufferPolicy } from 'resilient-socket/modular' and add bufferPolicy(…) to `features`",
    );
    expectInputError(
      base({ buffer: { overflow: 'error' } }),
      TypeError,
      'ERR_RS_NEEDS_FEATURE',
      'buffer.overflow',
      "`buffer.overflow` belongs to the bufferPolicy() feature: import { bufferPolicy } from 'resilient-socket/modular' and add bufferPolicy(…) to `features`",
    );
  });

  it('validates the limits, and refuses unknown keys with a did-you-mean', () => {
    expectOptionError(base({ buffer: { maxMessages: -1 } }), RangeError, 'buffer.maxMessages', '-1');
    expectUnknownOption(
      base({ buffer: { maxMesages: 1 } }),
      'buffer.maxMesages',
      'Unknown option `buffer.maxMesages`: did you mean `buffer.maxMessages`?',
    );
  });

  it('with the feature, the limits and the policies work together', async () => {
    const socket = base({ buffer: { maxMessages: 2 }, features: [bufferPolicy({ overflow: 'error', ttl: 5 })] })();
    try {
      expect(socket.send('a')).toBe('buffered');
      expect(socket.send('b')).toBe('buffered');
      const error = thrown(() => socket.send('c')) as ResilientSocketError;
      expect(error.code).toBe('ERR_RS_BUFFER_OVERFLOW');
      expect(error.message).toBe(
        overflowMessage(
          'Outbound buffer overflow: the buffer holds 2 messages of 2 and 2 bytes of 1048576; ' +
            'a message of 1 byte does not fit (`buffer.overflow` is "error")',
        ),
      );
      const drops: unknown[] = [];
      socket.on('drop', (info) => drops.push(info));
      await advance(5);
      expect(drops).toEqual([{ reason: 'expired', messages: ['a', 'b'] }]);
      expect(socket.bufferedCount).toBe(0);
    } finally {
      socket.close();
    }
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('the defaults, as observed: 1000 messages, 1 MiB, drop-oldest, no ttl', () => {
  it('the overflow error shows the default limits', () => {
    const socket = idleSocket({ overflow: 'error' });
    for (let i = 0; i < 1000; i++) socket.send('x');
    expect(expectOverflow(socket, 'y').message).toBe(
      overflowMessage(
        'Outbound buffer overflow: the buffer holds 1000 messages of 1000 and 1000 bytes of 1048576; ' +
          'a message of 1 byte does not fit (`buffer.overflow` is "error")',
      ),
    );
  });

  it('the 1001st message evicts the first, and nothing ever expires', async () => {
    const socket = idleSocket();
    const log = record(socket, ['drop']);
    for (let i = 0; i < 1000; i++) expect(socket.send(String(i))).toBe('buffered');
    expect(log.of('drop')).toEqual([]);
    expect(socket.send('1000')).toBe('buffered');
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['0'] }]);
    expect(socket.bufferedCount).toBe(1000);
    expect(vi.getTimerCount()).toBe(0); // no ttl timer
    await advance(365 * 24 * 3_600_000);
    expect(socket.send('later')).toBe('buffered');
    expect(log.of('drop')).toEqual([
      { reason: 'overflow', messages: ['0'] },
      { reason: 'overflow', messages: ['1'] },
    ]);
    expect(socket.bufferedCount).toBe(1000);
  });

  it('a message of exactly 1 MiB is queued (evicting the rest); one byte more can never be', () => {
    const socket = idleSocket();
    const log = record(socket, ['drop']);
    socket.send('a');
    socket.send('b');
    expect(socket.send(new Uint8Array(1_048_576))).toBe('buffered');
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['a', 'b'] }]);
    const big = new Uint8Array(1_048_577);
    expect(socket.send(big)).toBe('dropped');
    expect(log.of('drop')[1]?.reason).toBe('overflow');
    expect(log.of('drop')[1]?.messages[0]).toBe(big);
    expect(socket.bufferedCount).toBe(1);
  });

  it('the values given take effect: maxMessages 0 with error, maxBytes 0 with drop-newest and a ttl', async () => {
    const none = idleSocket({ maxMessages: 0, maxBytes: Number.POSITIVE_INFINITY, overflow: 'error', ttl: 0.5 });
    expect(expectOverflow(none, '').message).toContain(
      overflowMessage('buffering is disabled (`buffer.maxMessages` is 0)'),
    );

    const empty = idleSocket({ maxBytes: 0, overflow: 'drop-newest', ttl: 30_000 });
    const log = record(empty, ['drop']);
    expect(empty.send('')).toBe('buffered');
    expect(empty.send('x')).toBe('dropped');
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['x'] }]);
    await advance(29_999);
    expect(empty.bufferedCount).toBe(1);
    await advance(1);
    expect(log.of('drop')[1]).toEqual({ reason: 'expired', messages: [''] });
    expect(empty.bufferedCount).toBe(0);
  });

  it('maxBytes Infinity limits by count only', () => {
    const socket = idleSocket({ maxBytes: Number.POSITIVE_INFINITY, maxMessages: 2 });
    const log = record(socket, ['drop']);
    expect(socket.send(new ArrayBuffer(5_000_000))).toBe('buffered');
    expect(socket.send(new ArrayBuffer(5_000_000))).toBe('buffered');
    expect(log.of('drop')).toEqual([]);
    expect(socket.send('x')).toBe('buffered');
    expect(log.of('drop')).toHaveLength(1);
    expect(socket.bufferedCount).toBe(2);
  });
});

// ─── overflow ────────────────────────────────────────────────────────────────────────────

describe("overflow 'drop-newest'", () => {
  it('drops the new message by count and keeps the queue; once there is room, messages are queued again', async () => {
    const server = startServer();
    const socket = createSocket(server.url, {
      autoConnect: false,
      buffer: { maxMessages: 2, overflow: 'drop-newest', ttl: 100 },
    });
    const log = record(socket, ['drop']);
    socket.send('a');
    await advance(50);
    socket.send('b');
    await advance(10);
    expect(socket.send('c')).toBe('dropped');
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['c'] }]);
    expect(socket.bufferedCount).toBe(2);
    expect(socket.stats.dropped).toBe(1);
    await advance(40); // 'a' waited its ttl: room for one
    expect(log.of('drop')[1]).toEqual({ reason: 'expired', messages: ['a'] });
    expect(socket.send('d')).toBe('buffered');
    expect(socket.bufferedCount).toBe(2);
    socket.open();
    await advance(MOCK_DELAY * 2);
    expect(server.received).toEqual(['b', 'd']);
  });

  it('drops by bytes (multibyte, Uint8Array, ArrayBuffer), reporting the message itself', async () => {
    const server = startServer();
    const socket = createSocket(server.url, { autoConnect: false, buffer: { maxBytes: 10, overflow: 'drop-newest' } });
    const log = record(socket, ['drop']);
    expect(socket.send('😀€')).toBe('buffered'); // 7
    expect(socket.send('😀')).toBe('dropped'); // 7 + 4 > 10
    const bytes = new Uint8Array(4);
    const raw = new ArrayBuffer(4);
    expect(socket.send(bytes)).toBe('dropped');
    expect(socket.send(raw)).toBe('dropped');
    expect(log.of('drop').map((d) => d.reason)).toEqual(['overflow', 'overflow', 'overflow']);
    expect(log.of('drop').map((d) => d.messages.length)).toEqual([1, 1, 1]);
    expect(log.of('drop')[0]?.messages[0]).toBe('😀');
    expect(log.of('drop')[1]?.messages[0]).toBe(bytes);
    expect(log.of('drop')[2]?.messages[0]).toBe(raw);
    expect(socket.send('€')).toBe('buffered'); // 7 + 3 = 10 exactly
    expect(socket.send('')).toBe('buffered'); // 0 bytes still fit
    expect(socket.send('x')).toBe('dropped'); // full: 10 bytes
    expect(socket.bufferedCount).toBe(3);
    expect(socket.stats.dropped).toBe(4);
    socket.open();
    await advance(MOCK_DELAY * 2);
    expect(server.received).toEqual(['😀€', '€', '']);
  });

  it('drops a message bigger than maxBytes, and everything with maxMessages 0', () => {
    const small = idleSocket({ maxBytes: 3, overflow: 'drop-newest' });
    const log = record(small, ['drop']);
    expect(small.send('abcd')).toBe('dropped');
    expect(log.of('drop')).toEqual([{ reason: 'overflow', messages: ['abcd'] }]);
    expect(small.bufferedCount).toBe(0);

    const none = idleSocket({ maxMessages: 0, overflow: 'drop-newest' });
    const noneLog = record(none, ['drop']);
    expect(none.send('')).toBe('dropped');
    expect(noneLog.of('drop')).toEqual([{ reason: 'overflow', messages: [''] }]);
    expect(none.bufferedCount).toBe(0);
  });
});

describe("overflow 'error'", () => {
  it('throws ERR_RS_BUFFER_OVERFLOW by count and leaves the queue unchanged', async () => {
    const server = startServer();
    const socket = createSocket(server.url, { autoConnect: false, buffer: { maxMessages: 2, overflow: 'error' } });
    const log = record(socket, ['drop']);
    socket.send('a');
    socket.send('bc');
    const message = overflowMessage(
      'Outbound buffer overflow: the buffer holds 2 messages of 2 and 3 bytes of 1048576; ' +
        'a message of 1 byte does not fit (`buffer.overflow` is "error")',
    );
    expect(expectOverflow(socket, 'd').message).toBe(message);
    expect(expectOverflow(socket, 'd').message).toBe(message); // the same queue, the same bytes
    expect(log.of('drop')).toEqual([]);
    socket.open();
    await advance(MOCK_DELAY * 2);
    expect(server.received).toEqual(['a', 'bc']);
  });

  it('throws by bytes (multibyte, Uint8Array, ArrayBuffer)', () => {
    const socket = idleSocket({ maxBytes: 8, overflow: 'error' });
    socket.send('€€'); // 6
    expect(expectOverflow(socket, 'é€').message).toContain(overflowMessage('holds 1 message of 1000 and 6 bytes of 8'));
    expect(expectOverflow(socket, new Uint8Array(3)).message).toContain(
      overflowMessage('a message of 3 bytes does not fit'),
    );
    expectOverflow(socket, new ArrayBuffer(3));
    expect(socket.send('é')).toBe('buffered'); // exactly 8
    expect(socket.send('')).toBe('buffered'); // 0 bytes still fit
    expect(expectOverflow(socket, 'x').message).toBe(
      overflowMessage(
        'Outbound buffer overflow: the buffer holds 3 messages of 1000 and 8 bytes of 8; ' +
          'a message of 1 byte does not fit (`buffer.overflow` is "error")',
      ),
    );
  });

  it('throws for a message bigger than maxBytes, and for any message with maxMessages 0', () => {
    const big = idleSocket({ maxBytes: 4, overflow: 'error' });
    expect(expectOverflow(big, '€€').message).toBe(
      overflowMessage(
        'Outbound buffer overflow: the buffer holds 0 messages of 1000 and 0 bytes of 4; ' +
          'a message of 6 bytes is larger than `buffer.maxBytes` (`buffer.overflow` is "error")',
      ),
    );
    const none = idleSocket({ maxMessages: 0, overflow: 'error' });
    expect(expectOverflow(none, '').message).toBe(
      overflowMessage(
        'Outbound buffer overflow: the buffer holds 0 messages of 0 and 0 bytes of 1048576; ' +
          'buffering is disabled (`buffer.maxMessages` is 0) (`buffer.overflow` is "error")',
      ),
    );
  });

  it('messages that waited their ttl are dropped first, making room', () => {
    const socket = idleSocket({ maxMessages: 1, overflow: 'error', ttl: 100 });
    const log = record(socket, ['drop']);
    socket.send('old');
    vi.setSystemTime(Date.now() + 100); // the wall clock moves on, the ttl timer has not fired yet
    expect(socket.send('new')).toBe('buffered');
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['old'] }]);
    expect(socket.bufferedCount).toBe(1);
  });
});

describe('the policies on a queue over its limits (a message put back by an interrupted flush)', () => {
  /** Just enough of a socket for `admit`: limits of 1 message, and `queue`. */
  function socketOver(queue: Queue) {
    const drops: unknown[] = [];
    const socket = {
      config_: { maxMessages: 1, maxBytes: 1_048_576, clock: { now: () => 0 }, slotBase: [2] },
      queue_: queue,
      drop_: (reason: string, messages: Data[]) => {
        if (messages.length > 0) drops.push({ reason, messages });
      },
      timers_: [0, 0, 0, 0, 0, 0],
      arm_: () => undefined,
      disarm_: () => undefined,
    } as unknown as Host;
    return { socket, drops };
  }

  it("'drop-newest' refuses every message until the queue is shifted down; 'error' throws; 'drop-oldest' lets it evict", () => {
    const queue = new Queue(1, 1_048_576);
    queue.push('a', 0);
    queue.unshift({ data: 'z', bytes: 1, at: 0 });
    const { socket, drops } = socketOver(queue);
    const dropNewest = bufferPolicy({ overflow: 'drop-newest' });
    expect(dropNewest.admit?.(socket, 0, 1)).toBe('dropped');
    expect(dropNewest.admit?.(socket, 0, 0)).toBe('dropped');
    expect(queue.length).toBe(2);
    const error = thrown(() => bufferPolicy({ overflow: 'error' }).admit?.(socket, 0, 1)) as ResilientSocketError;
    expect(error.code).toBe('ERR_RS_BUFFER_OVERFLOW');
    expect(error.message).toContain(overflowMessage('holds 2 messages of 1 and 2 bytes of 1048576'));
    expect(bufferPolicy().admit?.(socket, 0, 1)).toBeUndefined(); // the core's push evicts
    expect(queue.length).toBe(2);
    queue.shift();
    expect(dropNewest.admit?.(socket, 0, 1)).toBe('dropped'); // still full
    queue.shift();
    expect(dropNewest.admit?.(socket, 0, 1)).toBeUndefined();
    expect(drops).toEqual([]);
  });
});

// ─── ttl ─────────────────────────────────────────────────────────────────────────────────

describe('ttl', () => {
  it('a timer expires, in order, every message that waited at least ttl', async () => {
    const socket = idleSocket({ ttl: 100 });
    const log = record(socket, ['drop']);
    socket.send('a');
    await advance(50);
    socket.send('b');
    await advance(50);
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['a'] }]); // waited exactly 100
    socket.send('c'); // at 100
    expect(socket.bufferedCount).toBe(2);
    await advance(49);
    expect(log.of('drop')).toHaveLength(1);
    await advance(1); // 150
    expect(log.of('drop')[1]).toEqual({ reason: 'expired', messages: ['b'] });
    expect(socket.bufferedCount).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    await advance(49);
    expect(log.of('drop')).toHaveLength(2);
    await advance(1); // 200
    expect(log.of('drop')[2]).toEqual({ reason: 'expired', messages: ['c'] });
    expect(socket.bufferedCount).toBe(0);
    expect(socket.stats.dropped).toBe(3);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('the next send drops what waited at least ttl, before the message is queued', () => {
    const socket = idleSocket({ ttl: 100 });
    const log = record(socket, ['drop']);
    socket.send('a');
    vi.setSystemTime(Date.now() + 50);
    socket.send('b');
    vi.setSystemTime(Date.now() + 49); // the timer is due in 1 ms: only send() can see the time
    socket.send('c');
    expect(log.of('drop')).toEqual([]);
    vi.setSystemTime(Date.now() + 1);
    const seen: number[] = [];
    socket.on('drop', () => seen.push(socket.bufferedCount));
    expect(socket.send('d')).toBe('buffered');
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['a'] }]);
    expect(seen).toEqual([2]); // reported before 'd' joined the queue
    expect(socket.bufferedCount).toBe(3);
  });

  it('drops what waited at least ttl before the flush: never sent, reported before `open`', async () => {
    const server = startServer();
    const socket = createSocket(server.url, { autoConnect: false, buffer: { ttl: 100 } });
    const log = record(socket, ['drop', 'open', 'state']);
    socket.send('stale');
    vi.setSystemTime(Date.now() + 60);
    socket.send('fresh');
    vi.setSystemTime(Date.now() + 40); // 'stale' waited 100; its timer has not fired
    expect(log.of('drop')).toEqual([]);
    socket.open();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['stale'] }]);
    expect(log.names().slice(-3)).toEqual(['state', 'drop', 'open']);
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['fresh']);
    expect(socket.stats.dropped).toBe(1);
  });

  it('never expires with ttl Infinity (the default)', async () => {
    const socket = idleSocket({ ttl: Number.POSITIVE_INFINITY });
    const log = record(socket, ['drop']);
    socket.send('a');
    expect(vi.getTimerCount()).toBe(0);
    vi.setSystemTime(Number.MAX_SAFE_INTEGER / 2);
    socket.send('b');
    await advance(1e9);
    expect(log.of('drop')).toEqual([]);
    expect(socket.bufferedCount).toBe(2);
  });

  it('handles a fractional ttl', async () => {
    const clock = new TestClock(1);
    const socket = createSocket(uniqueUrl(), { autoConnect: false, clock, buffer: { ttl: 0.5 } });
    const log = record(socket, ['drop']);
    socket.send('a'); // at 1: expires at 1.5
    expect(clock.nextAt).toBe(1.5);
    clock.jump(0.375);
    socket.send('b'); // at 1.375
    expect(log.of('drop')).toEqual([]);
    clock.jump(0.125); // 1.5, the timer not fired
    socket.send('c');
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['a'] }]);
    expect(clock.nextAt).toBe(1.875); // 'b' next
    await clock.advance(0.25);
    expect(log.of('drop')).toHaveLength(1);
    await clock.advance(0.125);
    expect(log.of('drop')[1]).toEqual({ reason: 'expired', messages: ['b'] });
    expect(socket.bufferedCount).toBe(1);
  });

  it('expires every stale message, each on time, even when the clock went backwards between sends', async () => {
    const socket = idleSocket({ ttl: 100 });
    const log = record(socket, ['drop']);
    vi.setSystemTime(500);
    socket.send('a'); // expires at 600
    vi.setSystemTime(0); // the wall clock stepped back
    socket.send('b'); // expires at 100, before 'a'
    await advance(99);
    expect(log.of('drop')).toEqual([]);
    await advance(1); // 100
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['b'] }]);
    expect(socket.bufferedCount).toBe(1);
    await advance(450);
    socket.send('c'); // at 550: expires at 650
    await advance(49);
    expect(log.of('drop')).toHaveLength(1);
    await advance(1); // 600
    expect(log.of('drop')[1]).toEqual({ reason: 'expired', messages: ['a'] });
    await advance(50); // 650
    expect(log.of('drop')[2]).toEqual({ reason: 'expired', messages: ['c'] });
    expect(socket.bufferedCount).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a timer drops them while reconnecting; they are never sent', async () => {
    const { server, socket, log } = await openSocket({ backoff: constant({ delay: 1000 }), buffer: { ttl: 100 } });
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(socket.send('late')).toBe('buffered');
    await advance(99);
    expect(log.of('drop')).toEqual([]);
    await advance(1);
    expect(log.of('drop')).toEqual([{ reason: 'expired', messages: ['late'] }]);
    expect(socket.state).toBe('reconnecting');
    await advance(1000 + MOCK_DELAY * 2);
    expect(socket.state).toBe('open');
    expect(server.received).toEqual([]);
    expect(log.of('drop')).toHaveLength(1);
  });

  // close() with a ttl and messages queued: test/full/send-buffer.test.ts ('close() with queued messages …').
  it('nothing is left running after a give-up (the queue is dropped)', async () => {
    const socket = createSocket(uniqueUrl(), { maxRetries: 0, buffer: { ttl: 10_000 } }); // no server
    const log = record(socket, ['drop', 'giveup']);
    socket.send('queued');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('closed');
    expect(log.of('giveup').map((info) => info.error.code)).toEqual(['ERR_RS_RETRIES_EXHAUSTED']);
    expect(log.of('drop')).toEqual([{ reason: 'closed', messages: ['queued'] }]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('once the queue is flushed, no ttl timer is left', async () => {
    // The socket's own timers run on a TestClock each (mock-socket's on the fake timers), so
    // that a socket with a ttl can be compared with the same socket without.
    const opened = async (buffer: BufferOptions) => {
      const server = startServer();
      const clock = new TestClock();
      const socket = createSocket(server.url, { autoConnect: false, clock, buffer });
      socket.send('a');
      await clock.advance(10);
      socket.send('b');
      socket.open();
      await advance(MOCK_DELAY * 2);
      expect(socket.state).toBe('open');
      expect(server.received).toEqual(['a', 'b']);
      return clock.pending;
    };
    const withTtl = await opened({ ttl: 1000 });
    expect(withTtl).toBe(await opened({}));
  });

  it('a drop listener that closes the socket while send() expires messages leaves nothing running', () => {
    const socket = idleSocket({ ttl: 100 });
    const log = record(socket, ['drop']);
    socket.send('a');
    socket.send('b');
    socket.on('drop', ({ reason }) => {
      if (reason === 'expired') socket.close();
    });
    vi.setSystemTime(Date.now() + 100);
    expect(socket.send('c')).toBe('dropped');
    expect(log.of('drop')).toEqual([
      { reason: 'expired', messages: ['a', 'b'] },
      { reason: 'closed', messages: ['c'] },
    ]);
    expect(socket.state).toBe('closed');
    expect(vi.getTimerCount()).toBe(0);
  });
});

// ─── property ────────────────────────────────────────────────────────────────────────────

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

/** A payload of `size` bytes, told apart from the others by its content where it has any. */
function payload(kind: PayloadKind, size: number, id: number): Data {
  if (kind === 'bytes') return new Uint8Array(size).fill(id % 256);
  if (kind === 'arraybuffer') return new Uint8Array(size).fill(id % 256).buffer;
  return utf8String(size, id);
}

type Op =
  | { readonly op: 'send'; readonly kind: PayloadKind; readonly size: number }
  | { readonly op: 'advance'; readonly by: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('send' as const),
      kind: fc.constantFrom<PayloadKind>('string', 'bytes', 'arraybuffer'),
      size: fc.nat({ max: 14 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('advance' as const), by: fc.integer({ min: -3, max: 8 }) }) },
);

const optionsArb = fc.record({
  maxMessages: fc.nat({ max: 6 }),
  maxBytes: fc.oneof(fc.nat({ max: 40 }), fc.constant(Number.POSITIVE_INFINITY)),
  overflow: fc.constantFrom<OverflowPolicy>('drop-oldest', 'drop-newest', 'error'),
  ttl: fc.constantFrom(Number.POSITIVE_INFINITY, 4, 10),
});

interface Entry {
  readonly data: Data;
  readonly size: number;
  readonly at: number;
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

describe('bufferPolicy properties', () => {
  it('send() matches a plain-array model: outcome, drops in order, limits, and what close() finds', () => {
    fc.assert(
      fc.property(optionsArb, fc.array(opArb, { maxLength: 60 }), (options, ops) => {
        const { maxMessages, maxBytes, overflow, ttl } = options;
        vi.setSystemTime(1_000_000);
        const socket = createSocket(uniqueUrl(), { autoConnect: false, buffer: options });
        const log = record(socket, ['drop']);
        const model: Entry[] = [];
        const modelBytes = () => model.reduce((sum, e) => sum + e.size, 0);
        let dropped = 0;
        let sent = 0;

        for (const step of ops) {
          if (step.op === 'advance') {
            // The wall clock moves, possibly back (adjusted); the ttl timer never fires here.
            vi.setSystemTime(Date.now() + step.by);
            continue;
          }
          log.clear();
          const now = Date.now();
          const data = payload(step.kind, step.size, sent++);
          const size = step.size;
          const expected: { reason: string; messages: Data[] }[] = [];
          const stale = model.filter((e) => now - e.at >= ttl);
          if (stale.length > 0) expected.push({ reason: 'expired', messages: stale.map((e) => e.data) });
          model.splice(0, model.length, ...model.filter((e) => now - e.at < ttl));
          const fits = () => model.length + 1 <= maxMessages && modelBytes() + size <= maxBytes;
          const fitsAlone = maxMessages >= 1 && size <= maxBytes;

          if (!fits() && overflow === 'error') {
            const reason = fitsAlone
              ? `a message of ${plural(size, 'byte')} does not fit`
              : maxMessages === 0
                ? 'buffering is disabled (`buffer.maxMessages` is 0)'
                : `a message of ${plural(size, 'byte')} is larger than \`buffer.maxBytes\``;
            const error = thrown(() => socket.send(data)) as ResilientSocketError;
            expect(isResilientSocketError(error)).toBe(true);
            expect(error.code).toBe('ERR_RS_BUFFER_OVERFLOW');
            expect(error.message).toBe(
              overflowMessage(
                `Outbound buffer overflow: the buffer holds ${plural(model.length, 'message')} of ${maxMessages} and ` +
                  `${plural(modelBytes(), 'byte')} of ${maxBytes}; ${reason} (\`buffer.overflow\` is "error")`,
              ),
            );
          } else if (!fits() && (overflow === 'drop-newest' || !fitsAlone)) {
            expect(socket.send(data)).toBe('dropped');
            expected.push({ reason: 'overflow', messages: [data] });
          } else {
            const evicted: Entry[] = [];
            while (!fits()) evicted.push(model.shift() as Entry);
            if (evicted.length > 0) expected.push({ reason: 'overflow', messages: evicted.map((e) => e.data) });
            expect(socket.send(data)).toBe('buffered');
            model.push({ data, size, at: now });
          }
          expect(log.events.map((e) => e.payload)).toEqual(expected);
          dropped += expected.reduce((sum, d) => sum + d.messages.length, 0);

          expect(socket.bufferedCount).toBe(model.length);
          expect(socket.bufferedCount).toBeLessThanOrEqual(maxMessages);
          expect(modelBytes()).toBeLessThanOrEqual(maxBytes);
          expect(socket.stats.dropped).toBe(dropped);
          // A queue that can expire always has its timer armed.
          if (ttl !== Number.POSITIVE_INFINITY && model.length > 0) expect(vi.getTimerCount()).toBe(1);
          if (ttl === Number.POSITIVE_INFINITY) expect(vi.getTimerCount()).toBe(0);
        }

        // Everything still queued is what the model holds, in its order.
        log.clear();
        socket.close();
        expect(log.events.map((e) => e.payload)).toEqual(
          model.length === 0 ? [] : [{ reason: 'closed', messages: model.map((e) => e.data) }],
        );
        expect(vi.getTimerCount()).toBe(0);
        socket.removeAllListeners();
      }),
      { numRuns: 300 },
    );
  });
});
