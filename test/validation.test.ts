import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertBoolean,
  assertFunction,
  assertKnownKeys,
  assertNumber,
  assertObjectOrFalse,
  assertOptionsObject,
  assertThat,
  closestKey,
  describeChar,
  firstNonTokenChar,
  inputError,
  isToken,
  optionPath,
  quoteKey,
  rangeError,
  typeError,
} from '../src/validation.js';
import { expectInputError, productionMessage } from './helpers/mode.js';

/** Plain Levenshtein distance plus adjacent swaps (optimal string alignment), no shortcuts: the reference. */
function reference(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      row[j] = Math.min(
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (up[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

const SOCKET_KEYS = ['maxDelay', 'ceiling', 'backoff', 'stableAfter', 'maxRetries', 'maxRetryAfter', 'heartbeat'];

describe('closestKey', () => {
  it.each<[string, string | undefined]>([
    ['maxDelays', 'maxDelay'], // one letter more
    ['maxDelya', 'maxDelay'], // two letters swapped: one edit
    ['mxaDelay', 'maxDelay'],
    ['MAXDELAY', 'maxDelay'], // case alone
    ['maxretries', 'maxRetries'],
    ['maxRetrie', 'maxRetries'], // one letter short
    ['maxRetry', undefined], // three edits from maxRetries, five from maxRetryAfter
    ['maxRetriesAfter', undefined], // three edits from maxRetryAfter
    ['heartbeats', 'heartbeat'],
    ['cieling', 'ceiling'],
    ['stable', undefined], // five letters short of stableAfter
    ['retries', undefined],
    ['ttl', undefined],
  ])('%s → %s', (key, expected) => {
    expect(closestKey(key, SOCKET_KEYS)).toBe(expected);
  });

  it('picks the closest when several are within two edits, the first on a tie', () => {
    expect(closestKey('maxRetryAftr', ['maxRetries', 'maxRetryAfter'])).toBe('maxRetryAfter');
    expect(closestKey('base', ['bass', 'case'])).toBe('bass');
    expect(closestKey('base', ['case', 'bass'])).toBe('case');
  });

  it('suggests for a name shorter than 4 characters only when it differs in case alone', () => {
    expect(closestKey('cp', ['cap'])).toBeUndefined();
    expect(closestKey('cpa', ['cap'])).toBeUndefined();
    expect(closestKey('CAP', ['cap'])).toBe('cap');
    expect(closestKey('ttll', ['ttl'])).toBe('ttl');
  });

  it('never suggests the opposite: min/max, start/stop, open/close, first/last … in one word of the name', () => {
    expect(closestKey('minDelay', SOCKET_KEYS)).toBeUndefined();
    expect(closestKey('min-delay', ['max-delay'])).toBeUndefined();
    expect(closestKey('maxTimeout', ['minTimeout'])).toBeUndefined();
    expect(closestKey('onStart', ['onStop'])).toBeUndefined();
    expect(closestKey('closeDelay', ['openDelay'])).toBeUndefined();
    expect(closestKey('lastId', ['firstId'])).toBeUndefined();
    // A misspelling next to an opposite is still found, and the opposite's own spelling too.
    expect(closestKey('minDelay', ['maxDelay', 'minDelya'])).toBe('minDelya');
    expect(closestKey('maxDlay', SOCKET_KEYS)).toBe('maxDelay');
  });

  it('a case-insensitive match wins over a closer-looking one listed first', () => {
    expect(closestKey('Interval', ['interva', 'interval'])).toBe('interval');
  });

  it('copes with an empty key, an empty list and a huge key', () => {
    expect(closestKey('', ['a'])).toBeUndefined();
    expect(closestKey('maxDelays', [])).toBeUndefined();
    expect(closestKey('x'.repeat(100_000), SOCKET_KEYS)).toBeUndefined();
  });

  it('agrees with a plain edit distance: within 2, and none strictly closer (property)', () => {
    const known = ['interval', 'timeout', 'message', 'isPong', 'maxMessages', 'maxBytes', 'overflow', 'ttl'];
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 14 }),
          fc
            .tuple(fc.constantFrom(...known), fc.nat(), fc.nat(), fc.string({ minLength: 1, maxLength: 2 }))
            .map(([key, at, len, insert]) => {
              const i = at % (key.length + 1);
              return key.slice(0, i) + insert + key.slice(i + (len % 2));
            }),
        ),
        (key) => {
          const found = closestKey(key, known);
          const lower = key.toLowerCase();
          const same = known.find((k) => k.toLowerCase() === lower);
          const distances = known.map((k) => reference(lower, k.toLowerCase()));
          const best = Math.min(...distances);
          if (same !== undefined) {
            expect(found).toBe(same);
          } else if (key.length >= 4 && best <= 2) {
            expect(found).toBe(known[distances.indexOf(best)]);
          } else {
            expect(found).toBeUndefined();
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('optionPath and quoteKey', () => {
  it('joins plain keys with a dot, and quotes any other key', () => {
    expect(optionPath('', 'maxDelay')).toBe('maxDelay');
    expect(optionPath('heartbeat', 'interval')).toBe('heartbeat.interval');
    expect(optionPath('', 'max delay')).toBe('["max delay"]');
    expect(optionPath('buffer', '0')).toBe('buffer["0"]');
    expect(optionPath('', '')).toBe('[""]');
    expect(optionPath('', 'a\nb')).toBe('["a\\nb"]');
  });

  it('escapes backticks, so that a message’s backticks still delimit its names', () => {
    expect(quoteKey('a`b')).toBe('"a\\u0060b"');
    expect(optionPath('', '`')).toBe('["\\u0060"]');
  });

  it('cuts a key after 64 characters', () => {
    const long = 'k'.repeat(100);
    expect(optionPath('', long)).toBe(`["${'k'.repeat(64)}…"]`);
    expect(optionPath('', 'k'.repeat(64))).toBe('k'.repeat(64));
  });
});

describe('assertKnownKeys', () => {
  const known = ['interval', 'timeout', 'message', 'isPong'];

  it('passes known keys, an empty object and undefined', () => {
    expect(() => assertKnownKeys('heartbeat', { interval: 1, isPong: undefined }, known)).not.toThrow();
    expect(() => assertKnownKeys('heartbeat', {}, known)).not.toThrow();
    expect(() => assertKnownKeys('heartbeat', undefined, known)).not.toThrow();
  });

  /** Asserts a TypeError (ERR_RS_UNKNOWN_OPTION) about the option `name`; `devText` its message in development. */
  const unknown = (fn: () => unknown, name: string, devText: string | RegExp) =>
    expectInputError(fn, TypeError, 'ERR_RS_UNKNOWN_OPTION', name, devText);

  it('suggests the closest known key, with the path of the options object', () => {
    unknown(
      () => assertKnownKeys('heartbeat', { intervall: 1 }, known),
      'heartbeat.intervall',
      'Unknown option `heartbeat.intervall`: did you mean `heartbeat.interval`?',
    );
    unknown(
      () => assertKnownKeys('', { maxDelays: 1 }, ['maxDelay']),
      'maxDelays',
      'Unknown option `maxDelays`: did you mean `maxDelay`?',
    );
  });

  it('lists the known keys when none is close, naming the owner when given', () => {
    unknown(
      () => assertKnownKeys('heartbeat', { every: 1 }, known),
      'heartbeat.every',
      'Unknown option `heartbeat.every`: the options of `heartbeat` are `interval`, `timeout`, `message`, `isPong`',
    );
    unknown(
      () => assertKnownKeys('', { every: 1 }, known),
      'every',
      'Unknown option `every`: the options are `interval`, `timeout`, `message`, `isPong`',
    );
    unknown(
      () => assertKnownKeys('', { every: 1 }, ['delay'], 'constant()'),
      'every',
      'Unknown option `every`: the options of constant() are `delay`',
    );
    unknown(
      () => assertKnownKeys('', { every: 1 }, [], 'noop()'),
      'every',
      'Unknown option `every`: noop() takes no options',
    );
  });

  it('names the first unknown key in property order, and never the value', () => {
    const error = unknown(
      () => assertKnownKeys('', { interval: 1, token: 'S3CR3T', other: 2 }, known),
      'token',
      /^Unknown option `token`/,
    );
    expect(error.message).not.toContain('S3CR3T');
  });

  it('names an odd key quoted, in every build (as `optionPath` does)', () => {
    unknown(
      () => assertKnownKeys('buffer', { 'max messages': 1 }, known),
      'buffer["max messages"]',
      /^Unknown option `buffer\["max messages"\]`/,
    );
    unknown(() => assertKnownKeys('heartbeat', { '': 1 }, known), 'heartbeat[""]', /^Unknown option `heartbeat\[""\]`/);
  });

  it('looks at own enumerable string keys only (not symbols, inherited or hidden properties)', () => {
    const hidden = Object.defineProperty({}, 'hidden', { value: 1, enumerable: false });
    expect(() => assertKnownKeys('', hidden, known)).not.toThrow();
    expect(() => assertKnownKeys('', Object.create({ inherited: 1 }), known)).not.toThrow();
    expect(() => assertKnownKeys('', { [Symbol('s')]: 1 }, known)).not.toThrow();
    // …but a boxed string or an array has index keys
    unknown(() => assertKnownKeys('', new String('ab'), known), '["0"]', /^Unknown option `\["0"\]`/);
  });

  it('works on a null-prototype object', () => {
    const bare = Object.assign(Object.create(null) as object, { timout: 1 });
    unknown(
      () => assertKnownKeys('heartbeat', bare, known),
      'heartbeat.timout',
      'Unknown option `heartbeat.timout`: did you mean `heartbeat.timeout`?',
    );
  });
});

describe('input errors', () => {
  it('a TypeError or RangeError with a code that is not enumerable, its message the text given', () => {
    const error = inputError(RangeError, 'ERR_RS_INVALID_VALUE', 'maxDelay', 'the text');
    expect(error.constructor).toBe(RangeError);
    expect([error.code, error.message]).toEqual(['ERR_RS_INVALID_VALUE', 'the text']);
    expect(Object.keys(error)).toEqual([]);
    expect(error).toEqual(new RangeError('the text'));
    expect(typeError('a', 'x')).toMatchObject({ code: 'ERR_RS_INVALID_TYPE', message: 'x' });
    expect(rangeError('a', 'x')).toMatchObject({ code: 'ERR_RS_INVALID_VALUE', message: 'x' });
  });

  it('without a text (a production build): the name and the code', () => {
    expect(typeError('heartbeat.interval', '').message).toBe(
      productionMessage('heartbeat.interval', 'ERR_RS_INVALID_TYPE'),
    );
    expect(productionMessage('heartbeat.interval', 'ERR_RS_INVALID_TYPE')).toBe(
      '`heartbeat.interval`: ERR_RS_INVALID_TYPE (development builds say more)',
    );
  });

  it('each check throws its class with its code, naming the option; development builds say what it got', () => {
    const type = 'ERR_RS_INVALID_TYPE';
    expectInputError(() => assertNumber('n', '1'), TypeError, type, 'n', 'Expected `n` to be a number, got string "1"');
    expectInputError(
      () => assertNumber('n', 0.5, { integer: true, min: 1, allowInfinity: true }),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'n',
      'Expected `n` to be an integer >= 1 or Infinity, got 0.5',
    );
    expectInputError(() => assertFunction('f', 1), TypeError, type, 'f', 'Expected `f` to be a function, got number 1');
    expectInputError(
      () => assertBoolean('b', 'no'),
      TypeError,
      type,
      'b',
      'Expected `b` to be a boolean, got string "no"',
    );
    expectInputError(
      () => assertOptionsObject('o', []),
      TypeError,
      type,
      'o',
      'Expected `o` to be an object, got an array of length 0',
    );
    expectInputError(
      () => assertObjectOrFalse('h', true),
      TypeError,
      type,
      'h',
      'Expected `h` to be an object or false, got boolean true',
    );
    expectInputError(
      () => assertThat(false, 't', 'a token', null),
      TypeError,
      type,
      't',
      'Expected `t` to be a token, got null',
    );
  });
});

describe('tokens and characters', () => {
  it('isToken: RFC 7230 tchar, at least one', () => {
    expect(isToken("!#$%&'*+-.^_`|~0123456789abcxyzABCXYZ")).toBe(true);
    for (const bad of [
      '',
      ' ',
      'a b',
      'a,b',
      'a/b',
      'a=b',
      'a"b',
      'a(b',
      'a:b',
      'a;b',
      'a\tb',
      'caf\u00e9',
      'a\u0000',
    ]) {
      expect(isToken(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('firstNonTokenChar finds the first offending character', () => {
    expect(firstNonTokenChar('abc')).toBe(-1);
    expect(firstNonTokenChar('ab c,d')).toBe(2);
    expect(firstNonTokenChar('')).toBe(-1);
  });

  it('describeChar names control characters and shows printable ones', () => {
    expect(describeChar('a\nb', 1)).toBe('LF');
    expect(describeChar('\r', 0)).toBe('CR');
    expect(describeChar('\0', 0)).toBe('NUL');
    expect(describeChar('\t', 0)).toBe('TAB');
    expect(describeChar(' ', 0)).toBe('a space');
    expect(describeChar(':', 0)).toBe('":"');
    expect(describeChar('"', 0)).toBe('"\\""');
    expect(describeChar('`', 0)).toBe('"\\u0060"');
    expect(describeChar('\x7f', 0)).toBe('U+007F');
    expect(describeChar('\x1b', 0)).toBe('U+001B');
    expect(describeChar('é', 0)).toBe('U+00E9');
    expect(describeChar('☃', 0)).toBe('U+2603');
    expect(describeChar('😀', 0)).toBe('U+1F600');
  });
});
