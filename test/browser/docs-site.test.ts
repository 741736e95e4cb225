/**
 * The documentation site, as a reader gets it: every page of the built site (docs/.vitepress/dist)
 * is loaded in Chromium from a static server on 127.0.0.1, and must render a heading with no
 * console error, no failed request and no request to any other host (the site works offline).
 * Every link between its pages must lead to a built page. The playground must redraw when a slider
 * moves, and the local search must find a word.
 *
 * The site is built here (`npm run docs:build`, about a minute) when docs/.vitepress/dist is
 * missing or older than docs/ or src/; CI builds it in the step before, so this file reuses it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, type StaticServer, startStaticServer } from '../../examples/lib/static-server.js';
import { eventually, useBrowser } from './harness.js';

const DIST = join(REPO_ROOT, 'docs', '.vitepress', 'dist');
const BUILD_MS = 240_000;

/** Newest modification time of the files under `path`, skipping the folders in `skip`. */
function newest(path: string, skip: readonly string[] = []): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  // Folders' own times change when the build writes dist/ or cache/ inside them: files only.
  let time = 0;
  for (const entry of readdirSync(path)) {
    const child = join(path, entry);
    if (skip.includes(child)) continue;
    time = Math.max(time, newest(child, skip));
  }
  return time;
}

/** Why the site needs a build, or undefined when docs/.vitepress/dist is newer than its sources. */
function staleReason(): string | undefined {
  const index = join(DIST, 'index.html');
  if (!existsSync(index)) return 'docs/.vitepress/dist is missing';
  const built = statSync(index).mtimeMs;
  const vitepress = join(REPO_ROOT, 'docs', '.vitepress');
  const skip = [DIST, join(vitepress, 'cache'), join(REPO_ROOT, 'docs', 'api')];
  const sources = Math.max(newest(join(REPO_ROOT, 'docs'), skip), newest(join(REPO_ROOT, 'src')));
  return sources > built ? 'docs/ or src/ changed since the last build' : undefined;
}

/** Every built page, as a URL path (`/guide/backoff.html`, `/` for the home page). */
function builtPages(dir = DIST): string[] {
  const pages: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path !== join(DIST, 'assets')) pages.push(...builtPages(path));
    } else if (entry.name.endsWith('.html')) {
      pages.push(`/${relative(DIST, path).split(sep).join('/')}`.replace(/(^|\/)index\.html$/, '$1'));
    }
  }
  return pages.sort();
}

/** Whether a same-site link's path names a built file (`/a/` → a/index.html, `/a` → a.html). */
function builtFileFor(pathname: string): boolean {
  const path = decodeURIComponent(pathname);
  const candidates = path.endsWith('/') ? [`${path}index.html`] : [path, `${path}.html`];
  return candidates.some((candidate) => {
    const file = join(DIST, candidate);
    return existsSync(file) && statSync(file).isFile();
  });
}

const browser = useBrowser();
let server: StaticServer;

beforeAll(async () => {
  const reason = staleReason();
  if (reason) {
    console.log(`docs-site: building the site (${reason})`);
    execFileSync('npm', ['run', '--silent', 'docs:build'], { cwd: REPO_ROOT, stdio: 'inherit', timeout: BUILD_MS });
  }
  server = await startStaticServer({ root: DIST });
}, BUILD_MS + 10_000);

afterAll(async () => {
  await server?.stop();
});

/**
 * A page whose every request is watched: requests to another origin are refused and recorded (the
 * site must not need them), and so are failed requests and answers with an error status.
 */
async function watchedPage(problems: string[], aborted = new Set<string>()): Promise<Page> {
  const page = await browser.newPage();
  const origin = new URL(server.url).origin;
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    problems.push(`request off the machine: ${url} (from ${page.url()})`);
    return route.abort();
  });
  page.on('requestfailed', (request) => {
    const error = request.failure()?.errorText;
    // Leaving a page aborts what it was prefetching (the chunks of the pages it links to): such a
    // request is fetched again at the end and must succeed then.
    if (error === 'net::ERR_ABORTED') aborted.add(request.url());
    else problems.push(`failed request: ${request.url()} (${error}) on ${page.url()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()} on ${page.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error on ${page.url()}: ${message.text()}`);
  });
  return page;
}

/** Loads a page and waits until Vue has mounted (hydrated) the app. */
async function open(page: Page, path: string): Promise<void> {
  await page.goto(new URL(path, server.url).href, { waitUntil: 'load' });
  await page.waitForFunction(() => Boolean((document.querySelector('#app') as { __vue_app__?: unknown })?.__vue_app__));
}

