import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startStaticServer } from '../../examples/lib/static-server.js';
import type * as Lib from '../../src/index.js';
import { errorMessage, pageIsProduction } from '../helpers/mode.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';
import { startProtocolServer } from './delivery-server.js';
import { loadPage, runIn, useBrowser, WEBSOCKET_FAILED } from './harness.js';

// `indexedDbStore` in Chromium: the test page (test/browser/pages/delivery/) loads the browser build
// (dist/index.js, production flavour) through an import map; its sandboxed frame runs the store
// module alone, bundled here from src/ (production flavour, as the page's build) and served as
// /store/indexed-db.js. The end-to-end tests run a server of the protocol
// (./delivery-server.ts). Tests drive `window.rsTest` with page.evaluate. Every wait is bounded.

const PAGE_DIR = join(import.meta.dirname, 'pages', 'delivery');
const PRODUCTION = pageIsProduction(PAGE_DIR);

const cleanup = new Cleanup();
afterEach(() => cleanup.run()); // runs last: stops the servers
const browser = useBrowser(); // closes the pages (and fails the test on console errors)
const pages: Page[] = [];
afterEach(closePageSockets); // registered last, so it runs first: close the sockets in the pages

/** What a call did, as the page describes it. */
type Outcome<T = unknown> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      readonly error: {
        readonly name?: string;
        readonly code?: string;
        readonly message: string;
        readonly isResilientSocketError?: boolean;
        readonly cause?: { readonly name?: string; readonly message?: string };
      };
    };

/** `window.rsTest` of pages/delivery/recorder.js. */
interface RsTest {
  readonly lib: typeof Lib;
  store(name: string, options?: { openTimeout?: number }): Lib.DeliveryStore;
  load(name: string): Promise<Outcome<Record<string, unknown>>>;
  put(name: string, entries: [string, unknown][]): Promise<Outcome>;
  remove(name: string, keys: string[]): Promise<Outcome>;
  attempt<T>(call: () => T | Promise<T>): Promise<Outcome<T>>;
  hideIndexedDB(): void;
  sandboxedLoad(name: string): Promise<Outcome<Record<string, unknown>>>;
  connect(name: string, url: string, options?: Record<string, unknown>): string;
  socket(name: string): Lib.ResilientSocket;
  log(name: string, event?: string): { event: string; [detail: string]: unknown }[];
  reliable(name: string, data: unknown): Promise<Outcome>;
  dump(): unknown;
  closeAll(): Record<string, string>;
}

/**
 * Runs `fn(window.rsTest, arg)` in the page and returns its (awaited, JSON-serialisable) result.
 * `fn` is sent as source text: it must not use anything from this file, only its arguments.
 */
function run<R, A = undefined>(page: Page, fn: (t: RsTest, arg: A) => R | Promise<R>, arg?: A): Promise<R> {
  return runIn(page, 'rsTest', fn, arg);
}

// ─── fixtures ───────────────────────────────────────────────────────────────────────────────────

