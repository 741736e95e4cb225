import { describe, expect, it } from 'vitest';
import { ECHO } from '../faults/index.js';
import { timerBaseline } from '../helpers/timers.js';
import { waitFor } from '../helpers/wait.js';
import { expectNothingLeft, FAST, useCli } from './cli-harness.js';

// The CLI in process (./cli-harness.ts) reading its input: piped lines, and a terminal (interactive
// commands, the status line, Ctrl-C).

const { cli, server, deadServer } = useCli();

describe('piped input', () => {
  it('sends every line in order; exits 0 once the input has ended and all was written', async () => {
    const s = await server(ECHO);
    const timers = await timerBaseline();
    const run = cli([s.url]);
    run.proc.stdin.write('one\ntwo\n');
    run.proc.stdin.write('three\nfour');
    run.proc.stdin.end('\n');
    expect(await run.exit()).toBe(0);
    expect(s.received).toEqual(['one', 'two', 'three', 'four']);
    expect(run.proc.stdout).toBe('one\ntwo\nthree\nfour\n');
    await expectNothingLeft(run, s, timers);
  });

  it('-q: a clean run writes nothing on stderr', async () => {
    const s = await server(ECHO);
    const run = cli([s.url, '-q']);
    run.proc.stdin.end('a\nb\n');
    expect(await run.exit()).toBe(0);
    expect(run.proc.stderr).toBe('');
    expect(run.proc.stdout).toBe('a\nb\n');
  });

  it('a server restart: lines sent while it is down are buffered, then delivered in order; exit 0', async () => {
    const s = await server(ECHO);
    const timers = await timerBaseline();
    const run = cli([s.url, ...FAST]);
    const { proc } = run;
    await proc.waitForOutput('* connected');
    proc.stdin.write('before\n');
    await waitFor(() => s.received.length === 1, 2_000, '"before" at the server');
    await s.stop();
    await proc.waitForOutput('* connection closed (1006)');
    proc.stdin.write('during-1\nduring-2\n');
    proc.stdin.end('during-3\n');
    await proc.waitForOutput('* buffered "during-3" (3 waiting)');
    await s.start();
    expect(await run.exit()).toBe(0);
    expect(s.received).toEqual(['before', 'during-1', 'during-2', 'during-3']);
    expect(proc.stderr).toMatch(/\* reconnected \(attempt \d+\)/);
    expect(proc.stdoutLines()).toEqual(['before', 'during-1', 'during-2', 'during-3']);
    await expectNothingLeft(run, s, timers);
  });

  it('Ctrl-C with messages still buffered (server down for good): exit 130, each dropped message listed', async () => {
    const s = await deadServer();
    const timers = await timerBaseline();
    const run = cli([s.url, ...FAST]);
    run.proc.stdin.end('x\ny\n');
    await run.proc.waitForOutput('* buffered "y" (2 waiting)');
    await run.proc.waitForOutput('attempt 2 in 50 ms');
    expect(run.proc.interruptHandlers).toBe(1);
    run.proc.interrupt();
    expect(await run.exit()).toBe(130);
    expect(run.proc.stderr).toContain('! dropped 2 message(s) (closed): "x", "y"');
    expect(run.proc.stderr).toContain('* interrupted; exit code 130');
    await expectNothingLeft(run, s, timers);
  });

  it('--json: a drop is a record with the messages', async () => {
    const s = await deadServer();
    const run = cli([s.url, ...FAST, '--json']);
    run.proc.stdin.end('x\n');
    await run.proc.waitForOutput('"event":"reconnecting"', 5_000, 'stdout');
    run.proc.interrupt();
    expect(await run.exit()).toBe(130);
    const records = run.proc.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.find((r) => r.event === 'drop')).toMatchObject({ reason: 'closed', messages: [{ text: 'x' }] });
    expect(records.at(-1)).toMatchObject({ event: 'exit', code: 130 });
  });

  // Exit code 3 needs a drop on a run that otherwise ends well (code 0). In pipe mode the one way
  // is the outbound buffer overflowing (10,000 messages) during an outage: the oldest is dropped.
  it('more than 10,000 lines while down: the oldest is dropped and reported, the rest delivered; exit 3', async () => {
    const s = await deadServer();
    const run = cli([s.url, ...FAST, '-q']);
    const lines = Array.from({ length: 10_001 }, (_, i) => `m${i}`);
    run.proc.stdin.end(`${lines.join('\n')}\n`);
    await run.proc.waitForOutput('! dropped 1 message(s) (overflow): "m0"');
    await s.start();
    expect(await run.exit(10_000)).toBe(3);
    expect(s.received).toHaveLength(10_000);
    expect(s.received[0]).toBe('m1');
    expect(s.received.at(-1)).toBe('m10000');
    expect(run.proc.stdoutLines()).toHaveLength(10_000);
  });
});

