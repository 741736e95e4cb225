import { createConnection } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { USAGE } from '../../src/cli/args.js';
import { type DemoSchedule, runDemo } from '../../src/cli/demo.js';
import { CORE_DEFAULTS } from '../../src/core/resolve.js';
import { ACCEPT, type BehaviourSetting, ECHO, TestWsServer } from '../faults/index.js';
import { type CliRun, controlsIn, fakeProcess, startCli } from '../helpers/cli-io.js';
import { activeTimeouts, timerBaseline } from '../helpers/timers.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

// The CLI in process: `main(argv, io)` with PassThrough stdio (stdin.isTTY false unless a test
// says otherwise) and a Ctrl-C the test calls, against a real ws server on 127.0.0.1.

const cleanup = new Cleanup();
const runs: CliRun[] = [];
afterEach(async () => {
  const all = runs.splice(0);
  try {
    // Every run, whatever the test checked: no Ctrl-C handler and no stdin listener left behind.
    for (const run of all) if (run.ended) expectNoHandlerLeft(run);
  } finally {
    // A test that failed half-way may leave a run going: stop it (Ctrl-C) before the next test.
    for (const run of all) {
      if (run.ended) continue;
      run.proc.interrupt();
      run.proc.stdin.end();
      await run.exit(3_000).catch(() => undefined);
    }
    await cleanup.run();
  }
});

/** `main(argv, io)` on a fake process, checked for leftovers after the test. */
function cli(argv: readonly string[], options?: Parameters<typeof startCli>[1]): CliRun {
  const run = startCli(argv, options);
  runs.push(run);
  return run;
}

/** Fast retries: a constant 50 ms between attempts. */
const FAST = ['--strategy', 'constant', '--base-delay', '50'];

async function server(behaviour: BehaviourSetting = ECHO): Promise<TestWsServer> {
  return cleanup.add(await TestWsServer.start(behaviour), (s) => s.stop());
}

/** A server that was started and stopped: its port refuses connections (nothing listens there). */
async function deadServer(): Promise<TestWsServer> {
  const s = await server();
  await s.stop();
  return s;
}

/**
 * What every run must leave behind: nothing. No Ctrl-C handler still registered, no listener
 * left on stdin, no connection the server still sees open, and no live timer above `timers`.
 */
async function expectNothingLeft(run: CliRun, s: TestWsServer | undefined, timers: number): Promise<void> {
  expectNoHandlerLeft(run);
  if (s) await waitFor(() => s.openClients === 0, 2_000, 'the server sees no client connection');
  await waitFor(() => activeTimeouts() <= timers, 2_000, 'no timer left', {
    describe: () => ({ active: activeTimeouts(), baseline: timers }),
  });
}

function expectNoHandlerLeft(run: CliRun): void {
  expect(run.proc.interruptHandlers, 'Ctrl-C handlers left').toBe(0);
  // In terminal mode, node:readline's emitKeypressEvents() leaves its own decoder ('data' or
  // 'newListener') on the stream for good; that is Node's, not the CLI's.
  const allowed = run.proc.stdin.isTTY ? ['data', 'newListener'] : [];
  expect(
    run.proc.stdinLeftovers().filter((name) => !allowed.includes(String(name))),
    'stdin listeners left',
  ).toEqual([]);
}

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

  // Regression, it was: -n N stops *reading* after N messages but not *printing*: the session closes the socket,
  // and everything that arrives during the closing handshake still goes to stdout (session.ts,
  // the 'message' listener does not check whether the run has ended). `-n 1 | jq` gets more than one.
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

describe('runDemo with a fast schedule', () => {
  const FAST_DEMO: DemoSchedule = {
    crashes: [300],
    restarts: [800],
    end: 1_500,
    sendEvery: 50,
    maxDelay: 400,
    ceiling: 4,
    stableAfter: 200,
  };

  /** The demo server's port, from the header line. */
  const portOf = (stdout: string): number => Number(/ws:\/\/127\.0\.0\.1:(\d+)\//.exec(stdout)?.[1]);

  /** Resolves true if something listens on 127.0.0.1:`port`. */
  const listening = (port: number): Promise<boolean> =>
    new Promise((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });

  it('every client connects twice, flushes all it buffered, drops nothing', async () => {
    const proc = fakeProcess();
    const timers = await timerBaseline();
    const { code, reports } = await runDemo({ clients: 2, schedule: FAST_DEMO }, proc.io);
    expect(code).toBe(0);
    expect(reports.map((r) => r.name)).toEqual(['A', 'B']);
    for (const r of reports) {
      expect(r.connects, r.name).toBe(2);
      expect(r.dropped, r.name).toBe(0);
      expect(r.buffered, r.name).toBeGreaterThan(0);
      expect(r.flushed, r.name).toBe(r.buffered);
      // It sent while connected too, not only while the server was down (how many depends on how
      // punctual the timers are on a loaded machine: about 30 at 50 ms over 1.5 s when idle).
      expect(r.sent, r.name).toBeGreaterThan(r.buffered);
      expect(r.echoed, r.name).toBeLessThanOrEqual(r.sent);
    }
    expect(proc.stdout).toContain('crashed (2 connections cut, listener closed)');
    expect(proc.stdout).toContain('back up');
    expect(proc.stdout).toContain('summary:');
    expect(await listening(portOf(proc.stdout))).toBe(false);
    await waitFor(() => activeTimeouts() <= timers, 2_000, 'no timer left');
  });

  it('interrupted after the crash: exit 130, summary printed, server stopped', async () => {
    const proc = fakeProcess();
    const demo = runDemo({ clients: 2, schedule: FAST_DEMO }, proc.io);
    await proc.waitForOutput('crashed', 3_000, 'stdout');
    proc.interrupt();
    const { code, reports } = await demo;
    expect(code).toBe(130);
    expect(reports).toHaveLength(2);
    expect(proc.stdout).toContain('interrupted: clients closed, server stopped');
    expect(proc.stdout).toContain('summary:');
    for (const r of reports) expect(r.connects).toBe(1);
    expect(proc.interruptHandlers).toBe(0);
    expect(await listening(portOf(proc.stdout))).toBe(false);
  });

  // Regression, it was: runDemo registers its Ctrl-C handler and removes it only when Ctrl-C comes; a demo that
  // runs to its end leaves the handler registered (demo.ts: `removeInterrupt` is called inside the
  // handler only). With processIO that is a SIGINT listener left on `process` after main() returns.
  it('a demo that runs to its end removes its Ctrl-C handler', async () => {
    const proc = fakeProcess();
    const { code } = await runDemo({ clients: 1, schedule: { ...FAST_DEMO, end: 900 } }, proc.io);
    expect(code).toBe(0);
    expect(proc.interruptHandlers).toBe(0);
  });
});