/** The store module alone, for the browser: what /store/indexed-db.js serves. */
let standalone = '';
beforeAll(async () => {
  const result = await build({
    entryPoints: [join(REPO_ROOT, 'src/features/delivery/indexed-db.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    define: { 'process.env.NODE_ENV': JSON.stringify(PRODUCTION ? 'production' : 'development') },
  });
  standalone = result.outputFiles[0]?.text ?? '';
});

async function startSite() {
  return cleanup.add(
    await startStaticServer({
      root: PAGE_DIR,
      routes: {
        'GET /store/indexed-db.js': (_request, response) => {
          response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
          response.end(standalone);
        },
      },
    }),
    (s) => s.stop(),
  );
}

/** The current test's site: one origin for all its pages, so that tabs of one context share their storage. */
let currentSite: Promise<{ url: string }> | undefined;
afterEach(() => {
  currentSite = undefined;
});

/** Loads the test page (in a fresh page of its own context unless `context` is given) and waits for `window.rsTest`. */
async function openTestPage(context?: BrowserContext): Promise<{ page: Page; url: string }> {
  currentSite ??= startSite();
  const site = await currentSite;
  const page = context ? await context.newPage() : await browser.newPage();
  pages.push(page);
  await loadPage(page, site.url, 'rsTest');
  return { page, url: site.url };
}

async function ready(page: Page): Promise<void> {
  await page.waitForFunction(() => 'rsTest' in window, undefined, { timeout: 5_000, polling: 20 });
}

async function closePageSockets(): Promise<void> {
  for (const page of pages.splice(0)) {
    if (page.isClosed()) continue;
    await run(page, (t) => t.closeAll()).catch(() => undefined);
  }
}

/** Asserts a store failure as the page saw it: `ERR_RS_STORE_FAILED`, the development text matching `text`. */
function expectStoreFailed(outcome: Outcome, text: RegExp, causeName?: string): void {
  expect(outcome.ok, JSON.stringify(outcome)).toBe(false);
  if (outcome.ok) return;
  expect(outcome.error).toMatchObject({ name: 'ResilientSocketError', code: 'ERR_RS_STORE_FAILED' });
  expect(outcome.error.message).toMatch(errorMessage('ERR_RS_STORE_FAILED', text, PRODUCTION));
  if (causeName !== undefined) expect(outcome.error.cause?.name).toBe(causeName);
}

// ─── persistence ────────────────────────────────────────────────────────────────────────────────

describe('indexedDbStore in Chromium: what it stored survives a reload', () => {
  it('a page writes entries through the store, reloads, and reads them all back; another name stays apart', async () => {
    const { page } = await openTestPage();
    expect(await run(page, (t) => typeof t.lib.indexedDbStore)).toBe('function');
    const written = await run(page, async (t) => [
      await t.put('chat', [
        ['session', 'c0ffee-1'],
        ['seq', 3],
        ['out:1', { data: { text: 'first' } }],
        ['out:2', { data: [1, 2, { three: 3 }] }],
        ['out:3', { data: 'third' }],
        ['seen', ['41', '42']],
      ]),
      await t.remove('chat', ['out:1']),
      await t.put('other', [['session', 'another']]),
    ]);
    expect(written).toEqual([{ ok: true }, { ok: true }, { ok: true }]);

    await page.reload();
    await ready(page);
    expect(await run(page, (t) => t.load('chat'))).toEqual({
      ok: true,
      value: {
        session: 'c0ffee-1',
        seq: 3,
        'out:2': { data: [1, 2, { three: 3 }] },
        'out:3': { data: 'third' },
        seen: ['41', '42'],
      },
    });
    expect(await run(page, (t) => t.load('other'))).toEqual({ ok: true, value: { session: 'another' } });
    expect(await run(page, (t) => t.load('never-written'))).toEqual({ ok: true, value: {} });
    const names = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name).sort());
    expect(names).toEqual(['resilient-socket:chat', 'resilient-socket:never-written', 'resilient-socket:other']);
  });

  it('a tab closed and a new one opened (one profile): the new tab loads what the closed one wrote', async () => {
    const context = await browser.newContext();
    const first = await openTestPage(context);
    expect(await run(first.page, (t) => t.put('outbox', [['out:7', { data: 'kept' }]]))).toEqual({ ok: true });
    await first.page.close();
    const second = await openTestPage(context);
    expect(await run(second.page, (t) => t.load('outbox'))).toEqual({ ok: true, value: { 'out:7': { data: 'kept' } } });
  });
});

// ─── tabs and failures ──────────────────────────────────────────────────────────────────────────

