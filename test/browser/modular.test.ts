import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, type StaticServer, startStaticServer } from '../../examples/lib/static-server.js';
import type * as Modular from '../../src/modular.js';
import { ECHO, TestWsServer } from '../../src/testing/ws-server.js';
import { errorMessage, pageIsProduction } from '../helpers/mode.js';
import { Cleanup, waitFor } from '../helpers/wait.js';
import { useBrowser, WEBSOCKET_FAILED } from './harness.js';
import { type Entry, unchangedFor } from './recorder-page.js';

// The modular build in Chromium: a bare test page (test/browser/pages/modular/) loads
// `resilient-socket/modular`, mapped to /dist/modular.js (the production flavour, what an app
// ships) by an import map (the full entry, /dist/index.js, is not mapped at all), and exposes `window.rsTest`, a recorder that creates named
// `BaseSocket`s with the features a test builds in the page (`t.lib.heartbeat(…)`, …) and logs
// every event they emit with its time. The tests drive it with page.evaluate against real `ws`
// servers on 127.0.0.1 (TestWsServer) and check the logs from Node. Every wait is bounded; the
// only fixed periods are observation windows in which nothing may happen.

const PAGE_DIR = join(import.meta.dirname, 'pages', 'modular');
const DIST = join(REPO_ROOT, 'dist');
/** The page loads the production flavour: short messages, with the same classes and codes. */
const PRODUCTION = pageIsProduction(PAGE_DIR);

const cleanup = new Cleanup();
afterEach(() => cleanup.run()); // runs last: stops the servers
const browser = useBrowser(); // closes the pages (and fails the test on console errors)
const pages: Page[] = [];
afterEach(closePageSockets); // registered last, so it runs first: close the sockets in the pages

// ─── the page, as seen from here ────────────────────────────────────────────────────────────────

/** What `send()` is given, described as JSON: text, or bytes sent as an ArrayBuffer or a Uint8Array. */
type Spec = string | { readonly bytes: number[]; readonly as: 'arraybuffer' | 'uint8array' };

/** What a call threw, as the page describes it. */
interface Thrown {
  readonly threw: boolean;
  readonly name?: string;
  readonly isTypeError?: boolean;
  readonly code?: string;
  readonly message?: string;
}

interface Snapshot {
  readonly state: string;
  readonly readyState: number;
  readonly binaryType: string | undefined;
  readonly bufferedCount: number;
  readonly attempt: number;
  /** `socket.stats` (its error as its code), or undefined when reading it threw (no stats() feature). */
  readonly stats: (Omit<Modular.SocketStats, 'lastError'> & { readonly lastError: string | undefined }) | undefined;
  readonly now: number;
}

/** `window.rsTest` of pages/modular/recorder.js. */
interface RsTest {
  readonly exports: string[];
  /** `resilient-socket/modular` itself, to build features and options in the page. */
  readonly lib: typeof Modular;
  attempt(call: () => unknown): Thrown;
  create(name: string, url: string, options?: Modular.BaseSocketOptions): Snapshot;
  /** Starts `for await (const data of socket)`, logging `iter` per value and `iter-end` at its end. */
  iterate(name: string): void;
  socket(name: string): Modular.BaseSocket;
  note(name: string, event: string, detail?: Record<string, unknown>): void;
  log(name: string, event?: string): Entry[];
  count(name: string, event: string): number;
  snapshot(name: string): Snapshot;
  inState(name: string, state: string, timeoutMs: number): Promise<void>;
  send(name: string, specs: Spec[]): string[];
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

/** Waits (polling every 20 ms, at most `timeout` ms) until `fn(window.rsTest, arg)` is truthy in the page. */
async function until<A = undefined>(
  page: Page,
  what: string,
  timeout: number,
  fn: (t: RsTest, arg: A) => unknown,
  arg?: A,
): Promise<void> {
  const started = performance.now();
  try {
    await page.waitForFunction(`(${fn.toString()})(window.rsTest, ${JSON.stringify(arg ?? null)})`, undefined, {
      timeout,
      polling: 20,
    });
  } catch (error) {
    const dump = await run(page, (t) => t.dump()).catch(() => '(page gone)');
    throw new Error(
      `timed out after ${Math.round(performance.now() - started)} ms (limit ${timeout}) waiting for ${what}\n` +
        `page sockets: ${JSON.stringify(dump, null, 1)}`,
      { cause: error },
    );
  }
}

// ─── fixtures ───────────────────────────────────────────────────────────────────────────────────

async function wsServer(): Promise<TestWsServer> {
  return cleanup.add(await TestWsServer.start(ECHO), (s) => s.stop());
}

/** The test page, loaded and ready (`window.rsTest` exists); `responses` lists what it fetched. */
async function openTestPage(): Promise<{ page: Page; site: StaticServer; responses: string[] }> {
  const site = cleanup.add(await startStaticServer({ root: PAGE_DIR }), (s) => s.stop());
  const page = await browser.newPage();
  pages.push(page);
  const responses: string[] = [];
  page.on('response', (response) => responses.push(`${response.status()} ${new URL(response.url()).pathname}`));
  page.on('requestfailed', (request) => responses.push(`failed ${request.url()}`));
  await page.goto(site.url);
  await page.waitForFunction(() => 'rsTest' in window, undefined, { timeout: 5_000, polling: 20 });
  return { page, site, responses };
}

async function closePageSockets(): Promise<void> {
  for (const page of pages.splice(0)) {
    if (page.isClosed()) continue;
    await run(page, (t) => t.closeAll()).catch(() => undefined);
  }
}

/** The files of dist/ that `entry` loads, itself included: its static imports, followed (from disk). */
function staticImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(DIST, file), 'utf8');
    for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*)["']\.\/([\w.-]+\.js)["']/g)) visit(match[1] as string);
  };
  visit(entry);
  return seen;
}

