import { describe, expect, it } from 'vitest';
import { ACCEPT, ECHO } from '../faults/index.js';
import { timerBaseline } from '../helpers/timers.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { expectNothingLeft, FAST, useCli } from './cli-harness.js';

// The CLI in process (./cli-harness.ts): `--send` runs, `--timeout` and `--wait` (also longer than
// a timer can wait), and giving up (exit 1).

const { cli, server } = useCli();

describe('--send', () => {
  it('sends each message in order, prints the echoes (and only them) on stdout, exits 0', async () => {
    const s = await server(ECHO);
    const timers = await timerBaseline();
    const run = cli([s.url, '--send', 'a', '--send', 'b']);
    expect(await run.exit()).toBe(0);
    expect(s.received).toEqual(['a', 'b']);
    expect(run.proc.stdout).toBe('a\nb\n');
    expect(run.proc.stderr).toContain('* connected');
    expect(run.proc.stderr).toContain('exit code 0');
    await expectNothingLeft(run, s, timers);
  });

  it('--json: every stdout line is a JSON object with an event; send (buffered), open, message, exit', async () => {
    const s = await server(ECHO);
    const run = cli([s.url, '--json', '--send', 'hello']);
    expect(await run.exit()).toBe(0);
    expect(run.proc.stderr).toBe('');
    const records = run.proc.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const record of records) {
      expect(typeof record.event).toBe('string');
      expect(typeof record.time).toBe('number');
    }
    const events = records.map((r) => r.event);
    const first = (event: string) => records.find((r) => r.event === event);
    expect(first('send')).toMatchObject({ text: 'hello', result: 'buffered', buffered: 1 });
    expect(first('open')).toMatchObject({ attempt: 1, reconnected: false });
    expect(first('message')).toMatchObject({ text: 'hello' });
    expect(first('connecting')).toMatchObject({ attempt: 1, url: s.url });
    expect(events.indexOf('send')).toBeLessThan(events.indexOf('open'));
    expect(events.indexOf('open')).toBeLessThan(events.indexOf('message'));
    expect(events.at(-1)).toBe('exit');
    expect(records.at(-1)).toMatchObject({ code: 0, reason: 'input ended' });
    expect(events).toContain('state');
  });

  it('-n 2: exits 0 once two messages came back', async () => {
    const s = await server(ECHO);
    const run = cli([s.url, '-s', 'a', '-s', 'b', '-n', '2']);
    expect(await run.exit()).toBe(0);
    expect(run.proc.stdout).toBe('a\nb\n');
    expect(run.proc.stderr).toContain('received 2 message(s); exit code 0');
  });

  it('-n waits for the messages even after everything was sent', async () => {
    const s = await server(ACCEPT);
    const run = cli([s.url, '-s', 'ping', '-n', '1']);
    await waitFor(() => s.received.length === 1, 2_000, 'ping at the server');
    await new Promise((resolve) => setTimeout(resolve, 100));
    s.clients[0]?.send('pong');
    expect(await run.exit()).toBe(0);
    expect(run.proc.stdout).toBe('pong\n');
  });

  // -n N stops printing, not only reading, after N messages: what arrives during the closing
  // handshake that follows is not written to stdout either (`-n 1 | jq` gets exactly one).
  it('-n 2 prints exactly two messages even when the server sends more', async () => {
    const s = await server(ACCEPT);
    const run = cli([s.url, '-n', '2']);
    await waitFor(() => s.openClients === 1, 2_000, 'the client connected');
    s.flood(5, 12);
    expect(await run.exit()).toBe(0);
    expect(run.proc.stdoutLines()).toHaveLength(2);
  });

  it('--timeout 300 against a server that never answers: exit 4 after ~300 ms', async () => {
    const s = await server(ACCEPT);
    const timers = await timerBaseline();
    const started = performance.now();
    const run = cli([s.url, '-s', 'ping', '-n', '1', '--timeout', '300']);
    expect(await run.exit(3_000)).toBe(4);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2_000);
    expect(s.received).toEqual(['ping']);
    expect(run.proc.stderr).toContain('timed out after 300 ms; exit code 4');
    expect(run.proc.stdout).toBe('');
    await expectNothingLeft(run, s, timers);
  });

  it('--wait 400: keeps listening after the last send, prints what comes meanwhile', async () => {
    const s = await server(ACCEPT);
    const run = cli([s.url, '-s', 'a', '--wait', '400']);
    await waitFor(() => s.received.length === 1, 2_000, 'a at the server');
    s.clients[0]?.send('late reply');
    expect(await run.exit()).toBe(0);
    expect(run.proc.stdout).toBe('late reply\n');
  });
});

describe('--timeout and --wait longer than a timer can wait (2^31 − 1 ms)', () => {
  it('--timeout 99999999999 does not end the run at once: the echo comes, exit 0', async () => {
    const s = await server(ECHO);
    const run = cli([s.url, '-s', 'ping', '-n', '1', '--timeout', '99999999999']);
    expect(await run.exit(3_000)).toBe(0);
    expect(run.proc.stdout).toBe('ping\n');
    expect(run.proc.stderr).not.toContain('timed out');
  });

  it('--wait 99999999999 keeps listening after the last send until Ctrl-C', async () => {
    const s = await server(ECHO);
    const run = cli([s.url, '-s', 'ping', '--wait', '99999999999']);
    await run.proc.waitForOutput('ping', 3_000, 'stdout');
    await sleep(300);
    expect(run.ended).toBe(false);
    run.proc.interrupt();
    expect(await run.exit()).toBe(130);
  });
});

describe('giving up: exit 1', () => {
  it('refused with 503 and --max-retries 2: three attempts, then gives up saying so', async () => {
    const s = await server({ kind: 'refuse', status: 503 });
    const timers = await timerBaseline();
    const run = cli([s.url, '--max-retries', '2', ...FAST, '-s', 'x']);
    expect(await run.exit()).toBe(1);
    expect(s.upgrades).toHaveLength(3);
    expect(run.proc.stderr).toMatch(/! gave up after 3 attempt\(s\): Gave up after 3 consecutive failures/);
    expect(run.proc.stderr).toContain('! dropped 1 message(s) (closed): "x"');
    expect(run.proc.stderr).toContain('gave up; exit code 1');
    await expectNothingLeft(run, s, timers);
  });

  it('refused with 401 twice in a row', async () => {
    const s = await server({ kind: 'refuse', status: 401 });
    const run = cli([s.url, '-s', 'x']);
    expect(await run.exit()).toBe(1);
    expect(s.upgrades).toHaveLength(2);
    expect(run.proc.stderr).toMatch(/! gave up after 2 attempt\(s\): .*HTTP 401 twice in a row/);
    // Each refused attempt is told by its error line, not also as a closed connection.
    expect(run.proc.stderr).not.toContain('connection closed');
  });

  it('closed by the server for good (1008)', async () => {
    const s = await server({ kind: 'accept-then-close', code: 1008, reason: 'policy' });
    // Input left open: with `-s x` the run may end 0 first ("all sent") before the close frame comes.
    const run = cli([s.url]);
    expect(await run.exit()).toBe(1);
    expect(s.upgrades).toHaveLength(1);
    expect(run.proc.stderr).toContain('connection closed (1008 policy), not retrying');
    expect(run.proc.stderr).toMatch(/! gave up after 1 attempt\(s\)/);
  });
});
