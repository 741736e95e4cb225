/**
 * The CLI in process, for the integration tests: `main(argv, io)` with PassThrough stdio
 * (stdin.isTTY false unless a test says otherwise) and a Ctrl-C the test calls, against a real ws
 * server on 127.0.0.1. `useCli()` registers the hooks of one test file: after each test, every run
 * is checked for leftovers, a run still going is stopped, and the servers are stopped.
 */
import { afterEach, expect } from 'vitest';
import { type BehaviourSetting, ECHO, TestWsServer } from '../faults/index.js';
import { type CliRun, startCli } from '../helpers/cli-io.js';
import { activeTimeouts } from '../helpers/timers.js';
import { Cleanup, waitFor } from '../helpers/wait.js';

/** Fast retries: a constant 50 ms between attempts. */
export const FAST = ['--strategy', 'constant', '--base-delay', '50'];

export interface CliHarness {
  /** `main(argv, io)` on a fake process, checked for leftovers after the test. */
  cli(argv: readonly string[], options?: Parameters<typeof startCli>[1]): CliRun;
  /** A ws server on 127.0.0.1, stopped after the test. */
  server(behaviour?: BehaviourSetting): Promise<TestWsServer>;
  /** A server that was started and stopped: its port refuses connections (nothing listens there). */
  deadServer(): Promise<TestWsServer>;
}

export function useCli(): CliHarness {
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

  function cli(argv: readonly string[], options?: Parameters<typeof startCli>[1]): CliRun {
    const run = startCli(argv, options);
    runs.push(run);
    return run;
  }

  async function server(behaviour: BehaviourSetting = ECHO): Promise<TestWsServer> {
    return cleanup.add(await TestWsServer.start(behaviour), (s) => s.stop());
  }

  async function deadServer(): Promise<TestWsServer> {
    const s = await server();
    await s.stop();
    return s;
  }

  return { cli, server, deadServer };
}

/**
 * What every run must leave behind: nothing. No Ctrl-C handler still registered, no listener
 * left on stdin, no connection the server still sees open, and no live timer above `timers`.
 */
export async function expectNothingLeft(run: CliRun, s: TestWsServer | undefined, timers: number): Promise<void> {
  expectNoHandlerLeft(run);
  if (s) await waitFor(() => s.openClients === 0, 2_000, 'the server sees no client connection');
  await waitFor(() => activeTimeouts() <= timers, 2_000, 'no timer left', {
    describe: () => ({ active: activeTimeouts(), baseline: timers }),
  });
}

export function expectNoHandlerLeft(run: CliRun): void {
  expect(run.proc.interruptHandlers, 'Ctrl-C handlers left').toBe(0);
  // In terminal mode, node:readline's emitKeypressEvents() leaves its own decoder ('data' or
  // 'newListener') on the stream for good; that is Node's, not the CLI's.
  const allowed = run.proc.stdin.isTTY ? ['data', 'newListener'] : [];
  expect(
    run.proc.stdinLeftovers().filter((name) => !allowed.includes(String(name))),
    'stdin listeners left',
  ).toEqual([]);
}