describe('indexedDbStore in Chromium: other tabs, and a database that cannot open', () => {
  it('a tab that deletes the database is not blocked by one holding it open; the holder opens a fresh one next', async () => {
    const context = await browser.newContext();
    const holder = await openTestPage(context);
    const other = await openTestPage(context);
    expect(await run(holder.page, (t) => t.put('shared', [['seq', 1]]))).toEqual({ ok: true });
    const deleted = await other.page.evaluate(
      () =>
        new Promise((resolve) => {
          const request = indexedDB.deleteDatabase('resilient-socket:shared');
          request.onsuccess = () => resolve('deleted');
          request.onblocked = () => resolve('blocked');
          request.onerror = () => resolve(`error ${request.error?.name}`);
        }),
    );
    expect(deleted).toBe('deleted');
    expect(await run(holder.page, (t) => t.load('shared'))).toEqual({ ok: true, value: {} });
    expect(await run(holder.page, (t) => t.put('shared', [['seq', 2]]))).toEqual({ ok: true });
    expect(await run(other.page, (t) => t.load('shared'))).toEqual({ ok: true, value: { seq: 2 } });
  });

  it('a write past the origin’s quota rejects with ERR_RS_STORE_FAILED (QuotaExceededError); once there is room, writes go on', async () => {
    const { page, url } = await openTestPage();
    const cdp = await page.context().newCDPSession(page);
    const origin = new URL(url).origin;
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 512 * 1024 });
    try {
      expect(await run(page, (t) => t.put('outbox', [['seq', 1]]))).toEqual({ ok: true });
      // Random text (Chromium compresses large values: a repeated character would fit).
      const noise = randomBytes(1_500_000).toString('base64');
      const big = await run(page, (t, data) => t.put('outbox', [['out:1', { data }]]), noise);
      expectStoreFailed(big, /^indexedDbStore\("outbox"\): put\("out:1"\) failed: /, 'QuotaExceededError');
      // Chromium may go on refusing writes, small ones too, for as long as its count of the origin's
      // usage has not caught up (seconds, on a busy machine): each refusal is reported the same way.
      const small = await run(page, (t) => t.put('outbox', [['seq', 2]]));
      if (!small.ok) {
        expectStoreFailed(small, /^indexedDbStore\("outbox"\): put\("seq"\) failed: /, 'QuotaExceededError');
      }
      // The store itself is not broken: once the origin has room, the next write goes through.
      await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 64 * 1024 * 1024 });
      expect(await run(page, (t) => t.put('outbox', [['seq', 2]]))).toEqual({ ok: true });
      expect(await run(page, (t) => t.load('outbox'))).toEqual({ ok: true, value: { seq: 2 } });
    } finally {
      await cdp.send('Storage.overrideQuotaForOrigin', { origin });
    }
  });

  it('no IndexedDB in the page: load, put and delete reject with ERR_RS_STORE_FAILED, none throws', async () => {
    const { page } = await openTestPage();
    const outcomes = await run(page, async (t) => {
      t.hideIndexedDB();
      return [await t.load('outbox'), await t.put('outbox', [['seq', 1]]), await t.remove('outbox', ['seq'])];
    });
    for (const outcome of outcomes) {
      expectStoreFailed(outcome, /^indexedDbStore\("outbox"\): IndexedDB is not available here/);
    }
  });

  it('a sandboxed frame (an opaque origin): Chromium refuses IndexedDB, and load() rejects with its SecurityError', async () => {
    const { page } = await openTestPage();
    const outcome = await run(page, (t) => t.sandboxedLoad('outbox'));
    expectStoreFailed(
      outcome,
      /^indexedDbStore\("outbox"\): could not open the database "resilient-socket:outbox" .*: /,
      'SecurityError',
    );
  });

  it('an open held up by another connection (a blocked upgrade) rejects after openTimeout; the page goes on', async () => {
    const { page } = await openTestPage();
    const result = await run(page, async (t) => {
      const name = 'resilient-socket:held';
      // A connection that ignores `versionchange`, as another library's or an older page's could.
      const holder = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open(name, 1);
        request.onupgradeneeded = () => request.result.createObjectStore('delivery');
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      // An upgrade that waits for it: later opens of the database queue behind it.
      const upgrade = indexedDB.open(name, 2);
      await new Promise((resolve) => {
        upgrade.onblocked = resolve;
      });
      const upgraded = new Promise((resolve) => {
        upgrade.onsuccess = () => {
          upgrade.result.close();
          resolve('upgraded');
        };
      });
      const started = performance.now();
      const outcome = await t.attempt(() =>
        (t.store('held', { openTimeout: 300 }) as { load(): Promise<unknown> }).load(),
      );
      const elapsed = performance.now() - started;
      holder.close();
      return { outcome, elapsed, afterwards: await upgraded };
    });
    expectStoreFailed(result.outcome as Outcome, /did not open within 300 ms \(another tab may hold it/);
    expect(result.elapsed).toBeGreaterThanOrEqual(290);
    expect(result.elapsed).toBeLessThan(5_000);
    expect(result.afterwards).toBe('upgraded');
  });
});

