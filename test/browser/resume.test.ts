import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestWsServer } from '../../src/testing/ws-server.js';
import { errorMessage } from '../helpers/mode.js';
import { waitFor } from '../helpers/wait.js';
import { useTestPages, WEBSOCKET_FAILED } from './harness.js';
import { type Entry, PAGE_DIR, PRODUCTION, run, unchangedFor, until } from './recorder-page.js';

// Resume awareness in Chromium: the browser build on the test page of socket.test.ts
// (test/browser/pages/socket/), real `ws` servers on 127.0.0.1.
//
// How each signal is produced:
// - page visible: headless Chromium never hides a page (switching tabs, minimising the window with
//   CDP Browser.setWindowBounds, or Page.setWebLifecycleState frozen → active leave
//   `document.visibilityState` 'visible' and fire no `visibilitychange`), so `rsTest.setVisibility()`
//   overrides `document.visibilityState` on the document and dispatches `visibilitychange`: first
//   'hidden' (which must do nothing), then 'visible'.
// - back/forward cache: `rsTest.pageshow(persisted)` dispatches a real PageTransitionEvent.
// - offline / online: for real, `page.context().setOffline()` (CDP network emulation): Chromium
//   fires `offline`/`online` and flips `navigator.onLine`; while offline it refuses new WebSockets
//   (net::ERR_INTERNET_DISCONNECTED) and holds the frames of open ones.
//
// Every wait is bounded; the only fixed periods are observation windows in which nothing may happen.

const { browser, openTestPage: openServedPage, wsServer } = useTestPages(PAGE_DIR, 'rsTest');

// ─── fixtures ───────────────────────────────────────────────────────────────────────────────────

/** The test page, loaded and ready (`window.rsTest` exists), online and visible. */
async function openTestPage(): Promise<Page> {
  const { page } = await openServedPage();
  expect(await page.evaluate(() => [navigator.onLine, document.visibilityState])).toEqual([true, 'visible']);
  return page;
}

/**
 * Creates socket `name` with an app-level heartbeat whose ping is 'ping' and whose pong is the
 * echo of it (interval 60 s: the heartbeat itself never pings during a test), instrumented to log
 * `ping-sent` and `pong`, plus `extra` options; waits until it is open.
 */
async function createPinging(
  page: Page,
  name: string,
  url: string,
  extra: { probeTimeout?: number; resumeOff?: boolean } = {},
): Promise<void> {
  await run(
    page,
    (t, o) => {
      t.create(o.name, o.url, {
        maxDelay: 800,
        ceiling: 4, // windows 100, 200, 400, 800 ms
        heartbeat: {
          interval: 60_000,
          timeout: 10_000,
          message: () => {
            t.note(o.name, 'ping-sent');
            return 'ping';
          },
          isPong: (data: unknown) => {
            const pong = data === 'ping';
            if (pong) t.note(o.name, 'pong');
            return pong;
          },
        },
        resume: o.resumeOff ? false : { probeTimeout: o.probeTimeout ?? 3_000 },
      });
    },
    { name, url, ...extra },
  );
  await until(page, `${name} to open`, 5_000, (t, n) => t.count(n, 'open') >= 1, name);
}

/**
 * Creates socket `name` with no heartbeat and a constant backoff of `delay` ms built in the page
 * (`constant` from the browser build), wrapped to log `delay-drawn` every time a delay is drawn.
 */
async function createConstant(page: Page, name: string, url: string, delay: number, resume = true): Promise<void> {
  await run(
    page,
    (t, o) => {
      const policy = t.lib.constant({ delay: o.delay });
      t.create(o.name, o.url, {
        backoff: {
          next: () => {
            t.note(o.name, 'delay-drawn');
            return policy.next();
          },
          reset: () => policy.reset(),
        },
        ...(o.resume ? {} : { resume: false }),
      });
    },
    { name, url, delay, resume },
  );
}

/** The page's signal, noted in `name`'s log as `signal` just before it is dispatched (same task). */
type Signal = { kind: 'visible' } | { kind: 'pageshow'; persisted: boolean };

function signal(page: Page, names: string[], what: Signal): Promise<void> {
  return run(
    page,
    (t, o) => {
      if (o.what.kind === 'visible') {
        // A tab that was hidden comes back: 'hidden' first (nothing may happen), then 'visible'.
        t.setVisibility('hidden');
        for (const n of o.names) t.note(n, 'signal', { kind: 'visible' });
        t.setVisibility('visible');
      } else {
        for (const n of o.names) t.note(n, 'signal', { kind: 'pageshow', persisted: o.what.persisted });
        t.pageshow(o.what.persisted);
      }
    },
    { names, what },
  );
}

