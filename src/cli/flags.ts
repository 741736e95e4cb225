/**
 * The flags of the `resilient-socket` command, and how a command line is read into them. Every
 * mistake is a {@link UsageError} of one line naming the flag and the value, with a did-you-mean
 * for a misspelt flag (`--maxdelay`, `-max-delay`, `--maxDelay`: `--max-delay`).
 *
 * Read here rather than by `node:util`'s `parseArgs`, whose messages span several lines and which
 * refuses `--max-delay -5` as "ambiguous" instead of reading the -5 and saying it is out of range.
 * The conventions are the usual ones: `--flag value` or `--flag=value`; `-n 5`, `-n5`, and short
 * switches grouped (`-qn 5`); `--` ends the flags (what follows is a URL, even if it starts with
 * a dash). A value may start with a dash when it is a number (`--max-delay -5`) or is joined with
 * `=` (`--send=-x`); any other word that starts with a dash is the next flag, and the value is
 * missing.
 */
import { closestKey } from '../validation.js';

/** A bad command line: the CLI prints the message and the usage hint, and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** One flag. */
interface Flag {
  /** The long name, without its dashes. */
  readonly name: string;
  /** The one-letter form, if any. */
  readonly short?: string;
  /** What its value is, as the usage calls it (`MS`, `N`, …); none for a switch. */
  readonly value?: string;
  /** Given more than once, each value is kept in order; other flags take one value. */
  readonly repeatable?: boolean;
  /** Its value may start with a dash (written `--send=-x`). */
  readonly dashed?: boolean;
}

/** Every flag the command takes. */
const FLAGS: readonly Flag[] = [
  { name: 'header', short: 'H', value: '"Name: value"', repeatable: true, dashed: true },
  { name: 'protocol', short: 'p', value: 'NAME', repeatable: true, dashed: true },
  { name: 'connect-timeout', value: 'MS' },
  { name: 'heartbeat', value: 'MS' },
  { name: 'no-heartbeat' },
  { name: 'strategy', value: 'NAME' },
  { name: 'max-delay', value: 'MS' },
  { name: 'ceiling', value: 'N' },
  { name: 'base-delay', value: 'MS' },
  { name: 'max-retries', value: 'N' },
  { name: 'send', short: 's', value: 'MESSAGE', repeatable: true, dashed: true },
  { name: 'wait', value: 'MS' },
  { name: 'count', short: 'n', value: 'N' },
  { name: 'timeout', short: 't', value: 'MS' },
  { name: 'json' },
  { name: 'quiet', short: 'q' },
  { name: 'demo' },
  { name: 'clients', value: 'N' },
  { name: 'help', short: 'h' },
  { name: 'version', short: 'v' },
];

const BY_NAME: ReadonlyMap<string, Flag> = new Map(FLAGS.map((flag) => [flag.name, flag]));
const BY_SHORT: ReadonlyMap<string, Flag> = new Map(
  FLAGS.filter((flag) => flag.short !== undefined).map((flag) => [flag.short as string, flag]),
);
const NAMES: readonly string[] = FLAGS.map((flag) => flag.name);

/** A decimal number, as the numeric flags take it (`5`, `-1.5`, `1e3`; not `0x10` nor `Infinity`). */
export const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** One argument that is not a flag: the URL, or a mistake. */
export interface Positional {
  readonly text: string;
  /** It came after `--`, so it was not read as a flag whatever it looks like. */
  readonly literal: boolean;
}

/** A command line, read. */
export interface CommandLine {
  /** The values of the flags given, by long name: one, or every one in order for a repeatable flag. */
  readonly values: ReadonlyMap<string, readonly string[]>;
  /** The switches given, by long name. */
  readonly switches: ReadonlySet<string>;
  readonly positionals: readonly Positional[];
}

/** Reads `argv` (the arguments after the command name). @throws UsageError */
export function readCommandLine(argv: readonly string[]): CommandLine {
  const reader = new Reader(argv);
  reader.read();
  return reader;
}

class Reader implements CommandLine {
  readonly values = new Map<string, string[]>();
  readonly switches = new Set<string>();
  readonly positionals: Positional[] = [];
  readonly #argv: readonly string[];
  #at = 0;

