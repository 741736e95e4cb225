import { afterEach, describe, expect, it } from 'vitest';
import { truncatedBinaryExponential, truncatedWindow } from '../../src/backoff/index.js';
import { ResilientSocket } from '../../src/node.js';
import { TestWsServer } from '../faults/index.js';
import { closeAndExpectGone, SocketRecorder } from '../helpers/socket-recorder.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

// A server that accepts every connection and closes it at once (1011). Each connection opens, so
// a client that reset its backoff on open would hammer it; `stableAfter` must prevent that.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const MAX_DELAY = 400;
const CEILING = 4;
/** The top of each window: 50, 100, 200, 400, 400, … ms. */
const windowAfter = (failure: number) => truncatedWindow(MAX_DELAY, CEILING, failure);

describe('a server that accepts and closes at once', () => {
  it('is retried on the backoff windows (50, 100, 200, 400, 400 ms), never in a tight loop, never stable', async () => {
    const server = cleanup.add(new TestWsServer({ kind: 'accept-then-close', code: 1011, reason: 'boom' }), (s) =>
      s.stop(),
    );
    await server.start();
    const socket = cleanup.add(
      new ResilientSocket(server.url, {
        stableAfter: 1_000,
        // The top of every window, so the schedule is deterministic.
        backoff: truncatedBinaryExponential({
          maxDelay: MAX_DELAY,
          ceiling: CEILING,
          random: () => 1 - Number.EPSILON,
        }),
        heartbeat: false,
      }),
      (s) => s.close(),
    );
    const rec = new SocketRecorder(socket);

    await waitFor(() => server.upgrades.length >= 1, 2_000, 'the first connection');
    const first = server.upgrades[0]?.at ?? 0;
    await sleep(1_500 - (performance.now() - first));
    const seen = server.upgrades.filter((u) => u.at - first <= 1_500).length;
    const delays = rec.reconnecting.map((r) => r.delay);
    const summary = { seen, delays, events: rec.summary().slice(0, 12) };

    // Connections at ≈ 0, 50, 150, 350, 750, 1150 ms; a tight loop would make hundreds.
    expect(seen, JSON.stringify(summary)).toBeGreaterThanOrEqual(4);
    expect(seen, JSON.stringify(summary)).toBeLessThanOrEqual(6);

    // The user sees the schedule: every `reconnecting` delay is the top of the next window.
    expect(delays.length).toBeGreaterThanOrEqual(seen - 1);
    delays.forEach((delay, i) => {
      expect(delay).toBeCloseTo(windowAfter(i + 1), 6);
    });
    expect(delays.slice(0, 5).map(Math.round)).toEqual([50, 100, 200, 400, 400].slice(0, delays.length));

    // …and the server sees it: the gap before connection i+1 is at least the announced delay.
    const ats = server.upgrades.map((u) => u.at);
    for (let i = 1; i < ats.length; i++) {
      const gap = (ats[i] ?? 0) - (ats[i - 1] ?? 0);
      expect(gap, `gap before connection ${i + 1}`).toBeGreaterThanOrEqual((delays[i - 1] ?? 0) - 2);
      expect(gap, `gap before connection ${i + 1}`).toBeLessThan((delays[i - 1] ?? 0) + 250);
    }

    // Every connection opened and was closed by the server with 1011; never stable.
    expect(rec.count('stable')).toBe(0);
    expect(rec.opens.length).toBeGreaterThanOrEqual(seen - 1);
    expect(rec.opens[0]).toEqual({ attempt: 1, reconnected: false });
    expect(rec.opens.slice(1).every((o) => o.reconnected)).toBe(true);
    for (const close of rec.closes) {
      expect(close).toEqual({ code: 1011, reason: 'boom', wasClean: true, willReconnect: true });
    }
    expect(socket.attempt).toBeGreaterThanOrEqual(seen - 1);
    expect(rec.errors).toEqual([]);
    expect(rec.giveups).toEqual([]);

    await closeAndExpectGone(socket, server);
    const connections = server.connections;
    await sleep(MAX_DELAY + 100);
    expect(server.connections, 'no attempt after close()').toBe(connections);
  });
});
