/**
 * The opt-in features' options, `handshake`, `delivery` and `bufferPolicy`: each takes only the
 * value its factory of the same name made (`handshake(hook, options)`, `delivery(options)`,
 * `bufferPolicy(options)`, imported from `resilient-socket`); anything else, a plain hook or options
 * object included, is a TypeError naming the option. The old flat `handshakeTimeout` is an unknown
 * option, `handshake()`'s own `timeout` is checked as `handshake.timeout`, the old
 * `buffer.overflow`/`buffer.ttl` are refused with ERR_RS_NEEDS_FEATURE pointing at `bufferPolicy`,
 * and `ResilientWebSocket` still refuses `delivery`.
 * The classes and codes are the same in production (`npm run test:production`), where the messages
 * are short.
 */
import { describe, expect, it } from 'vitest';
import { BaseSocket } from '../../src/core/socket.js';
import { ErrorCodes } from '../../src/errors.js';
import { bufferPolicy, delivery, handshake, ResilientSocket, ResilientWebSocket } from '../../src/node.js';
import { expectInputError, inMode } from '../helpers/mode.js';
import {
  construct,
  containing,
  expectInvalidOption,
  expectRsError,
  expectUnknownOption,
  thrown,
  useFakeTimersAndCleanup,
  WebSocketImpl,
} from './helpers.js';

useFakeTimersAndCleanup();

const hook = () => undefined;

describe('handshake: only the value of handshake(…)', () => {
  it('a plain function (the old form) is a TypeError naming `handshake`', () => {
    const error = expectInvalidOption(
      () => construct('ws://localhost:1', { handshake: hook }),
      TypeError,
      'handshake',
      containing("handshake(…), imported from 'resilient-socket'"),
    );
    expect(error.code).toBe('ERR_RS_INVALID_TYPE');
  });

  it.each<[string, unknown]>([
    ['a plain object', { timeout: 1_000 }],
    ['an object that only looks like the feature', { name: 'handshake' }],
    ['null', null],
    ['a string', 'x'],
    ['delivery() (the other feature)', delivery()],
  ])('%s is a TypeError naming `handshake`', (_label, value) => {
    expectInvalidOption(() => construct('ws://localhost:1', { handshake: value }), TypeError, 'handshake');
  });

  it('handshake(hook, { timeout }) is taken; handshake(hook) too', () => {
    expect(() => construct('ws://localhost:1', { handshake: handshake(hook, { timeout: 5_000 }) })).not.toThrow();
    expect(() => construct('ws://localhost:1', { handshake: handshake(hook) })).not.toThrow();
  });

  it.each<[string, number, ErrorConstructor]>([
    ['0', 0, RangeError],
    ['-1', -1, RangeError],
    ['NaN', Number.NaN, RangeError],
  ])('handshake(hook, { timeout: %s }) is a %o naming `handshake.timeout`', (_label, timeout, Type) => {
    expectInvalidOption(
      () => construct('ws://localhost:1', { handshake: handshake(hook, { timeout }) }),
      Type,
      'handshake.timeout',
    );
  });

  it('handshake(hook, { timeout: "5" }) is a TypeError naming `handshake.timeout`', () => {
    expectInvalidOption(
      () => construct('ws://localhost:1', { handshake: handshake(hook, { timeout: '5' as never }) }),
      TypeError,
      'handshake.timeout',
    );
  });

  it('handshakeTimeout is an unknown option, even next to a handshake (the message points at `handshake`)', () => {
    expectUnknownOption(() => construct('ws://localhost:1', { handshakeTimeout: 1_000 }), 'handshakeTimeout');
    expectUnknownOption(
      () => construct('ws://localhost:1', { handshake: handshake(hook), handshakeTimeout: 1_000 }),
      'handshakeTimeout',
      /^Unknown option `handshakeTimeout`: .*`handshake`/,
    );
  });
});

