import { describe, expect, it } from 'vitest';
import { USAGE } from '../../src/cli/args.js';
import { ECHO } from '../faults/index.js';
import { waitFor } from '../helpers/wait.js';
import { FAST, useCli } from './cli-harness.js';

// The CLI in process (./cli-harness.ts): its command line: mistakes, help and version; headers and
// subprotocols reaching the server; the connection flags reaching the socket.

const { cli, server } = useCli();

describe('command line mistakes, help and version', () => {
  it('--help: exit 0, the usage on stdout', async () => {
    const run = cli(['--help']);
    expect(await run.exit()).toBe(0);
    expect(run.proc.stdout).toBe(USAGE);
    expect(run.proc.stderr).toBe('');
  });

  it('--version: exit 0, one line on stdout', async () => {
    const run = cli(['--version']);
    expect(await run.exit()).toBe(0);
    expect(run.proc.stdout).toMatch(/^\S+\n$/);
  });

  it.each([
    ['an http:// URL', ['http://127.0.0.1:9/'], 'Expected a ws:// or wss:// URL, got "http://127.0.0.1:9/"'],
    ['not a URL', ['nonsense'], 'got "nonsense"'],
    ['no URL', [], 'Expected a ws:// or wss:// URL'],
    ['two URLs', ['ws://127.0.0.1:9/', 'ws://127.0.0.1:10/'], 'Expected one URL, got 2'],
    ['an unknown flag', ['ws://127.0.0.1:9/', '--bogus'], 'Unknown flag `--bogus`'],
    ['a bad value', ['ws://127.0.0.1:9/', '--count', '0'], '`--count`'],
  ])('%s: exit 2, the problem and a pointer to --help on stderr, nothing on stdout', async (_name, argv, text) => {
    const run = cli(argv);
    expect(await run.exit()).toBe(2);
    expect(run.proc.stderr.startsWith('resilient-socket: ')).toBe(true);
    expect(run.proc.stderr).toContain(text);
    expect(run.proc.stderr).toContain('Run `resilient-socket --help` for usage.');
    expect(run.proc.stdout).toBe('');
  });

  it('a backoff combination the policy rejects: exit 2 naming the flags, before any connection', async () => {
    const s = await server();
    const run = cli([s.url, '--strategy', 'full', '--base-delay', '500', '--max-delay', '100']);
    expect(await run.exit()).toBe(2);
    expect(run.proc.stderr).toContain('Expected `--max-delay` to be >= `--base-delay` (500), got 100');
    expect(s.upgrades).toHaveLength(0);
    expect(run.proc.interruptHandlers).toBe(0);
  });

  it.each([
    [['--ceiling', '30000'], 'Expected `--ceiling` to be at most 14 with `--max-delay` 10000'],
    [
      ['--strategy', 'phased', '--max-delay', '100', '--ceiling', '8'],
      'Expected `--ceiling` to be at most 7 with `--max-delay` 100',
    ],
  ])(
    '%j: a first retry window under 1 ms is a usage error (exit 2) naming the flags, before any connection',
    async (flags, text) => {
      const s = await server();
      const run = cli([s.url, ...flags]);
      expect(await run.exit()).toBe(2);
      expect(run.proc.stderr).toContain(text);
      expect(run.proc.stderr).toContain('must be at least 1 ms');
      expect(run.proc.stderr).not.toContain('attempt');
      expect(s.upgrades).toHaveLength(0);
    },
  );

  // The usage errors found while building the session (backoff combinations such as --base-delay
  // above --max-delay) end with the same pointer to --help as every parseCli error.
  it('a backoff combination the policy rejects also points to --help', async () => {
    const run = cli(['ws://127.0.0.1:9/', '--strategy', 'full', '--base-delay', '500', '--max-delay', '100']);
    expect(await run.exit()).toBe(2);
    expect(run.proc.stderr).toContain('resilient-socket --help');
  });

  it('-H without the ws package: exit 2 saying what to install', async () => {
    const s = await server();
    const run = cli([s.url, '-H', 'X-Token: abc', '-s', 'x'], { loadWs: () => undefined });
    expect(await run.exit()).toBe(2);
    expect(run.proc.stderr).toMatch(/`--header` needs the ws package: npm install ws/);
    expect(s.upgrades).toHaveLength(0);
    expect(run.proc.interruptHandlers).toBe(0);
  });
});

describe('headers and subprotocols', () => {
  it('-H headers reach the server with the upgrade request', async () => {
    const s = await server(ECHO);
    const run = cli([s.urlFor('/feed?x=1'), '-H', 'X-Token: abc', '-H', 'X-Trace:  t-1 ', '-s', 'hi']);
    expect(await run.exit()).toBe(0);
    expect(s.upgrades).toHaveLength(1);
    expect(s.upgrades[0]?.url).toBe('/feed?x=1');
    expect(s.upgrades[0]?.headers['x-token']).toBe('abc');
    expect(s.upgrades[0]?.headers['x-trace']).toBe('t-1');
  });

  it('-p protocols are offered in the Sec-WebSocket-Protocol header', async () => {
    const s = await server(ECHO);
    const one = cli([s.url, '-p', 'chat', '-s', 'hi']);
    expect(await one.exit()).toBe(0);
    expect(s.upgrades[0]?.headers['sec-websocket-protocol']).toBe('chat');
    const two = cli([s.url, '-p', 'chat', '-p', 'v2.json', '-s', 'hi']);
    expect(await two.exit()).toBe(0);
    expect(s.upgrades[1]?.headers['sec-websocket-protocol']?.split(/, */)).toEqual(['chat', 'v2.json']);
  });
});

describe('connection flags reach the socket', () => {
  it('--heartbeat 100 pings the server; an unanswered ping is a dead link and the client reconnects', async () => {
    const s = await server({ kind: 'accept', answerPings: false });
    const run = cli([s.url, '--heartbeat', '100', ...FAST]);
    await run.proc.waitForOutput('ERR_RS_DEAD_LINK', 3_000);
    await waitFor(() => s.connections >= 2, 3_000, 'a second connection after the dead link');
    expect(s.pings).toBeGreaterThan(0);
    run.proc.interrupt();
    expect(await run.exit()).toBe(130);
  });

  it('--no-heartbeat sends no ping', async () => {
    const s = await server(ECHO);
    const run = cli([s.url, '--no-heartbeat', '--wait', '300', '-s', 'x']);
    expect(await run.exit()).toBe(0);
    expect(s.pings).toBe(0);
  });

  it('--connect-timeout 200 against a stalled handshake, --max-retries 0: one attempt, exit 1', async () => {
    const s = await server({ kind: 'stall' });
    const started = performance.now();
    const run = cli([s.url, '--connect-timeout', '200', '--max-retries', '0']);
    expect(await run.exit(3_000)).toBe(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(s.upgrades).toHaveLength(1);
    expect(run.proc.stderr).toMatch(/! gave up after 1 attempt\(s\)/);
  });
});
