/**
 * The shared-socket test page (test/browser/pages/shared/) and its server, as seen from the tests:
 * the counting ws server, the tabs, freezing a tab, and the waits and checks on both.
 *
 * `resilient-socket/shared` (dist/shared.js, the browser build) in Chromium: three tabs of one
 * origin (three pages of ONE browser context, so that they share BroadcastChannel and Web Locks,
 * as tabs of one profile do), each with a SharedSocket to the same real `ws` server on 127.0.0.1.
 * The pages are served from 127.0.0.1 (a secure context: navigator.locks exists) by the static
 * server of the examples; test/browser/pages/shared/recorder.js exposes `window.rsShared`, which
 * creates the page's socket and logs what it reports. The server side counts every connection it
 * accepts (with Node's clock), what each one receives, and when and how each one closes.
 *
 * What is proven, each with assertions that fail when sharing breaks:
 * - one connection for three tabs, exactly one leader;
 * - a burst of messages from every tab reaches the server exactly once, in each tab's order;
 * - every tab receives every server message, once, in order;
 * - the leader tab going away (page.close(), or socket.close() in it) → another tab leads, and
 *   the server sees exactly one new connection, within 1 s + the backoff bound of the close; what
 *   the other tabs sent during the handover arrives once, in order;
 * - a frozen (hung) leader → a follower steals the lock and connects within 1 s + the backoff
 *   bound; the followers' messages sent meanwhile arrive once; thawed, the old leader follows and
 *   its connection is closed: one open connection at the end;
 * - a server restart → ONE reconnect (one new connection), not one per tab; every tab back open;
 *   what every tab queued during the outage arrives once, in order;
 * - the last tab's close (socket.close(), or page.close()) → the server sees the connection close;
 *   closing the other tabs first leaves it open;
 * - a message handed to a frozen leader just before a follower takes over, the old leader thawing
 *   soon after (young enough for it to write the message): the server gets it exactly once.
 *
 * Timing method: every takeover is timed from Node (performance.now()) to the server's
 * `connection` event of the new connection (same clock), from just before the close command is
 * sent, or from the moment the frozen page's busy loop started (its console message reached Node).
 * The sockets use `maxDelay: 200` (and the default ceiling, 8 for it), so every backoff delay is below 200 ms:
 * the bound asserted is 1000 ms (the SharedSocket's takeover promise) + 200 ms.
 * Every wait is bounded; the only fixed periods are short windows in which nothing may change.
 *
 * How a tab is frozen: CDP `Page.setWebLifecycleState({ state: 'frozen' })` does nothing in a page
 * Playwright drives (it answers `{}`, but no `freeze` event fires and timers and BroadcastChannel
 * keep running): Playwright enables focus emulation on every page, which holds a *visible* capture
 * of it, so Chromium never hides it and never freezes a visible page (the same command on a page
 * of a Chromium not driven by Playwright does freeze it). CDP `Debugger.pause` stops the page, but
 * Chromium then drops the BroadcastChannel messages sent to it instead of queueing them. So the
 * leader is frozen the way a hung tab is: its main thread runs a busy loop for HANG_MS (started
 * with page.evaluate, not awaited). Nothing in the page runs (timers, BroadcastChannel, Web Locks
 * callbacks wait in its queues, its WebSocket stays connected), each tab has its own renderer
 * process so the others run on, and when the loop ends it thaws and runs what was queued, in order.
 */
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, expect } from 'vitest';
import type { WebSocket } from 'ws';
import { RestartableWsServer } from '../../examples/lib/restartable-ws.js';
import { type StaticServer, startStaticServer } from '../../examples/lib/static-server.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';
import {
  type BrowserHarness,
  eventually,
  loadPage,
  runIn,
  unchangedFor as unchangedForEvery,
  useBrowser,
} from './harness.js';