/** The entries of `log` after the last `signal` note. */
function afterLastSignal(log: Entry[]): { signal: Entry; after: Entry[] } {
  const at = log.map((e) => e.event).lastIndexOf('signal');
  const found = log[at];
  if (!found) throw new Error(`no signal in the log: ${JSON.stringify(log)}`);
  return { signal: found, after: log.slice(at + 1) };
}

const names = (entries: Entry[]) => entries.map((e) => (e.event === 'state' ? `${e.previous}→${e.current}` : e.event));

// ─── the tests ──────────────────────────────────────────────────────────────────────────────────

describe('resume awareness in Chromium (the browser build, real ws servers)', () => {
  /**
   * Probes an open socket with `fire` and checks both outcomes: a live link answers (one 'ping' at
   * the server right away, no error, still open), a dead one (the server stops reading) is closed
   * `probeTimeout` after the signal with ERR_RS_DEAD_LINK / 'probe timeout' and replaced.
   */
  async function probeLiveThenDead(page: Page, server: TestWsServer, fire: () => Promise<void>, probeTimeout: number) {
    // ── a live link
    const fired = performance.now();
    await fire();
    await waitFor(() => server.received.includes('ping'), 2_000, 'the server to receive the probe');
    expect(performance.now() - fired).toBeLessThan(1_000); // not 60 s later, at the heartbeat's interval
    expect(server.received).toEqual(['ping']);
    await until(page, 'the pong (echo of the probe)', 2_000, (t) => t.count('a', 'pong') >= 1);
    let log = await run(page, (t) => t.log('a'));
    let { signal: sent, after } = afterLastSignal(log);
    expect(names(after)).toEqual(['ping-sent', 'pong']);
    expect((after[0]?.t ?? Number.NaN) - sent.t, 'probe sent in the signal’s own task').toBeLessThan(20);
    // Answered: past the probe's deadline, nothing happened (no error, no close, one connection).
    await unchangedFor(probeTimeout + 300, 'the log of a', () => run(page, (t) => t.log('a').length));
    expect(await run(page, (t) => t.snapshot('a'))).toMatchObject({
      state: 'open',
      stats: { connects: 1, lastError: undefined, messagesIn: 1 }, // the pong (the probe's ping counts in messagesOut)
    });
    expect(await run(page, (t) => t.count('a', 'error'))).toBe(0);
    expect(server.upgrades).toHaveLength(1);

    // ── a dead link: the server stops reading the connection (ws pause()), so no echo, no close
    expect(server.clients).toHaveLength(1);
    (server.clients[0] as unknown as { pause(): void }).pause();
    await fire();
    await until(page, 'ERR_RS_DEAD_LINK', probeTimeout + 2_000, (t) => t.count('a', 'error') >= 1);
    await until(page, 'the socket to reopen', 3_000, (t) => t.count('a', 'open') >= 2);
    log = await run(page, (t) => t.log('a'));
    ({ signal: sent, after } = afterLastSignal(log));
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
    expect((ping?.t ?? Number.NaN) - sent.t).toBeLessThan(20);
    expect(error).toMatchObject({
      code: 'ERR_RS_DEAD_LINK',
      message: errorMessage(
        'ERR_RS_DEAD_LINK',
        `No answer to the probe within ${probeTimeout} ms after a resume`,
        PRODUCTION,
      ),
    });
    expect(close).toMatchObject({ code: 1006, reason: 'probe timeout', wasClean: false, willReconnect: true });
    // Declared dead probeTimeout after the signal (Chromium's timers may read ~1 ms early).
    const deadAfter = (error?.t ?? Number.NaN) - sent.t;
    expect(deadAfter, 'signal → ERR_RS_DEAD_LINK').toBeGreaterThanOrEqual(probeTimeout - 5);
    expect(deadAfter, 'signal → ERR_RS_DEAD_LINK').toBeLessThanOrEqual(probeTimeout + 250);
    expect(after.at(-1)).toMatchObject({ event: 'open', reconnected: true });
    expect(server.upgrades).toHaveLength(2);
    expect(await run(page, (t) => t.snapshot('a'))).toMatchObject({ state: 'open', stats: { connects: 2 } });
  }

  it('visibilitychange to visible probes an open connection at once: a live link answers and stays, a dead one is closed after probeTimeout ("probe timeout", ERR_RS_DEAD_LINK) and replaced', async () => {
    const probeTimeout = 500;
    const server = await wsServer(); // the echo of 'ping' is the pong
    const page = await openTestPage();
    await createPinging(page, 'a', server.url, { probeTimeout });

    // 'hidden' alone does nothing.
    await run(page, (t) => t.setVisibility('hidden'));
    await unchangedFor(300, 'what the server received', async () => server.received.length);
    expect(await run(page, (t) => t.count('a', 'ping-sent'))).toBe(0);

    await probeLiveThenDead(page, server, () => signal(page, ['a'], { kind: 'visible' }), probeTimeout);
  });

  it('pageshow from the back/forward cache (persisted: true) probes the same way; an ordinary pageshow (persisted: false) does not', async () => {
    const probeTimeout = 500;
    const server = await wsServer();
    const page = await openTestPage();
    await createPinging(page, 'a', server.url, { probeTimeout });

    await signal(page, ['a'], { kind: 'pageshow', persisted: false });
    await unchangedFor(probeTimeout + 300, 'what the server received, and the log of a', async () => ({
      received: server.received.length,
      log: await run(page, (t) => t.log('a').length),
    }));
    expect(server.received).toEqual([]);
    expect(await run(page, (t) => t.count('a', 'ping-sent'))).toBe(0);
    expect(await run(page, (t) => t.socket('a').state)).toBe('open');

    await probeLiveThenDead(
      page,
      server,
      () => signal(page, ['a'], { kind: 'pageshow', persisted: true }),
      probeTimeout,
    );
  });

  it('offline (for real, setOffline): a waiting retry is cancelled; while offline no attempt and no delay, even with the server back and the page visible again; online retries at once', async () => {
    const delay = 400;
    const server = await wsServer();
    const page = await openTestPage();
    browser.allowConsoleErrors(WEBSOCKET_FAILED); // every refused attempt while the server is down
    await createConstant(page, 'a', server.url, delay);
    await until(page, 'a to open', 5_000, (t) => t.count('a', 'open') >= 1);
    await run(page, (t) => {
      // Registered after the library's listener (at construction): the note shows what it did.
      addEventListener('offline', () =>
        t.note('a', 'offline-event', { onLine: navigator.onLine, nextRetryAt: t.snapshot('a').stats.nextRetryAt }),
      );
      addEventListener('online', () => t.note('a', 'online-event', { onLine: navigator.onLine }));
    });

    // The server goes away: the socket cycles through `reconnecting`, a constant 400 ms apart.
    await server.stop();
    await until(page, 'two retry delays', 3_000, (t) => t.count('a', 'reconnecting') >= 2);

    await page.context().setOffline(true);
    await until(
      page,
      'offline, and the retry cancelled',
      3_000,
      (t) =>
        !navigator.onLine &&
        t.count('a', 'offline-event') === 1 &&
        t.socket('a').state === 'reconnecting' &&
        t.snapshot('a').stats.nextRetryAt === undefined,
    );
    // Cancelled in the offline event's own task, not when the timer would have fired.
    const offlineEvent = await run(page, (t) => t.log('a', 'offline-event'));
    expect(offlineEvent).toHaveLength(1);
    expect(offlineEvent[0]).toMatchObject({ onLine: false });
    expect(offlineEvent[0]?.nextRetryAt).toBeUndefined();
    // The server is back, but the page is offline: for 2 s (5 delays) nothing is tried or drawn,
    // not even when the page becomes visible or is restored from the cache (navigator.onLine is false).
    await server.start();
    await signal(page, ['a'], { kind: 'visible' });
    await signal(page, ['a'], { kind: 'pageshow', persisted: true });
    const upgrades = server.upgrades.length;
    const quiet = async () => ({
      upgrades: server.upgrades.length,
      log: (await run(page, (t) => t.log('a'))).length,
      snapshot: await run(page, (t) => {
        const { state, stats } = t.snapshot('a');
        return { state, attempts: stats.attempts, nextRetryAt: stats.nextRetryAt };
      }),
    });
    const before = await quiet();
    await unchangedFor(2_000, 'the upgrades, the page log and the socket', quiet);
    expect(before.snapshot.state).toBe('reconnecting');
    expect(before.snapshot.nextRetryAt).toBeUndefined();
    expect(server.upgrades.length).toBe(upgrades);
    let log = await run(page, (t) => t.log('a'));
    const offlineAt = log.findIndex((e) => e.event === 'offline-event');
    // After the offline event: at most the attempt that was already running when it came
    // (it fails and waits for the network, drawing no delay), then nothing.
    const whileOffline = log.slice(offlineAt + 1);
    const tried = whileOffline.filter(
      (e) =>
        e.event === 'connecting' || e.event === 'reconnecting' || (e.event === 'state' && e.current === 'connecting'),
    );
    expect(tried).toEqual([]);
    expect(whileOffline.filter((e) => e.event === 'signal')).toHaveLength(2);
    expect(whileOffline.filter((e) => e.event === 'delay-drawn')).toEqual([]);
    const lastState = log.filter((e) => e.event === 'state').at(-1);
    expect(lastState?.current).toBe('reconnecting');

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
    // The library's listener runs first (registered at construction), so the retry precedes the note.
    const startedAfter = (retry?.t ?? Number.NaN) - (online?.t ?? Number.NaN);
    expect(Math.abs(startedAfter), 'online → connecting').toBeLessThan(50);
    // (The `online-event` note falls between the state change and `connecting`, which follows
    // in a microtask: Chromium runs microtasks after each listener of a native event.)
    const afterOnline = log.slice(log.indexOf(retry as Entry)).filter((e) => e.event !== 'online-event');
    expect(names(afterOnline)).toEqual(['reconnecting→connecting', 'connecting', 'connecting→open', 'open']);
    expect(log.filter((e) => e.event === 'delay-drawn')).toHaveLength(drawn);
    expect(server.upgrades.length).toBe(upgrades + 1);
    expect(await run(page, (t) => t.snapshot('a'))).toMatchObject({ state: 'open', stats: { connects: 2 } });
  });

  it('a connection lost while offline waits for the network ("offline: waiting for the network"): no reconnecting event, no delay drawn, no attempt; online reconnects at once', async () => {
    const server = await wsServer();
    const page = await openTestPage();
    browser.allowConsoleErrors(WEBSOCKET_FAILED);
    await createConstant(page, 'a', server.url, 400);
    await until(page, 'a to open', 5_000, (t) => t.count('a', 'open') >= 1);

    // Offline while open: the socket has no heartbeat message, so no way to ask; it stays open.
    await page.context().setOffline(true);
    await until(page, 'navigator.onLine to be false', 3_000, () => !navigator.onLine);
    expect(await run(page, (t) => t.socket('a').state)).toBe('open');

    // Then the connection is lost (Chromium still reports the server's close while offline).
    await server.stop();
    await until(page, 'the close', 3_000, (t) => t.count('a', 'close') >= 1);
    const lost = await run(page, (t) => ({ snapshot: t.snapshot('a'), log: t.log('a') }));
    const closeAt = lost.log.findIndex((e) => e.event === 'close');
    expect(lost.log[closeAt]).toMatchObject({ code: 1006, willReconnect: true });
    expect(names(lost.log.slice(closeAt - 1))).toEqual(['open→reconnecting', 'close']);
    expect(lost.log[closeAt - 1]).toMatchObject({ reason: 'offline: waiting for the network' });
    expect(lost.snapshot).toMatchObject({ state: 'reconnecting', stats: { nextRetryAt: undefined, attempts: 1 } });

    // For 1.5 s nothing more: no reconnecting event, no delay drawn, no attempt.
    await server.start();
    const quiet = async () => ({
      upgrades: server.upgrades.length,
      log: await run(page, (t) => t.log('a').map((e) => e.event)),
    });
    await unchangedFor(1_500, 'the upgrades and the page log', quiet);
    const log = await run(page, (t) => t.log('a'));
    expect(log.filter((e) => ['reconnecting', 'delay-drawn', 'error'].includes(e.event))).toEqual([]);
    expect(server.upgrades).toHaveLength(1);

    await page.context().setOffline(false);
    await until(page, 'a to reopen', 3_000, (t) => t.count('a', 'open') >= 2);
    const back = await run(page, (t) => t.log('a'));
    expect(names(back.slice(closeAt + 1))).toEqual([
      'reconnecting→connecting',
      'connecting',
      'connecting→open',
      'open',
    ]);
    expect(back[closeAt + 1]).toMatchObject({ reason: 'retrying now: network back online' });
    expect(back.at(-1)).toMatchObject({ reconnected: true });
    expect(back.filter((e) => e.event === 'delay-drawn')).toEqual([]);
    expect(server.upgrades).toHaveLength(2);
  });

  it('a socket waiting out a 30 s backoff delay retries at once when the page becomes visible ("retrying now: page visible")', async () => {
    const delay = 30_000;
    const server = await wsServer();
    const page = await openTestPage();
    browser.allowConsoleErrors(WEBSOCKET_FAILED);
    await createConstant(page, 'a', server.url, delay);
    await until(page, 'a to open', 5_000, (t) => t.count('a', 'open') >= 1);

    await server.stop();
    await until(page, 'the 30 s wait', 3_000, (t) => t.count('a', 'reconnecting') >= 1);
    const waiting = await run(page, (t) => ({ snapshot: t.snapshot('a'), reconnecting: t.log('a', 'reconnecting') }));
    expect(waiting.reconnecting).toEqual([expect.objectContaining({ attempt: 2, delay })]);
    expect(waiting.snapshot.state).toBe('reconnecting');
    expect(waiting.snapshot.stats.nextRetryAt).toBeGreaterThan(waiting.snapshot.now + delay - 5_000);
    await server.start();

    // 'hidden' first: nothing (checked in the same task, before any timer could run).
    const hidden = await run(page, (t) => {
      t.setVisibility('hidden');
      return t.socket('a').state;
    });
    expect(hidden).toBe('reconnecting');
    const fired = performance.now();
    await signal(page, ['a'], { kind: 'visible' });
    await until(page, 'a to reopen', 3_000, (t) => t.count('a', 'open') >= 2);
    expect(performance.now() - fired).toBeLessThan(2_000); // not 30 s
    const log = await run(page, (t) => t.log('a'));
    const { signal: sent, after } = afterLastSignal(log);
    expect(names(after)).toEqual(['reconnecting→connecting', 'connecting', 'connecting→open', 'open']);
    expect(after[0]).toMatchObject({ reason: 'retrying now: page visible' });
    expect((after[0]?.t ?? Number.NaN) - sent.t, 'signal → connecting').toBeLessThan(20);
    expect(after[1]).toMatchObject({ attempt: 2 }); // the attempt the reconnecting event announced
    expect(after.at(-1)).toMatchObject({ reconnected: true });
    expect(log.filter((e) => e.event === 'delay-drawn')).toHaveLength(1); // the retry drew no new delay
    expect(server.upgrades).toHaveLength(2);
  });

  it('resume: false: the same signals (visible, pageshow from the cache, offline/online for real) neither probe nor retry early nor cancel the wait', async () => {
    const pinged = await wsServer(); // for an open socket with a ping message
    const waiter = await wsServer(); // for a socket waiting out a 30 s delay
    const page = await openTestPage();
    browser.allowConsoleErrors(WEBSOCKET_FAILED);
    await createPinging(page, 'p', pinged.url, { resumeOff: true });
    await createConstant(page, 'r', waiter.url, 30_000, false);
    await until(page, 'r to open', 5_000, (t) => t.count('r', 'open') >= 1);
    await waiter.stop();
    await until(page, 'r to wait 30 s', 3_000, (t) => t.count('r', 'reconnecting') >= 1);
    await waiter.start();
    const waiting = await run(page, (t) => t.snapshot('r'));
    expect(waiting).toMatchObject({ state: 'reconnecting' });
    expect(waiting.stats.nextRetryAt).toBeGreaterThan(waiting.now + 25_000);

    const observe = async () => ({
      pinged: pinged.received.length,
      waiterUpgrades: waiter.upgrades.length,
      p: await run(page, (t) => t.log('p').filter((e) => e.event !== 'signal').length),
      r: await run(page, (t) => t.log('r').filter((e) => e.event !== 'signal').length),
      rState: await run(page, (t) => ({ state: t.socket('r').state, nextRetryAt: t.snapshot('r').stats.nextRetryAt })),
    });
    const before = await observe();
    await signal(page, ['p', 'r'], { kind: 'visible' });
    await signal(page, ['p', 'r'], { kind: 'pageshow', persisted: true });
    await page.context().setOffline(true);
    await until(page, 'navigator.onLine to be false', 3_000, () => !navigator.onLine);
    expect(await observe()).toEqual(before); // the wait is not cancelled
    await page.context().setOffline(false);
    await until(page, 'navigator.onLine to be true', 3_000, () => navigator.onLine);
    // Longer than the 500 ms a probe would take to reach the server and come back many times over.
    await unchangedFor(1_000, 'the servers and the page logs', observe);
    expect(await observe()).toEqual(before);
    expect(pinged.received).toEqual([]);
    expect(await run(page, (t) => t.count('p', 'ping-sent'))).toBe(0);
    expect(await run(page, (t) => t.snapshot('p'))).toMatchObject({
      state: 'open',
      stats: { connects: 1, lastError: undefined },
    });
    expect(before.rState).toMatchObject({ state: 'reconnecting' });
    expect(waiter.upgrades).toHaveLength(1);
  });
});
