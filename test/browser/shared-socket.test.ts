import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { RestartableWsServer } from '../../examples/lib/restartable-ws.js';
import { type StaticServer, startStaticServer } from '../../examples/lib/static-server.js';
import { type SharedTabsServer, startSharedTabsServer } from '../../examples/shared-tabs/server.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';
import { eventually, saveScreenshot, useBrowser, WEBSOCKET_FAILED } from './harness.js';

// `resilient-socket/shared` (dist/shared.js, the browser build) in Chromium: three tabs of one
// origin (three pages of ONE browser context, so that they share BroadcastChannel and Web Locks,
// as tabs of one profile do), each with a SharedSocket to the same real `ws` server on 127.0.0.1.
// The pages are served from 127.0.0.1 (a secure context: navigator.locks exists) by the static
// server of the examples; test/browser/pages/shared/recorder.js exposes `window.rsShared`, which
// creates the page's socket and logs what it reports. The server side counts every connection it
// accepts (with Node's clock), what each one receives, and when and how each one closes.
//
// What is proven, each with assertions that fail when sharing breaks:
// - one connection for three tabs, exactly one leader;
// - a burst of messages from every tab reaches the server exactly once, in each tab's order;
// - every tab receives every server message, once, in order;
// - the leader tab going away (page.close(), or socket.close() in it) → another tab leads, and
//   the server sees exactly one new connection, within 1 s + the backoff bound of the close; what
//   the other tabs sent during the handover arrives once, in order;
// - a frozen (hung) leader → a follower steals the lock and connects within 1 s + the backoff
//   bound; the followers' messages sent meanwhile arrive once; thawed, the old leader follows and
//   its connection is closed: one open connection at the end;
// - a server restart → ONE reconnect (one new connection), not one per tab; every tab back open;
//   what every tab queued during the outage arrives once, in order;
// - the last tab's close (socket.close(), or page.close()) → the server sees the connection close;
//   closing the other tabs first leaves it open;
// - a message handed to a frozen leader just before a follower takes over, the old leader thawing
//   soon after (young enough for it to write the message): the server gets it exactly once.
//
// Timing method: every takeover is timed from Node (performance.now()) to the server's
// `connection` event of the new connection (same clock), from just before the close command is
// sent, or from the moment the frozen page's busy loop started (its console message reached Node).
// The sockets use `maxDelay: 200` (and the default ceiling, 8 for it), so every backoff delay is below 200 ms:
// the bound asserted is 1000 ms (the SharedSocket's takeover promise) + 200 ms.
// Every wait is bounded; the only fixed periods are short windows in which nothing may change.
//
// How a tab is frozen: CDP `Page.setWebLifecycleState({ state: 'frozen' })` does nothing in a page
// Playwright drives (it answers `{}`, but no `freeze` event fires and timers and BroadcastChannel
// keep running): Playwright enables focus emulation on every page, which holds a *visible* capture
// of it, so Chromium never hides it and never freezes a visible page (the same command on a page
// of a Chromium not driven by Playwright does freeze it). CDP `Debugger.pause` stops the page, but
// Chromium then drops the BroadcastChannel messages sent to it instead of queueing them. So the
// leader is frozen the way a hung tab is: its main thread runs a busy loop for HANG_MS (started
// with page.evaluate, not awaited). Nothing in the page runs (timers, BroadcastChannel, Web Locks
// callbacks wait in its queues, its WebSocket stays connected), each tab has its own renderer
// process so the others run on, and when the loop ends it thaws and runs what was queued, in order.
//
// The last describe tests the example `examples/shared-tabs/` (npm run example:shared) the same
// way: two tabs of one context, one server connection, a line typed in one tab shows in the other,
// and closing the leader tab hands the connection over (one new connection).