/**
 * What an SVG draws: each element's name, its attributes but Vue's scoping one, sorted, and its own
 * text (the server-rendered and the re-rendered markup differ in attribute order and comments).
 */
function drawing(svg: Locator): Promise<string> {
  return svg.evaluate((root) =>
    [...root.querySelectorAll('*')]
      .map((element) => {
        const attributes = [...element.attributes]
          .filter((attribute) => !attribute.name.startsWith('data-v-'))
          .map((attribute) => `${attribute.name}=${attribute.value}`)
          .sort();
        const text = [...element.childNodes]
          .filter((node) => node.nodeType === Node.TEXT_NODE)
          .map((node) => node.textContent)
          .join('');
        return `${element.localName}[${attributes.join(' ')}]${text}`;
      })
      .join('\n'),
  );
}

describe('the built docs site', () => {
  it('loads every page with a heading, no console error, no failed request and no request off the machine', async () => {
    const pages = builtPages();
    expect(pages).toContain('/');
    expect(pages).toContain('/playground.html');
    expect(pages.some((path) => path.startsWith('/api/'))).toBe(true);

    const problems: string[] = [];
    const aborted = new Set<string>();
    const page = await watchedPage(problems, aborted);
    const links = new Map<string, string>();
    for (const path of pages) {
      await open(page, path);
      const heading = (await page.locator('h1').first().textContent({ timeout: 5_000 }))?.trim() ?? '';
      if (heading === '') problems.push(`no heading (h1) on ${path}`);
      const hrefs = await page.$$eval('a[href]', (anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
      for (const href of hrefs) {
        const url = new URL(href);
        if (url.origin === new URL(server.url).origin && !links.has(url.pathname)) links.set(url.pathname, path);
      }
    }
    for (const url of aborted) {
      const response = await fetch(url);
      if (!response.ok) problems.push(`HTTP ${response.status} for ${url} (a request the page aborted)`);
    }
    for (const [target, from] of links) {
      if (!builtFileFor(target)) problems.push(`link to a page that was not built: ${target} (on ${from})`);
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it('redraws the playground when a slider moves, and draws the same again for the same values', async () => {
    const problems: string[] = [];
    const page = await watchedPage(problems);
    await open(page, '/playground.html');
    const windows = page.locator('svg[data-chart="windows"]');
    const herd = page.locator('svg[data-chart="herd"]');
    const read = async () => ({ windows: await drawing(windows), herd: await drawing(herd) });
    const slide = (id: string, value: number) =>
      page.locator(id).evaluate((input, v) => {
        (input as HTMLInputElement).value = String(v);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }, value);

    const first = await read();
    expect(first.windows).toContain('\nrect[');
    expect(first.herd).toContain('\npath[');

    await slide('#pg-max-delay', 30_000);
    const wider = await eventually(
      read,
      (now) => now.windows !== first.windows && now.herd !== first.herd,
      5_000,
      'a redraw',
    );
    await slide('#pg-clients', 5_000);
    await eventually(read, (now) => now.herd !== wider.herd, 5_000, 'the herd to redraw for more clients');
    await slide('#pg-max-delay', 10_000);
    await slide('#pg-clients', 1_000);
    // Seeded: back to the first values, back to the first drawing.
    await eventually(
      read,
      (now) => now.windows === first.windows && now.herd === first.herd,
      5_000,
      'the first drawing',
    );

    await page.locator('#pg-strategy').selectOption('equalJitter');
    await eventually(read, (now) => now.windows !== first.windows, 5_000, 'draws of another strategy');
    const other = await read();
    await page.locator('#pg-reseed').click();
    await eventually(read, (now) => now.windows !== other.windows, 5_000, 'new draws after a reseed');
    expect(problems).toEqual([]);
  });

  it('finds a word with the local search, offline', async () => {
    const problems: string[] = [];
    const page = await watchedPage(problems);
    await open(page, '/');
    await page.locator('.VPNavBarSearch .DocSearch-Button').click();
    const input = page.locator('#localsearch-input');
    await input.fill('reseed');
    const hits = page.locator('#localsearch-list a');
    await hits.first().waitFor();
    const targets = await hits.evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).pathname));
    expect(targets.some((path) => path.startsWith('/playground'))).toBe(true);
    expect(problems).toEqual([]);
  });
});
