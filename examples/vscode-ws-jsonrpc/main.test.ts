import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ErrorCodes } from 'vscode-jsonrpc';
import { runJsonRpcExample } from './main.js';

// The example end to end: a real JSON-RPC server on 127.0.0.1 that crashes and comes back on the
// same port, and a client over one ResilientWebSocket that makes a MessageConnection per connection.

describe('the vscode-ws-jsonrpc example', () => {
  it('round-trips requests and notifications before and after a server restart', async () => {
    const lines: string[] = [];
    const result = await runJsonRpcExample({ log: (line) => lines.push(line), outage: 300 });

    expect(result.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/$/);
    expect(result.before).toEqual({ sum: 5, echo: 'hello' });
    expect(result.error).toEqual({ code: 4711, message: 'division by zero' });
    expect(result.inFlight).toBe(ErrorCodes.PendingResponseRejected);
    expect(result.after).toEqual({ sum: 42, echo: 'back' });
    // Notifications both ways, one server session per underlying connection.
    expect(result.hellos).toEqual([1, 2]);
    expect(result.logs).toEqual(['#1 before the restart', '#2 after the restart']);
    expect(result.connections).toBe(2);
    expect(result.serverConnectionsAfterRecovery).toBe(1);
    // Down for 300 ms; the widest retry window is 400 ms.
    expect(result.recoveryMs).toBeGreaterThanOrEqual(300);
    expect(result.recoveryMs).toBeLessThan(2_000);
    expect(result.finalClose).toEqual({ code: 1000, reason: 'example done' });

    expect(lines).toEqual(result.timeline);
    const order = ['JSON-RPC server on', 'add(2, 3) = 5', 'crash', 'connection lost (1006)', 'back on the same port'];
    const at = [...order, 'add(40, 2) = 42', 'session 2 closed: 1000'].map((text) =>
      lines.findIndex((line) => line.includes(text)),
    );
    expect(at.every((index) => index >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('runs as `npm run example:jsonrpc` does, prints the timeline and exits by itself', async () => {
    const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
    const main = fileURLToPath(new URL('./main.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(tsx, [main], { env: { ...process.env, PORT: '0' }, timeout: 15_000 });
    expect(stdout).toContain('add(40, 2) = 42');
    expect(stdout).toMatch(/2 JSON-RPC connections over one ResilientWebSocket; recovered \d+ ms after the crash\./);
  });
});
