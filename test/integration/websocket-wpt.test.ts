/**
 * The web-platform-tests `websockets/` assertions (test/websocket/wpt.ts) in Node: each scenario
 * runs on `ws` (the control here: Node 20 has no global WebSocket), then on `ResilientWebSocket`
 * from `resilient-socket/websocket` and from the main entry (the Node builds: the ws transport),
 * against a real ws server on 127.0.0.1. ws must give what WPT asserts except where a scenario
 * says how ws, which is not a browser's WebSocket, differs; ours must give what a browser gives,
 * except where a scenario says why (the same differences as in Chromium, or, where noted, ws's).
 * The same scenarios run in Chromium next to its native WebSocket (test/browser/websocket-wpt.test.ts).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { ResilientWebSocket as Full } from '../../src/node.js';
import { ResilientWebSocket } from '../../src/websocket-node.js';
import { createKit, type SocketClass } from '../browser/pages/websocket/kit.js';
import { PRODUCTION } from '../helpers/mode.js';
import { Cleanup } from '../helpers/wait.js';
import { EchoServer } from '../websocket/echo-server.js';
import { AS_WS, NOT_RUN, SCENARIOS, UNCHECKED } from '../websocket/wpt.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const inNode = SCENARIOS.filter((s) => s.browserOnly === undefined);

/**
 * The process warnings a scenario gives in Node (by title; none for the others): what the two
 * drop-ins send after close() is dropped, and with no `drop` listener each socket says so once
 * (docs/guide/drop-in.md), in development builds only. `ws` never warns.
 */
const WARNINGS: Record<string, readonly string[]> = {
  'send() returns undefined; after close() no error and no message, but bufferedAmount counts what it took': [
    'RS_UNHEARD_DROP',
    'RS_UNHEARD_DROP',
  ],
};

describe('web-platform-tests websockets/ in Node: ws, then ResilientWebSocket (both entries)', () => {
  it.each(inNode.map((s) => [s.title, s] as const))('%s', async (_title, scenario) => {
    const warnings: unknown[] = [];
    const expectedWarnings = PRODUCTION ? [] : (WARNINGS[scenario.title] ?? []);
    // Restored last, after the sockets are closed: what their closing says is checked too.
    cleanup.add(
      vi.spyOn(process, 'emitWarning').mockImplementation(((warning: unknown, options?: { code?: string }) => {
        warnings.push(options?.code ?? (warning as { code?: string }).code ?? warning);
      }) as typeof process.emitWarning),
      (spy) => {
        spy.mockRestore();
        expect(warnings, 'process warnings, the cleanup included').toEqual(expectedWarnings);
      },
    );
    const server = cleanup.add(await new EchoServer().start(), (s) => s.stop());
    const kit = cleanup.add(createKit(), (k) => k.closeAll());
    const arg = { url: server.base };
    const forWs = scenario.ws?.expected ?? scenario.expected;
    const control = forWs === NOT_RUN ? NOT_RUN : await scenario.run(kit, WsWebSocket as unknown as SocketClass, arg);
    const ours = await scenario.run(kit, ResilientWebSocket as unknown as SocketClass, arg);
    const full = await scenario.run(kit, Full as unknown as SocketClass, arg);
    if (forWs !== UNCHECKED) expect(control, 'ws (the control)').toEqual(forWs);
    const inNodeExpected = scenario.oursInNode?.expected;
    const expected =
      inNodeExpected === AS_WS ? control : (inNodeExpected ?? scenario.ours?.expected ?? scenario.expected);
    expect(ours, 'resilient-socket/websocket').toEqual(expected);
    expect(full, 'resilient-socket').toEqual(expected);
    expect(warnings, 'process warnings').toEqual(expectedWarnings);
  });
});
