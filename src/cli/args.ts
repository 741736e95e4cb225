/**
 * The command line of the `resilient-socket` bin: read into flags (see flags.ts), then validated
 * once into {@link CliOptions}. Every mistake is a one-line {@link UsageError} naming the flag and
 * the value.
 */
import { largestCeiling, TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS } from '../backoff/truncated-binary-exponential.js';
import { CORE_DEFAULTS } from '../core/options.js';
import { HEARTBEAT_DEFAULTS } from '../features/heartbeat/heartbeat.js';
import { redactUrl } from '../redact.js';
import { closestKey } from '../validation.js';
import {
  type CommandLine,
  DECIMAL,
  flagNamed,
  type Positional,
  readCommandLine,
  redactHeader,
  UsageError,
} from './flags.js';

export { UsageError } from './flags.js';

/** The backoff strategies the CLI offers, by their short names. */
export const STRATEGIES = ['truncated', 'phased', 'full', 'equal', 'decorrelated', 'exponential', 'constant'] as const;
export type StrategyName = (typeof STRATEGIES)[number];

/** What the command line asked for, validated. */
export interface CliOptions {
  readonly mode: 'connect' | 'demo' | 'help' | 'version';
  /** The server (mode `connect`). */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly protocols: readonly string[];
  readonly strategy: StrategyName;
  /** ms; `T` of the truncated strategy, `cap` of the others. */
  readonly maxDelay: number;
  readonly ceiling: number;
  /** ms; the first window (`base`) of full/equal/decorrelated/exponential, the delay of constant. */
  readonly baseDelay: number;
  readonly maxRetries: number;
  readonly connectTimeout: number;
  /** ms between heartbeat pings; `false` turns the heartbeat off. */
  readonly heartbeat: number | false;
  /** Messages to send, in order (`--send`), after which input is over. */
  readonly send: readonly string[];
  /** After input is over and everything is sent, keep listening this long (ms) before exiting. */
  readonly wait: number;
  /** Exit after this many messages were received. */
  readonly count: number;
  /** Exit with code 4 if not done by then (ms). */
  readonly timeout: number;
  readonly json: boolean;
  readonly quiet: boolean;
  /** Demo: how many clients. */
  readonly clients: number;
}

/** What the flags default to (USAGE shows the same values): the socket's own defaults where it has one. */
const DEFAULTS = {
  strategy: 'truncated' as StrategyName,
  maxDelay: TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS.maxDelay,
  ceiling: TRUNCATED_BINARY_EXPONENTIAL_DEFAULTS.ceiling,
  baseDelay: 100,
  connectTimeout: CORE_DEFAULTS.connectTimeout,
  heartbeat: HEARTBEAT_DEFAULTS.interval,
  clients: 3,
};

export const USAGE = `Usage:
  resilient-socket <ws-url> [options]     an interactive, reconnecting WebSocket terminal
  resilient-socket --demo [--clients N]   a live demo against an embedded local server

Lines you type (or pipe in) are sent; while the connection is down they are buffered and sent,
in order, once it is back. Incoming messages go to stdout; status and events go to stderr.
Interactive commands: /quit, /reconnect, /stats, /help (start a line with // to send a "/").

Connection:
  -H, --header "Name: value"  request header, repeatable (needs the ws package)
  -p, --protocol NAME         WebSocket subprotocol, repeatable
      --connect-timeout MS    give up on an attempt after MS                     [${DEFAULTS.connectTimeout}]
      --heartbeat MS          ping every MS to notice a dead link                 [${DEFAULTS.heartbeat}]
      --no-heartbeat          no heartbeat
Backoff:
      --strategy NAME         truncated | phased | full | equal | decorrelated | exponential | constant
                                                                                  [${DEFAULTS.strategy}]
      --max-delay MS          largest wait: T of truncated and phased, cap of full,
                              equal, decorrelated and exponential (not constant)  [${DEFAULTS.maxDelay}]
      --ceiling N             truncated, phased: failures until the window stops  [${DEFAULTS.ceiling}]
                              growing (a count, not ms; at most 1 + log2 of
                              --max-delay, for a first window of at least 1 ms)
      --base-delay MS         first window (full, equal, decorrelated,
                              exponential); the fixed wait of constant            [${DEFAULTS.baseDelay}]
      --max-retries N         give up after N failed attempts in a row            [unlimited]
Input and output:
  -s, --send MESSAGE          send MESSAGE (repeatable) instead of reading stdin, then exit once
                              it is written (add --wait or -n to read replies; --send=-x
                              for a message that starts with a dash)
      --wait MS               after the last message is sent, listen MS more      [0; interactive: until quit]
  -n, --count N               exit after N messages were received
  -t, --timeout MS            exit with code 4 if not done within MS
      --json                  one JSON object per line on stdout (messages and events)
  -q, --quiet                 print received messages only
  -h, --help                  this help
  -v, --version               the version

Exit codes:
  0  done: input ended and everything was sent, --count reached, or /quit
  1  gave up: retries exhausted, refused (401/403), or closed by the server for good
  2  bad command line, or no WebSocket implementation available
  3  some messages were not delivered (dropped; each one is reported)
  4  --timeout reached
  130  interrupted (Ctrl-C)
`;

