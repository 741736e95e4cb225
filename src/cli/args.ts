/**
 * The command line of the `resilient-socket` bin: parsed with `node:util`'s `parseArgs` (built
 * into Node, so the CLI needs no argument-parser dependency), then validated once into
 * {@link CliOptions}. Every mistake is a {@link UsageError} naming the flag and the value.
 */
import { parseArgs } from 'node:util';
import { largestCeiling } from '../backoff/truncated-binary-exponential.js';
import { redactUrl } from '../redact.js';

/** The backoff strategies the CLI offers, by their short names. */
export const STRATEGIES = ['truncated', 'phased', 'full', 'equal', 'decorrelated', 'exponential', 'constant'] as const;
export type StrategyName = (typeof STRATEGIES)[number];

/** A bad command line: the CLI prints the message and the usage hint, and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

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

/** What the flags default to (USAGE shows the same values). */
const DEFAULTS = {
  strategy: 'truncated' as StrategyName,
  maxDelay: 10_000,
  ceiling: 10,
  baseDelay: 100,
  connectTimeout: 10_000,
  heartbeat: 30_000,
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
  // Asking for help wins over any mistake elsewhere on the line.
  if (argv.includes('--help') || argv.includes('-h')) return { ...parseCli(['--demo']), mode: 'help' };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    // parseArgs's own messages are clear ("Unknown option '--x'"); keep them, typed as usage errors.
    throw new UsageError((error as Error).message);
  }
  const { values: v, positionals } = parsed;
  const mode = v.help ? 'help' : v.version ? 'version' : v.demo ? 'demo' : 'connect';

  if (positionals.length > 1)
    throw new UsageError(`Expected one URL, got ${positionals.length}: ${positionals.map(redactUrl).join(' ')}`);
  const url = positionals[0] ?? '';
  if (mode === 'connect') {
    if (url === '') throw new UsageError('Expected a ws:// or wss:// URL to connect to (or --demo)');
    checkUrl(url);
  }
  if (mode === 'demo' && url !== '') {
    throw new UsageError(
      `Expected no URL with \`--demo\` (it runs its own server), got ${JSON.stringify(redactUrl(url))}`,
    );
  }
  if (v.heartbeat !== undefined && v['no-heartbeat']) {
    throw new UsageError('Expected either `--heartbeat` or `--no-heartbeat`, not both');
  }
  const strategy = v.strategy ?? DEFAULTS.strategy;
  if (!(STRATEGIES as readonly string[]).includes(strategy)) {
    throw new UsageError(
      `Expected \`--strategy\` to be one of ${STRATEGIES.join(', ')}, got ${JSON.stringify(strategy)}`,
    );
  }
  const maxDelay = number('--max-delay', v['max-delay'], DEFAULTS.maxDelay, { min: 0, exclusive: true });
  // The default ceiling is lowered to fit a --max-delay under 512 ms; a given one is checked by the policy.
  const ceilingFits = Math.max(1, Math.min(DEFAULTS.ceiling, largestCeiling(maxDelay)));

  return {
    mode,
    url,
    headers: parseHeaders(v.header ?? []),
    protocols: v.protocol ?? [],
    strategy: strategy as StrategyName,
    maxDelay,
    ceiling: number('--ceiling', v.ceiling, ceilingFits, { min: 1, integer: true }),
    baseDelay: number('--base-delay', v['base-delay'], DEFAULTS.baseDelay, { min: 0 }),
    maxRetries: number('--max-retries', v['max-retries'], Number.POSITIVE_INFINITY, { min: 0, integer: true }),
    connectTimeout: number('--connect-timeout', v['connect-timeout'], DEFAULTS.connectTimeout, { min: 1 }),
    heartbeat: v['no-heartbeat'] ? false : number('--heartbeat', v.heartbeat, DEFAULTS.heartbeat, { min: 1 }),
    send: v.send ?? [],
    wait: number('--wait', v.wait, 0, { min: 0 }),
    count: number('--count', v.count, Number.POSITIVE_INFINITY, { min: 1, integer: true }),
    timeout: number('--timeout', v.timeout, Number.POSITIVE_INFINITY, { min: 1 }),
    json: v.json ?? false,
    quiet: v.quiet ?? false,
    clients: number('--clients', v.clients, DEFAULTS.clients, { min: 1, max: 8, integer: true }),
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      header: { type: 'string', short: 'H', multiple: true },
      protocol: { type: 'string', short: 'p', multiple: true },
      'connect-timeout': { type: 'string' },
      heartbeat: { type: 'string' },
      'no-heartbeat': { type: 'boolean' },
      strategy: { type: 'string' },
      'max-delay': { type: 'string' },
      ceiling: { type: 'string' },
      'base-delay': { type: 'string' },
      'max-retries': { type: 'string' },
      send: { type: 'string', short: 's', multiple: true },
      wait: { type: 'string' },
      count: { type: 'string', short: 'n' },
      timeout: { type: 'string', short: 't' },
      json: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
      demo: { type: 'boolean' },
      clients: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}

/** Throws unless `url` is a ws:// or wss:// URL; the message shows it redacted (it may carry a token). */
function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`Expected a valid ws:// or wss:// URL, got ${JSON.stringify(redactUrl(url))}`);
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
    throw new UsageError(`Expected a ws:// or wss:// URL, got ${JSON.stringify(redactUrl(url))}`);
  }
}

function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(`Expected \`--header\` as "Name: value", got ${JSON.stringify(line)}`);
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}

function number(
  flag: string,
  text: string | undefined,
  fallback: number,
  {
    min,
    max = Number.POSITIVE_INFINITY,
    integer = false,
    exclusive = false,
  }: { min: number; max?: number; integer?: boolean; exclusive?: boolean },
): number {
  if (text === undefined) return fallback;
  const value = text.trim() === '' ? Number.NaN : Number(text);
  const low = exclusive ? value <= min : value < min;
  if (!Number.isFinite(value) || low || value > max || (integer && !Number.isInteger(value))) {
    const kind = integer ? 'an integer' : 'a number';
    const range = max === Number.POSITIVE_INFINITY ? `${exclusive ? '>' : '>='} ${min}` : `from ${min} to ${max}`;
    throw new UsageError(`Expected \`${flag}\` to be ${kind} ${range}, got ${JSON.stringify(text)}`);
  }
  return value;
}
