import { afterEach, describe, expect, it } from 'vitest';
import { type ChatMessage, startChatServer } from '../../examples/chat/server.js';
import { ResilientSocket } from '../../src/node.js';
import { Cleanup, waitFor } from '../helpers/wait.js';
import { messageList, type, waitForList } from './chat-page.js';
import { renderedColour, saveScreenshot, useBrowser, WEBSOCKET_FAILED, waitForBadge } from './harness.js';

// The chat example in Chromium: a line typed while the server is down is shown "queued", and is
// delivered (to the page's own list and to another client) once the server is back.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());
const browser = useBrowser(); // registered last: its afterEach (close the pages) runs first

/** A Node client (like a second user) that records every message it sees, live or from history. */
function nodeClient(url: string) {
  const socket = cleanup.add(new ResilientSocket(url, { maxDelay: 400, ceiling: 3 }), (s) => s.close());
  const seen = new Map<string, ChatMessage>();
  const live: ChatMessage[] = [];
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as { type: string; history?: ChatMessage[] };
    if (frame.type === 'message') live.push(frame as ChatMessage);
    for (const message of frame.type === 'message' ? [frame as ChatMessage] : (frame.history ?? [])) {
      seen.set(message.id, message);
    }
  });
  return { socket, seen, live };
}

describe('chat example', () => {
  it('echoes a line, queues one typed while the server is down, and delivers it after the restart', async () => {
    const server = cleanup.add(await startChatServer(), (s) => s.stop());
    const page = await browser.newPage();
    browser.allowConsoleErrors(WEBSOCKET_FAILED); // Chromium logs every refused attempt during the outage
    await page.goto(`${server.url}?name=alice`);
    await waitForBadge(page, 'live');
    expect(await page.locator('#me').textContent()).toBe('alice');

    await type(page, 'hello');
    await waitForList(page, ['alice: hello [delivered]']);
    const bob = nodeClient(`${server.wsUrl}?name=bob`);
    await waitFor(() => bob.socket.state === 'open', 3_000, 'bob to connect');
    expect(bob.socket.send(JSON.stringify({ type: 'say', id: 'b1', text: 'hi alice' }))).toBe('sent');
    await waitForList(page, ['alice: hello [delivered]', 'bob: hi alice']);

    await server.crash();
    await waitForBadge(page, 'reconnecting', 3_000);
    await type(page, 'are you there?');
    await waitForList(page, ['alice: hello [delivered]', 'bob: hi alice', 'alice: are you there? [queued]']);
    expect(await page.locator('#messages li').last().locator('.note').textContent()).toBe('queued');
    expect(await page.locator('#status').textContent()).toMatch(/1 queued/);
    expect(await renderedColour(page.locator('#badge'))).toMatchObject({ name: 'amber' });
    await saveScreenshot(page, 'chat-queued');

    await server.restart();
    await waitForBadge(page, 'live', 8_000); // the widest backoff window is 5 s
    await waitForList(page, ['alice: hello [delivered]', 'bob: hi alice', 'alice: are you there? [delivered]']);
    // Bob gets it live or, if he rejoined after alice's line went out, in the history he is sent.
    await waitFor(() => bob.socket.state === 'open', 3_000, 'bob to reconnect');
    await waitFor(
      () => [...bob.seen.values()].some((m) => m.from === 'alice' && m.text === 'are you there?'),
      3_000,
      'bob to receive the line typed during the outage',
    );
    expect(server.messages.map((m) => `${m.from}: ${m.text}`)).toEqual([
      'alice: hello',
      'bob: hi alice',
      'alice: are you there?',
    ]);
    expect(await renderedColour(page.locator('#badge'))).toMatchObject({ name: 'green' });
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'open', undefined, {
      timeout: 2_000, // redrawn 10×/s: nothing queued, no retry pending
    });
    await saveScreenshot(page, 'chat-delivered');
    expect(await messageList(page)).toHaveLength(3);
  });

  it('shows the line of a second page, and each page its own line once', async () => {
    const server = cleanup.add(await startChatServer(), (s) => s.stop());
    const alice = await browser.newPage();
    const bob = await browser.newPage();
    await alice.goto(`${server.url}?name=alice`);
    await bob.goto(`${server.url}?name=bob`);
    await Promise.all([waitForBadge(alice, 'live'), waitForBadge(bob, 'live')]);
    await alice.waitForFunction(() => document.getElementById('online')?.textContent === '2 online', undefined, {
      timeout: 5_000,
    });

    await type(alice, 'ping from alice');
    await waitForList(bob, ['alice: ping from alice']);
    await type(bob, 'pong from bob');
    await waitForList(alice, ['alice: ping from alice [delivered]', 'bob: pong from bob']);
    await waitForList(bob, ['alice: ping from alice', 'bob: pong from bob [delivered]']);
  });
});