// ─── end to end: a reload with an unacknowledged outbox ─────────────────────────────────────────

/** Polls `fn(window.rsTest)` in the page (every 20 ms, at most `timeout` ms) until it is true. */
async function pageUntil(page: Page, fn: (t: RsTest) => boolean, what: string, timeout = 10_000): Promise<void> {
  await page
    .waitForFunction(`(${fn.toString()})(window.rsTest)`, undefined, { timeout, polling: 20 })
    .catch(async (error: unknown) => {
      const dump = await run(page, (t) => t.dump()).catch(() => 'unavailable');
      throw new Error(`${what}: ${String(error)}\n  page: ${JSON.stringify(dump)}`);
    });
}

/** Polls store `name`'s entries until `ok` accepts them (the socket writes to its store without waiting). */
async function storeUntil(
  page: Page,
  name: string,
  ok: (entries: Record<string, unknown>) => boolean,
  what: string,
): Promise<Record<string, unknown>> {
  let last: Outcome<Record<string, unknown>> | undefined;
  const started = performance.now();
  while (performance.now() - started < 10_000) {
    last = await run(page, (t, n) => t.load(n), name);
    if (last.ok && ok(last.value)) return last.value;
    await sleep(20);
  }
  throw new Error(`the store never held ${what}; last: ${JSON.stringify(last)}`);
}

const outKeys = (entries: Record<string, unknown>): string[] =>
  Object.keys(entries)
    .filter((key) => key.startsWith('out:'))
    .sort();

const MESSAGES = [{ text: 'one' }, ['two', 2], 'three'];

