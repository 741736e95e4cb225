/**
 * Where the CLI writes. Human mode: received messages on stdout (one per line, nothing added, so
 * pipes get clean data), status and events on stderr, with the status line as the prompt when
 * interactive. `--json`: one JSON object per line on stdout for everything.
 *
 * Much of what is printed comes from the server (messages, close reasons, HTTP status lines in
 * error messages) or from the command line (a URL with a token in it). Every line meant for a
 * person goes through {@link forHumans}: URLs are redacted and control characters made visible,
 * so a server cannot drive the terminal (move the cursor, clear the screen, write the clipboard
 * with OSC 52) and no secret from a URL reaches a screen or a log.
 */
import type { Interface } from 'node:readline';
import type { Data } from '../data.js';
import { redactUrls } from '../redact.js';

type Stream = NodeJS.WritableStream & { isTTY?: boolean };

/** C0 controls (ESC, CR, LF, BEL, backspace…), DEL and the C1 controls U+0080–U+009F (U+009B is a CSI). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
/** The same, but for line feed and tab: a received message may span lines and be laid out with tabs. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROLS_BUT_LF_TAB = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** DEL and C1: the controls JSON.stringify leaves as they are. */
const JSON_UNESCAPED_CONTROLS = /[\u007f-\u009f]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every control character replaced by a visible escape: `\n`, `\r`, `\t`, and `\xHH`
 * for the others (ESC is `\x1b`, DEL `\x7f`, the C1 CSI U+009B `\x9b`). With `keepLines`, line
 * feeds and tabs stay as they are. A backslash already in the text is not escaped: the result is
 * for reading, not for parsing back.
 */
export function printable(text: string, { keepLines = false }: { keepLines?: boolean } = {}): string {
  return text.replace(keepLines ? CONTROLS_BUT_LF_TAB : CONTROLS, escapeControl);
}

/**
 * What every line for a person goes through (events, errors, the status line, usage errors):
 * {@link printable}, then URLs redacted (userinfo and query values become `***`, see `redactUrls`).
 * Escaping first means no control character (a CR, a tab) can cut a URL in two and leave half of
 * a token outside the part that is redacted; redacting adds no control character back.
 */
export function forHumans(text: string): string {
  return redactUrls(printable(text));
}

function escapeControl(char: string): string {
  return SHORT_ESCAPES[char] ?? `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/** A message as JSON can carry it: text as is, binary as base64. */
export type EncodedData = { readonly text: string } | { readonly base64: string };

export class Output {
  readonly #stdout: Stream;
  readonly #stderr: Stream;
  readonly #json: boolean;
  readonly #quiet: boolean;
  readonly #started = Date.now();
  /** The readline interface whose prompt is the status line (interactive mode only). */
  #prompt: Interface | undefined;

  constructor(io: { stdout: Stream; stderr: Stream }, options: { json: boolean; quiet: boolean }) {
    this.#stdout = io.stdout;
    this.#stderr = io.stderr;
    this.#json = options.json;
    this.#quiet = options.quiet;
  }

  /** Starts (or, with `undefined`, stops) drawing the status line as the prompt of `lines`. */
  attach(lines: Interface | undefined): void {
    if (lines === undefined && this.#prompt !== undefined) this.#stderr.write('\r\u001b[2K');
    this.#prompt = lines;
  }

  /**
   * A received message. On a terminal its control characters are made visible (line feeds and
   * tabs kept); into a pipe or a file it goes unchanged (pipes want clean data).
   */
  message(data: Data): void {
    if (this.#json) {
      this.#record('message', Output.encode(data));
      return;
    }
    let text = typeof data === 'string' ? data : describeBinary(data);
    if (this.#stdout.isTTY === true) text = printable(text, { keepLines: true });
    this.#above(() => this.#stdout.write(`${text}\n`));
  }

  /**
   * A lifecycle event: a line on stderr (`*`, or `!` for problems), or a JSON record. With `text`
   * `undefined` it is a JSON record only (something another line already told a person). URLs in
   * the record's top-level strings (`url`, an error's `message`, a `reason`) are redacted; the data
   * of messages, in nested values (`drop`'s `messages`), is not.
   */
  event(name: string, text: string | undefined, fields: Record<string, unknown>, problem = false): void {
    if (this.#json) this.#record(name, redactFields(fields));
    else if (text !== undefined && (!this.#quiet || problem)) this.#line(`${problem ? '!' : '*'} ${text}`);
  }

  /** The result of sending one input line: every one in JSON mode; a buffered one in human, non-interactive mode. */
  sent(message: string, result: string, buffered: number): void {
    if (this.#json) this.#record('send', { text: message, result, buffered });
    else if (this.#prompt === undefined && result === 'buffered' && !this.#quiet) {
      this.#line(`* buffered ${JSON.stringify(message)} (${buffered} waiting)`);
    }
  }

  /** A state change: redraws the status line; in JSON mode also records the change. */
  state(status: string, change?: Record<string, unknown>): void {
    if (this.#json && change) this.#record('state', redactFields(change));
    const prompt = this.#prompt;
    if (prompt === undefined) return;
    prompt.setPrompt(forHumans(status));
    prompt.prompt(true);
  }

  /** A plain informational line (interactive commands). */
  info(text: string): void {
    this.#line(text);
  }

  /** A problem that stops the run before it starts (always shown). */
  problem(text: string): void {
    if (this.#json) this.#record('fatal', { message: redactUrls(text) });
    else this.#stderr.write(`resilient-socket: ${forHumans(text)}\n`);
  }

  /** One line for a person on stderr, above the prompt: redacted and made printable. */
  #line(text: string): void {
    this.#above(() => this.#stderr.write(`${forHumans(text)}\n`));
  }

  /**
   * One JSON record on stdout. JSON.stringify escapes the C0 controls but leaves DEL and the C1
   * controls (U+009B is a CSI to many terminals) raw; they are written as `\u007f`…`\u009f`,
   * which parses back to the same string.
   */
  #record(event: string, fields: object): void {
    const json = JSON.stringify({ event, time: Date.now() - this.#started, ...fields });
    this.#stdout.write(`${json.replace(JSON_UNESCAPED_CONTROLS, unicodeEscape)}\n`);
  }

  /** Writes above the prompt: clears the prompt line, writes, and draws the prompt again. */
  #above(write: () => void): void {
    const prompt = this.#prompt;
    if (prompt === undefined) return void write();
    this.#stderr.write('\r\u001b[2K');
    write();
    prompt.prompt(true);
  }

  /** Text stays text; binary becomes base64. */
  static encode(data: Data): EncodedData {
    return typeof data === 'string' ? { text: data } : { base64: toBuffer(data).toString('base64') };
  }
}

/** The bytes of binary data. A Blob cannot be read synchronously: the CLI asks for `arraybuffer`. */
function toBuffer(data: Exclude<Data, string>): Buffer {
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (typeof Blob !== 'undefined' && data instanceof Blob) return Buffer.alloc(0);
  return Buffer.from(data as ArrayBufferLike);
}

/** `fields` with URLs redacted in its top-level strings. */
function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  const redacted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields))
    redacted[key] = typeof value === 'string' ? redactUrls(value) : value;
  return redacted;
}

function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

function describeBinary(data: Exclude<Data, string>): string {
  const bytes = toBuffer(data);
  return `<binary ${bytes.length} bytes: ${bytes.subarray(0, 32).toString('hex')}${bytes.length > 32 ? '…' : ''}>`;
}
