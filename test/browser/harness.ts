/**
 * The browser test harness: Debian's Chromium (never a downloaded browser) driven by
 * playwright-core.
 *
 * `useBrowser()` registers the hooks of one test file: Chromium is launched once for the file
 * (`beforeAll`) and closed in `afterAll`; every `newPage()` gets its own context, closed after the
 * test; `newContext()` gives one context for several pages (tabs that share BroadcastChannel and
 * Web Locks), also closed after the test. Console errors and uncaught exceptions of any page fail
 * the test, except console errors a test declared expected with `allowConsoleErrors()` (e.g.
 * Chromium logs every refused WebSocket connection during a simulated outage).
 *
 * `useTestPages()` adds what the suites that drive a test page share: the page served on 127.0.0.1,
 * opened and ready, ws servers, and the page's sockets closed after each test. `runIn()` and
 * `untilIn()` run code in a page against the object it exposes on `window`; `loadPage()` loads a
 * page and waits for that object.
 *
 * A missing `/usr/bin/chromium` fails the file with how to install it; it is never skipped.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type StaticServer, startStaticServer } from '../../examples/lib/static-server.js';
import { type BehaviourSetting, ECHO, TestWsServer } from '../../src/testing/ws-server.js';
import { Cleanup } from '../helpers/wait.js';

export const CHROMIUM = '/usr/bin/chromium';

/** Exactly these flags; playwright adds its own automation flags and a temporary profile directory. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Where the tests save screenshots for humans (gitignored). */
export const SCREENSHOTS = join(import.meta.dirname, 'screenshots');

/** Chromium logs a refused or dropped WebSocket connection as a console error. */
export const WEBSOCKET_FAILED = /WebSocket connection to '.*' failed/;

export interface BrowserHarness {
  /** A fresh page in its own browser context, closed after the test. */
  newPage(): Promise<Page>;
  /** Console errors matching one of `patterns` do not fail the current test. */
  allowConsoleErrors(...patterns: RegExp[]): void;
  /**
   * A fresh browser context (one profile), closed after the test, whose pages are all watched for
   * console errors like `newPage()`'s: open them with `context.newPage()`. Pages of one context
   * share what is per profile (BroadcastChannel, Web Locks, storage), as tabs of one browser do.
   */
  newContext(): Promise<BrowserContext>;
}

/** How Chromium is launched, beyond {@link CHROMIUM_ARGS}. */
export interface LaunchOptions {
  /** More command-line flags (e.g. `--disable-features=…`). */
  readonly args?: readonly string[];
  /** Flags playwright adds by default that this file does without (e.g. `--disable-back-forward-cache`). */
  readonly ignoreDefaultArgs?: readonly string[];
}

export function useBrowser(launch: LaunchOptions = {}): BrowserHarness {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];
  let allowed: RegExp[] = [];

  /** Console errors (but the allowed ones) and uncaught exceptions of `page` fail the current test. */
  const watch = (page: Page): void => {
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const text = message.text();
      if (allowed.some((pattern) => pattern.test(text))) return;
      problems.push(`console.error: ${text} (${message.location().url})`);
    });
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.stack ?? error.message}`));
  };

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Browser tests need Chromium at ${CHROMIUM}: install Debian's chromium: apt-get install -y chromium ` +
          '(no browser is ever downloaded by playwright).',
      );
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [...CHROMIUM_ARGS, ...(launch.args ?? [])],
      ignoreDefaultArgs: [...(launch.ignoreDefaultArgs ?? [])],
      headless: true,
      timeout: 20_000,
    });
  });

  afterEach(async () => {
    const open = contexts.splice(0);
    await Promise.all(open.map((context) => context.close()));
    const found = problems.splice(0);
    allowed = [];
    if (found.length > 0) throw new Error(`the page reported errors:\n  ${found.join('\n  ')}`);
  });

  afterAll(async () => {
    await browser?.close();
    browser = undefined;
  });

  return {
    async newPage() {
      if (!browser) throw new Error('useBrowser(): Chromium is not running (did beforeAll fail?)');
      const context = await browser.newContext({ viewport: { width: 900, height: 700 } });
      contexts.push(context);
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      watch(page);
      return page;
    },
    allowConsoleErrors(...patterns) {
      allowed.push(...patterns);
    },
    async newContext() {
      if (!browser) throw new Error('useBrowser(): Chromium is not running (did beforeAll fail?)');
      const context = await browser.newContext({ viewport: { width: 900, height: 700 } });
      contexts.push(context);
      context.setDefaultTimeout(10_000);
      context.on('page', watch);
      return context;
    },
  };
}