  constructor(argv: readonly string[]) {
    this.#argv = argv;
  }

  read(): void {
    let literal = false;
    for (; this.#at < this.#argv.length; this.#at++) {
      const arg = this.#argv[this.#at] as string;
      if (literal || arg === '-' || !arg.startsWith('-')) this.positionals.push({ text: arg, literal });
      else if (arg === '--') literal = true;
      else if (arg.startsWith('--')) this.#long(arg);
      else this.#shorts(arg);
    }
  }

  /** `--name` or `--name=value`. */
  #long(arg: string): void {
    const equals = arg.indexOf('=');
    const typed = equals < 0 ? arg : arg.slice(0, equals);
    const flag = BY_NAME.get(typed.slice(2));
    if (!flag) throw unknown(typed, closestFlag(typed.slice(2)));
    this.#take(flag, typed, equals < 0 ? undefined : arg.slice(equals + 1));
  }

  /** `-n 5`, `-n5`, `-q`, `-qn 5`: switches, then at most one flag that takes the rest or the next argument. */
  #shorts(arg: string): void {
    const letters = arg.slice(1);
    for (let i = 0; i < letters.length; i++) {
      const letter = letters[i] as string;
      const flag = BY_SHORT.get(letter);
      if (!flag) {
        // `-max-delay`, `-json`: a long flag typed with one dash, more likely than a group of letters.
        const typed = arg.split('=')[0] as string;
        const long = letters.length > 1 ? closestFlag(typed.slice(1)) : undefined;
        if (long !== undefined) throw unknown(typed, long);
        const suggestion = closestKey(letter, [...BY_SHORT.keys()]);
        const where = letters.length > 1 ? ` in \`${typed}\`` : '';
        throw new UsageError(
          `Unknown flag \`-${letter}\`${where}${suggestion === undefined ? '' : `: did you mean \`-${suggestion}\`?`}`,
        );
      }
      if (flag.value !== undefined) {
        const rest = letters.slice(i + 1);
        this.#take(flag, `-${letter}`, rest === '' ? undefined : rest);
        return;
      }
      this.#take(flag, `-${letter}`, undefined);
    }
  }

  /** Records `flag` as typed (`--count`, `-n`), with its value joined to it, or else the next argument. */
  #take(flag: Flag, typed: string, joined: string | undefined): void {
    if (flag.value === undefined) {
      if (joined !== undefined) {
        throw new UsageError(`Expected no value with \`${typed}\` (it is a switch), got ${shown(flag, joined)}`);
      }
      this.switches.add(flag.name);
      return;
    }
    let value = joined;
    if (value === undefined) {
      const next = this.#argv[this.#at + 1];
      if (next === undefined) throw new UsageError(`Expected a value (${flag.value}) after \`${typed}\`, got none`);
      if (looksLikeFlag(next)) {
        const named = next === '--' ? '`--`' : `the flag \`${next.split('=')[0]}\``;
        const hint = flag.dashed ? ` (a value that starts with a dash is written \`--${flag.name}=-…\`)` : '';
        throw new UsageError(`Expected a value (${flag.value}) after \`${typed}\`, got ${named}${hint}`);
      }
      value = next;
      this.#at++;
    }
    const seen = this.values.get(flag.name);
    if (seen === undefined) this.values.set(flag.name, [value]);
    else if (flag.repeatable) seen.push(value);
    else if (!seen.includes(value)) {
      throw new UsageError(
        `Expected \`--${flag.name}\` once, got ${shown(flag, seen[0] as string)} and ${shown(flag, value)}`,
      );
    }
  }
}

/** Whether an argument where a value is expected is rather the next flag (or `--`). */
function looksLikeFlag(arg: string): boolean {
  return arg === '--' || (arg.length > 1 && arg.startsWith('-') && !DECIMAL.test(arg));
}

