import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { startDashboardServer } from '../../examples/dashboard/server.js';
import { Cleanup } from '../helpers/wait.js';
import { renderedColour, saveScreenshot, useBrowser, WEBSOCKET_FAILED, waitForBadge } from './harness.js';

// The dashboard example in Chromium: the badge follows the connection through a feed crash and
// restart, the countdown ticks while the socket waits to retry, and the colours really render.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());
const browser = useBrowser(); // registered last: its afterEach (close the pages) runs first

async function openDashboard() {
  const server = cleanup.add(await startDashboardServer({ intervalMs: 100 }), (s) => s.stop());
  const page = await browser.newPage();
  // A short backoff (windows 187.5 ms … 1.5 s) keeps the test quick.
  await page.goto(`${server.url}?maxDelay=1500&ceiling=4`);
  return { server, page };
}

const seqOf = async (page: Page) => Number(await page.locator('#seq').textContent());

/** Waits until the sequence number shown has moved past `after` twice (the feed is flowing). */
function waitForMetricsAfter(page: Page, after: number, timeout = 5_000) {
  return page.waitForFunction((min) => Number(document.getElementById('seq')?.textContent) >= min + 2, after, {
    timeout,
    polling: 20,
  });
}

describe('dashboard example', () => {
  it('goes live, shows reconnecting with a ticking countdown while the feed is down, recovers, and goes offline on close', async () => {
    const { server, page } = await openDashboard();
    browser.allowConsoleErrors(WEBSOCKET_FAILED); // Chromium logs every refused attempt during the outage
    const badge = page.locator('#badge');

    await waitForBadge(page, 'live');
    await waitForMetricsAfter(page, 0);
    expect(await renderedColour(badge)).toMatchObject({ name: 'green' });
    expect(await badge.textContent()).toBe('live');
    await saveScreenshot(page, 'dashboard-live');

    await server.crash();
    const seqAtCrash = server.seq;
    await waitForBadge(page, 'reconnecting', 3_000);
    // The countdown shows the time to the next attempt and changes while the socket waits
    // (within one wait, or from one attempt to the next): at least three different readings.
    await page.waitForFunction(
      () => {
        const page = window as unknown as { seen?: Set<string> };
        page.seen ??= new Set();
        const seen = page.seen;
        const match = /^retry in (\d+\.\d) s/.exec(document.getElementById('countdown')?.textContent ?? '');
        if (match?.[1]) seen.add(match[1]);
        return seen.size >= 3;
      },
      undefined,
      { timeout: 10_000, polling: 20 },
    );
    expect(await renderedColour(badge)).toMatchObject({ name: 'amber' });
    expect(await badge.textContent()).toBe('reconnecting');
    await saveScreenshot(page, 'dashboard-reconnecting');
    // Nothing arrives while the feed is down.
    expect(await seqOf(page)).toBeLessThanOrEqual(seqAtCrash);

    await server.restart();
    await waitForBadge(page, 'live', 5_000); // the widest backoff window is 1.5 s
    await waitForMetricsAfter(page, seqAtCrash);
    expect(await page.locator('#countdown').textContent()).toBe('');
    expect(await renderedColour(badge)).toMatchObject({ name: 'green' });

    await page.locator('#toggle').click(); // Disconnect: socket.close()
    await waitForBadge(page, 'offline', 3_000); // at once: close() makes it `closing`
    // `closed` once the server answered the close frame (under load that can take a moment; at most
    // CLOSE_TIMEOUT, 3 s, before the socket cuts it).
    await page.waitForFunction(() => document.getElementById('state')?.textContent === 'closed', undefined, {
      timeout: 3_500,
      polling: 20,
    });
    expect(await page.locator('#state').textContent()).toBe('closed');
    expect(await renderedColour(badge)).toMatchObject({ name: 'grey' });
    expect(await badge.textContent()).toBe('offline');
    await saveScreenshot(page, 'dashboard-offline');
    // Closed means closed: no reconnect, no more metrics.
    const seqAtClose = await seqOf(page);
    expect(server.up).toBe(true);
    await page.waitForTimeout(300); // several pushes (every 100 ms) that must not arrive
    expect(await seqOf(page)).toBe(seqAtClose);
  });

  it('shows offline while the browser is offline and goes live again when it is back', async () => {
    const { page } = await openDashboard();
    browser.allowConsoleErrors(WEBSOCKET_FAILED);
    await waitForBadge(page, 'live');

    await page.context().setOffline(true);
    await waitForBadge(page, 'offline', 3_000);
    expect(await renderedColour(page.locator('#badge'))).toMatchObject({ name: 'grey' });
    expect(await page.locator('#state').textContent()).toMatch(/\(browser offline\)$/);

    await page.context().setOffline(false);
    await waitForBadge(page, 'live', 5_000);
    const seq = await seqOf(page);
    // A connection that the outage left half-dead is found by the resume probe (3 s) or the
    // heartbeat (2 s + 1 s) and replaced: on a loaded machine that can take longer than 5 s.
    await waitForMetricsAfter(page, seq, 10_000);
  });
});
