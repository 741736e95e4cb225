import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startStaticServer } from '../../examples/lib/static-server.js';
import type * as Lib from '../../src/index.js';
import { ECHO, TestWsServer } from '../../src/testing/ws-server.js';
import { errorMessage, pageIsProduction } from '../helpers/mode.js';
import { Cleanup } from '../helpers/wait.js';
import { useBrowser } from './harness.js';

// `indexedDbStore` in Chromium: the test page (test/browser/pages/delivery/) loads the browser build
// (dist/index.js, production flavour) through an import map, and the store: the package's export
// where the build has one, else the store module alone, bundled here from src/ (production flavour,
// as the page's build) and served as /store/indexed-db.js. Tests drive `window.rsTest` with
// page.evaluate. Every wait is bounded.

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
  readonly storeFrom: 'package' | 'standalone';
  store(name: string, options?: { openTimeout?: number }): unknown;
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
  return page.evaluate(`(${fn.toString()})(window.rsTest, ${JSON.stringify(arg ?? null)})`) as Promise<R>;
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
  await page.goto(site.url);
  await ready(page);
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
    expect(['package', 'standalone']).toContain(await run(page, (t) => t.storeFrom));
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

  it('a write past the origin’s quota rejects with ERR_RS_STORE_FAILED (QuotaExceededError); smaller ones go on', async () => {
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

// ─── the page's sockets, for the end-to-end tests ────────────────────────────────────────────────

describe('the delivery test page: its sockets', () => {
  it('connects a ResilientSocket from the build and logs what it receives', async () => {
    const server = cleanup.add(await TestWsServer.start(ECHO), (s) => s.stop());
    const { page } = await openTestPage();
    await run(page, (t, url) => t.connect('a', url), server.url);
    await page.waitForFunction(
      () => (window as unknown as { rsTest: RsTest }).rsTest.log('a', 'open').length === 1,
      undefined,
      {
        timeout: 5_000,
        polling: 20,
      },
    );
    await run(page, (t) => t.socket('a').send('hello'));
    await page.waitForFunction(
      () => (window as unknown as { rsTest: RsTest }).rsTest.log('a', 'message').length === 1,
      undefined,
      { timeout: 5_000, polling: 20 },
    );
    expect(await run(page, (t) => t.log('a', 'message').map((e) => e.data))).toEqual(['hello']);
  });
});