/** Parses `argv` (without `node` and the script). @throws UsageError */
export function parseCli(argv: readonly string[]): CliOptions {
  // Asking for help wins over any mistake elsewhere on the line (not after `--`: that is a URL).
  const end = argv.indexOf('--');
  const flags = end < 0 ? argv : argv.slice(0, end);
  if (flags.includes('--help') || flags.includes('-h')) return { ...parseCli(['--demo']), mode: 'help' };
  const line = readCommandLine(argv);
  const on = (name: string): boolean => line.switches.has(name);
  const one = (name: string): string | undefined => line.values.get(name)?.[0];
  const mode = on('help') ? 'help' : on('version') ? 'version' : on('demo') ? 'demo' : 'connect';

  const { positionals } = line;
  if (positionals.length > 1) {
    const shown = positionals.map((p) => redactUrl(p.text)).join(' ');
    throw new UsageError(`Expected one URL, got ${positionals.length}: ${shown}${aside(positionals.slice(1))}`);
  }
  const first = positionals[0];
  const url = first?.text ?? '';
  if (mode === 'connect') {
    if (first === undefined) throw new UsageError('Expected a ws:// or wss:// URL to connect to (or --demo)');
    checkUrl(first);
  }
  if (mode === 'demo' && first !== undefined) {
    throw new UsageError(
      `Expected no URL with \`--demo\` (it runs its own server), got ${JSON.stringify(redactUrl(url))}`,
    );
  }
  if (one('heartbeat') !== undefined && on('no-heartbeat')) {
    throw new UsageError(
      `Expected either \`--heartbeat\` or \`--no-heartbeat\`, not both (got \`--heartbeat\` ${JSON.stringify(one('heartbeat'))})`,
    );
  }
  const strategy = one('strategy') ?? DEFAULTS.strategy;
  if (!(STRATEGIES as readonly string[]).includes(strategy)) {
    const starts = STRATEGIES.filter((name) => strategy !== '' && name.startsWith(strategy.toLowerCase()));
    const guess = closestKey(strategy, STRATEGIES) ?? (starts.length === 1 ? starts[0] : undefined);
    throw new UsageError(
      `Expected \`--strategy\` to be one of ${STRATEGIES.join(', ')}, got ${JSON.stringify(strategy)}` +
        (guess === undefined ? '' : ` (did you mean ${JSON.stringify(guess)}?)`),
    );
  }
  const number = (flag: string, fallback: number, rule: NumberRule): number => readNumber(line, flag, fallback, rule);
  const maxDelay = number('max-delay', DEFAULTS.maxDelay, { min: 0, exclusive: true });
  // The default ceiling is lowered to fit a --max-delay under 512 ms; a given one is checked by the policy.
  const ceilingFits = Math.max(1, Math.min(DEFAULTS.ceiling, largestCeiling(maxDelay)));

  return {
    mode,
    url,
    headers: parseHeaders(line.values.get('header') ?? []),
    protocols: [...(line.values.get('protocol') ?? [])],
    strategy: strategy as StrategyName,
    maxDelay,
    ceiling: number('ceiling', ceilingFits, { min: 1, integer: true }),
    baseDelay: number('base-delay', DEFAULTS.baseDelay, { min: 0 }),
    maxRetries: number('max-retries', Number.POSITIVE_INFINITY, { min: 0, integer: true }),
    connectTimeout: number('connect-timeout', DEFAULTS.connectTimeout, { min: 1 }),
    heartbeat: on('no-heartbeat') ? false : number('heartbeat', DEFAULTS.heartbeat, { min: 1 }),
    send: [...(line.values.get('send') ?? [])],
    wait: number('wait', 0, { min: 0 }),
    count: number('count', Number.POSITIVE_INFINITY, { min: 1, integer: true }),
    timeout: number('timeout', Number.POSITIVE_INFINITY, { min: 1 }),
    json: on('json'),
    quiet: on('quiet'),
    clients: number('clients', DEFAULTS.clients, { min: 1, max: 8, integer: true }),
  };
}

