/**
 * The options of the `bufferPolicy()` feature: the factory's own (`overflow`, `ttl`), ResilientSocket's
 * `buffer` (the queue's limits) and `bufferPolicy: bufferPolicy(…)` (the policies, still named
 * `buffer.overflow`/`buffer.ttl`), and BaseSocket's `buffer` with and without the feature: what each
 * accepts, the TypeError or RangeError naming a bad one, and the did-you-mean of an unknown one.
 */
import { describe, expect, it, vi } from 'vitest';
import { BaseSocket } from '../../../src/core/socket.js';
import type { ResilientSocketError } from '../../../src/errors.js';
import { bufferPolicy } from '../../../src/features/buffer-policy/buffer-policy.js';
import { expectInputError, inMode } from '../../helpers/mode.js';
import { advance, thrown, uniqueUrl, WebSocketImpl } from '../../resilient-socket/helpers.js';
import {
  expectOptionError,
  expectUnknownOption,
  optionMessage,
  overflowMessage,
  POLICIES,
  setUpBufferPolicy,
  withBuffer,
  withPolicy,
} from './helpers.js';

setUpBufferPolicy();

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

describe("ResilientSocket's `buffer` and `bufferPolicy` options", () => {
  it('takes the given values', () => {
    expect(withBuffer(undefined)).not.toThrow();
    expect(withBuffer({})).not.toThrow();
    expect(
      withPolicy({ overflow: 'error', ttl: 0.5 }, { maxMessages: 0, maxBytes: Number.POSITIVE_INFINITY }),
    ).not.toThrow();
    expect(withPolicy({ overflow: 'drop-newest', ttl: 30_000 }, { maxBytes: 0 })).not.toThrow();
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
  ])('throws a TypeError naming `%s` for a wrong type: %o', (name, buffer, shown) => {
    expectOptionError(withBuffer(buffer), TypeError, name, shown);
  });

  it.each([
    ['buffer.overflow', { overflow: 1 }, 'number 1'],
    ['buffer.overflow', { overflow: null }, 'null'],
    ['buffer.overflow', { overflow: ['error'] }, 'an array of length 1'],
    ['buffer.ttl', { ttl: '1000' }, 'string "1000"'],
    ['buffer.ttl', { ttl: {} }, 'an object'],
  ])(
    'through `bufferPolicy: bufferPolicy(…)`, throws a TypeError naming `%s` for a wrong type: %o',
    (name, policies, shown) => {
      expectOptionError(withPolicy(policies), TypeError, name, shown);
    },
  );

  it.each([
    ['buffer.maxMessages', { maxMessages: -1 }, '-1', 'an integer >= 0'],
    ['buffer.maxMessages', { maxMessages: 1.5 }, '1.5', 'an integer >= 0'],
    ['buffer.maxMessages', { maxMessages: Number.NaN }, 'NaN', 'an integer >= 0'],
    ['buffer.maxMessages', { maxMessages: Number.POSITIVE_INFINITY }, 'Infinity', 'an integer >= 0'],
    ['buffer.maxBytes', { maxBytes: -1 }, '-1', 'an integer >= 0 or Infinity'],
    ['buffer.maxBytes', { maxBytes: 0.5 }, '0.5', 'an integer >= 0 or Infinity'],
    ['buffer.maxBytes', { maxBytes: Number.NEGATIVE_INFINITY }, '-Infinity', 'an integer >= 0 or Infinity'],
  ])('throws a RangeError naming `%s` for a bad value: %o', (name, buffer, shown, rule) => {
    const error = expectOptionError(withBuffer(buffer), RangeError, name, shown);
    expect(error.message).toBe(optionMessage(RangeError, name, `Expected \`${name}\` to be ${rule}, got ${shown}`));
  });

  it.each([
    ['buffer.ttl', { ttl: 0 }, '0', 'a finite number > 0 or Infinity'],
    ['buffer.ttl', { ttl: -5 }, '-5', 'a finite number > 0 or Infinity'],
    ['buffer.ttl', { ttl: Number.NaN }, 'NaN', 'a finite number > 0 or Infinity'],
  ])(
    'through `bufferPolicy: bufferPolicy(…)`, throws a RangeError naming `%s` for a bad value: %o',
    (name, policies, shown, rule) => {
      const error = expectOptionError(withPolicy(policies), RangeError, name, shown);
      expect(error.message).toBe(optionMessage(RangeError, name, `Expected \`${name}\` to be ${rule}, got ${shown}`));
    },
  );

  it('throws a RangeError listing the policies for an unknown overflow string', () => {
    const error = expectOptionError(withPolicy({ overflow: 'drop-all' }), RangeError, 'buffer.overflow', '"drop-all"');
    expect(error.message).toBe(
      optionMessage(RangeError, 'buffer.overflow', `Expected \`buffer.overflow\` to be ${POLICIES}, got "drop-all"`),
    );
    expectOptionError(withPolicy({ overflow: 'DROP-OLDEST' }), RangeError, 'buffer.overflow', '"DROP-OLDEST"');
    expectOptionError(withPolicy({ overflow: '' }), RangeError, 'buffer.overflow', '""');
  });

  it('lists the policies in the TypeError too', () => {
    const error = expectOptionError(withPolicy({ overflow: 2 }), TypeError, 'buffer.overflow', 'number 2');
    expect(error.message).toContain(inMode(POLICIES, 'buffer.overflow'));
  });

  it('a misspelt option is a TypeError that suggests the right one, prefixed with `buffer.`', () => {
    expectUnknownOption(
      withBuffer({ maxMessage: 5 }),
      'buffer.maxMessage',
      'Unknown option `buffer.maxMessage`: did you mean `buffer.maxMessages`?',
    );
    expectUnknownOption(
      withPolicy({ TTL: 5 }),
      'buffer.TTL',
      'Unknown option `buffer.TTL`: did you mean `buffer.ttl`?',
    );
  });

  it('without a close match, lists the buffer’s options', () => {
    expectUnknownOption(
      withBuffer({ policy: 'error' }),
      'buffer.policy',
      'Unknown option `buffer.policy`: the options of `buffer` are `maxMessages`, `maxBytes`',
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
