import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { controlsIn, fakeProcess } from '../helpers/cli-io.js';

// Every usage error of the command, as a person sees it: exactly two lines on stderr, the problem
// (`resilient-socket: ` then what is wrong, naming the flag and the value) and the pointer to
// --help; exit code 2; nothing on stdout. The table goes through every flag and its failure modes.
// Each case fails before anything connects (127.0.0.1:9 is never dialled).

const URL = 'ws://127.0.0.1:9/feed';
const HINT = 'Run `resilient-socket --help` for usage.';

/** Runs the command; resolves with its exit code and output. */
async function run(argv: readonly string[]) {
  const proc = fakeProcess({ loadWs: () => undefined });
  const code = await main(argv, proc.io);
  return { code, stdout: proc.stdout, stderr: proc.stderr };
}

/** The value flags, as typed (long and short), with what the usage calls their value. */
const VALUE_FLAGS: readonly [typed: string, value: string, dashed?: 'dashed'][] = [
  ['--header', '"Name: value"', 'dashed'],
  ['-H', '"Name: value"', 'dashed'],
  ['--protocol', 'NAME', 'dashed'],
  ['-p', 'NAME', 'dashed'],
  ['--connect-timeout', 'MS'],
  ['--heartbeat', 'MS'],
  ['--strategy', 'NAME'],
  ['--max-delay', 'MS'],
  ['--ceiling', 'N'],
  ['--base-delay', 'MS'],
  ['--max-retries', 'N'],
  ['--send', 'MESSAGE', 'dashed'],
  ['-s', 'MESSAGE', 'dashed'],
  ['--wait', 'MS'],
  ['--count', 'N'],
  ['-n', 'N'],
  ['--timeout', 'MS'],
  ['-t', 'MS'],
  ['--clients', 'N'],
];

const long = (typed: string): string =>
  ({ '-H': '--header', '-p': '--protocol', '-s': '--send', '-n': '--count', '-t': '--timeout' })[typed] ?? typed;

