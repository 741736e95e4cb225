import { describe, expect, it } from 'vitest';
import { CORE_DEFAULTS } from '../../src/core/options.js';
import { ACCEPT, ECHO, type TestWsServer } from '../faults/index.js';
import { type CliRun, controlsIn } from '../helpers/cli-io.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { FAST, useCli } from './cli-harness.js';

// The CLI in process (./cli-harness.ts): what it writes: nothing the server sends can drive the
// terminal, no secret of the URL shows, and the status line and the event lines count attempts alike.

const { cli, server, deadServer } = useCli();

describe('nothing the server sends can drive the terminal', () => {
  // An OSC 52 clipboard write (ESC ] 52 ; c ; base64 BEL), clear screen, a carriage return that
  // would let the rest overwrite the line, and the one-byte C1 CSI (U+009B).
  const MESSAGE = 'a\u001b]52;c;cm0gLXJmIH4=\u0007b\u001b[2Jc\rd\u009b31me\nsecond\tline';
  const MESSAGE_ON_TTY = `${String.raw`a\x1b]52;c;cm0gLXJmIH4=\x07b\x1b[2Jc\rd\x9b31me`}\nsecond\tline`;
  const REASON = 'bye\u001b]52;c;cm0=\u0007\u001b[2J\r\u009b31m';
  const REASON_SHOWN = String.raw`bye\x1b]52;c;cm0=\x07\x1b[2J\r\x9b31m`;

  /** Runs the CLI, has the server send MESSAGE then close with 1008 REASON; resolves once it exits 1. */
  async function hostileRun(argv: readonly string[], stdoutTty: boolean): Promise<CliRun> {
    const s = await server(ACCEPT);
    const run = cli([s.url, ...argv], { stdoutTty });
    await waitFor(() => s.openClients === 1, 2_000, 'the client connected');
    s.clients[0]?.send(MESSAGE);
    await run.proc.waitForOutput('second', 2_000, 'stdout');
    await s.closeAll(1008, REASON);
    expect(await run.exit()).toBe(1);
    return run;
  }

  it('stdout a terminal: the message shows its controls as escapes (lines and tabs kept); so do the close reason and the give-up line', async () => {
    const { proc } = await hostileRun([], true);
    expect(proc.stdout).toBe(`${MESSAGE_ON_TTY}\n`);
    expect(controlsIn(proc.stdout, '\n\t')).toEqual([]);
    expect(controlsIn(proc.stderr, '\n')).toEqual([]);
    expect(proc.stderr).toContain(`* connection closed (1008 ${REASON_SHOWN}), not retrying\n`);
    const giveUp = proc.stderr.split('\n').find((line) => line.startsWith('! gave up after 1 attempt(s): '));
    expect(giveUp).toContain(REASON_SHOWN);
  });

  it('stdout a pipe: the message is written unchanged; stderr is still escaped', async () => {
    const { proc } = await hostileRun([], false);
    expect(proc.stdout).toBe(`${MESSAGE}\n`);
    expect(controlsIn(proc.stderr, '\n')).toEqual([]);
    expect(proc.stderr).toContain(`(1008 ${REASON_SHOWN})`);
  });

  it('--json: no raw control character on stdout, and the records carry the message and the reason exactly', async () => {
    const { proc } = await hostileRun(['--json'], true);
    expect(proc.stderr).toBe('');
    expect(controlsIn(proc.stdout, '\n')).toEqual([]);
    const records = proc.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.find((r) => r.event === 'message')).toMatchObject({ text: MESSAGE });
    expect(records.find((r) => r.event === 'close')).toMatchObject({ code: 1008, reason: REASON });
  });

  it('interactive: the status line, event lines and /stats are escaped too', async () => {
    const s = await server(ACCEPT);
    const run = cli([s.url], { tty: true, stdoutTty: true });
    await run.proc.waitForOutput('* connected');
    s.clients[0]?.send(MESSAGE);
    await run.proc.waitForOutput('second', 2_000, 'stdout');
    run.proc.stdin.write('/stats\n');
    await run.proc.waitForOutput('"messagesIn":1');
    await s.closeAll(1008, REASON);
    expect(await run.exit()).toBe(1);
    // The CLI's own prompt handling (\r and ESC [2K, from readline and from Output) is allowed;
    // nothing else that could drive the terminal is.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing the prompt's own controls is the point
    const own = run.proc.stderr.replace(/\r|\u001b\[\d*[GJK]/g, '');
    expect(controlsIn(own, '\n')).toEqual([]);
    expect(run.proc.stderr).toContain(REASON_SHOWN);
    expect(run.proc.stdout).toBe(`${MESSAGE_ON_TTY}\n`);
  });
});