/**
 * Runs `fn(window[global], arg)` in the page and returns its (awaited, JSON-serialisable) result.
 * `fn` is sent as source text: it must not use anything from the test's module, only its arguments.
 */
export function runIn<G, R, A = undefined>(
  page: Page,
  global: string,
  fn: (g: G, arg: A) => R | Promise<R>,
  arg?: A,
): Promise<R> {
  return page.evaluate(`(${fn.toString()})(window.${global}, ${JSON.stringify(arg ?? null)})`) as Promise<R>;
}

/**
 * Waits (polling every 20 ms, at most `timeout` ms) until `fn(window[global], arg)` is truthy in the
 * page; on timeout, fails with `what` and what `window[global].dump()` says of the page's sockets.
 */
export async function untilIn<G, A = undefined>(
  page: Page,
  global: string,
  what: string,
  timeout: number,
  fn: (g: G, arg: A) => unknown,
  arg?: A,
): Promise<void> {
  const started = performance.now();
  try {
    await page.waitForFunction(`(${fn.toString()})(window.${global}, ${JSON.stringify(arg ?? null)})`, undefined, {
      timeout,
      polling: 20,
    });
  } catch (error) {
    const dump = await page.evaluate(`window.${global}.dump()`).catch(() => '(page gone)');
    throw new Error(
      `timed out after ${Math.round(performance.now() - started)} ms (limit ${timeout}) waiting for ${what}\n` +
        `page sockets: ${JSON.stringify(dump, null, 1)}`,
      { cause: error },
    );
  }
}

/**
 * `runIn` and `untilIn` bound to `window[global]`, typed as `G`: `run(page, fn, arg)` and
 * `until(page, what, timeout, fn, arg)`. `fn` is sent as source text: it must not use anything from
 * the test's module, only its arguments.
 */
export function pageObject<G>(global: string) {
  return {
    run: <R, A = undefined>(page: Page, fn: (g: G, arg: A) => R | Promise<R>, arg?: A): Promise<R> =>
      runIn(page, global, fn, arg),
    until: <A = undefined>(
      page: Page,
      what: string,
      timeout: number,
      fn: (g: G, arg: A) => unknown,
      arg?: A,
    ): Promise<void> => untilIn(page, global, what, timeout, fn, arg),
  };
}

/** Loads `url` in `page` and waits (at most 5 s) until the page has set `window[global]`. */
export async function loadPage(page: Page, url: string, global: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction((name) => name in window, global, { timeout: 5_000, polling: 20 });
}

/** Asserts that `read()` keeps returning the same value for `ms`, read every `every` ms (failing as soon as it changes). */
export async function unchangedFor<T>(ms: number, what: string, read: () => T | Promise<T>, every = 50): Promise<void> {
  const first = JSON.stringify(await read());
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, every));
    const now = JSON.stringify(await read());
    if (now !== first) throw new Error(`${what} changed: ${first} → ${now}`);
  }
}

/** A served test page, opened and ready. */
export interface TestPage {
  readonly page: Page;
  readonly site: StaticServer;
  /** What the page fetched: `<status> <path>`, or `failed <url>`. */
  readonly responses: string[];
}

export interface TestPages {
  /** Run after each test, last (after the pages are closed): the test's servers go here. */
  readonly cleanup: Cleanup;
  readonly browser: BrowserHarness;
  /**
   * The test page, served on 127.0.0.1 (stopped after the test), in a fresh page (of `context`
   * when given), loaded and ready (`window[global]` exists).
   */
  openTestPage(context?: BrowserContext): Promise<TestPage>;
  /** A ws server on 127.0.0.1 (`ECHO` unless told), stopped after the test. */
  wsServer(behaviour?: BehaviourSetting): Promise<TestWsServer>;
}