export const PAGE_DIR = join(import.meta.dirname, 'pages', 'shared');
/** The backoff bound: with `maxDelay: 200` every delay is drawn below 200 ms. */
export const MAX_DELAY = 200;
/** What SharedSocket promises for a takeover, before the backoff. */
export const TAKEOVER_MS = 1_000;
export const OPTIONS = { maxDelay: MAX_DELAY };
/** How long nothing may change for the tests to call a situation settled. */
export const QUIET_MS = 400;
/** How long the frozen leader stays frozen (its main thread busy). */
export const HANG_MS = 3_500;
/** Between the creations of the tabs' sockets (see openTabs). */
export const SPACING_MS = 0;

// ─── the server ─────────────────────────────────────────────────────────────────────────────────

export interface Connection {
  readonly id: number;
  /** performance.now() in Node at the server's `connection` event. */
  readonly at: number;
  readonly socket: WebSocket;
  readonly received: string[];
  closed?: { readonly at: number; readonly code: number; readonly reason: string };
}

/** A ws server on 127.0.0.1 (port 0) that can restart on its port, and records every connection. */
export class CountingServer {
  readonly connections: Connection[] = [];
  /** Every text frame received, with the connection it came on, in arrival order. */
  readonly received: { readonly connection: number; readonly text: string }[] = [];
  readonly ws = new RestartableWsServer((socket) => {
    const connection: Connection = { id: this.connections.length + 1, at: performance.now(), socket, received: [] };
    this.connections.push(connection);
    socket.on('message', (data, isBinary) => {
      const text = isBinary ? '<binary>' : String(data);
      connection.received.push(text);
      this.received.push({ connection: connection.id, text });
    });
    socket.on('close', (code, reason) => {
      connection.closed = { at: performance.now(), code, reason: String(reason) };
    });
  });

  /** Starts a server, crashed by `cleanup` (after the test). */
  static async start(cleanup: Cleanup): Promise<CountingServer> {
    const server = new CountingServer();
    await server.ws.start();
    return cleanup.add(server, (s) => s.ws.crash());
  }

  get url(): string {
    return this.ws.url;
  }

  /** The connections not closed (as the server's sockets report it). */
  get open(): Connection[] {
    return this.connections.filter((c) => !c.closed);
  }

  get texts(): string[] {
    return this.received.map((r) => r.text);
  }

  broadcast(text: string): void {
    for (const connection of this.open) connection.socket.send(text);
  }

  describe() {
    return this.connections.map((c) => ({ id: c.id, closed: c.closed, received: c.received.length }));
  }
}

// ─── the tabs ───────────────────────────────────────────────────────────────────────────────────

export interface Entry {
  readonly t: number;
  readonly event: string;
  readonly role: string;
  readonly state: string;
  readonly [detail: string]: unknown;
}

export interface Snapshot {
  readonly role: 'leader' | 'follower';
  readonly state: string;
  readonly readyState: number;
  readonly bufferedCount: number;
}

/** `window.rsShared` of pages/shared/recorder.js. */
export interface RsShared {
  readonly exports: string[];
  create(url: string, options?: Record<string, unknown>): Snapshot;
  snapshot(): Snapshot;
  send(texts: string[]): string[];
  messages(): string[];
  log(event?: string): Entry[];
  count(event: string): number;
  close(code?: number, reason?: string): string;
  dump(): unknown;
}

export interface Tab {
  readonly name: string;
  readonly page: Page;
}

/** Tabs frozen by a test: the promise of each one's busy loop (awaited after the test). */
const frozen = new Map<Page, Promise<unknown>>();

export async function thawAll(): Promise<void> {
  for (const hang of frozen.values()) await hang.catch(() => undefined);
  frozen.clear();
}

/**
 * Freezes the tab for `ms`: its main thread runs a busy loop (see the header). Resolves once the
 * loop has started (the page's message saying so), with the time (Node's clock) it started at.
 */
