/**
 * Input that must be refused, not taken and then ignored or misused: `binaryType` (in the options and the
 * setter) must be a value the WebSocket takes, `delivery.store` must be a store (no falsy stand-in
 * for "none"), and a `clock` whose `now()` is not a finite number is refused at construction and,
 * should it turn so later, contained (time stands still; no timer fires over and over) and
 * reported once. No secret from a URL reaches any text: a provider's error with a password that
 * holds a space, the drop-in's SyntaxError for `user:password@host`. mock-socket, fake timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bufferPolicy, delivery, ResilientSocket, ResilientWebSocket } from '../../src/node.js';
import { TestClock } from '../../src/testing/test-clock.js';
import { ResilientWebSocket as CoreWebSocket } from '../../src/websocket-node.js';
import { expectInputError, PRODUCTION } from '../helpers/mode.js';
import { advance, cleanup, createSocket, MOCK_DELAY, record, startServer, thrown, WebSocketImpl } from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

describe('binaryType', () => {
  it('in the options: a value the WebSocket does not take is a RangeError naming it (it would be ignored)', () => {
    for (const construct of [
      () => createSocket('ws://localhost:1', { binaryType: 'arraybufer', autoConnect: false }),
      () => new ResilientWebSocket('ws://localhost:1', [], { WebSocket: WebSocketImpl, binaryType: 'arraybufer' }),
      () => new CoreWebSocket('ws://localhost:1', [], { WebSocket: WebSocketImpl, binaryType: 'Blob' } as never),
    ]) {
      expectInputError(thrown(construct), {
        kind: RangeError,
        code: 'ERR_RS_INVALID_VALUE',
        name: 'binaryType',
        message: /^Expected `binaryType` to be one of 'blob', 'arraybuffer', got "(arraybufer|Blob)"$/,
      });
    }
  });

  it("ws's own values with ws, the browser's two with any other WebSocket", () => {
    const ws = new ResilientSocket('ws://localhost:1', { binaryType: 'nodebuffer', autoConnect: false });
    expect(ws.binaryType).toBe('nodebuffer');
    ws.binaryType = 'fragments';
    expect(ws.binaryType).toBe('fragments');
    ws.close();
    const mock = createSocket('ws://localhost:1', { autoConnect: false });
    expect(() => {
      mock.binaryType = 'nodebuffer';
    }).toThrow(RangeError);
    mock.binaryType = 'arraybuffer';
    expect(mock.binaryType).toBe('arraybuffer');
  });

  it("the setter of ResilientSocket refuses it; the drop-in's ignores it, as a WebSocket does", () => {
    const socket = createSocket('ws://localhost:1', { binaryType: 'arraybuffer', autoConnect: false });
    expectInputError(
      thrown(() => {
        socket.binaryType = 'arraybufer';
      }),
      { kind: RangeError, code: 'ERR_RS_INVALID_VALUE', name: 'binaryType', message: /got "arraybufer"$/ },
    );
    expect(socket.binaryType).toBe('arraybuffer');
    const dropIn = new ResilientWebSocket('ws://localhost:1', [], { WebSocket: WebSocketImpl, autoConnect: false });
    dropIn.binaryType = 'arraybuffer';
    (dropIn as { binaryType: string }).binaryType = 'arraybufer';
    expect(dropIn.binaryType).toBe('arraybuffer');
    dropIn.close();
  });
});

describe('delivery.store', () => {
  it.each([null, '', 0, Number.NaN, false])('refuses %s with a TypeError naming it', (store) => {
    expectInputError(
      thrown(() =>
        createSocket('ws://localhost:1', { delivery: delivery({ store: store as never }), autoConnect: false }),
      ),
      { kind: TypeError, code: 'ERR_RS_INVALID_TYPE', name: 'delivery.store', message: /^Expected `delivery.store`/ },
    );
  });
});

describe('a clock whose now() is not a finite number', () => {
  it.each([Number.NaN, Number.POSITIVE_INFINITY, '12', undefined])(
    'is refused at construction (now() gave %s)',
    (value) => {
      const clock = { setTimeout, clearTimeout, now: () => value as number };
      expectInputError(
        thrown(() => createSocket('ws://localhost:1', { clock, autoConnect: false })),
        {
          kind: RangeError,
          code: 'ERR_RS_INVALID_VALUE',
          name: 'clock.now()',
          message: `Expected \`clock.now()\` to return a finite number (milliseconds), got ${String(value)}`,
        },
      );
    },
  );

  it('that turns bad later is contained: no timer fires over and over, and it is said once', async () => {
    const test = new TestClock();
    let broken = false;
    const setTimeouts = vi.fn(test.setTimeout.bind(test));
    const clock = {
      setTimeout: setTimeouts,
      clearTimeout: test.clearTimeout.bind(test),
      now: () => (broken ? Number.NaN : test.now()),
    };
    const warnings: unknown[] = [];
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation((warning) => {
      warnings.push(warning);
    });
    const server = startServer();
    const socket = createSocket(server.url, {
      clock,
      delivery: delivery({ ackTimeout: 1_000 }), // the peer does not speak the protocol: never acknowledged
      bufferPolicy: bufferPolicy({ ttl: 500 }),
      maxDelay: 1_000,
    });
    const drops = record(socket, ['drop']);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    broken = true;
    void socket.sendReliable('x').catch(() => undefined);
    server.stop(); // reconnecting from now on: backoff, connect deadlines, the queue's ttl
    await advance(MOCK_DELAY);
    socket.send('queued');
    const before = setTimeouts.mock.calls.length;
    for (let i = 0; i < 20; i++) {
      await test.advance(100);
      await advance(MOCK_DELAY);
    }
    // Per attempt: its connect deadline, the grace after its error, the backoff wait, and the
    // feature timers (acknowledgement, ttl): a few dozen in two seconds, not thousands.
    expect(setTimeouts.mock.calls.length - before).toBeLessThan(200);
    socket.close();
    expect(drops.of('drop').flatMap((drop) => drop.messages)).toEqual(['x', 'queued']);
    warn.mockRestore();
    const said = warnings.filter((w) => String((w as Error).message ?? w).includes('clock.now()'));
    expect(said).toHaveLength(PRODUCTION ? 0 : 1);
    expect(warnings.map((w) => (w as { code?: string }).code)).toContain('ERR_RS_CALLBACK_FAILED');
  });
});

describe('no secret from a URL in any text', () => {
  it('a URL provider that throws with a password holding a space: neither `error` nor the `state` reason shows it', async () => {
    const socket = createSocket(
      () => {
        throw new Error('cannot reach ws://alice:pa ss@host/?token=TOK');
      },
      { maxDelay: 1_000 },
    );
    const events = record(socket, ['error', 'state']);
    await advance(MOCK_DELAY);
    const texts = events.events.map(({ payload }) =>
      JSON.stringify(payload, (_key, value) => (value instanceof Error ? `${value.message} ${value.cause}` : value)),
    );
    expect(texts.length).toBeGreaterThan(1);
    for (const text of texts) {
      for (const secret of ['alice', 'pa ss', 'ss@', 'TOK']) expect(text).not.toContain(secret);
    }
    if (!PRODUCTION) expect(texts.join('\n')).toContain('ws://***@host/?token=***');
  });

  it("the drop-in's SyntaxError for a URL without a scheme names no user", () => {
    for (const Class of [ResilientWebSocket, CoreWebSocket]) {
      const error = thrown(() => new Class('alice:pw@host/?token=TOK', [], { WebSocket: WebSocketImpl })) as Error;
      expect(error.name).toBe('SyntaxError');
      for (const secret of ['alice', 'pw', 'TOK']) expect(error.message).not.toContain(secret);
    }
  });
});