/**
 * The file of dist/ that defines `ResilientSocket`: dist/index.js itself, or the chunk it re-exports
 * it from (when another entry of the build shares it).
 */
function fullSocketChunk(): string {
  const index = readFileSync(join(DIST, 'index.js'), 'utf8');
  if (/\b(?:var ResilientSocket = class|class ResilientSocket)\b/.test(index)) return 'index.js';
  // `export { … } from './chunk.js'`, or `import { … } from './chunk.js'` and a later `export { … }`.
  const found = /(?:export|import)\s*\{[^}]*\bResilientSocket\b[^}]*\}\s*from\s*["']\.\/([\w.-]+\.js)["']/.exec(index);
  if (!found?.[1]) throw new Error(`dist/index.js neither defines ResilientSocket nor re-exports it:\n${index}`);
  return found[1];
}

const texts = (entries: Entry[]) =>
  entries.map((e) => (e as unknown as { text?: string; kind: string }).text ?? `<${e.kind}>`);
const names = (entries: Entry[]) => entries.map((e) => (e.event === 'state' ? `${e.previous}→${e.current}` : e.event));

/** What the modular entry exports (its values; the rest are types). */
const MODULAR_EXPORTS = [
  'BaseSocket',
  'abortSignal',
  'asyncIteration',
  'bufferPolicy',
  'delivery',
  'handshake',
  'heartbeat',
  'indexedDbStore',
  'jsonCodec',
  'memoryStore',
  'providers',
  'resume',
  'stats',
  'unref',
  'upgradeRejection',
];

// ─── the tests ──────────────────────────────────────────────────────────────────────────────────

