import { describe, expect, it } from 'vitest';
import { Output } from '../../src/cli/output.js';
import { fakeProcess } from '../helpers/cli-io.js';

function output(options: { json?: boolean; quiet?: boolean } = {}) {
  const proc = fakeProcess();
  const o = new Output(proc.io, { json: false, quiet: false, ...options });
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
