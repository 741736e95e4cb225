import { describe, expect, it } from 'vitest';
import { delivery, jsonCodec, memoryStore } from '../../../src/modular-node.js';
import { ResilientSocket, ResilientWebSocket } from '../../../src/node.js';
import { expectInputError } from '../../helpers/mode.js';
import { WebSocketImpl } from '../../resilient-socket/helpers.js';

describe('delivery(options): validated by the factory', () => {
  it.each<[unknown, string, RegExp]>([
    [{ ackTimeout: 0 }, 'delivery.ackTimeout', /to be a finite number > 0, got 0/],
    [{ ackTimeout: Number.POSITIVE_INFINITY }, 'delivery.ackTimeout', /got Infinity/],
    [{ maxAttempts: 0 }, 'delivery.maxAttempts', /an integer >= 1 or Infinity, got 0/],
    [{ maxAttempts: 1.5 }, 'delivery.maxAttempts', /got 1.5/],
    [{ window: 0 }, 'delivery.window', /an integer >= 1, got 0/],
    [{ maxPending: -1 }, 'delivery.maxPending', /an integer >= 1, got -1/],
  ])('%j is a RangeError naming %s', (options, name, text) => {
    expectInputError(() => delivery(options as never), RangeError, 'ERR_RS_INVALID_VALUE', name, text);
  });

  it.each<[unknown, string, RegExp]>([
    [{ ackTimeout: '5' }, 'delivery.ackTimeout', /to be a number, got/],
    [{ store: {} }, 'delivery.store', /a store \(persistent, load\(\), put\(\) and delete\(\)\)/],
    [{ store: { ...memoryStore(), persistent: 'yes' } }, 'delivery.store', /a store/],
    [{ codec: { encode: JSON.stringify } }, 'delivery.codec', /a codec \(encode\(\) and decode\(\)\)/],
    ['fast', 'delivery', /delivery/],
  ])('%j is a TypeError naming %s', (options, name, text) => {
    expectInputError(() => delivery(options as never), TypeError, 'ERR_RS_INVALID_TYPE', name, text);
  });

  it('an unknown sub-option is refused with a did-you-mean', () => {
    expectInputError(
      () => delivery({ ackTimout: 5 } as never),
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      'delivery.ackTimout',
      'Unknown option `delivery.ackTimout`: did you mean `delivery.ackTimeout`?',
    );
  });

  it('takes every option; equal options give the one feature (sockets made alike share a config)', () => {
    const store = memoryStore();
    const all = {
      ackTimeout: 1,
      maxAttempts: Number.POSITIVE_INFINITY,
      window: 1,
      maxPending: 1,
      store,
      codec: jsonCodec,
    };
    expect(delivery(all)).toBe(delivery({ ...all }));
    expect(delivery()).toBe(delivery({}));
    expect(delivery().name).toBe('delivery');
  });
});

describe("ResilientSocket's flat `delivery` option", () => {
  it('is off unless given; validated as the factory does', () => {
    const off = new ResilientSocket('ws://localhost:1', { WebSocket: WebSocketImpl, autoConnect: false });
    expect(off.stats.delivery).toBeUndefined();
    const on = new ResilientSocket('ws://localhost:1', {
      WebSocket: WebSocketImpl,
      autoConnect: false,
      delivery: delivery(),
    });
    expect(on.stats.delivery).toEqual({ pending: 0, acked: 0, resent: 0, duplicates: 0 });
    expectInputError(
      () => new ResilientSocket('ws://localhost:1', { WebSocket: WebSocketImpl, delivery: delivery({ window: 0 }) }),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'delivery.window',
    );
    expectInputError(
      () =>
        new ResilientSocket('ws://localhost:1', {
          WebSocket: WebSocketImpl,
          delivery: delivery({ maxPendng: 1 } as never),
        }),
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      'delivery.maxPendng',
    );
    off.close();
    on.close();
  });

  it('ResilientWebSocket does not take it', () => {
    expectInputError(
      () => new ResilientWebSocket('ws://localhost:1', [], { WebSocket: WebSocketImpl, delivery: delivery() } as never),
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      'delivery',
    );
  });
});