describe('resilient-socket/modular in Chromium (dist/modular.js, real ws servers)', () => {
  it('the page loads dist/modular.js and only what it imports (not dist/index.js nor the ResilientSocket chunk), with no console errors; BaseSocket.name is "BaseSocket"', async () => {
    const { page, responses } = await openTestPage();
    const info = await page.evaluate(() => {
      const t = (window as unknown as { rsTest: RsTest }).rsTest;
      return {
        exports: t.exports,
        name: t.lib.BaseSocket.name,
        isClass: typeof t.lib.BaseSocket === 'function',
        onLine: navigator.onLine,
      };
    });
    expect(info.exports).toEqual(MODULAR_EXPORTS);
    expect(info.name).toBe('BaseSocket');
    expect(info.isClass).toBe(true);
    expect(info.onLine).toBe(true);

    // Everything fetched succeeded; from dist/, exactly modular.js and its static imports.
    const fetched = [...new Set(responses)].sort();
    expect(fetched.filter((line) => !line.startsWith('200 '))).toEqual([]);
    for (const line of fetched)
      expect(line).toMatch(/^200 \/(|recorder\.js|dist\/[\w-]+\.js|vendor\/eventemitter3\/.+)$/);
    const fromDist = fetched.filter((line) => line.startsWith('200 /dist/')).map((line) => line.slice(10));
    const closure = staticImports('modular.js');
    expect(new Set(fromDist)).toEqual(closure);
    expect(fromDist).toContain('modular.js');
    expect(fromDist).not.toContain('index.js');
    expect(fromDist).not.toContain(fullSocketChunk());
    expect(fetched).toContain('200 /recorder.js');
    expect(fetched.some((line) => line.startsWith('200 /vendor/eventemitter3/'))).toBe(true);
  });

  it('BaseSocket with no features: connects, echoes text and binary; stats / for await / heartbeat / resume without their feature throw TypeErrors (ERR_RS_NEEDS_FEATURE; in development, naming the factory)', async () => {
    const server = await wsServer();
    const { page } = await openTestPage();

    // A feature's option without the feature: refused at construction, before any attempt.
    const refused = await run(
      page,
      (t, url) => ({
        heartbeat: t.attempt(() => new t.lib.BaseSocket(url, { heartbeat: { interval: 1_000 } } as never)),
        resume: t.attempt(() => new t.lib.BaseSocket(url, { resume: {} } as never)),
        // Installed, but its options go to the factory, not the socket.
        given: t.attempt(() => new t.lib.BaseSocket(url, { heartbeat: {}, features: [t.lib.heartbeat()] } as never)),
      }),
      server.url,
    );
    const needs = { threw: true, isTypeError: true, name: 'TypeError', code: 'ERR_RS_NEEDS_FEATURE' };
    expect(refused.heartbeat).toMatchObject(needs);
    expect(refused.heartbeat.message).toContain('`heartbeat`');
    expect(refused.resume).toMatchObject(needs);
    expect(refused.resume.message).toContain('`resume`');
    expect(refused.given).toMatchObject({ threw: true, isTypeError: true });
    expect(refused.given.message).toContain('`heartbeat`');
    if (!PRODUCTION) {
      // The development text says which factory to import, and from where.
      expect(refused.heartbeat.message).toContain('heartbeat()');
      expect(refused.heartbeat.message).toContain("'resilient-socket/modular'");
      expect(refused.resume.message).toContain('resume()');
      expect(refused.given.message).toContain('heartbeat()');
    }
    await unchangedFor(200, 'the upgrades the server saw', async () => server.upgrades.length);
    expect(server.upgrades).toHaveLength(0);

    const created = await run(page, (t, url) => t.create('a', url, { binaryType: 'arraybuffer' }), server.url);
    expect(created).toMatchObject({ state: 'connecting', readyState: 0, binaryType: 'arraybuffer', stats: undefined });
    await until(page, 'the socket to open', 5_000, (t) => t.count('a', 'open') >= 1);
    expect(names(await run(page, (t) => t.log('a')))).toEqual(['created', 'connecting', 'connecting→open', 'open']);

    const specs: Spec[] = [
      'hello',
      { bytes: [1, 2, 3, 255], as: 'arraybuffer' },
      'é✓ unicode',
      { bytes: [0, 128, 7], as: 'uint8array' },
    ];
    expect(await run(page, (t, list) => t.send('a', list), specs)).toEqual(['sent', 'sent', 'sent', 'sent']);
    await until(page, 'four echoes', 3_000, (t) => t.count('a', 'message') >= 4);
    const echoes = await run(page, (t) => t.log('a', 'message'));
    expect(echoes.map(({ kind, text, bytes }) => ({ kind, text, bytes }))).toEqual([
      { kind: 'text', text: 'hello', bytes: undefined },
      { kind: 'arraybuffer', text: undefined, bytes: [1, 2, 3, 255] },
      { kind: 'text', text: 'é✓ unicode', bytes: undefined },
      { kind: 'arraybuffer', text: undefined, bytes: [0, 128, 7] },
    ]);
    expect(server.received).toEqual(['hello', '<binary 4 bytes>', 'é✓ unicode', '<binary 3 bytes>']);

    // What needs a feature that is not installed: a TypeError naming the factory to import.
    const missing = await run(page, (t) => {
      const socket = t.socket('a');
      return {
        stats: t.attempt(() => socket.stats),
        iterate: t.attempt(() => socket[Symbol.asyncIterator]()),
        state: socket.state,
      };
    });
    expect(missing.stats).toMatchObject(needs);
    expect(missing.iterate).toMatchObject(needs);
    if (!PRODUCTION) {
      expect(missing.stats.message).toContain('stats()');
      expect(missing.stats.message).toContain("'resilient-socket/modular'");
      expect(missing.iterate.message).toContain('asyncIteration()');
    }
    expect(missing.state).toBe('open'); // and the socket is none the worse for it
    // No feature sends anything of its own: nothing reached the server beyond the four messages.
    await unchangedFor(300, 'what the server received', async () => server.received.length);
    expect(server.received).toHaveLength(4);
  });

  it('BaseSocket with no features survives a server restart: close 1006 → reconnecting → open (reconnected); sends while down are buffered and arrive once, in order, before open listeners send', async () => {
    const server = await wsServer();
    const { page } = await openTestPage();
    browser.allowConsoleErrors(WEBSOCKET_FAILED); // Chromium logs every refused attempt during the outage
    await run(page, (t, url) => t.create('a', url, { maxDelay: 800, ceiling: 4 }), server.url);
    await until(page, 'the socket to open', 5_000, (t) => t.count('a', 'open') >= 1);
    expect(await run(page, (t) => t.send('a', ['before']))).toEqual(['sent']);
    await waitFor(() => server.received.length === 1, 3_000, 'the server to receive "before"');

    await server.stop();
    await until(page, 'the page to see the connection drop', 3_000, (t) => t.count('a', 'close') >= 1);
    const down = Array.from({ length: 20 }, (_, i) => `down-${i}`);
    expect(await run(page, (t, list) => t.send('a', list), down)).toEqual(down.map(() => 'buffered'));
    expect((await run(page, (t) => t.snapshot('a'))).bufferedCount).toBe(20);
    await until(page, 'two reconnecting events', 5_000, (t) => t.count('a', 'reconnecting') >= 2);
    expect(server.received).toEqual(['before']);
    await run(page, (t) => {
      t.socket('a').once('open', () => t.note('a', 'open-listener', { result: t.socket('a').send('from-open') }));
    });
    await server.start();
    await until(page, 'the socket to reopen', 4_000, (t) => t.count('a', 'open') >= 2);

    await waitFor(() => server.received.length >= 22, 3_000, 'the buffered messages to reach the server');
    expect(server.received).toEqual(['before', ...down, 'from-open']); // exactly once, in order
    expect(server.upgrades).toHaveLength(2);
    await until(page, 'the echoes', 3_000, (t) => t.count('a', 'message') >= 22);
    expect(texts(await run(page, (t) => t.log('a', 'message')))).toEqual(['before', ...down, 'from-open']);

    const log = await run(page, (t) => t.log('a'));
    const lost = log.findIndex((e) => e.event === 'close') - 1;
    expect(names(log.slice(lost, lost + 3))).toEqual(['open→reconnecting', 'close', 'reconnecting']);
    expect(log[lost + 1]).toMatchObject({ code: 1006, wasClean: false, willReconnect: true, readyState: 0 });
    const outage = log.slice(lost + 2);
    const failed = outage.filter((e) => e.event === 'close');
    expect(failed.length).toBeGreaterThanOrEqual(1);
    for (const close of failed) expect(close).toMatchObject({ code: 1006, willReconnect: true });
    expect(outage.filter((e) => e.event === 'error').map((e) => e.code)).toEqual(
      failed.map(() => 'ERR_RS_CONNECTION_FAILED'),
    );
    // Each delay within its window of the default backoff (maxDelay 800, ceiling 4: 100, 200, 400, 800 ms).
    const delays = log.filter((e) => e.event === 'reconnecting').map((e) => e.delay as number);
    delays.forEach((delay, i) => {
      expect(delay, `delay ${i + 1}`).toBeGreaterThanOrEqual(0);
      expect(delay, `delay ${i + 1}`).toBeLessThan(800 * 2 ** (Math.min(i + 1, 4) - 4));
    });
    expect(log.filter((e) => e.event === 'open')[1]).toMatchObject({ reconnected: true, readyState: 1 });
    expect(log.find((e) => e.event === 'open-listener')).toMatchObject({ result: 'sent' });
    expect(await run(page, (t) => t.snapshot('a'))).toMatchObject({ state: 'open', readyState: 1, bufferedCount: 0 });
  });

  it('BaseSocket with no features: close() sends a close frame (the server sees 1000 and the reason) and ends closed; no reconnection; sends afterwards are dropped', async () => {
    const server = await wsServer();
    const { page } = await openTestPage();
    await run(page, (t, url) => t.create('a', url), server.url);
    await until(page, 'the socket to open', 5_000, (t) => t.count('a', 'open') >= 1);

    const right = await run(page, (t) => {
      t.socket('a').close(1000, 'bye');
      return t.socket('a').state;
    });
    expect(right).toBe('closing');
    await until(page, 'the socket to be closed', 4_000, (t) => t.socket('a').state === 'closed');
    await waitFor(() => server.disconnects.length === 1, 3_000, 'the server to see the close');
    expect(server.disconnects[0]).toMatchObject({ code: 1000, reason: 'bye' });
    const log = await run(page, (t) => t.log('a'));
    const after = log.slice(log.findIndex((e) => e.event === 'state' && e.current === 'closing'));
    expect(names(after)).toEqual(['open→closing', 'closing→closed', 'close']);
    expect(after[2]).toMatchObject({ code: 1000, reason: 'bye', wasClean: true, willReconnect: false, readyState: 3 });

    expect(await run(page, (t) => t.send('a', ['late']))).toEqual(['dropped']);
    expect(await run(page, (t) => t.log('a', 'drop').map((d) => d.reason))).toEqual(['closed']);
    const reopen = await run(page, (t) => t.attempt(() => t.socket('a').open()));
    expect(reopen).toMatchObject({ threw: true, name: 'ResilientSocketError' });
    await unchangedFor(500, 'the upgrades the server saw', async () => server.upgrades.length);
    expect(server.upgrades).toHaveLength(1);
    expect(await run(page, (t) => t.snapshot('a'))).toMatchObject({ state: 'closed', readyState: 3 });
  });

  it('[heartbeat({ interval, timeout, message, isPong }), stats()]: the app-level heartbeat finds a dead link (ERR_RS_DEAD_LINK, close 1006 "heartbeat timeout") and reconnects; socket.stats follows', async () => {
    const interval = 300;
    const timeout = 300;
    const server = await wsServer(); // the echo of 'ping' is the pong
    const { page } = await openTestPage();
    await run(
      page,
      (t, o) =>
        t.create('a', o.url, {
          maxDelay: 800,
          ceiling: 4,
          features: [
            t.lib.heartbeat({
              interval: o.interval,
              timeout: o.timeout,
              message: () => {
                t.note('a', 'ping-sent');
                return 'ping';
              },
              isPong: (data: unknown) => {
                const pong = data === 'ping';
                if (pong) t.note('a', 'pong');
                return pong;
              },
            }),
            t.lib.stats(),
          ],
        }),
      { url: server.url, interval, timeout },
    );
    await until(page, 'the socket to open', 5_000, (t) => t.count('a', 'open') >= 1);
    await until(page, 'two pongs', 3_000, (t) => t.count('a', 'pong') >= 2);
    // Pongs are consumed; other messages still come through.
    expect(await run(page, (t) => t.send('a', ['hello']))).toEqual(['sent']);
    await until(page, 'the echo of hello', 3_000, (t) => t.count('a', 'message') >= 1);
    expect(texts(await run(page, (t) => t.log('a', 'message')))).toEqual(['hello']);
    const live = await run(page, (t) => ({ snapshot: t.snapshot('a'), pongs: t.count('a', 'pong') }));
    expect(live.snapshot.stats).toMatchObject({
      attempts: 1,
      connects: 1,
      reconnects: 0,
      dropped: 0,
      downtime: 0,
      lastError: undefined,
      nextRetryAt: undefined,
    });
    expect(live.snapshot.stats?.uptime).toBeGreaterThan(0);
    // Messages in: hello's echo and every pong; out: hello and every ping.
    expect(live.snapshot.stats?.messagesIn).toBeGreaterThanOrEqual(live.pongs + 1);

    // The link goes dead: the server stops reading this connection (ws pause()), so no echo/pong.
    expect(server.clients).toHaveLength(1);
    (server.clients[0] as unknown as { pause(): void }).pause();
    await until(page, 'ERR_RS_DEAD_LINK', 3_000, (t) => t.log('a', 'error').some((e) => e.code === 'ERR_RS_DEAD_LINK'));
    await until(page, 'the socket to reopen', 3_000, (t) => t.count('a', 'open') >= 2);

    const log = await run(page, (t) => t.log('a'));
    const dead = log.findIndex((e) => e.event === 'error');
    expect(log[dead]).toMatchObject({ code: 'ERR_RS_DEAD_LINK' });
    expect(names(log.slice(dead - 1, dead + 3))).toEqual(['open→reconnecting', 'error', 'close', 'reconnecting']);
    expect(log[dead + 1]).toMatchObject({
      code: 1006,
      reason: 'heartbeat timeout',
      wasClean: false,
      willReconnect: true,
    });
    const before = log.slice(0, dead);
    const pings = before.filter((e) => e.event === 'ping-sent');
    const lastPong = before.filter((e) => e.event === 'pong').at(-1);
    const lastPing = pings.at(-1);
    if (!lastPong || !lastPing) throw new Error('no ping/pong before the dead link');
    for (let i = 1; i < pings.length; i++) {
      const gap = (pings[i]?.t ?? 0) - (pings[i - 1]?.t ?? 0);
      expect(gap, `ping ${i} interval`).toBeGreaterThanOrEqual(interval - 5);
      expect(gap, `ping ${i} interval`).toBeLessThanOrEqual(interval + 100);
    }
    // The unanswered ping declared dead `timeout` after it went out.
    const deadAt = log[dead]?.t ?? Number.NaN;
    expect(lastPing.t).toBeGreaterThan(lastPong.t);
    expect(deadAt - lastPing.t).toBeGreaterThanOrEqual(timeout - 5);
    expect(deadAt - lastPing.t).toBeLessThanOrEqual(timeout + 100);
    expect(deadAt - lastPong.t).toBeLessThanOrEqual(interval + timeout + 100);
    expect(log.filter((e) => e.event === 'open')[1]).toMatchObject({ reconnected: true });

    // The new connection is watched too, and the stats saw it all.
    const pongs = log.filter((e) => e.event === 'pong').length;
    await until(page, 'pongs on the new connection', 3_000, (t, n) => t.count('a', 'pong') >= n + 2, pongs);
    const after = await run(page, (t) => t.snapshot('a'));
    expect(after).toMatchObject({ state: 'open', bufferedCount: 0 });
    expect(after.stats).toMatchObject({
      attempts: 2,
      connects: 2,
      reconnects: 1,
      dropped: 0,
      downtime: 0,
      lastError: 'ERR_RS_DEAD_LINK',
      nextRetryAt: undefined,
    });
    expect(after.stats?.messagesOut).toBeGreaterThanOrEqual(pings.length + 1 + 2); // pings, hello, the new pings
    expect(server.connections).toBe(2);
  });

  it('[heartbeat(…), resume()]: offline for real (setOffline) while reconnecting cancels the wait and makes no attempt, even with the server back; online retries at once', async () => {
    const delay = 400;
    const server = await wsServer();
    const { page } = await openTestPage();
    browser.allowConsoleErrors(WEBSOCKET_FAILED); // every refused attempt while the server is down
    await run(
      page,
      (t, o) => {
        t.create('a', o.url, {
          // A constant delay, noted every time one is drawn.
          backoff: {
            next: () => {
              t.note('a', 'delay-drawn');
              return o.delay;
            },
            reset: () => undefined,
          },
          features: [
            t.lib.heartbeat({
              interval: 60_000, // never pings during the test
              timeout: 10_000,
              message: 'ping',
              isPong: (data: unknown) => data === 'ping',
            }),
            t.lib.resume(),
          ],
        });
      },
      { url: server.url, delay },
    );
    await until(page, 'a to open', 5_000, (t) => t.count('a', 'open') >= 1);
    await run(page, (t) => {
      // Registered after the library's listener (at construction): the note shows what it did.
      addEventListener('offline', () => t.note('a', 'offline-event', { onLine: navigator.onLine }));
      addEventListener('online', () => t.note('a', 'online-event', { onLine: navigator.onLine }));
    });

    // The server goes away: the socket cycles through `reconnecting`, a constant 400 ms apart.
    await server.stop();
    await until(page, 'two retry delays', 3_000, (t) => t.count('a', 'reconnecting') >= 2);

    await page.context().setOffline(true);
    await until(
      page,
      'offline, the socket reconnecting',
      3_000,
      (t) => !navigator.onLine && t.count('a', 'offline-event') === 1 && t.socket('a').state === 'reconnecting',
    );
    // The server is back, but the page is offline: for 2 s (5 delays) nothing is tried or drawn.
    await server.start();
    const upgrades = server.upgrades.length;
    const quiet = async () => ({
      upgrades: server.upgrades.length,
      log: (await run(page, (t) => t.log('a'))).length,
      state: await run(page, (t) => t.socket('a').state),
    });
    await unchangedFor(2_000, 'the upgrades, the page log and the socket', quiet);
    expect(server.upgrades.length).toBe(upgrades);
    let log = await run(page, (t) => t.log('a'));
    const offlineAt = log.findIndex((e) => e.event === 'offline-event');
    const whileOffline = log.slice(offlineAt + 1);
    // After the offline event: nothing started, no delay drawn (at most the attempt already
    // running when it came failed, and waits for the network).
    expect(
      whileOffline.filter(
        (e) =>
          e.event === 'connecting' ||
          e.event === 'reconnecting' ||
          e.event === 'delay-drawn' ||
          (e.event === 'state' && e.current === 'connecting'),
      ),
    ).toEqual([]);
    expect(log.filter((e) => e.event === 'state').at(-1)?.current).toBe('reconnecting');

    // Online: an attempt starts in the `online` event's own task (well under the 400 ms delay) and opens.
    const drawn = log.filter((e) => e.event === 'delay-drawn').length;
    await page.context().setOffline(false);
    await until(page, 'a to reopen', 3_000, (t) => t.count('a', 'open') >= 2);
    log = await run(page, (t) => t.log('a'));
    const online = log.find((e) => e.event === 'online-event');
    const retry = log.find(
      (e, i) => i > offlineAt && e.event === 'state' && e.previous === 'reconnecting' && e.current === 'connecting',
    );
    expect(online).toMatchObject({ onLine: true });
    expect(retry).toMatchObject({ reason: 'retrying now: network back online' });
    expect(Math.abs((retry?.t ?? Number.NaN) - (online?.t ?? Number.NaN)), 'online → connecting').toBeLessThan(50);
    const afterOnline = log.slice(log.indexOf(retry as Entry)).filter((e) => e.event !== 'online-event');
    expect(names(afterOnline)).toEqual(['reconnecting→connecting', 'connecting', 'connecting→open', 'open']);
    expect(log.filter((e) => e.event === 'delay-drawn')).toHaveLength(drawn);
    expect(server.upgrades.length).toBe(upgrades + 1);
    expect(await run(page, (t) => t.socket('a').state)).toBe('open');
  });

  it('[heartbeat(…), resume({ probeTimeout })]: the page becoming visible probes the open connection with the heartbeat’s ping; a dead one is closed ("probe timeout") and replaced', async () => {
    const probeTimeout = 500;
    const server = await wsServer(); // the echo of 'ping' is the pong
    const { page } = await openTestPage();
    await run(
      page,
      (t, o) => {
        t.create('a', o.url, {
          maxDelay: 800,
          ceiling: 4,
          features: [
            t.lib.heartbeat({
              interval: 60_000, // never pings by itself during the test
              timeout: 10_000,
              message: () => {
                t.note('a', 'ping-sent');
                return 'ping';
              },
              isPong: (data: unknown) => {
                const pong = data === 'ping';
                if (pong) t.note('a', 'pong');
                return pong;
              },
            }),
            t.lib.resume({ probeTimeout: o.probeTimeout }),
          ],
        });
      },
      { url: server.url, probeTimeout },
    );
    await until(page, 'a to open', 5_000, (t) => t.count('a', 'open') >= 1);
    // Headless Chromium never hides a page: override document.visibilityState, then dispatch.
    const visible = () =>
      run(page, (t) => {
        const set = (state: string) => {
          Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
          document.dispatchEvent(new Event('visibilitychange'));
        };
        set('hidden');
        t.note('a', 'signal');
        set('visible');
      });

    // A live link: the probe goes out at once and is answered; nothing else happens.
    await visible();
    await waitFor(() => server.received.includes('ping'), 2_000, 'the server to receive the probe');
    await until(page, 'the pong', 2_000, (t) => t.count('a', 'pong') >= 1);
    await unchangedFor(probeTimeout + 300, 'the log of a', () => run(page, (t) => t.log('a').length));
    expect(await run(page, (t) => [t.socket('a').state, t.count('a', 'error')])).toEqual(['open', 0]);

    // A dead link: the server stops reading (ws pause()); the probe finds it.
    (server.clients[0] as unknown as { pause(): void }).pause();
    await visible();
    await until(page, 'ERR_RS_DEAD_LINK', probeTimeout + 2_000, (t) => t.count('a', 'error') >= 1);
    await until(page, 'the socket to reopen', 3_000, (t) => t.count('a', 'open') >= 2);
    const log = await run(page, (t) => t.log('a'));
    const sent = log.map((e) => e.event).lastIndexOf('signal');
    const after = log.slice(sent + 1);
    expect(names(after)).toEqual([
      'ping-sent',
      'open→reconnecting',
      'error',
      'close',
      'reconnecting',
      'reconnecting→connecting',
      'connecting',
      'connecting→open',
      'open',
    ]);
    const [ping, , error, close] = after;
    expect((ping?.t ?? Number.NaN) - (log[sent]?.t ?? Number.NaN)).toBeLessThan(20);
    expect(error).toMatchObject({
      code: 'ERR_RS_DEAD_LINK',
      message: errorMessage(
        'ERR_RS_DEAD_LINK',
        `No answer to the probe within ${probeTimeout} ms after a resume`,
        PRODUCTION,
      ),
    });
    expect(close).toMatchObject({ code: 1006, reason: 'probe timeout', wasClean: false, willReconnect: true });
    const deadAfter = (error?.t ?? Number.NaN) - (log[sent]?.t ?? Number.NaN);
    expect(deadAfter).toBeGreaterThanOrEqual(probeTimeout - 5);
    expect(deadAfter).toBeLessThanOrEqual(probeTimeout + 250);
    expect(server.upgrades).toHaveLength(2);
  });

  it('[asyncIteration()]: for await receives every message (text and binary, across a reconnect), in order, and ends when the socket is closed', async () => {
    const server = await wsServer();
    const { page } = await openTestPage();
    await run(
      page,
      (t, url) => {
        t.create('a', url, {
          binaryType: 'arraybuffer',
          maxDelay: 800,
          ceiling: 4,
          features: [t.lib.asyncIteration()],
        });
        t.iterate('a'); // before the first open
      },
      server.url,
    );
    await until(page, 'the socket to open', 5_000, (t) => t.count('a', 'open') >= 1);
    expect(await run(page, (t) => t.send('a', ['one', { bytes: [9, 8, 7], as: 'uint8array' }, 'two']))).toEqual([
      'sent',
      'sent',
      'sent',
    ]);
    await until(page, 'three values', 3_000, (t) => t.count('a', 'iter') >= 3);

    // The server restarts the connection (1012): the loop goes on across the reconnect.
    await server.closeAll(1012, 'restart');
    await until(page, 'the socket to reopen', 4_000, (t) => t.count('a', 'open') >= 2);
    expect(await run(page, (t) => t.count('a', 'iter-end'))).toBe(0);
    expect(await run(page, (t) => t.send('a', ['three']))).toEqual(['sent']);
    await until(page, 'four values', 3_000, (t) => t.count('a', 'iter') >= 4);

    const values = await run(page, (t) => t.log('a', 'iter'));
    expect(values.map(({ kind, text, bytes }) => ({ kind, text, bytes }))).toEqual([
      { kind: 'text', text: 'one', bytes: undefined },
      { kind: 'arraybuffer', text: undefined, bytes: [9, 8, 7] },
      { kind: 'text', text: 'two', bytes: undefined },
      { kind: 'text', text: 'three', bytes: undefined },
    ]);
    // The `message` listeners got the same, each after the loop's copy was queued.
    expect(texts(await run(page, (t) => t.log('a', 'message')))).toEqual(['one', '<arraybuffer>', 'two', 'three']);

    // close(): the loop ends once the socket is closed (not at `closing`).
    await run(page, (t) => t.socket('a').close(1000, 'done'));
    await until(page, 'the loop to end', 4_000, (t) => t.count('a', 'iter-end') >= 1);
    const log = await run(page, (t) => t.log('a'));
    const closedAt = log.findIndex((e) => e.event === 'state' && e.current === 'closed');
    const endAt = log.findIndex((e) => e.event === 'iter-end');
    expect(closedAt).toBeGreaterThan(0);
    expect(endAt).toBeGreaterThan(closedAt);
    expect(log[endAt]).toMatchObject({ state: 'closed' });
    expect(log.filter((e) => e.event === 'iter-error')).toEqual([]);
    expect(log.filter((e) => e.event === 'iter')).toHaveLength(4);
    // A loop started after close ends at once.
    await run(page, (t) => t.iterate('a'));
    await until(page, 'the second loop to end', 1_000, (t) => t.count('a', 'iter-end') >= 2);
    expect(await run(page, (t) => t.count('a', 'iter'))).toBe(4);
  });
});
