import type { Interface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { forHumans, Output, printable } from '../../src/cli/output.js';
import { controlsIn, fakeProcess } from '../helpers/cli-io.js';

function output(options: { json?: boolean; quiet?: boolean; stdoutTty?: boolean } = {}) {
  const { stdoutTty, ...flags } = options;
  const proc = fakeProcess({ stdoutTty: stdoutTty ?? false });
  const o = new Output(proc.io, { json: false, quiet: false, ...flags });
  return {
    o,
    get out() {
      return proc.stdout;
    },
    get err() {
      return proc.stderr;
    },
    records: () => proc.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('Output, human mode', () => {
  it('messages go to stdout as they are, one per line; events to stderr', () => {
    const t = output();
    t.o.message('hello');
    t.o.event('open', 'connected', { attempt: 1 });
    t.o.event('error', 'ERR_X: boom', {}, true);
    expect(t.out).toBe('hello\n');
    expect(t.err).toBe('* connected\n! ERR_X: boom\n');
  });

  it('binary messages are described with their size and first bytes', () => {
    const t = output();
    t.o.message(new Uint8Array([0xde, 0xad, 0xbe, 0xef]).buffer);
    t.o.message(new Uint8Array(40).fill(1));
    expect(t.out.split('\n')[0]).toBe('<binary 4 bytes: deadbeef>');
    expect(t.out.split('\n')[1]).toBe(`<binary 40 bytes: ${'01'.repeat(32)}…>`);
  });

  it('a message sent while down is reported as buffered; one sent at once is not', () => {
    const t = output();
    t.o.sent('a', 'buffered', 1);
    t.o.sent('b', 'sent', 0);
    expect(t.err).toBe('* buffered "a" (1 waiting)\n');
  });

  it('--quiet: only messages and problems', () => {
    const t = output({ quiet: true });
    t.o.message('m');
    t.o.event('open', 'connected', {});
    t.o.sent('a', 'buffered', 1);
    t.o.event('drop', 'dropped 1 message(s)', {}, true);
    expect(t.out).toBe('m\n');
    expect(t.err).toBe('! dropped 1 message(s)\n');
  });

  it('a problem before the run is prefixed with the command name', () => {
    const t = output();
    t.o.problem('no ws');
    expect(t.err).toBe('resilient-socket: no ws\n');
  });
});

describe('Output, --json', () => {
  it('everything is one JSON object per line on stdout, with event and time', () => {
    const t = output({ json: true });
    t.o.message('hi');
    t.o.message(new Uint8Array([1, 2, 3]));
    t.o.event('open', 'connected', { attempt: 1, reconnected: false });
    t.o.sent('x', 'buffered', 2);
    t.o.state('[open] ', { previous: 'connecting', current: 'open', reason: 'r' });
    t.o.state('[open] ');
    t.o.problem('bad');
    expect(t.err).toBe('');
    const records = t.records();
    for (const r of records) expect(typeof r.time).toBe('number');
    expect(records.map(({ time: _, ...rest }) => rest)).toEqual([
      { event: 'message', text: 'hi' },
      { event: 'message', base64: 'AQID' },
      { event: 'open', attempt: 1, reconnected: false },
      { event: 'send', text: 'x', result: 'buffered', buffered: 2 },
      { event: 'state', previous: 'connecting', current: 'open', reason: 'r' },
      { event: 'fatal', message: 'bad' },
    ]);
  });

  it('--json --quiet still records every event', () => {
    const t = output({ json: true, quiet: true });
    t.o.event('open', 'connected', {});
    expect(t.records()).toHaveLength(1);
  });

  it('encode: text as is, binary as base64', () => {
    expect(Output.encode('a')).toEqual({ text: 'a' });
    expect(Output.encode(new Uint8Array([255]).buffer)).toEqual({ base64: '/w==' });
    expect(Output.encode(Buffer.from('hi'))).toEqual({ base64: 'aGk=' });
  });
});

/** Every control character: C0 (0x00–0x1f), DEL, C1 (U+0080–U+009F). */
const ALL_CONTROLS = [
  ...Array.from({ length: 0x20 }, (_, i) => i),
  0x7f,
  ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i),
].map((code) => String.fromCharCode(code));
/** A server's attempt to drive the terminal: an OSC 52 clipboard write, clear screen, CR, a C1 CSI. */
const HOSTILE = 'a\u001b]52;c;cm0gLXJmIH4=\u0007b\u001b[2Jc\rd\u009b31me\u007f\bf';
const HOSTILE_SHOWN = String.raw`a\x1b]52;c;cm0gLXJmIH4=\x07b\x1b[2Jc\rd\x9b31me\x7f\x08f`;

describe('printable', () => {
  it('makes every C0, DEL and C1 control visible, and leaves everything else alone', () => {
    for (const char of ALL_CONTROLS) {
      const shown = printable(`<${char}>`);
      expect(controlsIn(shown), `U+${char.charCodeAt(0).toString(16)}`).toEqual([]);
      expect(shown.length, `U+${char.charCodeAt(0).toString(16)}`).toBeGreaterThan(3);
    }
    expect(printable(HOSTILE)).toBe(HOSTILE_SHOWN);
    expect(printable('\u0000\n\t\r\u0085')).toBe(String.raw`\x00\n\t\r\x85`);
    const plain = 'plain text, ünïcödé, emoji 🎉, \u00a0 (no-break space), back\\slash, \u2028';
    expect(printable(plain)).toBe(plain);
  });

  it('keepLines: line feeds and tabs stay, every other control is made visible', () => {
    expect(printable('one\n\ttwo\r\n\u001b[2J', { keepLines: true })).toBe('one\n\ttwo\\r\n\\x1b[2J');
    for (const char of ALL_CONTROLS.filter((c) => c !== '\n' && c !== '\t')) {
      expect(controlsIn(printable(char, { keepLines: true }))).toEqual([]);
    }
  });

  it('forHumans: controls made visible and URLs redacted', () => {
    expect(forHumans('to ws://u:S3CR3T@h.test:1/x?token=T0K3N \u001b[2J')).toBe(
      String.raw`to ws://***@h.test:1/x?token=*** \x1b[2J`,
    );
    // A control character inside a URL cannot split it and leave part of the token outside.
    expect(forHumans('ws://h.test/x?token=T0K\r\n3N')).toBe('ws://h.test/x?token=***');
  });
});

describe('Output: nothing the server sends can drive the terminal', () => {
  /** A stand-in for the readline interface whose prompt is the status line. */
  const promptRecorder = () => {
    const prompts: string[] = [];
    const lines = {
      setPrompt: (p: string) => prompts.push(p),
      prompt: () => undefined,
    } as unknown as Interface;
    return { lines, prompts };
  };

  it('event lines (close reasons, error messages, the give-up line) show controls as escapes', () => {
    const t = output();
    t.o.event('close', `connection closed (1000 ${HOSTILE})`, {});
    t.o.event('error', `ERR_RS_UPGRADE_REJECTED: HTTP/1.1 400 Bad\r\nX: ${HOSTILE}`, {}, true);
    t.o.event('giveup', `gave up after 1 attempt(s): ${HOSTILE}`, {}, true);
    expect(controlsIn(t.err, '\n')).toEqual([]);
    expect(t.err.split('\n')).toEqual([
      `* connection closed (1000 ${HOSTILE_SHOWN})`,
      String.raw`! ERR_RS_UPGRADE_REJECTED: HTTP/1.1 400 Bad\r\nX: ` + HOSTILE_SHOWN,
      `! gave up after 1 attempt(s): ${HOSTILE_SHOWN}`,
      '',
    ]);
  });

  it('info lines, buffered lines, problems and the status line too', () => {
    const t = output();
    t.o.info(`stats ${HOSTILE}`);
    t.o.sent(HOSTILE, 'buffered', 1);
    t.o.problem(HOSTILE);
    expect(controlsIn(t.err, '\n')).toEqual([]);
    expect(t.err).toContain(`stats ${HOSTILE_SHOWN}\n`);
    expect(t.err).toContain(`resilient-socket: ${HOSTILE_SHOWN}\n`);
    // JSON.stringify escapes C0 itself (\u001b); DEL and C1 are left to printable.
    expect(t.err).toContain(String.raw`* buffered "a\u001b]52;c;cm0gLXJmIH4=\u0007b\u001b[2Jc\rd\x9b31me\x7f\bf"`);

    const { lines, prompts } = promptRecorder();
    t.o.attach(lines);
    t.o.state(`[${HOSTILE}] `);
    expect(prompts).toEqual([`[${HOSTILE_SHOWN}] `]);
    t.o.attach(undefined);
  });

  it('a message on a terminal: controls made visible, line feeds and tabs kept', () => {
    const t = output({ stdoutTty: true });
    t.o.message(`${HOSTILE}\nsecond\tline`);
    expect(t.out).toBe(`${HOSTILE_SHOWN}\nsecond\tline\n`);
  });

  it('a message into a pipe or a file: written unchanged, byte for byte', () => {
    const t = output({ stdoutTty: false });
    t.o.message(`${HOSTILE}\nsecond\tline`);
    expect(t.out).toBe(`${HOSTILE}\nsecond\tline\n`);
  });

  it('--json: no raw control character on stdout (C0 by JSON.stringify, DEL and C1 as \\u escapes); data parses back unchanged', () => {
    const t = output({ json: true });
    const every = ALL_CONTROLS.join('');
    t.o.message(HOSTILE);
    t.o.message(every);
    t.o.event('close', 'x', { code: 1000, reason: HOSTILE });
    t.o.sent(every, 'sent', 0);
    t.o.state('[x] ', { previous: 'open', current: 'reconnecting', reason: HOSTILE });
    t.o.problem(HOSTILE);
    expect(controlsIn(t.out, '\n')).toEqual([]);
    expect(t.out).toContain(String.raw`d\u009b31me\u007f\bf`);
    expect(t.records().map(({ time: _, ...rest }) => rest)).toEqual([
      { event: 'message', text: HOSTILE },
      { event: 'message', text: every },
      { event: 'close', code: 1000, reason: HOSTILE },
      { event: 'send', text: every, result: 'sent', buffered: 0 },
      { event: 'state', previous: 'open', current: 'reconnecting', reason: HOSTILE },
      { event: 'fatal', message: HOSTILE },
    ]);
  });
});

describe('Output: no secret from a URL', () => {
  const URL_WITH_SECRETS = 'ws://user:S3CR3T@h.test:8080/x?token=T0K3N&room=1';
  const REDACTED = 'ws://***@h.test:8080/x?token=***&room=***';

  it('human lines show URLs redacted: events, info, problems, the status line', () => {
    const t = output();
    t.o.event('connecting', `connecting to ${URL_WITH_SECRETS} (attempt 1)`, {});
    t.o.event('error', `ERR_X: could not reach ${URL_WITH_SECRETS}`, {}, true);
    t.o.info(`url ${URL_WITH_SECRETS}`);
    t.o.problem(`bad ${URL_WITH_SECRETS}`);
    const prompts: string[] = [];
    t.o.attach({ setPrompt: (p: string) => prompts.push(p), prompt: () => undefined } as unknown as Interface);
    t.o.state(`[at ${URL_WITH_SECRETS} ] `);
    t.o.attach(undefined);
    for (const text of [t.err, ...prompts]) {
      expect(text).not.toMatch(/S3CR3T|T0K3N/);
    }
    expect(t.err).toContain(`* connecting to ${REDACTED} (attempt 1)`);
    expect(t.err).toContain(`! ERR_X: could not reach ${REDACTED}`);
    expect(t.err).toContain(`url ${REDACTED}`);
    expect(t.err).toContain(`resilient-socket: bad ${REDACTED}`);
    expect(prompts).toEqual([`[at ${REDACTED} ] `]);
  });

  it('--json: event fields are redacted; message data is not', () => {
    const t = output({ json: true });
    t.o.event('connecting', 'x', { attempt: 1, url: URL_WITH_SECRETS });
    t.o.event('error', 'x', { code: 'ERR_X', message: `at ${URL_WITH_SECRETS}` });
    t.o.state('[x] ', { previous: 'connecting', current: 'reconnecting', reason: `at ${URL_WITH_SECRETS}` });
    t.o.problem(`bad ${URL_WITH_SECRETS}`);
    expect(t.records().map(({ time: _, ...rest }) => rest)).toEqual([
      { event: 'connecting', attempt: 1, url: REDACTED },
      { event: 'error', code: 'ERR_X', message: `at ${REDACTED}` },
      { event: 'state', previous: 'connecting', current: 'reconnecting', reason: `at ${REDACTED}` },
      { event: 'fatal', message: `bad ${REDACTED}` },
    ]);
    // What the user sends and receives is data, passed on whole.
    const data = output({ json: true });
    data.o.message(URL_WITH_SECRETS);
    data.o.sent(URL_WITH_SECRETS, 'sent', 0);
    data.o.event('drop', 'x', { reason: 'closed', messages: [{ text: URL_WITH_SECRETS }] });
    expect(data.records().map(({ time: _, ...rest }) => rest)).toEqual([
      { event: 'message', text: URL_WITH_SECRETS },
      { event: 'send', text: URL_WITH_SECRETS, result: 'sent', buffered: 0 },
      { event: 'drop', reason: 'closed', messages: [{ text: URL_WITH_SECRETS }] },
    ]);
  });
});
