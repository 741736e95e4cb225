/**
 * Reading and driving the chat examples' pages (the plain chat, and the React and Vue chats that
 * keep its markup): opening a page as a user, the message list, typing a line, what every
 * component that uses the binding shows, and bounded waits on each and on the chat server's
 * records.
 */
import type { Page } from 'playwright-core';
import { type BrowserHarness, eventually } from './harness.js';

/** The React and Vue chats' components that use the binding: their root elements carry `data-state` and `data-last`. */
export const CHAT_COMPONENTS = ['badge', 'online', 'messages', 'composer'];

/**
 * A page at `<url>?name=<name>`, with the WebSockets it opened (Chromium's own count, attempts
 * included); `watch` is given the page before it loads (to listen to its console).
 */
export async function openChat(browser: BrowserHarness, url: string, name: string, watch?: (page: Page) => void) {
  const page = await browser.newPage();
  const sockets: string[] = [];
  page.on('websocket', (socket) => sockets.push(socket.url()));
  watch?.(page);
  await page.goto(`${url}?name=${name}`);
  return { page, sockets };
}

/** `id → data-<attribute>` of every chat component present. */
export function readAll(page: Page, attribute: 'state' | 'last') {
  return page.evaluate(
    ({ ids, attribute }) =>
      Object.fromEntries(ids.map((id) => [id, document.getElementById(id)?.dataset[attribute] ?? null])),
    { ids: CHAT_COMPONENTS, attribute },
  );
}

/** Waits until every chat component's `data-<attribute>` is `expected`. */
export function waitForAll(page: Page, attribute: 'state' | 'last', expected: string, timeout = 5_000) {
  const want = Object.fromEntries(CHAT_COMPONENTS.map((id) => [id, expected]));
  const same = (value: Record<string, string | null>) => JSON.stringify(value) === JSON.stringify(want);
  return eventually(() => readAll(page, attribute), same, timeout, `every component's data-${attribute} = ${expected}`);
}

/** The page's message list as `from: text [status]` lines. */
export function messageList(page: Page) {
  return page.locator('#messages li').evaluateAll((items) =>
    items.map((item) => {
      const from = item.querySelector('.from')?.textContent;
      const text = item.querySelector('.text')?.textContent;
      const status = (item as HTMLElement).dataset.status;
      return status ? `${from}: ${text} [${status}]` : `${from}: ${text}`;
    }),
  );
}

/** Waits until the message list is `expected`. */
export function waitForList(page: Page, expected: string[], timeout = 5_000) {
  const same = (lines: string[]) => JSON.stringify(lines) === JSON.stringify(expected);
  return eventually(() => messageList(page), same, timeout, `the message list ${JSON.stringify(expected)}`);
}

/** Waits until `read()` (of the chat server, in Node) gives `expected`. */
export function waitForServer<T>(read: () => T, expected: T, what: string, timeout = 5_000) {
  const same = (value: T) => JSON.stringify(value) === JSON.stringify(expected);
  return eventually(async () => read(), same, timeout, what);
}

/** Types `text` into the composer and sends it (Enter). */
export async function type(page: Page, text: string) {
  await page.locator('#text').fill(text);
  await page.locator('#text').press('Enter');
}
