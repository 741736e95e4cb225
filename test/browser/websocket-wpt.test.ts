/**
 * The web-platform-tests `websockets/` assertions (test/websocket/wpt.ts) in Chromium: each
 * scenario runs on the native WebSocket (the control: it must give what WPT asserts), on
 * `ResilientWebSocket` from `resilient-socket/websocket` and on the main entry's (every feature),
 * from the browser builds (their development flavour) in one page (test/browser/pages/websocket/). Ours must give what the
 * native one gives, except where a scenario says why (docs/guide/drop-in.md
 * lists those differences). Real ws server on 127.0.0.1.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EchoServer } from '../websocket/echo-server.js';
import { SCENARIOS } from '../websocket/wpt.js';
import { useTestPages, WEBSOCKET_FAILED } from './harness.js';

const { cleanup, browser, openTestPage } = useTestPages(join(import.meta.dirname, 'pages', 'websocket'), 'wsTest');

describe('web-platform-tests websockets/ in Chromium: native WebSocket, then ResilientWebSocket (both entries)', () => {
  it.each(SCENARIOS.map((s) => [s.title, s] as const))('%s', async (_title, scenario) => {
    const server = cleanup.add(await new EchoServer().start(), (s) => s.stop());
    // Chromium logs a failed or aborted connection, and a send() after close(), as console errors.
    browser.allowConsoleErrors(WEBSOCKET_FAILED, /WebSocket is already in CLOSING or CLOSED state/);
    const { page } = await openTestPage();
    const arg = { url: server.base };
    const { native, ours, full } = (await page.evaluate(
      `window.wsTest.all(${scenario.run.toString()}, ${JSON.stringify(arg)})`,
    )) as Record<'native' | 'ours' | 'full', unknown>;
    expect(native, 'the native WebSocket (the control)').toEqual(scenario.expected);
    const expected = scenario.ours?.expected ?? scenario.expected;
    expect(ours, 'resilient-socket/websocket').toEqual(expected);
    expect(full, 'resilient-socket').toEqual(expected);
  });
});
