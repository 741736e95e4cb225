import { afterEach, describe, expect, it } from 'vitest';
import { type ReactChatServer, startReactChatServer } from '../../examples/react-chat/server.js';
import { Cleanup, sleep } from '../helpers/wait.js';
import { CHAT_COMPONENTS, messageList, openChat, type, waitForAll, waitForList, waitForServer } from './chat-page.js';
import { saveScreenshot, useBrowser, WEBSOCKET_FAILED } from './harness.js';

// The React chat example in Chromium (React's development build, under <StrictMode>): four
// components call useResilientSocket with the same URL and equal options, and the chat server
// sees one connection per page; every component follows the socket's state and messages; a line
// typed during an outage is queued and delivered once; unmounting and closing the page end the
// connection.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());
const browser = useBrowser(); // registered last: its afterEach (close the pages) runs first

/** Longer than the hook's grace period (closeDelay, 250 ms) and than a StrictMode remount. */
const SETTLE_MS = 700;

async function start(): Promise<ReactChatServer> {
  return cleanup.add(await startReactChatServer(), (server) => server.stop());
}

/** A page at `?name=<name>`, with the WebSockets it opened (Chromium's own count, attempts included). */
const open = (server: ReactChatServer, name: string) => openChat(browser, server.url, name);

describe('React chat example', () => {
  it('makes one connection for four components under StrictMode, and queues a line through an outage', async () => {
    const server = await start();
    const { page, sockets } = await open(server, 'alice');
    browser.allowConsoleErrors(WEBSOCKET_FAILED); // Chromium logs every refused attempt during the outage
    await waitForAll(page, 'state', 'open');
    await waitForServer(() => server.joins, ['alice'], 'the chat server to see alice join');
    await sleep(SETTLE_MS); // StrictMode's first mount's socket would have closed and a second opened by now
    // StrictMode mounted every component's effects twice (React's development build)...
    expect(await page.evaluate(() => document.documentElement.dataset.mounts)).toBe(String(2 * CHAT_COMPONENTS.length));
    // ...and the page still made exactly one connection: as the server counts them, and as Chromium does.
    expect(server.joins).toEqual(['alice']);
    expect(server.online).toBe(1);
    expect(sockets).toHaveLength(1);
    expect(new URL(sockets[0] ?? '').searchParams.get('name')).toBe('alice');
    expect(await page.locator('#online').textContent()).toBe('1 online');
    expect(await page.locator('#me').textContent()).toBe('alice');

    await type(page, 'hello');
    await waitForList(page, ['alice: hello [delivered]']);
    // Every component saw the broadcast: three through `lastMessage`, the list through `onMessage`.
    await waitForAll(page, 'last', 'message:hello');

    await server.crash();
    await waitForAll(page, 'state', 'reconnecting', 3_000);
    expect(await page.locator('#badge').getAttribute('data-badge')).toBe('reconnecting');
    expect(await page.locator('#online').textContent()).toBe(''); // unknown while disconnected
    await type(page, 'are you there?');
    await waitForList(page, ['alice: hello [delivered]', 'alice: are you there? [queued]']);
    expect(await page.locator('#messages li').last().locator('.note').textContent()).toBe('queued');
    expect(server.messages.map((m) => m.text)).toEqual(['hello']); // nothing got through during the outage
    await saveScreenshot(page, 'react-chat-queued');

    await server.restart();
    await waitForAll(page, 'state', 'open', 5_000); // the widest backoff window is 2 s
    await waitForList(page, ['alice: hello [delivered]', 'alice: are you there? [delivered]']);
    await waitForAll(page, 'last', 'message:are you there?');
    await sleep(SETTLE_MS);
    // Delivered exactly once, by one reconnected socket shared by the four components.
    expect(server.messages.map((m) => `${m.from}: ${m.text}`)).toEqual(['alice: hello', 'alice: are you there?']);
    expect(server.joins).toEqual(['alice', 'alice']);
    expect(server.online).toBe(1);
    expect(await messageList(page)).toEqual(['alice: hello [delivered]', 'alice: are you there? [delivered]']);
    expect(await page.locator('#badge').getAttribute('data-badge')).toBe('live');
    await saveScreenshot(page, 'react-chat-delivered');
  });

  it("shows each page the other's lines, one connection per page", async () => {
    const server = await start();
    const alice = await open(server, 'alice');
    const bob = await open(server, 'bob');
    await Promise.all([waitForAll(alice.page, 'state', 'open'), waitForAll(bob.page, 'state', 'open')]);
    await alice.page.waitForFunction(() => document.getElementById('online')?.textContent === '2 online', undefined, {
      timeout: 5_000,
    });
    await waitForServer(() => [...server.joins].sort(), ['alice', 'bob'], 'one connection per page');

    await type(alice.page, 'ping from alice');
    await waitForList(bob.page, ['alice: ping from alice']);
    await type(bob.page, 'pong from bob');
    await waitForList(alice.page, ['alice: ping from alice [delivered]', 'bob: pong from bob']);
    await waitForList(bob.page, ['alice: ping from alice', 'bob: pong from bob [delivered]']);
    await waitForAll(alice.page, 'last', 'message:pong from bob');
    await waitForAll(bob.page, 'last', 'message:pong from bob');
    expect(server.joins).toHaveLength(2);
    expect(server.messages.map((m) => `${m.from}: ${m.text}`)).toEqual([
      'alice: ping from alice',
      'bob: pong from bob',
    ]);
  });

  it('keeps the connection through a quick remount, and ends it on unmount and on page close', async () => {
    const server = await start();
    const { page, sockets } = await open(server, 'alice');
    await waitForAll(page, 'state', 'open');
    await waitForServer(() => server.joins, ['alice'], 'alice to join');

    // Leave and join again within the grace period: the components unmount and remount, one socket.
    await page.evaluate(async () => {
      document.getElementById('join-leave')?.click();
      await new Promise((resolve) => setTimeout(resolve, 50)); // React renders the click's update in a microtask
      if (!document.getElementById('left')) throw new Error('the components did not unmount');
      document.getElementById('join-leave')?.click();
    });
    await waitForAll(page, 'state', 'open');
    await sleep(SETTLE_MS);
    expect(server.joins).toEqual(['alice']);
    expect(server.leaves).toEqual([]);
    expect(sockets).toHaveLength(1);

    // Leave: once the last component has unmounted (and the grace period is over), the socket closes.
    await page.locator('#join-leave').click();
    await page.locator('#left').waitFor();
    expect(await page.locator('[data-state]').count()).toBe(0);
    await waitForServer(() => server.leaves, ['alice'], 'the chat server to see alice leave');
    expect(server.online).toBe(0);

    // Join: one new connection, shared again by the four components.
    await page.locator('#join-leave').click();
    await waitForAll(page, 'state', 'open');
    await waitForServer(() => server.joins, ['alice', 'alice'], 'alice to join again');
    await sleep(SETTLE_MS);
    expect(server.joins).toEqual(['alice', 'alice']);
    expect(server.online).toBe(1);
    expect(sockets).toHaveLength(2);
    await waitForList(page, []); // no line was said

    // Closing the page closes its connection.
    await page.close();
    await waitForServer(() => server.leaves, ['alice', 'alice'], 'the chat server to see the closed page leave');
    expect(server.online).toBe(0);
  });
});