/** [case, argv, the exact problem line after `resilient-socket: `]. */
const CASES: readonly [string, readonly string[], string][] = [
  // The URL.
  ['no URL', [], 'Expected a ws:// or wss:// URL to connect to (or --demo)'],
  ['no URL, flags only', ['--send', 'x'], 'Expected a ws:// or wss:// URL to connect to (or --demo)'],
  ['not a URL', ['not a url'], 'Expected a valid ws:// or wss:// URL, got "not a url"'],
  [
    'a host without a scheme',
    ['localhost:8080'],
    'Expected a ws:// or wss:// URL, got "localhost:8080" (did you mean "ws://localhost:8080"?)',
  ],
  ['another scheme', ['ftp://a.test/'], 'Expected a ws:// or wss:// URL, got "ftp://a.test/"'],
  [
    'an http:// URL (redacted)',
    ['http://user:S3CR3T@127.0.0.1:9/x?token=T0K3N'],
    'Expected a ws:// or wss:// URL, got "http://***@127.0.0.1:9/x?token=***" (did you mean "ws://***@127.0.0.1:9/x?token=***"?)',
  ],
  [
    'an https:// URL',
    ['https://example.test/'],
    'Expected a ws:// or wss:// URL, got "https://example.test/" (did you mean "wss://example.test/"?)',
  ],
  [
    'two URLs (redacted)',
    ['ws://user:S3CR3T@127.0.0.1:9/?token=T0K3N', 'ws://127.0.0.1:10/'],
    'Expected one URL, got 2: ws://***@127.0.0.1:9/?token=*** ws://127.0.0.1:10/',
  ],
  [
    'a flag written without its dashes',
    [URL, 'maxdelay', '5'],
    `Expected one URL, got 3: ${URL} maxdelay 5 (did you mean \`--max-delay\`?)`,
  ],
  ['a flag name for a URL', ['demo'], 'Expected a valid ws:// or wss:// URL, got "demo" (did you mean `--demo`?)'],
  [
    '--demo with a URL (redacted)',
    ['--demo', 'ws://u:S3CR3T@x.test/'],
    'Expected no URL with `--demo` (it runs its own server), got "ws://***@x.test/"',
  ],

  // `--` ends the flags.
  [
    'a flag after --',
    [URL, '--', '--send', 'x'],
    `Expected one URL, got 3: ${URL} --send x (after \`--\` every argument is taken as the URL, not as a flag: put \`--send\` before \`--\`)`,
  ],
  [
    'only a flag after --',
    ['--', '--demo'],
    'Expected a valid ws:// or wss:// URL, got "--demo" (after `--` every argument is taken as the URL, not as a flag: put `--demo` before `--`)',
  ],
  [
    '-h after -- is no request for help',
    ['--', '-h'],
    'Expected a valid ws:// or wss:// URL, got "-h" (after `--` every argument is taken as the URL, not as a flag: put `-h` before `--`)',
  ],
  [
    '-- where a value is expected',
    [URL, '--max-delay', '--', '5'],
    'Expected a value (MS) after `--max-delay`, got `--`',
  ],

  // Unknown flags, with a did-you-mean where one is close.
  ['--maxdelay', [URL, '--maxdelay', '5'], 'Unknown flag `--maxdelay`: did you mean `--max-delay`?'],
  ['--maxDelay=5', [URL, '--maxDelay=5'], 'Unknown flag `--maxDelay`: did you mean `--max-delay`?'],
  ['--max_delay', [URL, '--max_delay', '5'], 'Unknown flag `--max_delay`: did you mean `--max-delay`?'],
  ['-max-delay (one dash)', [URL, '-max-delay', '5'], 'Unknown flag `-max-delay`: did you mean `--max-delay`?'],
  ['-json (one dash)', [URL, '-json'], 'Unknown flag `-json`: did you mean `--json`?'],
  ['--hearbeat', [URL, '--hearbeat', '5'], 'Unknown flag `--hearbeat`: did you mean `--heartbeat`?'],
  ['--noheartbeat', [URL, '--noheartbeat'], 'Unknown flag `--noheartbeat`: did you mean `--no-heartbeat`?'],
  ['--retries', [URL, '--retries', '3'], 'Unknown flag `--retries`: did you mean `--max-retries`?'],
  ['--proto', [URL, '--proto', 'chat'], 'Unknown flag `--proto`: did you mean `--protocol`?'],
  ['an unknown flag with a value (the value is not shown)', [URL, '--token=S3CR3T'], 'Unknown flag `--token`'],
  ['--bogus', [URL, '--bogus'], 'Unknown flag `--bogus`'],
  ['--no-json', [URL, '--no-json'], 'Unknown flag `--no-json`'],
  ['-x', [URL, '-x'], 'Unknown flag `-x`'],
  ['-S (case)', [URL, '-S', 'x'], 'Unknown flag `-S`: did you mean `-s`?'],
  ['-qz (in a group)', [URL, '-qz'], 'Unknown flag `-z` in `-qz`'],

  // Switches take no value.
  ['--json=1', [URL, '--json=1'], 'Expected no value with `--json` (it is a switch), got "1"'],
  ['--quiet=', [URL, '--quiet='], 'Expected no value with `--quiet` (it is a switch), got ""'],
  [
    '--no-heartbeat=true',
    [URL, '--no-heartbeat=true'],
    'Expected no value with `--no-heartbeat` (it is a switch), got "true"',
  ],
  ['--demo=yes', ['--demo=yes'], 'Expected no value with `--demo` (it is a switch), got "yes"'],

  // A value flag without its value: at the end, or followed by another flag.
  ...VALUE_FLAGS.map(([typed, value]): [string, string[], string] => [
    `${typed} at the end`,
    [URL, typed],
    `Expected a value (${value}) after \`${typed}\`, got none`,
  ]),
  ...VALUE_FLAGS.map(([typed, value, dashed]): [string, string[], string] => [
    `${typed} followed by a flag`,
    [URL, typed, '--json'],
    `Expected a value (${value}) after \`${typed}\`, got the flag \`--json\`` +
      (dashed ? ` (a value that starts with a dash is written \`${long(typed)}=-…\`)` : ''),
  ]),
  [
    '-s followed by a dash word',
    [URL, '-s', '-x'],
    'Expected a value (MESSAGE) after `-s`, got the flag `-x` (a value that starts with a dash is written `--send=-…`)',
  ],

  // Wrong type and out of range, for every numeric flag; negative numbers are read as values.
  [
    '--connect-timeout soon',
    [URL, '--connect-timeout', 'soon'],
    'Expected `--connect-timeout` to be a number >= 1, got "soon"',
  ],
  ['--connect-timeout 0', [URL, '--connect-timeout', '0'], 'Expected `--connect-timeout` to be a number >= 1, got "0"'],
  [
    '--connect-timeout -5',
    [URL, '--connect-timeout', '-5'],
    'Expected `--connect-timeout` to be a number >= 1, got "-5"',
  ],
  [
    '--connect-timeout 0x10 (hex)',
    [URL, '--connect-timeout', '0x10'],
    'Expected `--connect-timeout` to be a number >= 1, got "0x10"',
  ],
  ['--heartbeat -1', [URL, '--heartbeat', '-1'], 'Expected `--heartbeat` to be a number >= 1, got "-1"'],
  ['--heartbeat 1e400', [URL, '--heartbeat', '1e400'], 'Expected `--heartbeat` to be a number >= 1, got "1e400"'],
  ['--max-delay -5', [URL, '--max-delay', '-5'], 'Expected `--max-delay` to be a number > 0, got "-5"'],
  ['--max-delay=-5', [URL, '--max-delay=-5'], 'Expected `--max-delay` to be a number > 0, got "-5"'],
  ['--max-delay 0', [URL, '--max-delay', '0'], 'Expected `--max-delay` to be a number > 0, got "0"'],
  ['--max-delay empty', [URL, '--max-delay', ''], 'Expected `--max-delay` to be a number > 0, got ""'],
  [
    '--max-delay Infinity',
    [URL, '--max-delay', 'Infinity'],
    'Expected `--max-delay` to be a number > 0, got "Infinity"',
  ],
  ['--ceiling 1.5', [URL, '--ceiling', '1.5'], 'Expected `--ceiling` to be an integer >= 1, got "1.5"'],
  ['--ceiling -3', [URL, '--ceiling', '-3'], 'Expected `--ceiling` to be an integer >= 1, got "-3"'],
  ['--base-delay -1', [URL, '--base-delay', '-1'], 'Expected `--base-delay` to be a number >= 0, got "-1"'],
  ['--base-delay x', [URL, '--base-delay', 'x'], 'Expected `--base-delay` to be a number >= 0, got "x"'],
  ['--max-retries -1', [URL, '--max-retries', '-1'], 'Expected `--max-retries` to be an integer >= 0, got "-1"'],
  ['--max-retries 1.5', [URL, '--max-retries', '1.5'], 'Expected `--max-retries` to be an integer >= 0, got "1.5"'],
  ['--wait -1', [URL, '--wait', '-1'], 'Expected `--wait` to be a number >= 0, got "-1"'],
  ['--wait 1_000', [URL, '--wait', '1_000'], 'Expected `--wait` to be a number >= 0, got "1_000"'],
  ['--count 0', [URL, '--count', '0'], 'Expected `--count` to be an integer >= 1, got "0"'],
  ['-n -2', [URL, '-n', '-2'], 'Expected `--count` to be an integer >= 1, got "-2"'],
  ['-n2.5 (joined)', [URL, '-n2.5'], 'Expected `--count` to be an integer >= 1, got "2.5"'],
  ['--timeout 0', [URL, '--timeout', '0'], 'Expected `--timeout` to be a number >= 1, got "0"'],
  ['-t -1 (joined)', [URL, '-t-1'], 'Expected `--timeout` to be a number >= 1, got "-1"'],
  ['--clients 9', ['--demo', '--clients', '9'], 'Expected `--clients` to be an integer from 1 to 8, got "9"'],
  ['--clients -1', ['--demo', '--clients', '-1'], 'Expected `--clients` to be an integer from 1 to 8, got "-1"'],
  [
    '--strategy nope',
    [URL, '--strategy', 'nope'],
    'Expected `--strategy` to be one of truncated, phased, full, equal, decorrelated, exponential, constant, got "nope"',
  ],
  [
    '--strategy ful',
    [URL, '--strategy', 'ful'],
    'Expected `--strategy` to be one of truncated, phased, full, equal, decorrelated, exponential, constant, got "ful" (did you mean "full"?)',
  ],
  ['--header without a colon', [URL, '--header', 'novalue'], 'Expected `--header` as "Name: value", got "novalue"'],
  [
    '--header without a colon (its value hidden)',
    [URL, '-H', 'Authorization Bearer S3CR3T'],
    'Expected `--header` as "Name: value", got "Authorization ***"',
  ],
  [
    '--header with a bad name (its value hidden)',
    [URL, '-H', 'X Token: S3CR3T'],
    'Expected `--header` as "Name: value", got "X Token: ***"',
  ],

  // A flag that takes one value, given twice with different values.
  ['--max-delay twice', [URL, '--max-delay', '5', '--max-delay', '6'], 'Expected `--max-delay` once, got "5" and "6"'],
  ['-n then --count', [URL, '-n', '1', '--count', '2'], 'Expected `--count` once, got "1" and "2"'],
  [
    '--strategy twice',
    [URL, '--strategy', 'full', '--strategy=equal'],
    'Expected `--strategy` once, got "full" and "equal"',
  ],
  [
    '--heartbeat with --no-heartbeat',
    [URL, '--no-heartbeat', '--heartbeat', '100'],
    'Expected either `--heartbeat` or `--no-heartbeat`, not both (got `--heartbeat` "100")',
  ],

  // What the library refuses while the CLI builds its policy and its socket, named by flag.
  [
    'a backoff combination the policy refuses',
    [URL, '--strategy', 'full', '--base-delay', '500', '--max-delay', '100'],
    'Expected `--max-delay` to be >= `--base-delay` (500), got 100',
  ],
  [
    'a protocol given twice (refused by the socket)',
    [URL, '-p', 'chat', '--protocol', 'chat'],
    'Expected `--protocol` to name each subprotocol once, got "chat" at index 0 and 1',
  ],
];

