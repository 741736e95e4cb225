import { describe, expect, it } from 'vitest';
import { type CliOptions, parseCli, STRATEGIES, USAGE, UsageError } from '../../src/cli/args.js';

const URL = 'ws://127.0.0.1:9/feed';

/** The UsageError `parseCli(argv)` throws (fails the test if it returns). */
function usageError(argv: readonly string[]): UsageError {
  try {
    parseCli(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  return expect.fail(`expected parseCli(${JSON.stringify(argv)}) to throw a UsageError`);
}

describe('parseCli: defaults', () => {
  it('a URL alone gives the documented defaults', () => {
    expect(parseCli([URL])).toEqual({
      mode: 'connect',
      url: URL,
      headers: {},
      protocols: [],
      strategy: 'truncated',
      maxDelay: 10_000,
      ceiling: 10,
      baseDelay: 100,
      maxRetries: Number.POSITIVE_INFINITY,
      connectTimeout: 10_000,
      heartbeat: 30_000,
      send: [],
      wait: 0,
      count: Number.POSITIVE_INFINITY,
      timeout: Number.POSITIVE_INFINITY,
      json: false,
      quiet: false,
      clients: 3,
    } satisfies CliOptions);
  });

  it('the defaults in brackets in the usage are the parser’s defaults', () => {
    const defaults = parseCli([URL]);
    const bracket = (flag: string): string | undefined =>
      new RegExp(`${flag}[^\\n]*?\\[([^\\]]+)\\]`).exec(USAGE)?.[1] ??
      // a default wrapped onto the next line (--strategy, --base-delay)
      new RegExp(`${flag}[^\\n]*\\n[^\\n[]*\\[([^\\]]+)\\]`).exec(USAGE)?.[1];
    expect(bracket('--connect-timeout')).toBe(String(defaults.connectTimeout));
    expect(bracket('--heartbeat MS')).toBe(String(defaults.heartbeat));
    expect(bracket('--strategy')).toBe(defaults.strategy);
    expect(bracket('--max-delay')).toBe(String(defaults.maxDelay));
    expect(bracket('--ceiling')).toBe(String(defaults.ceiling));
    expect(bracket('--base-delay')).toBe(String(defaults.baseDelay));
    expect(bracket('--max-retries')).toBe('unlimited');
    expect(bracket('--wait')?.startsWith(`${defaults.wait};`)).toBe(true);
  });

  it('every long flag the usage lists is one the parser knows', () => {
    const flags = new Set(USAGE.match(/--[a-z][a-z-]+/g));
    expect(flags.size).toBeGreaterThan(15);
    for (const flag of flags) {
      try {
        parseCli([URL, flag, '1']);
      } catch (error) {
        // Switches reject the extra value as a second positional; only an unknown flag says "Unknown flag".
        expect((error as Error).message, flag).not.toMatch(/Unknown flag/);
      }
    }
  });
});

describe('parseCli: every flag', () => {
  it('parses every long flag', () => {
    const options = parseCli([
      URL,
      '--header',
      'X-Token: abc',
      '--protocol',
      'chat',
      '--connect-timeout',
      '2500',
      '--heartbeat',
      '1500',
      '--strategy',
      'full',
      '--max-delay',
      '4000',
      '--ceiling',
      '7',
      '--base-delay',
      '250',
      '--max-retries',
      '5',
      '--send',
      'hello',
      '--wait',
      '300',
      '--count',
      '2',
      '--timeout',
      '9000',
      '--json',
      '--quiet',
      '--clients',
      '8',
    ]);
    expect(options).toEqual({
      mode: 'connect',
      url: URL,
      headers: { 'X-Token': 'abc' },
      protocols: ['chat'],
      strategy: 'full',
      maxDelay: 4000,
      ceiling: 7,
      baseDelay: 250,
      maxRetries: 5,
      connectTimeout: 2500,
      heartbeat: 1500,
      send: ['hello'],
      wait: 300,
      count: 2,
      timeout: 9000,
      json: true,
      quiet: true,
      clients: 8,
    } satisfies CliOptions);
  });

  it('parses the short flags and the --flag=value form', () => {
    const options = parseCli([
      '-H',
      'A: 1',
      '-p',
      'v2',
      '-s',
      'x',
      '-n',
      '3',
      '-t',
      '700',
      '-q',
      '--max-delay=50',
      URL,
    ]);
    expect(options).toMatchObject({
      url: URL,
      headers: { A: '1' },
      protocols: ['v2'],
      send: ['x'],
      count: 3,
      timeout: 700,
      quiet: true,
      maxDelay: 50,
    });
  });

  it('the default --ceiling is lowered to fit a --max-delay under 512 ms (a first window of at least 1 ms); a given one is kept', () => {
    expect(parseCli([URL, '--max-delay', '100']).ceiling).toBe(7);
    expect(parseCli([URL, '--max-delay', '512']).ceiling).toBe(10);
    expect(parseCli([URL, '--max-delay', '0.5']).ceiling).toBe(1); // the policy refuses --max-delay itself
    expect(parseCli([URL, '--max-delay', '100', '--ceiling', '30000']).ceiling).toBe(30_000); // refused by the policy
  });

  it('accepts every strategy by its short name', () => {
    for (const strategy of STRATEGIES) expect(parseCli([URL, '--strategy', strategy]).strategy).toBe(strategy);
    expect(STRATEGIES).toEqual(['truncated', 'phased', 'full', 'equal', 'decorrelated', 'exponential', 'constant']);
  });

  it('-H, -p and -s are repeatable and keep their order', () => {
    const options = parseCli([
      URL,
      '-H',
      'X-A: 1',
      '--header',
      'X-B:2',
      '-H',
      'Authorization:  Bearer a:b:c  ',
      '-p',
      'one',
      '--protocol',
      'two',
      '-s',
      'first',
      '--send',
      'second',
      '-s',
      'third',
      '-s',
      '',
    ]);
    expect(options.headers).toEqual({ 'X-A': '1', 'X-B': '2', Authorization: 'Bearer a:b:c' });
    expect(Object.keys(options.headers)).toEqual(['X-A', 'X-B', 'Authorization']);
    expect(options.protocols).toEqual(['one', 'two']);
    expect(options.send).toEqual(['first', 'second', 'third', '']);
  });

  it('a header with an empty value is allowed', () => {
    expect(parseCli([URL, '-H', 'X-Empty:']).headers).toEqual({ 'X-Empty': '' });
  });

  it('--no-heartbeat turns the heartbeat off; --max-retries 0 means no retry', () => {
    expect(parseCli([URL, '--no-heartbeat']).heartbeat).toBe(false);
    expect(parseCli([URL, '--max-retries', '0']).maxRetries).toBe(0);
  });

  it('accepts wss:// URLs with a path and a query', () => {
    expect(parseCli(['wss://example.test:8443/a/b?x=1']).url).toBe('wss://example.test:8443/a/b?x=1');
  });
});

describe('parseCli: mistakes are UsageErrors naming the flag and the value', () => {
  const cases: [string, string[], string[]][] = [
    ['negative --max-delay', ['--max-delay=-1'], ['--max-delay', '"-1"']],
    ['non-numeric --max-delay', ['--max-delay', 'soon'], ['--max-delay', '"soon"']],
    ['fractional --ceiling', ['--ceiling', '1.5'], ['--ceiling', '"1.5"', 'integer']],
    ['--ceiling 0', ['--ceiling', '0'], ['--ceiling', '"0"']],
    ['--count 0', ['--count', '0'], ['--count', '"0"']],
    ['-n 2.5', ['-n', '2.5'], ['--count', '"2.5"']],
    ['empty --count', ['--count', ''], ['--count', '""']],
    ['--timeout 0', ['--timeout', '0'], ['--timeout', '"0"']],
    ['--connect-timeout 0', ['--connect-timeout', '0'], ['--connect-timeout', '"0"']],
    ['--heartbeat 0', ['--heartbeat', '0'], ['--heartbeat', '"0"']],
    ['--max-retries 1.5', ['--max-retries', '1.5'], ['--max-retries', '"1.5"']],
    ['--wait Infinity', ['--wait', 'Infinity'], ['--wait', '"Infinity"']],
    ['--base-delay x', ['--base-delay', 'x'], ['--base-delay', '"x"']],
    ['unknown --strategy', ['--strategy', 'nope'], ['--strategy', '"nope"', 'truncated', 'constant']],
    ['--header without a colon', ['--header', 'novalue'], ['--header', '"novalue"']],
    ['--header with an empty name', ['-H', ': v'], ['--header', '": ***"']],
    ['--header with a space in the name', ['-H', 'Bad Name: v'], ['--header', '"Bad Name: ***"']],
    ['--clients 9', ['--clients', '9'], ['--clients', '"9"', 'from 1 to 8']],
    ['--clients 0', ['--clients', '0'], ['--clients', '"0"']],
    ['an unknown flag', ['--bogus'], ['--bogus']],
    ['an unknown short flag', ['-x'], ['-x']],
  ];
  it.each(cases)('%s', (_name, args, expected) => {
    const { message } = usageError([URL, ...args]);
    for (const part of expected) expect(message).toContain(part);
  });

  it('a negative number after a space (--max-delay -1) is read as the value, and refused by the range check', () => {
    expect(usageError([URL, '--max-delay', '-1']).message).toBe('Expected `--max-delay` to be a number > 0, got "-1"');
  });

  it('two URLs', () => {
    const { message } = usageError([URL, 'ws://other.test/']);
    expect(message).toMatch(/one URL/);
    expect(message).toContain(URL);
    expect(message).toContain('ws://other.test/');
  });

  it.each([
    ['http://', 'http://127.0.0.1:9/'],
    ['https://', 'https://example.test/'],
    ['not a URL', 'localhost:8080'],
    ['garbage', 'not a url'],
  ])('a URL that is not ws(s):// (%s)', (_name, url) => {
    const { message } = usageError([url]);
    expect(message).toContain(JSON.stringify(url));
    expect(message).toMatch(/ws:\/\//);
  });

  it.each([
    [
      'a URL that is not ws(s)://',
      ['http://user:S3CR3T@127.0.0.1:9/x?token=T0K3N'],
      '"http://***@127.0.0.1:9/x?token=***"',
    ],
    ['an unparsable URL', ['ws://user:S3CR3T@[::1/x?token=T0K3N'], '"ws://***@[::1/x?token=***"'],
    ['two URLs', ['ws://user:S3CR3T@127.0.0.1:9/x?token=T0K3N', 'ws://127.0.0.1:9/?token=T0K3N'], 'ws://***@'],
    [
      'a URL with --demo',
      ['--demo', 'ws://user:S3CR3T@127.0.0.1:9/x?token=T0K3N'],
      '"ws://***@127.0.0.1:9/x?token=***"',
    ],
  ])('%s: the message shows the URL with its secrets redacted', (_name, argv, shown) => {
    const { message } = usageError(argv);
    expect(message).not.toMatch(/S3CR3T|T0K3N/);
    expect(message).toContain(shown);
  });

  it('no URL', () => {
    expect(usageError([]).message).toMatch(/ws:\/\/ or wss:\/\/ URL/);
    expect(usageError(['--send', 'x']).message).toMatch(/URL/);
  });

  it('--heartbeat together with --no-heartbeat (either order)', () => {
    for (const argv of [
      [URL, '--heartbeat', '1000', '--no-heartbeat'],
      [URL, '--no-heartbeat', '--heartbeat', '1000'],
    ]) {
      const { message } = usageError(argv);
      expect(message).toContain('--heartbeat');
      expect(message).toContain('--no-heartbeat');
    }
  });

  it('a UsageError is an Error named UsageError', () => {
    const error = usageError([URL, '--count', '0']);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('UsageError');
  });
});

describe('parseCli: modes', () => {
  it('--help / -h needs no URL', () => {
    expect(parseCli(['--help']).mode).toBe('help');
    expect(parseCli(['-h']).mode).toBe('help');
    expect(parseCli([URL, '-h']).mode).toBe('help');
  });

  it('--version / -v needs no URL', () => {
    expect(parseCli(['--version']).mode).toBe('version');
    expect(parseCli(['-v']).mode).toBe('version');
  });

  it('--demo needs no URL and takes --clients', () => {
    expect(parseCli(['--demo'])).toMatchObject({ mode: 'demo', url: '', clients: 3 });
    expect(parseCli(['--demo', '--clients', '5'])).toMatchObject({ mode: 'demo', clients: 5 });
    expect(parseCli(['--demo', '--clients', '1']).clients).toBe(1);
    expect(parseCli(['--demo', '--clients', '8']).clients).toBe(8);
  });

  it('help wins over version, version over demo', () => {
    expect(parseCli(['--demo', '--version', '--help']).mode).toBe('help');
    expect(parseCli(['--demo', '--version']).mode).toBe('version');
  });

  it('--demo takes no URL (it runs its own server); --help ignores one', () => {
    expect(usageError(['--demo', 'http://x.test/']).message).toContain('--demo');
    expect(parseCli(['--help', 'nonsense']).mode).toBe('help');
  });

  it('--max-delay must be above 0 (a zero-wide window is no backoff)', () => {
    expect(usageError(['ws://x.test', '--max-delay', '0']).message).toBe(
      'Expected `--max-delay` to be a number > 0, got "0"',
    );
  });

  it('--help wins over mistakes elsewhere on the line', () => {
    expect(parseCli(['--help', '--count', '0']).mode).toBe('help');
    expect(parseCli(['--bogus', '-h']).mode).toBe('help');
  });
});

describe('parseCli: the forms a command line may take', () => {
  it.each([
    ['a negative number after a value flag is its value', [URL, '--send', '-5'], { send: ['-5'] }],
    [
      '--send=-x sends a message that starts with a dash',
      [URL, '--send=-x', '--send=--json'],
      { send: ['-x', '--json'] },
    ],
    ['-s-x, -n5: a short flag with its value joined', [URL, '-s-x', '-n5'], { send: ['-x'], count: 5 }],
    ['grouped short switches, the last taking a value', [URL, '-qn', '2'], { quiet: true, count: 2 }],
    ['the URL after --', ['--send', 'x', '--', URL], { url: URL, send: ['x'] }],
    ['a trailing --', [URL, '--'], { url: URL }],
    ['a flag that takes one value, given twice with the same value', [URL, '-n', '2', '--count=2'], { count: 2 }],
    ['a switch given twice', [URL, '--json', '--json', '-q', '-q'], { json: true, quiet: true }],
    ['a number with an exponent', [URL, '--max-delay', '1e3'], { maxDelay: 1000 }],
    ['the largest timer delay', [URL, '--timeout', '2147483647'], { timeout: 2_147_483_647 }],
  ] as const)('%s', (_name, argv, expected) => {
    expect(parseCli(argv)).toMatchObject(expected);
  });

  it('-h and --help before -- ask for help; after it they are arguments', () => {
    expect(parseCli([URL, '-s', '-h']).mode).toBe('help');
    expect(usageError(['--', '--help']).message).toMatch(/^Expected a valid ws:\/\/ or wss:\/\/ URL, got "--help"/);
  });
});