describe('interactive (stdin is a terminal)', () => {
  it('typed lines are sent, //x sends "/x", /stats and /help answer, /quit exits 0', async () => {
    const s = await server(ECHO);
    const timers = await timerBaseline();
    const run = cli([s.url], { tty: true });
    const { proc } = run;
    await proc.waitForOutput('* connected');
    expect(proc.stderr).toContain('[open] ');
    proc.stdin.write('hello\n');
    proc.stdin.write('//slash\n');
    await waitFor(() => s.received.length === 2, 2_000, 'two messages at the server');
    proc.stdin.write('/stats\n');
    await proc.waitForOutput('"messagesOut":2');
    proc.stdin.write('/help\n');
    await proc.waitForOutput('/quit, /reconnect, /stats, /help');
    proc.stdin.write('/nope\n');
    await proc.waitForOutput('unknown command /nope');
    proc.stdin.write('/quit\n');
    expect(await run.exit()).toBe(0);
    expect(s.received).toEqual(['hello', '/slash']);
    expect(proc.stdout).toBe('hello\n/slash\n');
    expect(proc.stderr).toContain('quit; exit code 0');
    await expectNothingLeft(run, s, timers);
  });

  it('/reconnect opens a new connection', async () => {
    const s = await server(ECHO);
    const run = cli([s.url, ...FAST], { tty: true });
    await run.proc.waitForOutput('* connected');
    run.proc.stdin.write('/reconnect\n');
    await run.proc.waitForOutput('* reconnected');
    expect(s.connections).toBe(2);
    run.proc.stdin.write('/quit\n');
    expect(await run.exit()).toBe(0);
  });

  it('the status line counts down to the next attempt and shows the buffered messages', async () => {
    const s = await deadServer();
    const run = cli([s.url, '--strategy', 'constant', '--base-delay', '1500'], { tty: true });
    await run.proc.waitForOutput(/\[reconnecting · attempt 2 in 1\.[0-5] s\] /);
    run.proc.stdin.write('queued\n');
    await run.proc.waitForOutput(/\[reconnecting · attempt 2 in [0-9.]+ (s|ms) · 1 buffered\] /);
    // The countdown is redrawn while waiting (every 200 ms), so it goes down.
    await run.proc.waitForOutput(/attempt 2 in [0-9]{1,3} ms · 1 buffered/, 3_000);
    run.proc.interrupt();
    expect(await run.exit()).toBe(130);
  });

  it('/quit while messages are still buffered: each is reported, exit 3', async () => {
    const s = await deadServer();
    const timers = await timerBaseline();
    const run = cli([s.url, ...FAST], { tty: true });
    const { proc } = run;
    await proc.waitForOutput('attempt 2 in 50 ms');
    proc.stdin.write('lost-1\nlost-2\n');
    await proc.waitForOutput('2 buffered]');
    proc.stdin.write('/quit\n');
    expect(await run.exit()).toBe(3);
    expect(proc.stderr).toContain('! dropped 2 message(s) (closed): "lost-1", "lost-2"');
    expect(proc.stderr).toContain('quit; exit code 3');
    await expectNothingLeft(run, s, timers);
  });

  it('Ctrl-C typed in the terminal: exit 130', async () => {
    const s = await server(ECHO);
    const run = cli([s.url], { tty: true });
    await run.proc.waitForOutput('* connected');
    run.proc.stdin.write('\u0003');
    expect(await run.exit()).toBe(130);
    expect(run.proc.stderr).toContain('interrupted; exit code 130');
  });
});
