/**
 * Where the CLI writes. Human mode: received messages on stdout (one per line, nothing added, so
 * pipes get clean data), status and events on stderr, with the status line as the prompt when
 * interactive. `--json`: one JSON object per line on stdout for everything.
 */
import type { Interface } from 'node:readline';
import type { Data } from '../data.js';

type Stream = NodeJS.WritableStream & { isTTY?: boolean };

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

  /** A received message. */
  message(data: Data): void {
    if (this.#json) this.#record('message', Output.encode(data));
    else this.#above(() => this.#stdout.write(`${typeof data === 'string' ? data : describeBinary(data)}\n`));
  }

  /**
   * A lifecycle event: a line on stderr (`*`, or `!` for problems), or a JSON record. With `text`
   * `undefined` it is a JSON record only (something another line already told a person).
   */
  event(name: string, text: string | undefined, fields: Record<string, unknown>, problem = false): void {
    if (this.#json) this.#record(name, fields);
    else if (text !== undefined && (!this.#quiet || problem)) {
      this.#above(() => this.#stderr.write(`${problem ? '!' : '*'} ${text}\n`));
    }
  }

  /** The result of sending one input line: every one in JSON mode; a buffered one in human, non-interactive mode. */
  sent(message: string, result: string, buffered: number): void {
    if (this.#json) this.#record('send', { text: message, result, buffered });
    else if (this.#prompt === undefined && result === 'buffered' && !this.#quiet) {
      this.#stderr.write(`* buffered ${JSON.stringify(message)} (${buffered} waiting)\n`);
    }
  }

  /** A state change: redraws the status line; in JSON mode also records the change. */
  state(status: string, change?: Record<string, unknown>): void {
    if (this.#json && change) this.#record('state', change);
    const prompt = this.#prompt;
    if (prompt === undefined) return;
    prompt.setPrompt(status);
    prompt.prompt(true);
  }

  /** A plain informational line (interactive commands). */
  info(text: string): void {
    this.#above(() => this.#stderr.write(`${text}\n`));
  }

  /** A problem that stops the run before it starts (always shown). */
  problem(text: string): void {
    if (this.#json) this.#record('fatal', { message: text });
    else this.#stderr.write(`resilient-socket: ${text}\n`);
  }

  #record(event: string, fields: object): void {
    this.#stdout.write(`${JSON.stringify({ event, time: Date.now() - this.#started, ...fields })}\n`);
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

function describeBinary(data: Exclude<Data, string>): string {
  const bytes = toBuffer(data);
  return `<binary ${bytes.length} bytes: ${bytes.subarray(0, 32).toString('hex')}${bytes.length > 32 ? '…' : ''}>`;
}
