import type { CDPSession, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { startStaticServer } from '../../examples/lib/static-server.js';
import { ECHO, TestWsServer } from '../../src/testing/ws-server.js';
import { Cleanup, waitFor } from '../helpers/wait.js';
import { type BrowserHarness, loadPage, useBrowser, WEBSOCKET_FAILED } from './harness.js';
import { type Entry, PAGE_DIR, run, until } from './recorder-page.js';

// The back/forward cache in Chromium, for real: the test page of socket.test.ts (the browser
// build), served without `Cache-Control: no-store` (Chromium caches no such page), a socket on a
// real `ws` server; the page navigates away and `page.goBack()` brings it back. Whether it came
// from the cache is what the page itself says: every `pageshow` is recorded from the document's
// start (`persisted`), and Chromium's reasons for not restoring it are read from the DevTools
// protocol (`Page.backForwardCacheNotUsed`).
//
// Playwright launches Chromium with `--disable-back-forward-cache`: these browsers go without it.
// Two Chromiums:
// - one that keeps no page with an open WebSocket in its cache (the feature
//   `DisconnectWebSocketOnBFCache` off): what Chrome did before 149, does with the enterprise policy
//   `BackForwardCacheForWebSocketsAllowed` off, and what Firefox does. There the socket's polite
//   close on `pagehide` is what lets the page in at all;
// - Chromium as it ships (156 here): it takes such a page and cuts its WebSockets itself (the
//   server sees 1001, the page comes back to an `error` and a 1006). There the socket's own close
//   tells the server why, and the page comes back to an immediate reconnect, not a failure.

const cleanup = new Cleanup();
afterEach(() => cleanup.run()); // runs last: stops the servers

/** Chromium with its back/forward cache. */
const WITH_CACHE = { ignoreDefaultArgs: ['--disable-back-forward-cache'] };

/** What the page recorded of its own lifecycle, from the document's start. */
interface Lifecycle {
  /** `persisted` of every `pageshow` of this document. */
  readonly shows: boolean[];
  /** An id drawn when the document started: the same after a restore, another after a reload. */
  readonly id: number;
}

/** Records the document's `pageshow` events from its start (before any script of the page). */
const RECORD_LIFECYCLE = `
  window.__lifecycle = { shows: [], id: Math.random(), shown: false };
  addEventListener('pageshow', (e) => { __lifecycle.shows.push(e.persisted); __lifecycle.shown = true; });
  addEventListener('pagehide', () => { __lifecycle.shown = false; });
`;

interface Fixture {
  readonly page: Page;
  readonly server: TestWsServer;
  /** The reasons Chromium gave for not restoring the page from its cache (none: restored). */
  readonly notRestored: string[];
  readonly lifecycle: () => Promise<Lifecycle>;
}

/**
 * The test page, cacheable, with socket `a` on an echo server open (`resume` as given, a backoff
 * window of 10 s so that a backoff wait shows), and every `pageshow` recorded.
 */
async function openPage(browser: BrowserHarness, resume: Record<string, unknown>): Promise<Fixture> {
  const server = cleanup.add(await TestWsServer.start(ECHO), (s) => s.stop());
  const site = cleanup.add(
    await startStaticServer({
      root: PAGE_DIR,
      cacheControl: '',
      routes: {
        'GET /away': (_request, response) => {
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          response.end('<!doctype html><title>away</title><link rel="icon" href="data:," /><p>another page</p>');
        },
      },
    }),
    (s) => s.stop(),
  );
  const page = await browser.newPage();
  const cdp: CDPSession = await page.context().newCDPSession(page);
  const notRestored: string[] = [];
  await cdp.send('Page.enable');
  cdp.on('Page.backForwardCacheNotUsed', (event) => {
    for (const { reason } of event.notRestoredExplanations) notRestored.push(reason);
  });
  await page.addInitScript(RECORD_LIFECYCLE);
  await loadPage(page, site.url, 'rsTest');
  await run(
    page,
    (t, o) => {
      t.create('a', o.url, { maxDelay: 10_000, ceiling: 1, resume: o.resume });
    },
    { url: server.url, resume },
  );
  await until(page, 'a to open', 5_000, (t) => t.count('a', 'open') >= 1);
  // Sent by the page's own pagehide listener, after the socket's (registered at its creation).
  await run(page, (t) => {
    addEventListener('pagehide', () => t.note('a', 'pagehide', { send: t.socket('a').send('sent on pagehide') }));
  });
  const lifecycle = () => page.evaluate(() => (window as unknown as { __lifecycle: Lifecycle }).__lifecycle);
  return { page, server, notRestored, lifecycle };
}

/** Navigates away, then back; resolves once the page shows again (restored or reloaded). */
async function awayAndBack(fixture: Fixture, away: () => Promise<void> = async () => undefined): Promise<void> {
  const { page } = fixture;
  const site = new URL(page.url());
  await page.goto(new URL('/away', site).href);
  await away();
  await page.goBack({ waitUntil: 'commit', timeout: 5_000 }); // a restore fires no `load`
  await page.waitForFunction(
    () => (window as unknown as { __lifecycle?: { shown: boolean } }).__lifecycle?.shown,
    undefined,
    {
      timeout: 5_000,
      polling: 20,
    },
  );
}

/** The entries of `log` from the `pagehide` note on. */
function fromPagehide(log: Entry[]): Entry[] {
  return log.slice(log.findIndex((e) => e.event === 'pagehide'));
}

/**
 * The reason of the attempt a restored page starts: Chromium makes the page visible
 * (`visibilitychange`) just before its `pageshow`, and either signal starts it.
 */
const RESTORED = /^retrying now: page (visible|restored from the back\/forward cache)$/;

const names = (entries: Entry[]) => entries.map((e) => (e.event === 'state' ? `${e.previous}→${e.current}` : e.event));

describe('a Chromium that keeps no page with an open WebSocket in its cache (before 149, Firefox)', () => {
  const browser = useBrowser({ ...WITH_CACHE, args: ['--disable-features=DisconnectWebSocketOnBFCache'] });

  it('the page is restored from the cache (pageshow persisted: true) and the socket reconnects at once, flushing what was sent on pagehide', async () => {
    const fixture = await openPage(browser, {});
    const { page, server } = fixture;
    const before = await fixture.lifecycle();
    await awayAndBack(fixture, async () => {
      // While the page is away, the server saw the socket's polite close.
      await waitFor(() => server.disconnects.length === 1, 2_000, 'the server to see the close');
    });
    const after = await fixture.lifecycle();
    expect(fixture.notRestored).toEqual([]);
    expect(after).toEqual({ ...before, shows: [false, true] }); // the same document, shown from the cache
    expect(server.disconnects[0]).toMatchObject({ code: 1000, reason: 'page hidden' });
    await until(page, 'a to reopen', 3_000, (t) => t.count('a', 'open') >= 2);
    await waitFor(() => server.received.includes('sent on pagehide'), 2_000, 'the message sent on pagehide');
    const log = await run(page, (t) => t.log('a'));
    const hidden = fromPagehide(log);
    expect(hidden[0]).toMatchObject({ event: 'pagehide', send: 'buffered' });
    expect(names(hidden.slice(1))).toEqual([
      'reconnecting→connecting',
      'connecting',
      'connecting→open',
      'open',
      'message', // the echo of the message sent on pagehide
    ]);
    expect(hidden[1]?.reason).toMatch(RESTORED);
    // What the socket did on pagehide was logged before the note (its listener runs first).
    const closeEntry = log.find((e) => e.event === 'close');
    expect(closeEntry).toMatchObject({ code: 1000, reason: 'page hidden', willReconnect: true });
    expect(log.filter((e) => ['error', 'reconnecting'].includes(e.event))).toEqual([]);
    expect(server.upgrades).toHaveLength(2);
    expect(await run(page, (t) => t.snapshot('a'))).toMatchObject({ state: 'open', stats: { connects: 2 } });
  });

  it('with resume({ bfcache: false }) the open WebSocket keeps the page out of the cache: Back loads it anew', async () => {
    const fixture = await openPage(browser, { bfcache: false });
    const before = await fixture.lifecycle();
    await awayAndBack(fixture);
    const after = await fixture.lifecycle();
    expect(fixture.notRestored).toContain('WebSocket');
    expect(after.shows).toEqual([false]); // a fresh document, loaded anew
    expect(after.id).not.toBe(before.id);
    expect(
      await fixture.page.evaluate(() => (window as unknown as { rsTest: { dump(): unknown } }).rsTest.dump()),
    ).toEqual({});
  });
});

describe('Chromium as it ships (it cuts the WebSockets of a page it caches)', () => {
  const browser = useBrowser(WITH_CACHE);

  it('the socket closes first and tells the server why (1000 "page hidden", not the browser’s bare 1001); the restored page reconnects at once, with no error', async () => {
    const fixture = await openPage(browser, {});
    const { page, server } = fixture;
    await awayAndBack(fixture);
    expect(fixture.notRestored).toEqual([]);
    expect((await fixture.lifecycle()).shows).toEqual([false, true]);
    expect(server.disconnects[0]).toMatchObject({ code: 1000, reason: 'page hidden' });
    await until(page, 'a to reopen', 3_000, (t) => t.count('a', 'open') >= 2);
    const log = await run(page, (t) => t.log('a'));
    expect(log.filter((e) => ['error', 'reconnecting'].includes(e.event))).toEqual([]);
    expect(fromPagehide(log)[1]?.reason).toMatch(RESTORED);
    expect(await run(page, (t) => t.socket('a').failures)).toBe(0);
  });

  it('with resume({ bfcache: false }) the page comes back to the cut connection: an error, a 1006 and a backoff wait', async () => {
    const fixture = await openPage(browser, { bfcache: false });
    const { page, server } = fixture;
    browser.allowConsoleErrors(WEBSOCKET_FAILED);
    await awayAndBack(fixture);
    expect((await fixture.lifecycle()).shows).toEqual([false, true]);
    await waitFor(() => server.disconnects.length === 1, 2_000, 'the server to see the cut');
    expect(server.disconnects[0]).toMatchObject({ code: 1001, reason: '' }); // Chromium's own close
    await until(page, 'the reconnecting event', 3_000, (t) => t.count('a', 'reconnecting') >= 1);
    const log = fromPagehide(await run(page, (t) => t.log('a')));
    expect(log.find((e) => e.event === 'close')).toMatchObject({ code: 1006, willReconnect: true });
    expect(log.find((e) => e.event === 'reconnecting')).toMatchObject({ attempt: 2 });
    expect(await run(page, (t) => t.socket('a').failures)).toBe(1);
  });
});