const PAGE_DIR = join(import.meta.dirname, 'pages', 'shared');
/** The backoff bound: with `maxDelay: 200` every delay is drawn below 200 ms. */
const MAX_DELAY = 200;
/** What SharedSocket promises for a takeover, before the backoff. */
const TAKEOVER_MS = 1_000;
const OPTIONS = { maxDelay: MAX_DELAY };
/** How long nothing may change for the tests to call a situation settled. */
const QUIET_MS = 400;
/** How long the frozen leader stays frozen (its main thread busy). */
const HANG_MS = 3_500;
/** Between the creations of the tabs' sockets (see openTabs). */
const SPACING_MS = 0;

const cleanup = new Cleanup();
afterEach(() => cleanup.run()); // runs last: stops the servers
const browser = useBrowser(); // closes the contexts (and fails the test on console errors)
afterEach(thawAll); // registered last, so it runs first: no context is closed with a frozen page

// ─── the server ─────────────────────────────────────────────────────────────────────────────────

interface Connection {
  readonly id: number;
  /** performance.now() in Node at the server's `connection` event. */
  readonly at: number;
  readonly socket: WebSocket;
  readonly received: string[];
  closed?: { readonly at: number; readonly code: number; readonly reason: string };
}

/** A ws server on 127.0.0.1 (port 0) that can restart on its port, and records every connection. */
class CountingServer {
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

