/**
 * The WebSocket argument rules as one table, shared by the three conformance runners: the unit
 * tests (Node, mock-socket), the integration tests (Node, a real ws server) and the browser tests
 * (Chromium, where each case also runs on the native `WebSocket`, which checks the `chromium`
 * column against the real thing).
 *
 * `args(base)` builds the arguments (`base` is `ws://127.0.0.1:<port>` of a test server). The
 * browser test sends its source text to the page, so it must use nothing but its parameter and
 * the page's globals. `chromium(base)` is what Chromium does; `ours` is set where
 * `ResilientWebSocket` deliberately does something else (and says why); `node` where Node, with
 * no page to resolve a relative URL against, differs from a browser. Each failure knows the
 * argument it is about: what `ResilientWebSocket`'s message names in a production build.
 */
import { PRODUCTION, productionMessage } from '../helpers/mode.js';

/** What a call did: returned (the socket's `url`, for the constructor), or threw. */
export type Outcome =
  | { readonly ok: true; readonly url?: string }
  | {
      readonly ok: false;
      readonly type: 'TypeError' | 'DOMException';
      readonly name: string;
      readonly message: string;
    };

export interface Case {
  readonly title: string;
  readonly args: (base: string) => unknown[];
  readonly chromium: (base: string) => Outcome;
  /** Where we differ from Chromium on purpose: what we do, and why. */
  readonly ours?: { readonly outcome: (base: string) => Outcome; readonly why: string };
  /** In Node (no base URL), when it differs from the browser. */
  readonly node?: (base: string) => Outcome;
}

const CONSTRUCT = "Failed to construct 'WebSocket': ";
const CLOSE = "Failed to execute 'close' on 'WebSocket': ";

/** The argument each failure is about (the outcomes stay plain data: they are compared as JSON). */
const ARGUMENT = new WeakMap<Outcome, string>();

/** A failure about `argument`: a `type` (`TypeError`, or a `DOMException` named `name`) with `message`. */
export function failure(type: 'TypeError' | 'DOMException', name: string, argument: string, message: string): Outcome {
  const outcome: Outcome = { ok: false, type, name, message };
  ARGUMENT.set(outcome, argument);
  return outcome;
}

const ok = (url?: string): Outcome => (url === undefined ? { ok: true } : { ok: true, url });
const dom = (name: string, argument: string, message: string): Outcome =>
  failure('DOMException', name, argument, message);
const badUrl = (url: string) => dom('SyntaxError', 'url', `${CONSTRUCT}The URL '${url}' is invalid.`);
const badScheme = (scheme: string) =>
  dom(
    'SyntaxError',
    'url',
    `${CONSTRUCT}The URL's scheme must be either 'http', 'https', 'ws', or 'wss'. '${scheme}' is not allowed.`,
  );
const badProtocol = (shown: string) =>
  dom('SyntaxError', 'protocols', `${CONSTRUCT}The subprotocol '${shown}' is invalid.`);
const fragment = (shown: string) =>
  dom(
    'SyntaxError',
    'url',
    `${CONSTRUCT}The URL contains a fragment identifier ('${shown}'). Fragment identifiers are not allowed in WebSocket URLs.`,
  );
const badCode = (code: number) =>
  dom(
    'InvalidAccessError',
    'code',
    `${CLOSE}The close code must be either 1000, or between 3000 and 4999. ${code} is neither.`,
  );
const longReason = dom('SyntaxError', 'reason', `${CLOSE}The close reason must not be greater than 123 UTF-8 bytes.`);

