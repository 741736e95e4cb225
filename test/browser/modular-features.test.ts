import { describe, expect, it } from 'vitest';
import { errorMessage } from '../helpers/mode.js';
import { waitFor } from '../helpers/wait.js';
import { unchangedFor, useTestPages, WEBSOCKET_FAILED } from './harness.js';
import { names, PAGE_DIR, PRODUCTION, run, texts, until } from './modular-page.js';
import type { Entry } from './recorder-page.js';

// The modular build in Chromium (./modular-page.ts): its features installed one by one: heartbeat()
// and stats(), resume() (offline and online, a page becoming visible) and asyncIteration(). The
// tests drive the page with page.evaluate against real `ws` servers on 127.0.0.1 (TestWsServer) and
// check the logs from Node. Every wait is bounded; the only fixed periods are observation windows
// in which nothing may happen.

const { browser, openTestPage, wsServer } = useTestPages(PAGE_DIR, 'rsTest');

describe('resilient-socket/modular in Chromium (dist/modular.js, real ws servers)', () => {
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