describe('delivery: only the value of delivery(…)', () => {
  it('a plain options object (the old form) is a TypeError naming `delivery`', () => {
    const error = expectInvalidOption(
      () => construct('ws://localhost:1', { delivery: { ackTimeout: 1_000 } }),
      TypeError,
      'delivery',
      containing("delivery(…), imported from 'resilient-socket'"),
    );
    expect(error.code).toBe('ERR_RS_INVALID_TYPE');
  });

  it.each<[string, unknown]>([
    ['an empty object (the old `delivery: {}`)', {}],
    ['handshake(hook) (the other feature)', handshake(hook)],
    ['the factory itself, not called', delivery],
    ['true', true],
    ['null', null],
    ['an object that only looks like the feature', { name: 'delivery', rank: '15' }],
  ])('%s is a TypeError naming `delivery`', (_label, value) => {
    expectInvalidOption(() => construct('ws://localhost:1', { delivery: value }), TypeError, 'delivery');
  });

  it('delivery(options) and delivery() are taken: sendReliable() is there', () => {
    const socket = construct('ws://localhost:1', { delivery: delivery({ ackTimeout: 5_000 }) });
    expect(socket.stats.delivery).toEqual({ pending: 0, acked: 0, resent: 0, duplicates: 0 });
    expect(() => construct('ws://localhost:1', { delivery: delivery() })).not.toThrow();
  });

  it('a bad delivery() option is the factory’s error, naming `delivery.<option>`', () => {
    expectInvalidOption(
      () => construct('ws://localhost:1', { delivery: delivery({ ackTimeout: 0 }) }),
      RangeError,
      'delivery.ackTimeout',
    );
  });
});

describe('bufferPolicy: only the value of bufferPolicy(…)', () => {
  it.each<[string, Record<string, unknown>]>([
    ['overflow', { overflow: 'error' }],
    ['ttl', { ttl: 1 }],
  ])('`buffer.%s` (the old flat form) is a TypeError ERR_RS_NEEDS_FEATURE naming it', (key, buffer) => {
    expectInputError(
      () => construct('ws://localhost:1', { buffer }),
      TypeError,
      'ERR_RS_NEEDS_FEATURE',
      `buffer.${key}`,
      `\`buffer.${key}\` is an option of bufferPolicy(): give \`bufferPolicy: bufferPolicy({ ${key} })\`, imported from 'resilient-socket'`,
    );
  });

  it('`buffer.overflow` is refused even next to the queue limits and a bufferPolicy(…)', () => {
    expectInputError(
      () =>
        construct('ws://localhost:1', {
          buffer: { maxMessages: 1, overflow: 'error' },
          bufferPolicy: bufferPolicy({ overflow: 'error' }),
        }),
      TypeError,
      'ERR_RS_NEEDS_FEATURE',
      'buffer.overflow',
    );
  });

  it('a plain options object is a TypeError naming `bufferPolicy`', () => {
    const error = expectInvalidOption(
      () => construct('ws://localhost:1', { bufferPolicy: { overflow: 'error' } }),
      TypeError,
      'bufferPolicy',
      containing("bufferPolicy(…), imported from 'resilient-socket'"),
    );
    expect(error.code).toBe('ERR_RS_INVALID_TYPE');
  });

  it.each<[string, unknown]>([
    ['an empty object', {}],
    ['delivery() (another feature)', delivery()],
    ['handshake(hook) (another feature)', handshake(hook)],
    ['the factory itself, not called', bufferPolicy],
    ['null', null],
    ['an object that only looks like the feature', { name: 'bufferPolicy' }],
  ])('%s is a TypeError naming `bufferPolicy`', (_label, value) => {
    expectInvalidOption(() => construct('ws://localhost:1', { bufferPolicy: value }), TypeError, 'bufferPolicy');
  });

  it("bufferPolicy(options) and bufferPolicy() are taken, and work: overflow 'error' throws on a full buffer", () => {
    const socket = construct('ws://localhost:1', {
      buffer: { maxMessages: 1 },
      bufferPolicy: bufferPolicy({ overflow: 'error', ttl: 30_000 }),
    });
    expect(socket.send('a')).toBe('buffered');
    expectRsError(
      thrown(() => socket.send('b')),
      ErrorCodes.BUFFER_OVERFLOW,
    );
    expect(socket.bufferedCount).toBe(1);
    expect(() => construct('ws://localhost:1', { bufferPolicy: bufferPolicy() })).not.toThrow();
  });

  it('a bad bufferPolicy() option is the factory’s error, naming `buffer.<option>`', () => {
    expectInvalidOption(
      () => construct('ws://localhost:1', { bufferPolicy: bufferPolicy({ overflow: 'x' as never }) }),
      RangeError,
      'buffer.overflow',
    );
    expectInvalidOption(
      () => construct('ws://localhost:1', { bufferPolicy: bufferPolicy({ ttl: 0 }) }),
      RangeError,
      'buffer.ttl',
    );
  });

  it('on a BaseSocket, `bufferPolicy` as an option is a TypeError ERR_RS_NEEDS_FEATURE (it goes in `features`)', () => {
    expectInputError(
      () =>
        new BaseSocket('ws://localhost:1', {
          WebSocket: WebSocketImpl,
          autoConnect: false,
          bufferPolicy: bufferPolicy(),
        } as never),
      TypeError,
      'ERR_RS_NEEDS_FEATURE',
      'bufferPolicy',
      "`bufferPolicy` belongs to the bufferPolicy() feature: import { bufferPolicy } from 'resilient-socket/modular' and add bufferPolicy(…) to `features`",
    );
  });
});