/** `new WebSocket(...args)`. */
export const CONSTRUCTOR_CASES: readonly Case[] = [
  {
    title: 'no argument: TypeError',
    args: () => [],
    chromium: () => failure('TypeError', 'TypeError', 'url', `${CONSTRUCT}1 argument required, but only 0 present.`),
  },
  { title: 'a ws: URL', args: (base) => [`${base}/feed?room=1`], chromium: (base) => ok(`${base}/feed?room=1`) },
  {
    title: 'http: becomes ws:, the URL is serialized (scheme lower-cased, path kept)',
    args: (base) => [`${base.replace('ws:', 'HTTP:')}/Path`],
    chromium: (base) => ok(`${base}/Path`),
  },
  {
    title: 'https: becomes wss:',
    args: (base) => [base.replace('ws:', 'https:')],
    chromium: (base) => ok(`${base.replace('ws:', 'wss:')}/`),
  },
  { title: 'a URL object', args: (base) => [new URL(`${base}/x`)], chromium: (base) => ok(`${base}/x`) },
  { title: 'an unparsable URL', args: () => ['http://['], chromium: () => badUrl('http://[') },
  {
    title: 'a relative URL: resolved against the page; no base in Node',
    args: () => ['relative'],
    chromium: () => ok(),
    node: () => badUrl('relative'),
  },
  {
    title: 'undefined as the URL: the string "undefined", relative',
    args: () => [undefined],
    chromium: () => ok(),
    node: () => badUrl('undefined'),
  },
  {
    title: 'a scheme other than http(s)/ws(s)',
    args: () => ['ftp://127.0.0.1/'],
    chromium: () => badScheme('ftp'),
  },
  {
    title: 'a fragment',
    args: (base) => [`${base}/#token`],
    chromium: () => fragment('token'),
    ours: { outcome: () => fragment('***'), why: 'a fragment may carry a secret: messages show URLs redacted' },
  },
  { title: 'an empty fragment', args: (base) => [`${base}/#`], chromium: () => fragment('') },
  {
    title: 'only a fragment: resolved against the page (WPT Create-invalid-urls); no base in Node',
    args: () => ['#test'],
    chromium: () => fragment('test'),
    ours: { outcome: () => fragment('***'), why: 'a fragment may carry a secret: messages show URLs redacted' },
    node: () => badUrl('#***'),
  },
  {
    title: 'mailto: (WPT Create-invalid-urls)',
    args: () => ['mailto:example@example.org'],
    chromium: () => badScheme('mailto'),
  },
  {
    title: 'about:blank (WPT Create-invalid-urls)',
    args: () => ['about:blank'],
    chromium: () => badScheme('about'),
  },
  {
    title: 'a port out of range',
    args: () => ['ws://127.0.0.1:65536/'],
    chromium: () => badUrl('ws://127.0.0.1:65536/'),
  },
  { title: 'one subprotocol', args: (base) => [base, 'chat'], chromium: (base) => ok(`${base}/`) },
  { title: 'no subprotocol (an empty list)', args: (base) => [base, []], chromium: (base) => ok(`${base}/`) },
  {
    title: 'subprotocols as any iterable, compared case-sensitively',
    args: (base) => [base, new Set(['chat', 'Chat'])],
    chromium: (base) => ok(`${base}/`),
  },
  {
    title: 'null as the subprotocol: the token "null"',
    args: (base) => [base, null],
    chromium: (base) => ok(`${base}/`),
  },
  { title: 'a number as the subprotocol', args: (base) => [base, 42], chromium: (base) => ok(`${base}/`) },
  { title: 'a subprotocol with a space', args: (base) => [base, 'a b'], chromium: () => badProtocol('a b') },
  {
    title: 'a subprotocol with a separator (WPT Create-asciiSep-protocol-string)',
    args: (base) => [base, '/echo'],
    chromium: () => badProtocol('/echo'),
  },
  {
    title: 'a non-ASCII subprotocol (WPT Create-nonAscii-protocol-string)',
    args: (base) => [base, '\u0080echo'],
    chromium: () => badProtocol('\\u0080echo'),
  },
  { title: 'an empty subprotocol', args: (base) => [base, ''], chromium: () => badProtocol('') },
  { title: 'the second subprotocol invalid', args: (base) => [base, ['a', 'b c']], chromium: () => badProtocol('b c') },
  {
    title: 'a duplicated subprotocol',
    args: (base) => [base, ['a', 'b', 'a']],
    chromium: () => dom('SyntaxError', 'protocols', `${CONSTRUCT}The subprotocol 'a' is duplicated.`),
  },
  {
    title: 'a plain object as subprotocols: converted to a string, not a sequence',
    args: (base) => [base, {}],
    chromium: () => badProtocol('[object Object]'),
  },
  {
    title: 'non-ASCII and control characters shown as \\uXXXX, a backslash doubled',
    args: (base) => [base, ['ok', 'é\t\\']],
    chromium: () => badProtocol('\\u00E9\\u0009\\\\'),
  },
  {
    title: 'a long invalid subprotocol',
    args: (base) => [base, `${'x'.repeat(40)} y`],
    chromium: () => badProtocol(`${'x'.repeat(40)} y`),
    ours: {
      outcome: () => badProtocol(`${'x'.repeat(8)}…`),
      why: 'a long subprotocol may be a credential (some servers take a token there): only its start is shown',
    },
  },
];