  static async start(): Promise<CountingServer> {
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

interface Entry {
  readonly t: number;
  readonly event: string;
  readonly role: string;
  readonly state: string;
  readonly [detail: string]: unknown;
}

interface Snapshot {
  readonly role: 'leader' | 'follower';
  readonly state: string;
  readonly readyState: number;
  readonly bufferedCount: number;
}

/** `window.rsShared` of pages/shared/recorder.js. */
interface RsShared {
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

interface Tab {
  readonly name: string;
  readonly page: Page;
}

/** Tabs frozen by a test: the promise of each one's busy loop (awaited after the test). */
const frozen = new Map<Page, Promise<unknown>>();

async function thawAll(): Promise<void> {
  for (const hang of frozen.values()) await hang.catch(() => undefined);
  frozen.clear();
}

/**
 * Freezes the tab for `ms`: its main thread runs a busy loop (see the header). Resolves once the
 * loop has started (the page's message saying so), with the time (Node's clock) it started at.
 */
async function freeze(tab: Tab, ms: number): Promise<{ frozenAt: number; thawed: Promise<unknown> }> {
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
function run<R, A = undefined>(tab: Tab, fn: (t: RsShared, arg: A) => R | Promise<R>, arg?: A): Promise<R> {
  return tab.page.evaluate(`(${fn.toString()})(window.rsShared, ${JSON.stringify(arg ?? null)})`) as Promise<R>;
}

/** What every tab (not closed, not frozen) says of itself. */
async function dumpTabs(tabs: readonly Tab[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const tab of tabs) {
    if (tab.page.isClosed()) out[tab.name] = 'closed';
    else if (frozen.has(tab.page)) out[tab.name] = 'frozen';
    else out[tab.name] = await run(tab, (t) => t.dump()).catch((error: unknown) => `(unreadable: ${String(error)})`);
  }
  return out;
}

/** Snapshots of the tabs, in order. */
function snapshots(tabs: readonly Tab[]): Promise<Snapshot[]> {
  return Promise.all(tabs.map((tab) => run(tab, (t) => t.snapshot())));
}

/** Waits (at most `timeout` ms) until `check` accepts the tabs' snapshots; fails with every tab's log. */
async function untilTabs(
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
function untilServer(server: CountingServer, what: string, timeout: number, predicate: () => boolean) {
  return waitFor(predicate, timeout, what, { describe: () => server.describe() });
}

/** Fails if any of `read()` changes during `ms`. */
async function unchangedFor<T>(ms: number, what: string, read: () => T | Promise<T>): Promise<void> {
  const first = JSON.stringify(await read());
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    await sleep(25);
    const now = JSON.stringify(await read());
    if (now !== first) throw new Error(`${what} changed: ${first} → ${now}`);
  }
}

const roles = (all: Snapshot[]) => all.map((s) => s.role);
const oneLeader = (all: Snapshot[]) => roles(all).filter((r) => r === 'leader').length === 1;
const allOpen = (all: Snapshot[]) => all.every((s) => s.state === 'open');

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
    await page.goto(site.url);
    await page.waitForFunction(() => 'rsShared' in window, undefined, { timeout: 5_000, polling: 20 });
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

/** The leader tab and the others (fails unless exactly one tab leads). */
async function leaderOf(tabs: readonly Tab[]): Promise<{ leader: Tab; followers: Tab[] }> {
  const all = await snapshots(tabs);
  expect(
    roles(all).filter((r) => r === 'leader'),
    JSON.stringify(roles(all)),
  ).toHaveLength(1);
  const at = roles(all).indexOf('leader');
  return { leader: tabs[at] as Tab, followers: tabs.filter((_, i) => i !== at) };
}

/** `count` texts `<tab>-<i>`, from `from`. */
const burst = (tab: Tab, count: number, from = 0) => Array.from({ length: count }, (_, i) => `${tab.name}-${from + i}`);

/** What the server received from `tab` (by the text's prefix), in arrival order. */
const fromTab = (server: CountingServer, tab: Tab) => server.texts.filter((text) => text.startsWith(`${tab.name}-`));

/** Sends a burst from every tab at once, waits for the server to have them all, and checks each arrived once, in order. */
async function sendBurstsAndCheck(server: CountingServer, tabs: readonly Tab[], count: number, from = 0) {
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
async function broadcastAndCheck(server: CountingServer, tabs: readonly Tab[], texts: string[]) {
  const before = await Promise.all(tabs.map((tab) => run(tab, (t) => t.messages())));
  for (const text of texts) server.broadcast(text);
  const want = before.map((had) => [...had, ...texts]);
  const read = () => Promise.all(tabs.map((tab) => run(tab, (t) => t.messages())));
  const same = (got: string[][]) => JSON.stringify(got) === JSON.stringify(want);
  await eventually(read, same, 3_000, `every tab to receive ${JSON.stringify(texts)}`);
  await unchangedFor(QUIET_MS, 'the messages of the tabs', read);
}

/** Logs a measured time (visible in the vitest output). */
function report(what: string, ms: number): void {
  console.log(`[shared-socket] ${what}: ${ms.toFixed(0)} ms`);
}

// ─── the tests ──────────────────────────────────────────────────────────────────────────────────

describe('SharedSocket in Chromium: three tabs of one origin, one real ws server', () => {
  it('loads dist/shared.js; three tabs make ONE connection, with exactly one leader', async () => {
    const server = await CountingServer.start();
    const { tabs } = await openTabs(server);
    expect(await run(tabs[0] as Tab, (t) => t.exports)).toContain('SharedSocket');
    await unchangedFor(QUIET_MS, 'the roles and states', async () => [
      roles(await snapshots(tabs)),
      server.connections.length,
    ]);
    expect(server.connections).toHaveLength(1);
    expect(server.open).toHaveLength(1);
    const all = await snapshots(tabs);
    expect(roles(all).sort()).toEqual(['follower', 'follower', 'leader']);
    expect(all.map((s) => [s.state, s.readyState])).toEqual([
      ['open', 1],
      ['open', 1],
      ['open', 1],
    ]);
    // The leader heard `role: leader` once; the followers never led.
    for (const [i, tab] of tabs.entries()) {
      const heard = (await run(tab, (t) => t.log('role'))).map((e) => e.value);
      if (all[i]?.role === 'leader') expect(heard, tab.name).toEqual(['leader']);
      else expect(heard, tab.name).not.toContain('leader');
      expect(await run(tab, (t) => t.count('open')), `${tab.name} open events`).toBe(1);
    }
  });

  it('a burst of 5 messages from every tab reaches the server exactly once, in each tab’s order; every tab receives every server message', async () => {
    const server = await CountingServer.start();
    const { tabs } = await openTabs(server);
    await sendBurstsAndCheck(server, tabs, 5);
    expect(server.connections).toHaveLength(1);
    expect(server.received.filter((r) => r.connection !== 1)).toEqual([]);

    await broadcastAndCheck(server, tabs, ['news-1', 'news-2', 'news-3']);
    // The echo of nothing: no tab got a message twice, or someone else's outbound message.
    for (const tab of tabs) expect(await run(tab, (t) => t.messages())).toEqual(['news-1', 'news-2', 'news-3']);
    expect(server.connections).toHaveLength(1);
  });

  for (const how of ['page.close()', 'socket.close()'] as const) {
    it(`the leader tab goes away (${how}): another tab leads, the server sees exactly one new connection within 1 s + the backoff bound`, async () => {
      const server = await CountingServer.start();
      const { tabs } = await openTabs(server);
      const { leader, followers } = await leaderOf(tabs);
      const first = server.connections[0] as Connection;

      const closedAt = performance.now();
      const closing =
        how === 'page.close()'
          ? leader.page.close()
          : run(leader, (t) => t.close()).then((state) => expect(state).toMatch(/^clos(ing|ed)$/));
      // Sent by the other tabs during the handover (to the leader that is going, or queued).
      const during = await Promise.all(followers.map((tab) => run(tab, (t, texts) => t.send(texts), burst(tab, 3))));
      for (const result of during) for (const r of result) expect(['sent', 'buffered']).toContain(r);
      await closing;
      await untilServer(
        server,
        'a new connection',
        TAKEOVER_MS + MAX_DELAY + 2_000,
        () => server.connections.length >= 2,
      );
      const takeover = (server.connections[1] as Connection).at - closedAt;
      report(`takeover after ${how} of the leader (close → new server connection)`, takeover);
      expect(takeover).toBeLessThan(TAKEOVER_MS + MAX_DELAY);

      const after = await untilTabs(
        followers,
        'the other tabs open, one leader',
        3_000,
        (all) => allOpen(all) && oneLeader(all),
      );
      await untilServer(server, 'the old connection to close', 2_000, () => first.closed !== undefined);
      await unchangedFor(QUIET_MS, 'the connections and roles', async () => [
        server.connections.length,
        server.open.length,
        roles(await snapshots(followers)),
      ]);
      expect(server.connections).toHaveLength(2);
      expect(server.open.map((c) => c.id)).toEqual([2]);
      expect(roles(after).sort()).toEqual(['follower', 'leader']);
      if (how === 'socket.close()') {
        expect(first.closed?.code).toBe(1000); // the tab closed its own connection
        expect((await run(leader, (t) => t.snapshot())).state).toBe('closed');
      }
      // The new leader took over: it had been a follower, it heard `role: leader` once.
      const { leader: next } = await leaderOf(followers);
      expect((await run(next, (t) => t.log('role'))).map((e) => e.value)).toEqual(['leader']);
      // What the two tabs sent during the handover arrived once each, in order (on the old
      // connection if the leader wrote it before it went, else on the new one).
      await untilServer(server, 'the messages sent during the handover', 2_000, () => server.texts.length >= 6);
      expect(server.texts).toHaveLength(6);
      for (const tab of followers) expect(fromTab(server, tab), tab.name).toEqual(burst(tab, 3));
      // The shared connection works: both tabs' messages through it, once, in order.
      await sendBurstsAndCheck(server, followers, 5, 100);
      expect(server.received.slice(6).filter((r) => r.connection !== 2)).toEqual([]);
      await broadcastAndCheck(server, followers, ['after-takeover']);
      expect(server.connections).toHaveLength(2);
    });
  }

  it('a frozen leader: a follower takes over within 1 s + the backoff bound, the followers’ messages arrive once, the thawed leader follows; one open connection at the end', async () => {
    const server = await CountingServer.start();
    const { tabs } = await openTabs(server);
    const { leader, followers } = await leaderOf(tabs);

    const { frozenAt, thawed } = await freeze(leader, HANG_MS);
    // Sent by the followers while the leader is frozen (handed to it: it cannot write them).
    const during = await Promise.all(followers.map((tab) => run(tab, (t, texts) => t.send(texts), burst(tab, 3))));
    for (const result of during) for (const r of result) expect(['sent', 'buffered']).toContain(r);

    await untilServer(
      server,
      'a new connection',
      TAKEOVER_MS + MAX_DELAY + 1_000,
      () => server.connections.length >= 2,
    );
    const takeover = (server.connections[1] as Connection).at - frozenAt;
    report('takeover from a frozen leader (freeze → new server connection)', takeover);
    expect(takeover).toBeLessThan(TAKEOVER_MS + MAX_DELAY);
    await untilTabs(
      followers,
      'the followers open, one of them leader',
      1_000,
      (all) => allOpen(all) && oneLeader(all),
    );

    // What the followers sent while the leader was frozen arrives once, in order, on the new connection.
    await untilServer(server, 'the messages sent during the freeze', 1_000, () => server.texts.length >= 6);
    for (const tab of followers) expect(fromTab(server, tab), tab.name).toEqual(burst(tab, 3));
    expect(server.received.filter((r) => r.connection !== 2)).toEqual([]);
    // Frozen, the old leader still holds its connection (nothing in it runs to close it).
    expect(performance.now() - frozenAt, 'checked while the leader is still frozen').toBeLessThan(HANG_MS);
    expect(server.connections).toHaveLength(2);
    expect(server.open).toHaveLength(2);
    // The server sends a message to every connection it has, as a pub/sub server does: the new
    // leader's, and the frozen tab's old one (where it waits, unread).
    server.broadcast('while-frozen');
    const read = () => Promise.all(followers.map((tab) => run(tab, (t) => t.messages())));
    await eventually(read, (got) => got.every((m) => m.includes('while-frozen')), 1_000, 'the followers to receive it');

    // Thawed: it learns it was deposed, follows, and its connection is closed.
    await thawed;
    await untilTabs(tabs, 'all three open, one leader, the old one following', 3_000, (all) => {
      const at = tabs.indexOf(leader);
      return allOpen(all) && oneLeader(all) && all[at]?.role === 'follower';
    });
    await untilServer(server, 'the old leader’s connection to close', 3_000, () => server.open.length === 1);
    await unchangedFor(QUIET_MS, 'the connections, roles and what the server received', async () => [
      server.connections.length,
      server.open.length,
      server.texts.length,
      roles(await snapshots(tabs)),
    ]);
    expect(server.open.map((c) => c.id)).toEqual([2]);
    expect(server.connections).toHaveLength(2);
    // Still exactly once: the thawed leader did not write the stale messages it found in its queue.
    expect(server.texts).toHaveLength(6);
    for (const tab of followers) expect(fromTab(server, tab), tab.name).toEqual(burst(tab, 3));
    expect((await run(leader, (t) => t.log('role'))).map((e) => e.value)).toEqual(['leader', 'follower']);
    // Every tab got the message sent during the freeze once: the followers from the new leader,
    // the thawed tab from its old connection or from the new leader, not from both.
    for (const tab of tabs) expect(await run(tab, (t) => t.messages()), tab.name).toEqual(['while-frozen']);

    // And the three tabs share the new connection.
    await sendBurstsAndCheck(server, tabs, 5, 100);
    await broadcastAndCheck(server, tabs, ['after-thaw']);
    expect(server.connections).toHaveLength(2);
  });

  it('a server restart: ONE reconnect for the three tabs (one new connection), every tab open again', async () => {
    const server = await CountingServer.start();
    const { tabs } = await openTabs(server);
    const { leader } = await leaderOf(tabs);
    browser.allowConsoleErrors(WEBSOCKET_FAILED); // the leader's attempts refused while the server is down

    await server.ws.crash();
    await untilTabs(tabs, 'every tab to see the connection lost', 3_000, (all) => all.every((s) => s.state !== 'open'));
    // Sent by every tab while the server is down: each tab queues its own.
    const during = await Promise.all(tabs.map((tab) => run(tab, (t, texts) => t.send(texts), burst(tab, 2))));
    for (const result of during) expect(result).toEqual(['buffered', 'buffered']);
    const restartedAt = performance.now();
    await server.ws.start();
    await untilServer(server, 'the reconnect', 3_000, () => server.connections.length >= 2);
    report(
      'reconnect after the server restart (listening again → new connection)',
      (server.connections[1] as Connection).at - restartedAt,
    );
    await untilTabs(tabs, 'every tab open again, one leader', 3_000, (all) => allOpen(all) && oneLeader(all));
    await unchangedFor(QUIET_MS * 2, 'the connections and roles', async () => [
      server.connections.length,
      server.open.length,
      roles(await snapshots(tabs)),
    ]);
    expect(server.connections).toHaveLength(2);
    expect(server.open.map((c) => c.id)).toEqual([2]);
    // The same leader reconnected; every tab heard the close and a reconnected open.
    expect((await leaderOf(tabs)).leader).toBe(leader);
    // (`close` is emitted for the lost connection and for every attempt refused before the server
    // listened again: the followers mirror the leader's.)
    const closes = await run(leader, (t) => t.count('close'));
    expect(closes).toBeGreaterThanOrEqual(1);
    for (const tab of tabs) {
      const opens = await run(tab, (t) => t.log('open'));
      expect(
        opens.map((e) => e.reconnected),
        tab.name,
      ).toEqual([false, true]);
      expect(await run(tab, (t) => t.count('close')), tab.name).toBe(closes);
    }
    // What they queued during the outage went out once, in order, on the new connection.
    await untilServer(server, 'the queued messages', 2_000, () => server.texts.length >= 6);
    for (const tab of tabs) expect(fromTab(server, tab), tab.name).toEqual(burst(tab, 2));
    expect(server.received.filter((r) => r.connection !== 2)).toEqual([]);
    await sendBurstsAndCheck(server, tabs, 3, 100);
    expect(server.texts).toHaveLength(6 + 9);
    await broadcastAndCheck(server, tabs, ['after-restart']);
  });

  it('socket.close() in every tab, the leader last: the connection stays open until the last one closes it (code 1000)', async () => {
    const server = await CountingServer.start();
    const { tabs } = await openTabs(server);
    const { leader, followers } = await leaderOf(tabs);
    for (const tab of followers) expect(await run(tab, (t) => t.close())).toBe('closed');
    await unchangedFor(QUIET_MS, 'the connections', () => [server.connections.length, server.open.length]);
    expect(server.open.map((c) => c.id)).toEqual([1]);
    expect(await run(leader, (t) => t.snapshot())).toMatchObject({ role: 'leader', state: 'open' });

    const closedAt = performance.now();
    expect(await run(leader, (t) => t.close())).toMatch(/^clos(ing|ed)$/);
    await untilServer(server, 'the server to see the connection close', 2_000, () => server.open.length === 0);
    report(
      'last tab socket.close() → server close event',
      (server.connections[0]?.closed?.at ?? Number.NaN) - closedAt,
    );
    expect(server.connections[0]?.closed?.code).toBe(1000);
    await unchangedFor(QUIET_MS, 'the connections', () => server.connections.length);
    expect(server.connections).toHaveLength(1);
  });

  it('page.close() of every tab, the leader last: the connection stays open until the last tab is gone', async () => {
    const server = await CountingServer.start();
    const { tabs } = await openTabs(server);
    const { leader, followers } = await leaderOf(tabs);
    for (const tab of followers) await tab.page.close();
    await unchangedFor(QUIET_MS, 'the connections', () => [server.connections.length, server.open.length]);
    expect(server.open.map((c) => c.id)).toEqual([1]);
    expect(await run(leader, (t) => t.snapshot())).toMatchObject({ role: 'leader', state: 'open' });

    const closedAt = performance.now();
    await leader.page.close();
    await untilServer(server, 'the server to see the connection close', 2_000, () => server.open.length === 0);
    report('last tab page.close() → server close event', (server.connections[0]?.closed?.at ?? Number.NaN) - closedAt);
    await unchangedFor(QUIET_MS, 'the connections', () => server.connections.length);
    expect(server.connections).toHaveLength(1);
  });
  // A follower hands a message to its leader, which is frozen; the follower then takes the lock
  // over, and the old leader thaws less than STALE_AFTER (400 ms) after the message was handed: it
  // reads its queue in order, finds the message young enough and writes it on its old connection
  // before it learns it was deposed. The new leader holds what it took back from a leader that was
  // taken over until that leader would refuse it (and counts the old leader's confirmation): the
  // server gets the message once (without that hold it arrives twice).
  // The race needs the hand to land in a window of about 100 ms, which a loaded machine can miss
  // (the follower already leading, or the thaw too late): the scenario then runs again, at most
  // RACE_RUNS times, until it happened once. Every run, raced or not, must deliver the message once.
  it('a message handed to a frozen leader just before a follower takes over is written once, also when the old leader thaws soon after', async () => {
    const RACE_RUNS = 4;
    const runs: { role: string; thawAfterHand: number; copies: number }[] = [];
    while (runs.length < RACE_RUNS && !runs.some(raced)) {
      const server = await CountingServer.start();
      const { tabs, context } = await openTabs(server, 2);
      const { leader, followers } = await leaderOf(tabs);
      const follower = followers[0] as Tab;
      const { frozenAt, thawed } = await freeze(leader, 900);
      // 550 ms into the freeze: the follower cannot have taken over yet (its first unanswered ping
      // needs 500 ms, checked every 200 ms); the message is handed to the frozen leader. The page
      // reads its role in the same task as the send: whether the message went to the leader.
      const wait = Math.max(0, 550 - (performance.now() - frozenAt));
      const { role, result } = await run(
        follower,
        (t, ms) =>
          new Promise<{ role: string; result: string[] }>((done) =>
            setTimeout(() => done({ role: t.snapshot().role, result: t.send(['once']) }), ms),
          ),
        wait,
      );
      const handedAt = performance.now();
      expect(result).toEqual(['sent']);
      await thawed;
      const thawAfterHand = performance.now() - handedAt;
      await untilTabs(tabs, 'the follower leads, every tab open', 5_000, (all) => allOpen(all) && oneLeader(all));
      expect((await snapshots([follower]))[0]?.role).toBe('leader');
      await untilServer(server, 'the message', 2_000, () => server.texts.includes('once'));
      await sleep(QUIET_MS * 2); // time for a second copy
      const copies = server.received.filter((r) => r.text === 'once');
      runs.push({ role, thawAfterHand: Math.round(thawAfterHand), copies: copies.length });
      console.log(
        `[shared-socket] run ${runs.length}: ${JSON.stringify(runs.at(-1))}, copies ${JSON.stringify(copies)}`,
      );
      expect(copies).toHaveLength(1);
      expect(server.open).toHaveLength(1);
      await context.close();
      await server.ws.crash();
    }
    expect(runs.filter(raced), JSON.stringify(runs)).toHaveLength(1);
  });
});

/** A run of the takeover race in which the race happened: handed to the frozen leader, thawed < 400 ms later. */
const raced = (run: { role: string; thawAfterHand: number }) => run.role === 'follower' && run.thawAfterHand < 400;

// ─── the example ────────────────────────────────────────────────────────────────────────────────

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