describe("the main entry's ResilientWebSocket", () => {
  const webSocket = (options: Record<string, unknown>) =>
    new ResilientWebSocket('ws://localhost:1', [], { WebSocket: WebSocketImpl, ...options } as never);

  it('still refuses `delivery`, even as delivery(…)’s value: an unknown option', () => {
    expectUnknownOption(() => webSocket({ delivery: delivery() }), 'delivery');
    expectUnknownOption(() => webSocket({ delivery: {} }), 'delivery');
  });

  it('takes bufferPolicy(…)’s value, and refuses `buffer.overflow` / `buffer.ttl`', () => {
    const socket = webSocket({ buffer: { maxMessages: 1 }, bufferPolicy: bufferPolicy({ overflow: 'drop-newest' }) });
    socket.close();
    expectInputError(() => webSocket({ buffer: { ttl: 1 } }), TypeError, 'ERR_RS_NEEDS_FEATURE', 'buffer.ttl');
    expectInputError(
      () => webSocket({ buffer: { overflow: 'error' } }),
      TypeError,
      'ERR_RS_NEEDS_FEATURE',
      'buffer.overflow',
    );
    expectInvalidOption(() => webSocket({ bufferPolicy: { ttl: 1 } }), TypeError, 'bufferPolicy');
  });

  it('takes handshake(…)’s value, and refuses a plain function and handshakeTimeout', () => {
    const socket = webSocket({ handshake: handshake(hook, { timeout: 1_000 }) });
    socket.close();
    expectInvalidOption(() => webSocket({ handshake: hook }), TypeError, 'handshake');
    expectUnknownOption(() => webSocket({ handshakeTimeout: 1_000 }), 'handshakeTimeout');
  });
});

describe('in either mode', () => {
  it('the messages are the short ones in production, the full ones in development', () => {
    let message = '';
    try {
      new ResilientSocket('ws://localhost:1', {
        WebSocket: WebSocketImpl,
        autoConnect: false,
        delivery: {} as never,
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(
      inMode(
        /^Expected `delivery` to be delivery\(…\), imported from 'resilient-socket', got an object$/,
        '`delivery`: ERR_RS_INVALID_TYPE (development builds say more)',
      ),
    );
  });
});
