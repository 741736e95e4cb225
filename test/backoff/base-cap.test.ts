import { describe, expect, it } from 'vitest';
import { BASE_CAP_DEFAULTS, resolveBaseCap } from '../../src/backoff/base-cap.js';
import { expectInputError } from '../helpers/mode.js';
import { expectOptionError } from './helpers.js';

describe('BASE_CAP_DEFAULTS', () => {
  it('is base 100, cap 10 000, frozen', () => {
    expect(BASE_CAP_DEFAULTS).toEqual({ base: 100, cap: 10_000 });
    expect(Object.isFrozen(BASE_CAP_DEFAULTS)).toBe(true);
  });
});

describe('resolveBaseCap', () => {
  it('fills in defaults and Math.random', () => {
    expect(resolveBaseCap('f', undefined)).toEqual({ base: 100, cap: 10_000, random: Math.random });
    expect(resolveBaseCap('f', {})).toEqual({ base: 100, cap: 10_000, random: Math.random });
  });

  it('passes valid options through unchanged', () => {
    const random = () => 0.5;
    const resolved = resolveBaseCap('f', { base: 3, cap: 3, random });
    expect(resolved.base).toBe(3);
    expect(resolved.cap).toBe(3);
    expect(resolved.random).toBe(random);
  });

  it('names the factory in the options error', () => {
    expectOptionError(() => resolveBaseCap('myFactory', null as never), TypeError, 'myFactory options', 'null');
  });

  it('checks base before cap, and cap against base', () => {
    expectOptionError(() => resolveBaseCap('f', { base: -5, cap: -10 }), RangeError, 'base', '-5');
    expectOptionError(() => resolveBaseCap('f', { base: 10, cap: -1 }), RangeError, 'cap', '-1');
    expectOptionError(() => resolveBaseCap('f', { base: 10, cap: 9 }), RangeError, 'cap', '9');
  });

  it('validates random only after base and cap', () => {
    expectOptionError(() => resolveBaseCap('f', { base: 0, random: 1 } as never), RangeError, 'base', '0');
    expectOptionError(() => resolveBaseCap('f', { random: 1 } as never), TypeError, 'random', 'number 1');
  });
});

describe('null is a wrong type, never "use the default"', () => {
  it.each(['base', 'cap'])('rejects %s: null with a TypeError', (name) => {
    expectOptionError(() => resolveBaseCap('f', { [name]: null } as never), TypeError, name, 'null');
  });

  it('says when the cap it compares against is the default', () => {
    const value = 'ERR_RS_INVALID_VALUE';
    expectInputError(
      () => resolveBaseCap('f', { base: 20_000 }),
      RangeError,
      value,
      'base',
      /Expected `cap` to be >= `base` \(20000\), got 10000 \(the default\)$/,
    );
    expectInputError(() => resolveBaseCap('f', { base: 20_000, cap: 5 }), RangeError, value, 'cap', /got 5$/);
  });
});