export async function freeze(tab: Tab, ms: number): Promise<{ frozenAt: number; thawed: Promise<unknown> }> {
  const started = tab.page.waitForEvent('console', { predicate: (m) => m.text() === 'rs-test: frozen' });
  const thawed = tab.page.evaluate((hang) => {
    console.log('rs-test: frozen');
    const end = performance.now() + hang;
    while (performance.now() < end) {
      // frozen: nothing else in this page runs
    }
  }, ms);
  frozen.set(tab.page, thawed);
  await started;
  const frozenAt = performance.now();
  const thaw = () => frozen.delete(tab.page);
  void thawed.then(thaw, thaw);
  return { frozenAt, thawed };
}

/**
 * Runs `fn(window.rsShared, arg)` in the tab and returns its (awaited, JSON-serialisable) result.
 * `fn` is sent as source text: it must not use anything from this file, only its arguments.
 */
export function run<R, A = undefined>(tab: Tab, fn: (t: RsShared, arg: A) => R | Promise<R>, arg?: A): Promise<R> {
  return runIn(tab.page, 'rsShared', fn, arg);
}

/** What every tab (not closed, not frozen) says of itself. */
export async function dumpTabs(tabs: readonly Tab[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const tab of tabs) {
    if (tab.page.isClosed()) out[tab.name] = 'closed';
    else if (frozen.has(tab.page)) out[tab.name] = 'frozen';
    else out[tab.name] = await run(tab, (t) => t.dump()).catch((error: unknown) => `(unreadable: ${String(error)})`);
  }
  return out;
}

/** Snapshots of the tabs, in order. */
export function snapshots(tabs: readonly Tab[]): Promise<Snapshot[]> {
  return Promise.all(tabs.map((tab) => run(tab, (t) => t.snapshot())));
}

/** Waits (at most `timeout` ms) until `check` accepts the tabs' snapshots; fails with every tab's log. */
export async function untilTabs(
  tabs: readonly Tab[],
  what: string,
  timeout: number,
  check: (all: Snapshot[]) => boolean,
): Promise<Snapshot[]> {
  try {
    return await eventually(() => snapshots(tabs), check, timeout, what);
  } catch (error) {
    throw new Error(`${(error as Error).message}\ntabs: ${JSON.stringify(await dumpTabs(tabs), null, 1)}`, {
      cause: error,
    });
  }
}

/** Waits (at most `timeout` ms) for a condition on the server; returns the time waited. */
export function untilServer(server: CountingServer, what: string, timeout: number, predicate: () => boolean) {
  return waitFor(predicate, timeout, what, { describe: () => server.describe() });
}

/** Fails if any of `read()` changes during `ms` (read every 25 ms). */
export function unchangedFor<T>(ms: number, what: string, read: () => T | Promise<T>): Promise<void> {
  return unchangedForEvery(ms, what, read, 25);
}

export const roles = (all: Snapshot[]) => all.map((s) => s.role);
export const oneLeader = (all: Snapshot[]) => roles(all).filter((r) => r === 'leader').length === 1;
export const allOpen = (all: Snapshot[]) => all.every((s) => s.state === 'open');

/** The leader tab and the others (fails unless exactly one tab leads). */
export async function leaderOf(tabs: readonly Tab[]): Promise<{ leader: Tab; followers: Tab[] }> {
  const all = await snapshots(tabs);
  expect(
    roles(all).filter((r) => r === 'leader'),
    JSON.stringify(roles(all)),
  ).toHaveLength(1);
  const at = roles(all).indexOf('leader');
  return { leader: tabs[at] as Tab, followers: tabs.filter((_, i) => i !== at) };
}

/** `count` texts `<tab>-<i>`, from `from`. */
export const burst = (tab: Tab, count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `${tab.name}-${from + i}`);

/** What the server received from `tab` (by the text's prefix), in arrival order. */
export const fromTab = (server: CountingServer, tab: Tab) =>
  server.texts.filter((text) => text.startsWith(`${tab.name}-`));

