/**
 * `checkSubprotocols`: the subprotocols `ResilientSocket` takes and a `protocols()` provider
 * returns, each error with its code and the option's name, the detail in development builds.
 */
import { describe, expect, it } from 'vitest';
import { checkSubprotocols } from '../../../src/features/providers/protocols.js';
import { expectInputError } from '../../helpers/mode.js';

const TOKEN = "an HTTP token (RFC 6455 §4.1: letters, digits and !#$%&'*+-.^_|~ or the backquote)";

describe('checkSubprotocols', () => {
  it('takes none, one or several distinct tokens, and copies a list', () => {
    expect(checkSubprotocols('protocols', undefined)).toBeUndefined();
    expect(checkSubprotocols('protocols', 'chat')).toBe('chat');
    const list = ['a', 'b'];
    expect(checkSubprotocols('protocols', list)).toEqual(['a', 'b']);
    expect(checkSubprotocols('protocols', list)).not.toBe(list);
  });

  it('a wrong type: a TypeError (ERR_RS_INVALID_TYPE) naming the option, and where in a list', () => {
    const type = 'ERR_RS_INVALID_TYPE';
    expectInputError(
      () => checkSubprotocols('protocols', 5),
      TypeError,
      type,
      'protocols',
      'Expected `protocols` to be a string or an array of strings, got number 5',
    );
    expectInputError(
      () => checkSubprotocols('protocols()', ['a', 1]),
      TypeError,
      type,
      'protocols()',
      'Expected `protocols()` to be a string or an array of strings, got number 1 at index 1',
    );
  });

  it('a bad name or a repeated one: a RangeError (ERR_RS_INVALID_VALUE) naming the option', () => {
    const value = 'ERR_RS_INVALID_VALUE';
    expectInputError(
      () => checkSubprotocols('protocols', ''),
      RangeError,
      value,
      'protocols',
      `Expected \`protocols\` to be ${TOKEN}, got an empty string (for no subprotocol, leave \`protocols\` out or pass [])`,
    );
    expectInputError(
      () => checkSubprotocols('protocols()', 'a b'),
      RangeError,
      value,
      'protocols()',
      `Expected \`protocols()\` to be ${TOKEN}, got "a b" (a space is not allowed)`,
    );
    expectInputError(
      () => checkSubprotocols('protocols', ['ok', `${'x'.repeat(40)}\n`]),
      RangeError,
      value,
      'protocols',
      `Expected every entry of \`protocols\` to be ${TOKEN}, got "xxxxxxxx…" (41 characters, LF is not allowed) at index 1`,
    );
    expectInputError(
      () => checkSubprotocols('protocols', ['x', 'y', 'x']),
      RangeError,
      value,
      'protocols',
      'Expected `protocols` to name each subprotocol once, got "x" at index 0 and 2',
    );
  });
});