describe('no secret from the URL in any output', () => {
  const SECRETS = /S3CR3T|T0K3N/;
  const withSecrets = (s: TestWsServer) => `ws://user:S3CR3T@127.0.0.1:${s.port}/x?token=T0K3N`;
  const redacted = (s: TestWsServer) => `ws://***@127.0.0.1:${s.port}/x?token=***`;
  const MODES: [string, string[]][] = [
    ['human', []],
    ['--json', ['--json']],
  ];

  /** The connection really was made with the full URL: the server saw the token and the userinfo. */
  function expectFullUrlUsed(s: TestWsServer): void {
    expect(s.upgrades.length).toBeGreaterThan(0);
    for (const upgrade of s.upgrades) {
      expect(upgrade.url).toBe('/x?token=T0K3N');
      expect(upgrade.headers.authorization).toBe(`Basic ${Buffer.from('user:S3CR3T').toString('base64')}`);
    }
  }

  function expectNoSecret(run: CliRun): void {
    expect(run.proc.stdout, 'stdout').not.toMatch(SECRETS);
    expect(run.proc.stderr, 'stderr').not.toMatch(SECRETS);
  }

  it.each(MODES)('%s: a successful run', async (mode, flags) => {
    const s = await server(ECHO);
    const run = cli([withSecrets(s), ...flags, '-s', 'hi']);
    expect(await run.exit()).toBe(0);
    expectFullUrlUsed(s);
    expectNoSecret(run);
    if (mode === 'human') expect(run.proc.stderr).toContain(`* connecting to ${redacted(s)} (attempt 1)`);
    else expect(run.proc.stdout).toContain(`"url":${JSON.stringify(redacted(s))}`);
  });

  it.each(MODES)('%s: an upgrade refused with 401, twice, then giving up', async (_mode, flags) => {
    const s = await server({ kind: 'refuse', status: 401 });
    const run = cli([withSecrets(s), ...flags, '-s', 'x']);
    expect(await run.exit()).toBe(1);
    expectFullUrlUsed(s);
    expect(s.upgrades).toHaveLength(2);
    expectNoSecret(run);
  });

  it.each(MODES)('%s: connection refused (nothing listens), --max-retries 1', async (_mode, flags) => {
    const s = await deadServer();
    const run = cli([withSecrets(s), ...flags, ...FAST, '--max-retries', '1']);
    expect(await run.exit()).toBe(1);
    expectNoSecret(run);
    expect(run.proc.stdout + run.proc.stderr).toContain(redacted(s));
  });

  it('interactive: the status line and every event line, through a refused upgrade', async () => {
    const s = await server({ kind: 'refuse', status: 403 });
    const run = cli([withSecrets(s), ...FAST], { tty: true });
    expect(await run.exit()).toBe(1);
    expectFullUrlUsed(s);
    expectNoSecret(run);
    expect(run.proc.stderr).toContain(redacted(s));
  });

  it.each([
    ['a URL that is not ws(s)://', (port: number) => [`http://user:S3CR3T@127.0.0.1:${port}/x?token=T0K3N`]],
    ['two URLs', (port: number) => [`ws://user:S3CR3T@127.0.0.1:${port}/?token=T0K3N`, 'ws://127.0.0.1:9/']],
    ['--demo with a URL', (port: number) => ['--demo', `ws://user:S3CR3T@127.0.0.1:${port}/?token=T0K3N`]],
  ])('a usage error: %s (human and --json)', async (_name, argv) => {
    for (const flags of [[], ['--json']]) {
      const run = cli([...argv(9), ...flags]);
      expect(await run.exit()).toBe(2);
      expectNoSecret(run);
      expect(run.proc.stderr).toContain('***');
    }
  });
});