describe('a page reload with unacknowledged messages in an indexedDbStore (real ws server of the protocol)', () => {
  it('received but never acknowledged: the reloaded page sends them again under its session, and the server delivers each once', async () => {
    const server = cleanup.add(await startProtocolServer(), (s) => s.stop());
    server.acking = false; // the acks are lost: the page keeps all three as unacknowledged
    const { page } = await openTestPage();
    await run(
      page,
      (t, { url, messages }) => {
        t.connect('before', url, { delivery: t.lib.delivery({ store: t.store('chat') }) });
        for (const data of messages) void t.reliable('before', data);
      },
      { url: server.url, messages: MESSAGES },
    );
    await waitFor(() => server.delivered.length === 3, 10_000, 'the server has the three messages', {
      describe: () => server.frames,
    });
    const before = await storeUntil(page, 'chat', (e) => outKeys(e).length === 3, 'the three messages');
    expect(outKeys(before)).toEqual(['out:1', 'out:2', 'out:3']);
    const [session] = server.hellos;
    expect(before.session).toBe(session);

    await page.reload();
    await ready(page);
    server.acking = true;
    await run(
      page,
      (t, url) => t.connect('after', url, { delivery: t.lib.delivery({ store: t.store('chat') }) }),
      server.url,
    );
    await pageUntil(page, (t) => t.log('after', 'acked').length === 3, 'the three resent messages acknowledged');

    // Each delivered once, in order, under the one session; the resends were duplicates to the server.
    expect(server.delivered).toEqual(MESSAGES.map((data, i) => ({ session, id: String(i + 1), data })));
    expect(server.duplicates).toEqual(['1', '2', '3']);
    expect(server.hellos).toEqual([session, session]);
    // On the new connection: the hello first, then the three in the order first sent.
    const second = server.frames.filter((f) => f.connection === 2).map((f) => f.frame);
    expect(second.slice(0, 4)).toEqual([
      { rs: 'hello', session },
      ...MESSAGES.map((data, i) => ({ rs: 'msg', id: String(i + 1), data })),
    ]);
    expect(await run(page, (t) => t.log('after', 'acked').map(({ id, data }) => ({ id, data })))).toEqual(
      MESSAGES.map((data, i) => ({ id: String(i + 1), data })),
    );

    // The next message goes on from the stored sequence; the outbox ends empty.
    expect(await run(page, (t) => t.reliable('after', 'four'))).toEqual({ ok: true });
    expect(server.delivered.at(-1)).toEqual({ session, id: '4', data: 'four' });
    const after = await storeUntil(page, 'chat', (e) => outKeys(e).length === 0 && e.seq === 4, 'an empty outbox');
    expect(after.session).toBe(session);
    expect(server.delivered).toHaveLength(4);
    expect(await run(page, (t) => t.log('after', 'error'))).toEqual([]);
  });

  it('sent while the server was down: after a reload, the new page delivers them once when the server is up', async () => {
    browser.allowConsoleErrors(WEBSOCKET_FAILED); // Chromium logs every refused attempt while the server is down
    const down = await startProtocolServer();
    const deadUrl = down.url;
    await down.stop(); // nothing listens there now
    const { page } = await openTestPage();
    await run(
      page,
      (t, { url, messages }) => {
        t.connect('offline', url, { delivery: t.lib.delivery({ store: t.store('outbox') }) });
        for (const data of messages) void t.reliable('offline', data);
      },
      { url: deadUrl, messages: MESSAGES },
    );
    await storeUntil(
      page,
      'outbox',
      (e) => outKeys(e).length === 3 && typeof e.session === 'string',
      'the three messages',
    );

    await page.reload();
    await ready(page);
    const server = cleanup.add(await startProtocolServer(), (s) => s.stop());
    await run(
      page,
      (t, url) => t.connect('online', url, { delivery: t.lib.delivery({ store: t.store('outbox') }) }),
      server.url,
    );
    await pageUntil(page, (t) => t.log('online', 'acked').length === 3, 'the three stored messages acknowledged');

    const [session] = server.hellos;
    expect(server.delivered).toEqual(MESSAGES.map((data, i) => ({ session, id: String(i + 1), data })));
    expect(server.duplicates).toEqual([]);
    const stored = await storeUntil(page, 'outbox', (e) => outKeys(e).length === 0, 'an empty outbox');
    expect(stored.session).toBe(session);
    // A second reload finds nothing to send: nothing is delivered twice.
    await page.reload();
    await ready(page);
    await run(
      page,
      (t, url) => t.connect('again', url, { delivery: t.lib.delivery({ store: t.store('outbox') }) }),
      server.url,
    );
    await pageUntil(page, (t) => t.log('again', 'open').length === 1, 'the third page connected');
    await waitFor(() => server.hellos.length === 2, 5_000, 'the third page said hello');
    await sleep(200); // room for a wrong resend to arrive
    expect(server.hellos).toEqual([session, session]);
    expect(server.delivered).toHaveLength(3);
    expect(server.frames.filter((f) => (f.frame as { rs?: string }).rs === 'msg')).toHaveLength(3);
  });
});
