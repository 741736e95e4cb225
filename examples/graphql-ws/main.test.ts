/**
 * Runs the graphql-ws example end to end (a real server and client on 127.0.0.1) and checks what it
 * reports: queries and ticks on both sides of the outage, waits drawn from the policy, and one
 * server connection for the one client. Run it with `npx vitest run --project examples examples/graphql-ws/main.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { runGraphqlExample } from './main.js';

describe('examples/graphql-ws', () => {
  it('recovers from an outage with waits drawn from the policy, over one connection', async () => {
    const lines: string[] = [];
    // random 0.5: each wait is half its window (62.5, 125, 250, then 500 ms); 62.5 + 125 + 250 < 600.
    const result = await runGraphqlExample({ log: (line) => lines.push(line), outageMs: 600, random: () => 0.5 });

    expect(result.queries).toEqual([{ hello: 'world' }, { hello: 'world' }]);
    expect(result.ticksBefore).toHaveLength(3);
    expect(result.ticksAfter).toHaveLength(3);
    // Consecutive on each side; the ticks published while the client was away never arrive.
    for (const ticks of [result.ticksBefore, result.ticksAfter]) {
      expect(ticks).toEqual(ticks.map((_, i) => (ticks[0] as number) + i));
    }
    expect(result.ticksAfter[0]).toBeGreaterThan((result.ticksBefore[2] as number) + 1);

    const windows = [125, 250, 500, 1_000, 1_000, 1_000];
    expect(result.waits.length).toBeGreaterThanOrEqual(4);
    expect(result.waits).toEqual(
      result.waits.map((_, i) => ({ delay: (windows[i] as number) / 2, window: windows[i] })),
    );
    expect(result.resets).toBe(1);

    expect(result.samePort).toBe(true);
    expect(result.connectionsAtEnd).toBe(1);
    expect(result.acceptedTotal).toBe(2);

    // The timeline a user sees.
    const text = lines.join('\n');
    expect(text).toMatch(/server {2}listening on ws:\/\/127\.0\.0\.1:\d+\/graphql/);
    expect(text).toContain('backoff wait 63 ms (drawn from [0, 125) ms)');
    expect(text).toContain('client  reconnected');
    expect(text).toContain('the server holds 1 connection(s) for 1 client (2 accepted in all)');
    expect(lines.filter((line) => line.includes('backoff'))).toHaveLength(result.waits.length);
  });
});