/** Sends a burst from every tab at once, waits for the server to have them all, and checks each arrived once, in order. */
export async function sendBurstsAndCheck(server: CountingServer, tabs: readonly Tab[], count: number, from = 0) {
  const before = server.texts.length;
  const results = await Promise.all(tabs.map((tab) => run(tab, (t, texts) => t.send(texts), burst(tab, count, from))));
  for (const result of results) expect(result).toEqual(Array(count).fill('sent'));
  await untilServer(server, 'every burst to arrive', 3_000, () => server.texts.length >= before + tabs.length * count);
  await unchangedFor(QUIET_MS, 'what the server received', () => server.texts.length);
  for (const tab of tabs) {
    const got = fromTab(server, tab);
    expect(got.slice(got.length - count), `${tab.name}'s messages`).toEqual(burst(tab, count, from));
  }
  expect(server.texts).toHaveLength(before + tabs.length * count);
  await untilTabs(tabs, 'nothing left unconfirmed', 2_000, (all) => all.every((s) => s.bufferedCount === 0));
}

/** Broadcasts `texts` from the server and checks every tab received them once, in order (after what it had). */
export async function broadcastAndCheck(server: CountingServer, tabs: readonly Tab[], texts: string[]) {
  const before = await Promise.all(tabs.map((tab) => run(tab, (t) => t.messages())));
  for (const text of texts) server.broadcast(text);
  const want = before.map((had) => [...had, ...texts]);
  const read = () => Promise.all(tabs.map((tab) => run(tab, (t) => t.messages())));
  const same = (got: string[][]) => JSON.stringify(got) === JSON.stringify(want);
  await eventually(read, same, 3_000, `every tab to receive ${JSON.stringify(texts)}`);
  await unchangedFor(QUIET_MS, 'the messages of the tabs', read);
}

/** Logs a measured time (visible in the vitest output). */
export function report(what: string, ms: number): void {
  console.log(`[shared-socket] ${what}: ${ms.toFixed(0)} ms`);
}

export interface SharedTabs {
  /** Run after each test, last: the servers go here. */
  readonly cleanup: Cleanup;
  readonly browser: BrowserHarness;
  openTabs(
    server: CountingServer,
    n?: number,
    options?: Record<string, unknown>,
  ): Promise<{ site: StaticServer; context: BrowserContext; tabs: Tab[] }>;
}

/**
 * The hooks of a test file that drives tabs of the test page: after each test, in this order, the
 * frozen tabs are waited for (no context is closed with a frozen page), the contexts are closed
 * (and console errors fail the test, see useBrowser), then `cleanup` runs (the servers stop).
 */
export function useSharedTabs(): SharedTabs {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run()); // runs last: stops the servers
  const browser = useBrowser(); // closes the contexts (and fails the test on console errors)
  afterEach(thawAll); // registered last, so it runs first: no context is closed with a frozen page

  /**
   * `n` tabs (pages of one context) on the test page, each with a SharedSocket to `server`, created
   * SPACING_MS apart (tab0 first: it leads); resolves once every tab is open with exactly one leader.
   *
   * SPACING_MS is 0: the tabs' watches run in whatever phase they get (a second follower in line
   * waits STAGGER, 450 ms, longer than the first, more than a watch period plus the spread of
   * their phases: it never steals before it hears the first one lead).
   */
  async function openTabs(server: CountingServer, n = 3, options: Record<string, unknown> = OPTIONS) {
    const site: StaticServer = cleanup.add(await startStaticServer({ root: PAGE_DIR }), (s) => s.stop());
    const context: BrowserContext = await browser.newContext();
    const tabs: Tab[] = [];
    for (let i = 0; i < n; i++) {
      const page = await context.newPage();
      await loadPage(page, site.url, 'rsShared');
      tabs.push({ name: `tab${i}`, page });
    }
    const start = performance.now();
    for (const [i, tab] of tabs.entries()) {
      await sleep(start + i * SPACING_MS - performance.now());
      await run(tab, (t, o) => t.create(o.url, o.options), { url: server.url, options });
    }
    await untilTabs(tabs, 'every tab open, one leader', 5_000, (all) => allOpen(all) && oneLeader(all));
    return { site, context, tabs };
  }

  return { cleanup, browser, openTabs };
}