/**
 * The hooks of a test file whose tests drive the test page in `root` through `window[global]`
 * (which has `closeAll()`). After each test, in this order: the sockets of every page opened by
 * `openTestPage()` are closed (`window[global].closeAll()`), the pages are closed (and console
 * errors fail the test, see {@link useBrowser}), then `cleanup` runs (the servers stop).
 */
export function useTestPages(root: string, global: string, launch: LaunchOptions = {}): TestPages {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run()); // registered first, so it runs last
  const browser = useBrowser(launch);
  const pages: Page[] = [];
  afterEach(async () => {
    for (const page of pages.splice(0)) {
      if (page.isClosed()) continue;
      await page.evaluate(`window.${global}.closeAll()`).catch(() => undefined);
    }
  });
  return {
    cleanup,
    browser,
    async openTestPage(context) {
      const site = cleanup.add(await startStaticServer({ root }), (s) => s.stop());
      const page = context ? await context.newPage() : await browser.newPage();
      pages.push(page);
      const responses: string[] = [];
      page.on('response', (response) => responses.push(`${response.status()} ${new URL(response.url()).pathname}`));
      page.on('requestfailed', (request) => responses.push(`failed ${request.url()}`));
      await loadPage(page, site.url, global);
      return { page, site, responses };
    },
    async wsServer(behaviour = ECHO) {
      return cleanup.add(await TestWsServer.start(behaviour), (s) => s.stop());
    },
  };
}

/**
 * Reads `read()` every 20 ms until `check` accepts the value, and fails after `timeoutMs` with
 * `what` and the last value read (for waits on things that are easier to read from Node than in
 * the page).
 */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (performance.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until the examples' connection badge (`#badge`, its `data-badge`) says `badge`. */
export function waitForBadge(page: Page, badge: 'live' | 'reconnecting' | 'offline', timeout = 10_000) {
  return page.waitForFunction((expected) => document.getElementById('badge')?.dataset.badge === expected, badge, {
    timeout,
    polling: 20,
  });
}

/** Saves a full-page screenshot under test/browser/screenshots/ (for humans; not checked). */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** An RGB colour. */
export interface Rgb {
  readonly r: number;
  readonly g: number;
  readonly b: number;
}

/** The most frequent colour of a PNG (colours quantised to 8 levels per channel, then averaged). */
export function dominantColour(png: Buffer): Rgb & { readonly share: number } {
  const image = PNG.sync.read(png);
  const buckets = new Map<number, { count: number; r: number; g: number; b: number }>();
  const pixels = image.width * image.height;
  for (let i = 0; i < pixels * 4; i += 4) {
    const r = image.data[i] ?? 0;
    const g = image.data[i + 1] ?? 0;
    const b = image.data[i + 2] ?? 0;
    const key = ((r >> 5) << 6) | ((g >> 5) << 3) | (b >> 5);
    const bucket = buckets.get(key) ?? { count: 0, r: 0, g: 0, b: 0 };
    bucket.count += 1;
    bucket.r += r;
    bucket.g += g;
    bucket.b += b;
    buckets.set(key, bucket);
  }
  let best = { count: 0, r: 0, g: 0, b: 0 };
  for (const bucket of buckets.values()) if (bucket.count > best.count) best = bucket;
  const n = Math.max(1, best.count);
  return { r: best.r / n, g: best.g / n, b: best.b / n, share: best.count / Math.max(1, pixels) };
}

/** What a colour looks like to a person, coarsely: the hues the badges use. */
export function colourName({ r, g, b }: Rgb): 'green' | 'amber' | 'grey' | 'other' {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max - min < 30 && max > 60 && max < 200) return 'grey';
  if (g > r + 40 && g > b + 40) return 'green';
  if (r > 180 && g > 100 && g < r - 20 && b < g - 60) return 'amber';
  return 'other';
}

/** Screenshots an element and names its dominant colour (with the numbers, for failure messages). */
export async function renderedColour(element: Locator): Promise<{ name: ReturnType<typeof colourName>; rgb: string }> {
  const colour = dominantColour(await element.screenshot({ animations: 'disabled' }));
  const rgb = `rgb(${Math.round(colour.r)}, ${Math.round(colour.g)}, ${Math.round(colour.b)}) covering ${Math.round(colour.share * 100)}%`;
  return { name: colourName(colour), rgb };
}
