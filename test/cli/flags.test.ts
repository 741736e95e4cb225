import { describe, expect, it } from 'vitest';
import { flagNamed, readCommandLine, redactHeader, UsageError, usageErrorFrom } from '../../src/cli/flags.js';

describe('readCommandLine', () => {
  it('keeps every value of a repeatable flag in order, one value of the others, the switches and the rest', () => {
    const line = readCommandLine([
      '-H',
      'A: 1',
      'ws://x.test/',
      '--header=B: 2',
      '-qs',
      'hi',
      '--max-delay',
      '-5',
      '--',
      '-q',
    ]);
    expect(Object.fromEntries(line.values)).toEqual({ header: ['A: 1', 'B: 2'], send: ['hi'], 'max-delay': ['-5'] });
    expect([...line.switches]).toEqual(['quiet']);
    expect(line.positionals).toEqual([
      { text: 'ws://x.test/', literal: false },
      { text: '-q', literal: true },
    ]);
  });

  it('a lone dash is an argument, not a flag', () => {
    expect(readCommandLine(['-']).positionals).toEqual([{ text: '-', literal: false }]);
    expect(Object.fromEntries(readCommandLine(['--send', '-']).values)).toEqual({ send: ['-'] });
  });

  it('throws UsageErrors', () => {
    expect(() => readCommandLine(['--maxdelay'])).toThrow(UsageError);
  });
});

describe('flagNamed', () => {
  it.each([
    ['maxdelay', '--max-delay'],
    ['--maxDelay', '--max-delay'],
    ['MAX_DELAY', '--max-delay'],
    ['noheartbeat', '--no-heartbeat'],
    ['-h', '-h'],
    ['-z', undefined],
    ['hello', undefined],
  ])('%s: %s', (word, flag) => {
    expect(flagNamed(word)).toBe(flag);
  });
});

describe('redactHeader: a header line as a message shows it', () => {
  it.each([
    ['Authorization: Bearer abc', 'Authorization: ***'],
    ['X Token: abc', 'X Token: ***'],
    ['X-Empty:', 'X-Empty:'],
    ['Authorization Bearer abc', 'Authorization ***'],
    ['novalue', 'novalue'],
  ])('%s', (line, shown) => {
    expect(redactHeader(line)).toBe(shown);
  });
});

describe('usageErrorFrom: what the library throws while the CLI builds its policy or socket', () => {
  it('a RangeError or TypeError becomes a UsageError with each option named by its flag', () => {
    const range = new RangeError('Expected `maxDelay` to be >= `base` (500), got 100');
    const usage = usageErrorFrom(range);
    expect(usage).toBeInstanceOf(UsageError);
    expect(usage?.message).toBe('Expected `--max-delay` to be >= `--base-delay` (500), got 100');
    expect(usage?.cause).toBe(range);
    expect(usageErrorFrom(new TypeError('Expected `heartbeat.interval` to be a number, got string "x"'))?.message).toBe(
      'Expected `--heartbeat` to be a number, got string "x"',
    );
  });

  it('names inside a code span are replaced, words outside it are not, and it stays on one line', () => {
    const error = new RangeError(
      'Expected `ceiling` to be at most 13 for `maxDelay` 10000\n(the first window, `maxDelay / 2^(ceiling - 1)`, must be >= 1 ms), got 30000; a ceiling counts doublings',
    );
    expect(usageErrorFrom(error)?.message).toBe(
      'Expected `--ceiling` to be at most 13 for `--max-delay` 10000 (the first window, `--max-delay / 2^(--ceiling - 1)`, must be >= 1 ms), got 30000; a ceiling counts doublings',
    );
  });

  it('names that only contain an option name are left alone', () => {
    expect(usageErrorFrom(new RangeError('Expected `options.maxDelayed` and `capacity`, got 1'))?.message).toBe(
      'Expected `options.maxDelayed` and `capacity`, got 1',
    );
  });

  it('any other error is not the command line’s fault', () => {
    expect(usageErrorFrom(new Error('boom'))).toBeUndefined();
    expect(usageErrorFrom('boom')).toBeUndefined();
  });
});