function unknown(typed: string, suggestion: string | undefined): UsageError {
  return new UsageError(
    `Unknown flag \`${typed}\`${suggestion === undefined ? '' : `: did you mean \`${suggestion}\`?`}`,
  );
}

/** `max-delay` for `maxDelay`, `MAX_DELAY` or `maxdelay`: the same letters, whatever the case and the separators. */
const squashed = (text: string): string => text.toLowerCase().replace(/[-_]/g, '');

/**
 * The flag a word most likely means, as `--name`: one with the same letters (`maxdelay`), else
 * one within two edits (`--hearbeat`), else the only one that starts with it or contains it
 * (`--retries`: `--max-retries`).
 */
function closestFlag(word: string): string | undefined {
  const same = flagNamed(word);
  if (same !== undefined) return same;
  const close = closestKey(word, NAMES);
  if (close !== undefined) return `--${close}`;
  const lower = word.toLowerCase();
  for (const matches of [(name: string) => name.startsWith(lower), (name: string) => name.includes(lower)]) {
    const found = lower.length >= 3 ? NAMES.filter(matches) : [];
    if (found.length === 1) return `--${found[0]}`;
  }
  return undefined;
}

/**
 * The flag `word` names: a short flag as it is (`-h`), or a long flag (`--max-delay`) written any
 * way (`maxdelay`, `--maxDelay`); `undefined` if none.
 */
export function flagNamed(word: string): string | undefined {
  if (/^-.$/.test(word)) return BY_SHORT.has(word.slice(1)) ? word : undefined;
  const letters = squashed(word);
  const name = NAMES.find((candidate) => squashed(candidate) === letters);
  return name === undefined ? undefined : `--${name}`;
}

/**
 * A value as a message shows it: quoted. A header's value is not shown (it often carries a
 * token): `"Authorization: ***"`, or the first word and `***` for a line without a colon.
 */
function shown(flag: Flag, value: string): string {
  return JSON.stringify(flag.name === 'header' ? redactHeader(value) : value);
}

/** A `--header` line with its value hidden. */
export function redactHeader(line: string): string {
  const colon = line.indexOf(':');
  if (colon >= 0) return line.slice(colon + 1).trim() === '' ? line : `${line.slice(0, colon)}: ***`;
  const word = /^\S*/.exec(line.trimStart())?.[0] ?? '';
  return word.length < line.trim().length ? `${word} ***` : line;
}

/**
 * What the library calls the options the CLI sets from its flags. A TypeError or RangeError the
 * library throws while the CLI builds its backoff policy or its socket names options; the CLI
 * shows it with the flags' names.
 */
const OPTION_FLAGS: Readonly<Record<string, string>> = {
  maxDelay: '--max-delay',
  cap: '--max-delay',
  ceiling: '--ceiling',
  base: '--base-delay',
  baseDelay: '--base-delay',
  delay: '--base-delay',
  connectTimeout: '--connect-timeout',
  maxRetries: '--max-retries',
  heartbeat: '--heartbeat',
  'heartbeat.interval': '--heartbeat',
  'heartbeat.timeout': '--heartbeat',
  protocols: '--protocol',
  headers: '--header',
  'wsOptions.headers': '--header',
};

/** Option names, longest first (`heartbeat.interval` before `heartbeat`). */
const OPTION_NAMES = Object.keys(OPTION_FLAGS).sort((a, b) => b.length - a.length);
const OPTION_PATTERN = new RegExp(
  `(?<![\\w.$-])(${OPTION_NAMES.map((n) => n.replace('.', '\\.')).join('|')})(?![\\w$])`,
  'g',
);

/**
 * The usage error for what the library threw while the CLI built its policy or socket from the
 * flags: a TypeError or RangeError (a bad option value) becomes one, with each option name in a
 * code span (`` `maxDelay` ``, `` `maxDelay / 2^(ceiling − 1)` ``) given as its flag. Any other
 * error is not the command line's fault: `undefined`.
 */
export function usageErrorFrom(error: unknown): UsageError | undefined {
  if (!(error instanceof TypeError || error instanceof RangeError)) return undefined;
  const message = error.message.replace(/`[^`\n]*`/g, (span) =>
    span.replace(OPTION_PATTERN, (name) => OPTION_FLAGS[name] as string),
  );
  return new UsageError(message.replace(/\s*\n\s*/g, ' '), { cause: error });
}
