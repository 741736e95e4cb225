import { describe, expect, it } from 'vitest';
import { ReliableServer, type ReliableServerOptions } from '../../src/server/index.js';
import { resolveServerOptions } from '../../src/server/options.js';

/** A stand-in server: only what the constructor touches. */
const wss = () => {
  const listeners: unknown[] = [];
  return {
    listeners,
    on: (_event: 'connection', listener: unknown) => listeners.push(listener),
    off: (_event: 'connection', listener: unknown) => listeners.splice(listeners.indexOf(listener), 1),
  };
};

describe('ReliableServer options', () => {
  it('has documented defaults', () => {
    const o = resolveServerOptions(undefined);
    expect(o).toMatchObject({
      ackTimeout: 10_000,
      maxAttempts: Number.POSITIVE_INFINITY,
      maxPending: 1_000,
      window: 1_000,
      sessionTtl: 300_000,
      maxSessions: 10_000,
      maxSessionBytes: 1_048_576,
      maxBytes: 134_217_728,
    });
  });

  it.each<[string, ReliableServerOptions, string, string, RegExp]>([
    ['ackTimeout 0', { ackTimeout: 0 }, 'RangeError', 'ERR_RS_INVALID_VALUE', /`ackTimeout` to be a finite number > 0/],
    [
      'ackTimeout "1"',
      { ackTimeout: '1' as never },
      'TypeError',
      'ERR_RS_INVALID_TYPE',
      /`ackTimeout` to be a number, got string "1"/,
    ],
    [
      'maxAttempts 0',
      { maxAttempts: 0 },
      'RangeError',
      'ERR_RS_INVALID_VALUE',
      /`maxAttempts` to be an integer >= 1 or Infinity, got 0/,
    ],
    ['maxAttempts 1.5', { maxAttempts: 1.5 }, 'RangeError', 'ERR_RS_INVALID_VALUE', /`maxAttempts`/],
    [
      'maxPending 0',
      { maxPending: 0 },
      'RangeError',
      'ERR_RS_INVALID_VALUE',
      /`maxPending` to be an integer >= 1, got 0/,
    ],
    [
      'maxPending Infinity',
      { maxPending: Number.POSITIVE_INFINITY },
      'RangeError',
      'ERR_RS_INVALID_VALUE',
      /`maxPending`/,
    ],
    ['window -1', { window: -1 }, 'RangeError', 'ERR_RS_INVALID_VALUE', /`window` to be an integer >= 1, got -1/],
    ['sessionTtl -1', { sessionTtl: -1 }, 'RangeError', 'ERR_RS_INVALID_VALUE', /`sessionTtl`/],
    ['sessionTtl 2^31', { sessionTtl: 2 ** 31 }, 'RangeError', 'ERR_RS_INVALID_VALUE', /`sessionTtl`.*<= 2147483647/],
    [
      'maxSessions null',
      { maxSessions: null as never },
      'TypeError',
      'ERR_RS_INVALID_TYPE',
      /`maxSessions` to be a number, got null/,
    ],
    [
      'codec {}',
      { codec: {} as never },
      'TypeError',
      'ERR_RS_INVALID_TYPE',
      /`codec` to be an object with encode and decode functions/,
    ],
    [
      'maxSessionBytes "1"',
      { maxSessionBytes: '1' as never },
      'TypeError',
      'ERR_RS_INVALID_TYPE',
      /`maxSessionBytes` to be a number, got string "1"/,
    ],
    [
      'maxSessionBytes -1',
      { maxSessionBytes: -1 },
      'RangeError',
      'ERR_RS_INVALID_VALUE',
      /`maxSessionBytes` to be an integer >= 0 or Infinity, got -1/,
    ],
    ['maxSessionBytes 1.5', { maxSessionBytes: 1.5 }, 'RangeError', 'ERR_RS_INVALID_VALUE', /`maxSessionBytes`/],
    ['maxSessionBytes NaN', { maxSessionBytes: Number.NaN }, 'RangeError', 'ERR_RS_INVALID_VALUE', /`maxSessionBytes`/],
    [
      'maxBytes null',
      { maxBytes: null as never },
      'TypeError',
      'ERR_RS_INVALID_TYPE',
      /`maxBytes` to be a number, got null/,
    ],
    ['maxBytes -5', { maxBytes: -5 }, 'RangeError', 'ERR_RS_INVALID_VALUE', /`maxBytes` to be an integer >= 0/],
    [
      'maxBytes below maxSessionBytes',
      { maxBytes: 1_000, maxSessionBytes: 2_000 },
      'RangeError',
      'ERR_RS_INVALID_VALUE',
      /`maxBytes` to be >= `maxSessionBytes` \(2000\), got 1000/,
    ],
    ['clock {}', { clock: {} as never }, 'TypeError', 'ERR_RS_INVALID_TYPE', /`clock` to be a Clock/],
    [
      'a misspelt option',
      { ackTimout: 5 } as never,
      'TypeError',
      'ERR_RS_UNKNOWN_OPTION',
      /did you mean `ackTimeout`\?/,
    ],
  ])('refuses %s, naming it', (_label, options, name, code, message) => {
    const server = wss();
    let thrown: unknown;
    try {
      new ReliableServer(server, options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ name, code });
    expect((thrown as Error).message).toMatch(message);
    expect(server.listeners).toHaveLength(0); // nothing started
  });

  it('refuses options that are not an object, and a server that is not one', () => {
    expect(() => new ReliableServer(wss(), 5 as never)).toThrow(
      expect.objectContaining({ name: 'TypeError', code: 'ERR_RS_INVALID_TYPE' }),
    );
    expect(() => new ReliableServer(undefined as never)).toThrow(/`wss` to be a ws WebSocketServer/);
    expect(() => new ReliableServer({ on() {} } as never)).toThrow(
      expect.objectContaining({ name: 'TypeError', code: 'ERR_RS_INVALID_TYPE' }),
    );
  });

  it('accepts Infinity where documented', () => {
    const o = resolveServerOptions({
      maxAttempts: Number.POSITIVE_INFINITY,
      sessionTtl: Number.POSITIVE_INFINITY,
      maxSessionBytes: Number.POSITIVE_INFINITY,
      maxBytes: Number.POSITIVE_INFINITY,
    });
    expect(o.maxAttempts).toBe(Number.POSITIVE_INFINITY);
    expect(o.sessionTtl).toBe(Number.POSITIVE_INFINITY);
    expect(o.maxSessionBytes).toBe(Number.POSITIVE_INFINITY);
    expect(o.maxBytes).toBe(Number.POSITIVE_INFINITY);
    expect(resolveServerOptions({ maxSessionBytes: 0, maxBytes: 0 })).toMatchObject({
      maxSessionBytes: 0,
      maxBytes: 0,
    });
  });

  it('makes `maxSessionBytes` no more than `maxBytes` by default', () => {
    expect(resolveServerOptions({ maxBytes: 1_000 })).toMatchObject({ maxSessionBytes: 1_000, maxBytes: 1_000 });
    expect(resolveServerOptions({ maxBytes: Number.POSITIVE_INFINITY }).maxSessionBytes).toBe(1_048_576);
  });

  it('listens to the server until close()', () => {
    const server = wss();
    const reliable = new ReliableServer(server);
    expect(server.listeners).toHaveLength(1);
    reliable.close();
    expect(server.listeners).toHaveLength(0);
  });
});
