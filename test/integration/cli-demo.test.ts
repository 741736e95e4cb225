import { createConnection } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type DemoSchedule, runDemo } from '../../src/cli/demo.js';
import { fakeProcess } from '../helpers/cli-io.js';
import { activeTimeouts, timerBaseline } from '../helpers/timers.js';
import { waitFor } from '../helpers/wait.js';

// The CLI's demo (`runDemo`) in process, with a fast schedule, on a fake process.

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

  // runDemo registers a Ctrl-C handler; a demo that runs to its end must remove it too, not only a
  // demo that Ctrl-C ends. With processIO a handler left behind is a SIGINT listener left on
  // `process` after main() returns.
  it('a demo that runs to its end removes its Ctrl-C handler', async () => {
    const proc = fakeProcess();
    const { code } = await runDemo({ clients: 1, schedule: { ...FAST_DEMO, end: 900 } }, proc.io);
    expect(code).toBe(0);
    expect(proc.interruptHandlers).toBe(0);
  });
});
