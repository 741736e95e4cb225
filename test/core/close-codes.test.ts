import { describe, expect, it } from 'vitest';
import {
  assertCloseArgs,
  CloseCodes,
  type CloseInfo,
  defaultShouldReconnect,
  FATAL_CLOSE_CODES,
} from '../../src/core/close-codes.js';
import { expectInputError } from '../helpers/mode.js';

function info(code: number): CloseInfo {
  return { code, reason: '', wasClean: code === 1000 };
}

describe('defaultShouldReconnect', () => {
  it.each([1000, 1001, 1005, 1006, 1011, 1012, 1013, 1014, 3000, 4000, 4999])('reconnects after %i', (code) => {
    expect(defaultShouldReconnect(info(code))).toBe(true);
  });

  it.each([1002, 1003, 1007, 1008, 1009, 1010])('does not reconnect after %i', (code) => {
    expect(defaultShouldReconnect(info(code))).toBe(false);
  });

  it('ignores the reason and wasClean', () => {
    expect(defaultShouldReconnect({ code: 1008, reason: 'please retry', wasClean: true })).toBe(false);
    expect(defaultShouldReconnect({ code: 1011, reason: 'fatal', wasClean: false })).toBe(true);
  });

  it('FATAL_CLOSE_CODES is exactly the protocol and policy codes', () => {
    expect([...FATAL_CLOSE_CODES].sort()).toEqual([1002, 1003, 1007, 1008, 1009, 1010]);
  });

  it('CloseCodes names the RFC 6455 codes', () => {
    expect(CloseCodes.NORMAL).toBe(1000);
    expect(CloseCodes.ABNORMAL).toBe(1006);
    expect(CloseCodes.POLICY_VIOLATION).toBe(1008);
    expect(CloseCodes.TRY_AGAIN_LATER).toBe(1013);
    expect(Object.isFrozen(CloseCodes)).toBe(true);
  });
});

describe('assertCloseArgs', () => {
  it.each([1000, 3000, 3001, 4000, 4999])('accepts code %i', (code) => {
    expect(() => assertCloseArgs(code, '')).not.toThrow();
  });

  it.each([999, 1001, 1005, 1006, 1011, 2999, 5000, 3000.5, Number.NaN, Number.POSITIVE_INFINITY, -1000])(
    'rejects code %s with a RangeError',
    (code) => {
      expect(() => assertCloseArgs(code, '')).toThrow(RangeError);
      expect(() => assertCloseArgs(code, '')).toThrow(/`code`/);
    },
  );

  it.each([['1000'], [null], [{}], [true]])('rejects code %o with a TypeError', (code) => {
    expect(() => assertCloseArgs(code, '')).toThrow(TypeError);
    expect(() => assertCloseArgs(code, '')).toThrow(/`code`/);
  });

  it('accepts undefined code and reason (the defaults)', () => {
    expect(() => assertCloseArgs(undefined, undefined)).not.toThrow();
  });

  it('accepts a reason of exactly 123 ASCII bytes and rejects 124', () => {
    expect(() => assertCloseArgs(1000, 'x'.repeat(123))).not.toThrow();
    expect(() => assertCloseArgs(1000, 'x'.repeat(124))).toThrow(RangeError);
    expectInputError(
      () => assertCloseArgs(1000, 'x'.repeat(124)),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'reason',
      /got 124 bytes/,
    );
  });

  it('counts UTF-8 bytes, not UTF-16 code units', () => {
    // 'é' is 2 bytes, '€' 3 bytes, '😀' 4 bytes (two UTF-16 code units).
    const exactly123 = `${'é'.repeat(30)}${'€'.repeat(10)}${'😀'.repeat(5)}${'x'.repeat(13)}`; // 60 + 30 + 20 + 13
    expect(exactly123.length).toBeLessThan(123);
    expect(() => assertCloseArgs(1000, exactly123)).not.toThrow();
    expect(() => assertCloseArgs(1000, `${exactly123}x`)).toThrow(RangeError);
    expectInputError(
      () => assertCloseArgs(1000, `${exactly123}é`),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'reason',
      /got 125 bytes/,
    );
    // 62 × 'é' = 124 bytes in only 62 code units.
    expect(() => assertCloseArgs(3000, 'é'.repeat(62))).toThrow(RangeError);
    expect(() => assertCloseArgs(3000, 'é'.repeat(61))).not.toThrow();
  });

  it.each([[5], [null], [{}]])('rejects reason %o with a TypeError', (reason) => {
    expect(() => assertCloseArgs(1000, reason)).toThrow(TypeError);
    expect(() => assertCloseArgs(1000, reason)).toThrow(/`reason`/);
  });
});