describe('usage errors: one line naming the flag and the value, then the pointer to --help; exit code 2', () => {
  it.each(CASES)('%s', async (_name, argv, problem) => {
    const { code, stdout, stderr } = await run(argv);
    expect(stderr).toBe(`resilient-socket: ${problem}\n${HINT}\n`);
    expect(code).toBe(2);
    expect(stdout).toBe('');
  });

  it('a protocol the socket refuses: its error, naming --protocol, as a usage error', async () => {
    const { code, stderr } = await run([URL, '-p', 'a b']);
    expect(code).toBe(2);
    const [problem, hint, end] = stderr.split('\n');
    expect(problem).toMatch(
      /^resilient-socket: Expected every entry of `--protocol` to be an HTTP token .*, got "a b"/,
    );
    expect(problem).not.toContain('`protocols`');
    expect([hint, end]).toEqual([HINT, '']);
  });

  it('no control character, no escape and no secret in any of them', async () => {
    const hostile = [
      [URL, '--max-delay', '\u001b[2J\u009b31m'],
      [URL, '--max\u001b]52;c;x\u0007delay', '5'],
      [URL, '-H', 'Authorization\u001b[2J S3CR3T'],
    ];
    for (const argv of [...CASES.map(([, a]) => a), ...hostile]) {
      const { stderr } = await run(argv);
      const [problem] = stderr.split('\n');
      expect(controlsIn(stderr, '\n'), JSON.stringify(argv)).toEqual([]);
      expect(stderr.split('\n'), JSON.stringify(argv)).toHaveLength(3);
      expect(problem, JSON.stringify(argv)).not.toContain('\\n');
      expect(stderr, JSON.stringify(argv)).not.toMatch(/S3CR3T|T0K3N/);
    }
  });
});
