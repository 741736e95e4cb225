import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ECHO, TestWsServer } from '../../src/testing/ws-server.js';
import { errorMessage } from '../helpers/mode.js';
import { waitFor } from '../helpers/wait.js';
import { useTestPages, WEBSOCKET_FAILED } from './harness.js';
import { type Entry, PAGE_DIR, PRODUCTION, run, unchangedFor, until } from './recorder-page.js';

// Resume awareness in Chromium for a page in the background and for an attempt that hangs: the
// browser build on the test page of socket.test.ts (test/browser/pages/socket/), real `ws` servers
// on 127.0.0.1. Headless Chromium never hides a page by itself (see resume.test.ts), so
// `rsTest.setVisibility()` overrides `document.visibilityState` and dispatches `visibilitychange`.
// A hung attempt is a real one: the server reads the upgrade request and never answers it.
// Every wait is bounded; the fixed periods are observation windows in which nothing may happen.

const { cleanup, browser, openTestPage: openServedPage } = useTestPages(PAGE_DIR, 'rsTest');

async function openTestPage(): Promise<Page> {
  const { page } = await openServedPage();
  return page;
}

const names = (entries: Entry[]) => entries.map((e) => (e.event === 'state' ? `${e.previous}→${e.current}` : e.event));

describe('a page in the background and a hung attempt, in Chromium', () => {
  it('pauseWhileHidden: hidden that long, the connection stays open, and once lost no attempt is made until the page is visible, then one at once', async () => {
    const server = cleanup.add(await TestWsServer.start(ECHO), (s) => s.stop());
    const page = await openTestPage();
    browser.allowConsoleErrors(WEBSOCKET_FAILED);
    await run(
      page,
      (t, o) => {
        t.create('a', o.url, { backoff: t.lib.constant({ delay: 100 }), resume: { pauseWhileHidden: 300 } });
      },
      { url: server.url },
    );
    await until(page, 'a to open', 5_000, (t) => t.count('a', 'open') >= 1);

    await run(page, (t) => t.setVisibility('hidden'));
    // Hidden for 0.6 s (twice the pause): the open connection is left open.
    await unchangedFor(600, 'the log of a', () => run(page, (t) => t.log('a').length));
    expect(await run(page, (t) => t.socket('a').state)).toBe('open');

    await server.stop(); // the connection is lost while the page is hidden
    await until(page, 'the close', 3_000, (t) => t.count('a', 'close') >= 1);
    let log = await run(page, (t) => t.log('a'));
    const closeAt = log.findIndex((e) => e.event === 'close');
    expect(log[closeAt - 1]).toMatchObject({
      event: 'state',
      current: 'reconnecting',
      reason: 'page hidden: waiting for it to be visible',
    });
    await server.start();
    // Ten backoff delays long: no attempt, no reconnecting event.
    await unchangedFor(1_000, 'the upgrades and the log of a', async () => ({
      upgrades: server.upgrades.length,
      log: await run(page, (t) => t.log('a').length),
    }));
    expect(server.upgrades).toHaveLength(1);

    const shown = performance.now();
    await run(page, (t) => t.setVisibility('visible'));
    await until(page, 'a to reopen', 3_000, (t) => t.count('a', 'open') >= 2);
    expect(performance.now() - shown).toBeLessThan(1_000);
    log = await run(page, (t) => t.log('a'));
    expect(names(log.slice(closeAt + 1))).toEqual(['reconnecting→connecting', 'connecting', 'connecting→open', 'open']);
    expect(log[closeAt + 1]).toMatchObject({ reason: 'retrying now: page visible' });
    expect(server.upgrades).toHaveLength(2);
  });

  it('an attempt hung for over a second is abandoned when the page becomes visible: a fresh one opens at once, the hung one is closed', async () => {
    // The first upgrade is never answered; the next ones are.
    const server = cleanup.add(
      await TestWsServer.start((upgrade) => (upgrade.index === 0 ? { kind: 'stall' } : ECHO)),
      (s) => s.stop(),
    );
    const page = await openTestPage();
    // Chromium reports a WebSocket closed before it opened.
    browser.allowConsoleErrors(WEBSOCKET_FAILED);
    await run(
      page,
      (t, o) => {
        // The page's own WebSocket, each instance kept to look at afterwards.
        const made: WebSocket[] = [];
        (window as unknown as { made: WebSocket[] }).made = made;
        class Kept extends WebSocket {
          constructor(url: string | URL, protocols?: string | string[]) {
            super(url, protocols);
            made.push(this);
          }
        }
        t.create('a', o.url, { WebSocket: Kept });
      },
      { url: server.url },
    );
    await waitFor(() => server.upgrades.length >= 1, 3_000, 'the stalled upgrade');
    // Past the grace (1 s), well before connectTimeout (10 s).
    await unchangedFor(1_300, 'the state of a', () => run(page, (t) => t.socket('a').state));

    const shown = performance.now();
    await run(page, (t) => {
      t.setVisibility('hidden');
      t.setVisibility('visible');
    });
    await until(page, 'a to open', 3_000, (t) => t.count('a', 'open') >= 1);
    expect(performance.now() - shown).toBeLessThan(1_000);
    const log = await run(page, (t) => t.log('a'));
    const at = log.findIndex((e) => e.event === 'error');
    expect(names(log.slice(at - 1))).toEqual([
      'connecting→reconnecting',
      'error',
      'close',
      'reconnecting',
      'reconnecting→connecting',
      'connecting',
      'connecting→open',
      'open',
    ]);
    expect(log[at]).toMatchObject({
      code: 'ERR_RS_CONNECT_TIMEOUT',
      message: errorMessage(
        'ERR_RS_CONNECT_TIMEOUT',
        /^Connection attempt 1 had been connecting for \d+ ms at a resume \(page visible\): abandoned for a fresh attempt$/,
        PRODUCTION,
      ),
    });
    expect(log[at + 1]).toMatchObject({ code: 1006, reason: 'restarted on resume', willReconnect: true });
    expect(log[at + 2]).toMatchObject({ delay: 0 });
    expect(log[at + 3]).toMatchObject({ reason: 'retrying now: page visible' });
    expect(await run(page, (t) => t.snapshot('a'))).toMatchObject({ state: 'open', attempt: 2 });
    expect(server.upgrades.map((u) => u.kind)).toEqual(['stall', 'accept']);
    // The abandoned WebSocket was closed in the browser (CLOSED, never opened); the fresh one is open.
    expect(
      await page.evaluate(() => (window as unknown as { made: WebSocket[] }).made.map((ws) => ws.readyState)),
    ).toEqual([3, 1]);
  });
});