/** `socket.close(...args)` on a socket that is open. */
export const CLOSE_CASES: readonly Case[] = [
  { title: 'no argument', args: () => [], chromium: () => ok() },
  { title: '1000', args: () => [1000], chromium: () => ok() },
  { title: '3000 with a reason', args: () => [3000, 'bye'], chromium: () => ok() },
  { title: '4999', args: () => [4999], chromium: () => ok() },
  { title: 'an explicit undefined code', args: () => [undefined], chromium: () => ok() },
  { title: '1001 (reserved for browsers)', args: () => [1001], chromium: () => badCode(1001) },
  { title: '999', args: () => [999], chromium: () => badCode(999) },
  { title: '500 (WPT close-invalid)', args: () => [500], chromium: () => badCode(500) },
  { title: '2999', args: () => [2999], chromium: () => badCode(2999) },
  { title: '5000', args: () => [5000], chromium: () => badCode(5000) },
  { title: '0', args: () => [0], chromium: () => badCode(0) },
  { title: 'null: 0', args: () => [null], chromium: () => badCode(0) },
  { title: 'NaN: 0', args: () => [Number.NaN], chromium: () => badCode(0) },
  { title: 'a non-numeric string: 0', args: () => ['abc'], chromium: () => badCode(0) },
  { title: 'a numeric string', args: () => ['3001'], chromium: () => ok() },
  { title: '-1: clamped to 0', args: () => [-1], chromium: () => badCode(0) },
  { title: '65536: clamped to 65535', args: () => [65_536], chromium: () => badCode(65_535) },
  {
    title: '2**16 + 1000 (WPT close-invalid): clamped to 65535',
    args: () => [0x10000 + 1000],
    chromium: () => badCode(65_535),
  },
  { title: 'Infinity: clamped to 65535', args: () => [Number.POSITIVE_INFINITY], chromium: () => badCode(65_535) },
  { title: '1000.4', args: () => [1000.4], chromium: () => ok() },
  {
    title: '999.9',
    args: () => [999.9],
    chromium: () => badCode(999),
    ours: {
      outcome: () => ok(),
      why: 'WebIDL [Clamp] rounds to the nearest integer (1000); Chromium truncates (999). Ours follows WebIDL, as Firefox does',
    },
  },
  {
    title: '2999.5',
    args: () => [2999.5],
    chromium: () => badCode(2999),
    ours: { outcome: () => ok(), why: 'WebIDL [Clamp] rounds a tie to even (3000); Chromium truncates (2999)' },
  },
  {
    title: '4999.5',
    args: () => [4999.5],
    chromium: () => ok(),
    ours: {
      outcome: () => badCode(5000),
      why: 'WebIDL [Clamp] rounds a tie to even (5000); Chromium truncates (4999)',
    },
  },
  { title: 'a reason of 123 bytes', args: () => [1000, 'x'.repeat(123)], chromium: () => ok() },
  { title: 'a reason of 124 bytes', args: () => [1000, 'x'.repeat(124)], chromium: () => longReason },
  {
    title: 'a reason of 62 two-byte characters (124 bytes)',
    args: () => [4000, 'é'.repeat(62)],
    chromium: () => longReason,
  },
  {
    title: 'a reason of 31 four-byte characters (124 bytes)',
    args: () => [4000, '😀'.repeat(31)],
    chromium: () => longReason,
  },
  {
    title: '41 lone surrogates (each sent as U+FFFD: 123 bytes)',
    args: () => [1000, '\uD800'.repeat(41)],
    chromium: () => ok(),
  },
  { title: '42 lone surrogates (126 bytes)', args: () => [1000, '\uD800'.repeat(42)], chromium: () => longReason },
  {
    title: 'a bad code is reported before a long reason',
    args: () => [1001, 'x'.repeat(200)],
    chromium: () => badCode(1001),
  },
  {
    title: 'a reason without a code (an explicit undefined code)',
    args: () => [undefined, 'bye'],
    chromium: () => badCode(0),
    ours: {
      outcome: () => ok(),
      why: 'WebIDL treats an explicit undefined optional argument as missing (so does Firefox); Chromium converts it to 0. No code is sent, and so no reason (a close frame carries one only after a code)',
    },
  },
];

/**
 * `outcome` as `ResilientWebSocket` gives it in the mode the tests run in: a production build keeps
 * the error's type and name and names the argument in its message (`` `url`: SyntaxError … ``, a
 * TypeError's with its code).
 */
export function inOurMode(outcome: Outcome): Outcome {
  if (outcome.ok || !PRODUCTION) return outcome;
  const argument = ARGUMENT.get(outcome);
  if (argument === undefined) throw new Error(`no argument known for the failure ${JSON.stringify(outcome)}`);
  const code = outcome.type === 'TypeError' ? 'ERR_RS_INVALID_TYPE' : outcome.name;
  return { ...outcome, message: productionMessage(argument, code) };
}

/** The outcome a runner in `env` expects from `ResilientWebSocket` for `c` (in the mode the tests run in). */
export function expectedOurs(c: Case, base: string, env: 'node' | 'browser'): Outcome {
  if (env === 'node' && c.node) return inOurMode(c.node(base));
  return inOurMode((c.ours?.outcome ?? c.chromium)(base));
}

/** Describes what `call` did as an {@link Outcome}; `onReturn` reads what it returned (the socket's URL). */
export function outcomeOf(call: () => unknown, onReturn?: (value: unknown) => string | undefined): Outcome {
  let value: unknown;
  try {
    value = call();
  } catch (error) {
    const e = error as Error;
    const isDom = typeof DOMException !== 'undefined' && error instanceof DOMException;
    return {
      ok: false,
      type: isDom ? 'DOMException' : (e.constructor.name as 'TypeError'),
      name: e.name,
      message: e.message,
    };
  }
  const url = onReturn?.(value);
  return url === undefined ? ok() : ok(url);
}