describe('the status line and the event lines count attempts alike', () => {
  // `* attempt N in …` comes from the `reconnecting` event; the status line from `socket.attempt`.
  // They must show the same N, and so must `* connecting to … (attempt N)` and `[connecting ·
  // attempt N]`. A long constant wait keeps the run in one reconnecting phase while we look.
  const SLOW = ['--strategy', 'constant', '--base-delay', '5000'];

  /** Numbers shown by `pattern` (one capture group) in `text`. */
  const numbers = (text: string, pattern: RegExp): number[] =>
    [...text.matchAll(new RegExp(pattern, 'g'))].map((m) => Number(m[1]));

  /**
   * Waits for the reconnecting log line after `from` (an offset in stderr) and a redraw of the
   * status line after it, then checks that every number agrees.
   */
  async function expectSameAttempt(run: CliRun, from: number): Promise<void> {
    const since = () => run.proc.stderr.slice(from);
    await waitFor(() => /\* attempt \d+ in /.test(since()), 3_000, 'the reconnecting line', {
      describe: () => since(),
    });
    const logAt = since().search(/\* attempt \d+ in /);
    // The status line is redrawn every 200 ms while waiting: wait for one redraw after the log line.
    await waitFor(() => /\[reconnecting · attempt \d+ in /.test(since().slice(logAt)), 2_000, 'a redraw', {
      describe: () => since(),
    });
    const logged = numbers(since(), /\* attempt (\d+) in /);
    const shown = numbers(since(), /\[reconnecting · attempt (\d+) in /);
    expect(logged).toHaveLength(1);
    expect(shown.length).toBeGreaterThan(0);
    expect(new Set(shown), `status lines ${JSON.stringify(since())}`).toEqual(new Set(logged));
  }

  it('a failed first attempt (nothing listens): both say attempt 2, and attempt 1 before', async () => {
    const s = await deadServer();
    const run = cli([s.url, ...SLOW], { tty: true });
    await expectSameAttempt(run, 0);
    const before = run.proc.stderr.slice(0, run.proc.stderr.search(/\* attempt \d+ in /));
    expect(numbers(before, /\(attempt (\d+)\)/)).toEqual([1]);
    expect(new Set(numbers(before, /\[connecting · attempt (\d+)\]/))).toEqual(new Set([1]));
    expect(numbers(run.proc.stderr, /\* attempt (\d+) in /)).toEqual([2]);
    run.proc.interrupt();
    expect(await run.exit()).toBe(130);
  });

  it('a drop of an open connection, before it was stable', async () => {
    const s = await server(ECHO);
    const run = cli([s.url, ...SLOW], { tty: true });
    await run.proc.waitForOutput('* connected');
    const from = run.proc.stderr.length;
    await s.stop();
    await expectSameAttempt(run, from);
    run.proc.interrupt();
    expect(await run.exit()).toBe(130);
  });

  it('a drop of an open connection that was stable (backoff reset)', async () => {
    const s = await server(ECHO);
    const run = cli([s.url, ...SLOW], { tty: true });
    await run.proc.waitForOutput('* connected');
    // The CLI keeps the socket's default stableAfter; no event it prints says "stable".
    await sleep(CORE_DEFAULTS.stableAfter + 300);
    const from = run.proc.stderr.length;
    await s.stop();
    await expectSameAttempt(run, from);
    expect(numbers(run.proc.stderr.slice(from), /\* attempt (\d+) in /)).toEqual([1]);
    run.proc.interrupt();
    expect(await run.exit()).toBe(130);
  });
});
