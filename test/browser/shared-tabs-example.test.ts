import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type SharedTabsServer, startSharedTabsServer } from '../../examples/shared-tabs/server.js';
import { sleep } from '../helpers/wait.js';
import { eventually, saveScreenshot } from './harness.js';
import { QUIET_MS, useSharedTabs } from './shared-page.js';

// The example `examples/shared-tabs/` (npm run example:shared) in Chromium, the way
// shared-socket.test.ts tests SharedSocket: two tabs of one context, one server connection, a line
// typed in one tab shows in the other, and closing the leader tab hands the connection over (one
// new connection).

const { cleanup, browser } = useSharedTabs();

describe('shared-tabs example (examples/shared-tabs/, npm run example:shared)', () => {
  /** The page's log as text lines. */
  const logLines = (page: Page) => page.locator('#log li').allTextContents();

  async function example(): Promise<SharedTabsServer> {
    return cleanup.add(await startSharedTabsServer(), (server) => server.stop());
  }

  it('two tabs of one browser share ONE server connection; a line sent in tab 2 shows in tab 1; closing the leader tab hands the connection over', async () => {
    const server = await example();
    const context = await browser.newContext();
    const one = await context.newPage();
    await one.goto(server.url);
    await one.locator('#state[data-state="open"]').waitFor({ timeout: 5_000 });
    const two = await context.newPage();
    await two.goto(server.url);
    for (const page of [one, two]) await page.locator('#state[data-state="open"]').waitFor({ timeout: 5_000 });

    // The server counts its connections; both pages show the count it broadcasts.
    await eventually(
      async () => server.open,
      (open) => open === 1,
      3_000,
      'one open connection',
    );
    for (const page of [one, two]) {
      await page.locator('#connections[data-open="1"]').waitFor({ timeout: 3_000 });
    }
    const roles = await Promise.all([one, two].map((page) => page.locator('#role').textContent()));
    expect(roles.sort()).toEqual(['follower', 'leader']);

    await two.locator('#text').fill('hello from tab 2');
    await two.locator('#text').press('Enter');
    const tab2 = await two.locator('#tab').textContent();
    await eventually(
      () => logLines(one),
      (lines) => lines.some((line) => line.includes('hello from tab 2') && line.includes(tab2 ?? '?')),
      3_000,
      'tab 1 to show the line sent in tab 2',
    );
    await sleep(QUIET_MS);
    expect(server.accepted).toBe(1);
    expect(server.open).toBe(1);
    expect(server.said.map((s) => s.text)).toEqual(['hello from tab 2']);
    await saveScreenshot(one, 'shared-tabs-tab1');

    // The leader tab closes: the other one takes over with one new connection, and shows it.
    const [leader, other] = (await one.locator('#role').textContent()) === 'leader' ? [one, two] : [two, one];
    await leader.close();
    await other.locator('#role[data-role="leader"]').waitFor({ timeout: 3_000 });
    await other.locator('#state[data-state="open"]').waitFor({ timeout: 3_000 });
    await other.locator('#connections[data-open="1"]').waitFor({ timeout: 3_000 });
    await sleep(QUIET_MS);
    expect(server.accepted).toBe(2);
    expect(server.open).toBe(1);
    await saveScreenshot(other, 'shared-tabs-takeover');
  });
});