/**
 * What to add to a message about arguments that are not flags: a did-you-mean for one that is a
 * flag's name without its dashes (`maxdelay`), or a word on `--` when one that looks like a flag
 * came after it.
 */
function aside(positionals: readonly Positional[]): string {
  for (const { text, literal } of positionals) {
    const flag = literal && !text.startsWith('-') ? undefined : flagNamed(text);
    if (flag !== undefined && !literal) return ` (did you mean \`${flag}\`?)`;
    if (literal && text.startsWith('-')) {
      return ` (after \`--\` every argument is taken as the URL, not as a flag${flag ? `: put \`${flag}\` before \`--\`` : ''})`;
    }
  }
  return '';
}

/** Throws unless `url` is a ws:// or wss:// URL; the message shows it redacted (it may carry a token). */
function checkUrl(url: Positional): void {
  const parsed = parseUrl(url.text);
  if (parsed?.protocol === 'ws:' || parsed?.protocol === 'wss:') return;
  const shown = JSON.stringify(redactUrl(url.text));
  throw new UsageError(`Expected a ${parsed ? '' : 'valid '}ws:// or wss:// URL, got ${shown}${urlGuess(url, parsed)}`);
}

/**
 * A did-you-mean for a URL that is not a ws(s):// one: the ws(s) form of an http(s) URL, the flag a
 * word names (`demo`), or the ws:// form of a host without a scheme (`localhost:8080`).
 */
function urlGuess(url: Positional, parsed: URL | undefined): string {
  const { text } = url;
  const web = parsed?.protocol === 'https:' ? 'wss' : parsed?.protocol === 'http:' ? 'ws' : undefined;
  const guess = web === undefined ? `ws://${text}` : `${web}:${text.slice(parsed?.protocol.length)}`;
  const flag = aside([url]);
  if (web === undefined && (flag !== '' || text.includes('://') || !parseUrl(guess))) return flag;
  return ` (did you mean ${JSON.stringify(redactUrl(guess))}?)`;
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(`Expected \`--header\` as "Name: value", got ${JSON.stringify(redactHeader(line))}`);
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** What a numeric flag accepts. */
interface NumberRule {
  readonly min: number;
  readonly max?: number;
  readonly integer?: boolean;
  /** `min` itself is refused. */
  readonly exclusive?: boolean;
}

/** The flag's value as a number within `rule`, or `fallback` when the flag was not given. */
function readNumber(line: CommandLine, name: string, fallback: number, rule: NumberRule): number {
  const text = line.values.get(name)?.[0];
  if (text === undefined) return fallback;
  const { min, max = Number.POSITIVE_INFINITY, integer = false, exclusive = false } = rule;
  const value = DECIMAL.test(text.trim()) ? Number(text) : Number.NaN;
  const low = exclusive ? value <= min : value < min;
  if (!Number.isFinite(value) || low || value > max || (integer && !Number.isInteger(value))) {
    const kind = integer ? 'an integer' : 'a number';
    const range = max === Number.POSITIVE_INFINITY ? `${exclusive ? '>' : '>='} ${min}` : `from ${min} to ${max}`;
    throw new UsageError(`Expected \`--${name}\` to be ${kind} ${range}, got ${JSON.stringify(text)}`);
  }
  return value;
}
