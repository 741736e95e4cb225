/**
 * The y-websocket example, run as a function: both documents end up equal and hold what was
 * written during the outage, the restarted server rebuilt its copy from the clients, and each
 * provider held one connection before the outage and one after it (nothing else reached the server).
 */
import { describe, expect, it } from 'vitest';
import { runYjsExample } from './main.js';

describe('y-websocket example', () => {
  it('converges after an outage with one connection per provider', async () => {
    const lines: string[] = [];
    const result = await runYjsExample({ log: (line) => lines.push(line), outageMs: 800 });

    expect(result.alice).toEqual(result.bob);
    expect([...result.alice].sort()).toEqual([
      'alice: hello',
      'alice: written while offline',
      'bob: hi alice',
      'bob: me too',
    ]);
    expect([...result.server].sort()).toEqual([...result.alice].sort());

    expect(result.connections).toBe(2);
    for (const name of ['alice', 'bob'] as const) {
      // One connection before the outage, one after it; the refused attempts never reached the server.
      expect(result.seen[name]).toEqual({ upgrades: 2, connections: 2, closes: 1 });
      // y-websocket reconnects, with a new ResilientWebSocket per attempt: the refused ones too.
      expect(result.sockets[name]).toBeGreaterThan(2);
    }

    expect(lines.slice(0, result.timeline.length)).toEqual(result.timeline);
    expect(lines.some((line) => line.includes(`back on the same port ${result.port}`))).toBe(true);
    expect(lines.at(-1)).toBe('providers destroyed, server stopped');
  });
});
