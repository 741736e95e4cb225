import { describe, expect, it } from 'vitest';
import { ECHO } from '../../src/testing/ws-server.js';
import { waitFor } from '../helpers/wait.js';
import { useTestPages, WEBSOCKET_FAILED } from './harness.js';
import { type DataDescription, type Entry, PAGE_DIR, run, type Spec, unchangedFor, until } from './recorder-page.js';

// The library itself in Chromium: a bare test page (test/browser/pages/socket/) loads the browser
// build, /dist/index.js, through an import map (so the build needs neither `ws` nor any `node:`
// module, or the page would not load), and exposes `window.rsTest`, a recorder that creates named
// sockets and logs every event they emit with its time. The tests drive it with page.evaluate
// against real `ws` servers on 127.0.0.1 (TestWsServer) and check the logs from Node. Every wait is
// bounded; the only fixed periods are observation windows in which nothing may happen.

const { browser, openTestPage, wsServer } = useTestPages(PAGE_DIR, 'rsTest');

// ─── fixtures ───────────────────────────────────────────────────────────────────────────────────

/** The truncated binary exponential window for the n-th delay (n from 1): T·2^(min(n,N)−N). */
function windowOf(n: number, maxDelay: number, ceiling: number): number {
  return maxDelay * 2 ** (Math.min(n, ceiling) - ceiling);
}

/**
 * Checks every `reconnecting` of a log against the backoff: the k-th delay since the start (or the
 * last `stable`) lies in window k, `nextRetryAt` says the same, the next attempt really started
 * `delay` ms later (never before `nextRetryAt`: Chromium's timers read up to ~1 ms early, so 5 ms
 * are allowed; late by at most `lateBy` after the listener heard of it), and it is the attempt the
 * event announced. Returns
 * the delays seen.
 */
function checkBackoff(log: Entry[], maxDelay: number, ceiling: number, lateBy = 250): number[] {
  const delays: number[] = [];
  let k = 0;
  log.forEach((entry, i) => {
    if (entry.event === 'stable') k = 0;
    if (entry.event !== 'reconnecting') return;
    k++;
    const delay = entry.delay as number;
    delays.push(delay);
    expect(delay, `delay ${k}`).toBeGreaterThanOrEqual(0);
    expect(delay, `delay ${k} within window ${k}`).toBeLessThan(windowOf(k, maxDelay, ceiling));
    // nextRetryAt is the wall clock when the retry was scheduled plus the delay; the listener reads
    // the wall clock a little later (after the state, error and close listeners ran): never earlier.
    expect(entry.nextRetryAt as number, `nextRetryAt of delay ${k}`).toBeLessThanOrEqual(entry.wall + delay + 1);
    expect(entry.nextRetryAt as number, `nextRetryAt of delay ${k}`).toBeGreaterThan(entry.wall + delay - 50);
    const next = log.slice(i + 1).find((e) => e.event === 'state' && e.current === 'connecting');
    if (!next) return; // the socket was closed during this wait
    // Never early: the attempt starts no sooner than the time the retry was scheduled for (the
    // listener's own clock reading comes after the scheduling, so it cannot be the base of this bound).
    expect(next.wall, `wait ${k} (delay ${delay.toFixed(1)} ms)`).toBeGreaterThanOrEqual(
      (entry.nextRetryAt as number) - 5,
    );
    expect(next.t - entry.t, `wait ${k} (delay ${delay.toFixed(1)} ms)`).toBeLessThanOrEqual(delay + lateBy);
    const connecting = log.slice(i + 1).find((e) => e.event === 'connecting');
    expect(connecting?.attempt, `attempt announced by reconnecting ${k}`).toBe(entry.attempt);
  });
  return delays;
}

const texts = (entries: Entry[]) =>
  entries.map((e) => (e as unknown as { text?: string; kind: string }).text ?? `<${e.kind}>`);

// ─── the tests ──────────────────────────────────────────────────────────────────────────────────

describe('ResilientSocket in Chromium (the browser build, real ws servers)', () => {
  it('the page loads the browser build with no console errors, only from /dist and /vendor, and is online', async () => {
    const { page, responses } = await openTestPage();
    const info = await page.evaluate(() => ({
      onLine: navigator.onLine,
      exports: (window as unknown as { rsTest: { exports: string[] } }).rsTest.exports,
      nativeWebSocket: typeof WebSocket === 'function' && WebSocket.toString().includes('[native code]'),
    }));
    expect(info.onLine).toBe(true); // the baseline the resume tests build on
    expect(info.nativeWebSocket).toBe(true);
    expect(info.exports).toEqual(
      expect.arrayContaining(['ResilientSocket', 'ResilientSocketError', 'isResilientSocketError', 'retry']),
    );
    expect(info.exports).toContain('truncatedBinaryExponential');
    // Everything fetched succeeded, and came from the page, the build or eventemitter3: no `ws`,
    // no `node:` module (an import of either would have failed the module graph, and the page).
    const fetched = [...new Set(responses)].sort();
    expect(fetched.every((line) => line.startsWith('200 '))).toBe(true);
    for (const line of fetched)
      expect(line).toMatch(/^200 \/(|recorder\.js|dist\/[\w-]+\.js|vendor\/eventemitter3\/.+)$/);
    expect(fetched).toEqual(expect.arrayContaining(['200 /dist/index.js', '200 /recorder.js']));
    expect(fetched.some((line) => line.startsWith('200 /vendor/eventemitter3/'))).toBe(true);
  });

  it('connects: connecting → open, the negotiated subprotocol, readyState 0 then 1; autoConnect: false waits for open()', async () => {
    const server = await wsServer();
    const { page, site } = await openTestPage();
    const first = await run(
      page,
      (t, url) => t.create('a', url, { protocols: ['v2.rs-test', 'v1.rs-test'] }),
      server.urlFor('/feed?x=1'),
    );
    // Constructed: already connecting (the first attempt starts in the constructor).
    expect(first).toMatchObject({ state: 'connecting', readyState: 0, protocol: '' });
    await until(page, 'the socket to open', 5_000, (t) => t.count('a', 'open') >= 1);

    const log = await run(page, (t) => t.log('a'));
    expect(log.map((e) => e.event)).toEqual(['created', 'connecting', 'state', 'open']);
    // The event shows the URL with its query values redacted (they may be tokens).
    expect(log[1]).toMatchObject({ attempt: 1, url: server.urlFor('/feed?x=***'), state: 'connecting' });
    expect(log[2]).toMatchObject({ previous: 'connecting', current: 'open', state: 'open' });
    // `open` comes after the state change, with the socket already usable.
    expect(log[3]).toMatchObject({ attempt: 1, reconnected: false, readyState: 1, protocol: 'v2.rs-test' });
    expect(await run(page, (t) => t.snapshot('a'))).toMatchObject({
      state: 'open',
      readyState: 1,
      protocol: 'v2.rs-test',
    });

    // The server saw a real browser: Chromium's user agent, the page's origin, both subprotocols.
    expect(server.upgrades).toHaveLength(1);
    const upgrade = server.upgrades[0];
    expect(upgrade?.url).toBe('/feed?x=1');
    expect(upgrade?.headers['sec-websocket-protocol']).toBe('v2.rs-test, v1.rs-test');
    expect(upgrade?.headers.origin).toBe(site.url.replace(/\/$/, ''));
    expect(upgrade?.headers['user-agent']).toMatch(/Chrome\//);

    // autoConnect: false: idle (readyState 0), nothing on the wire, until open().
    const idle = await run(page, (t, url) => t.create('b', url, { autoConnect: false }), server.url);
    expect(idle).toMatchObject({ state: 'idle', readyState: 0 });
    expect(server.upgrades).toHaveLength(1);
    await run(page, (t) => t.socket('b').open());
    await until(page, 'b to open', 5_000, (t) => t.count('b', 'open') >= 1);
    const states = await run(page, (t) => t.log('b', 'state').map((e) => `${e.previous}→${e.current}`));
    expect(states).toEqual(['idle→connecting', 'connecting→open']);
    expect(server.upgrades).toHaveLength(2);
  });

  it('echo: text and binary (ArrayBuffer, Uint8Array, a Uint8Array view) with binaryType arraybuffer, 500 messages in order', async () => {
    const server = await wsServer(ECHO);
    const { page } = await openTestPage();
    const created = await run(page, (t, url) => t.create('a', url, { binaryType: 'arraybuffer' }), server.url);
    expect(created.binaryType).toBe('arraybuffer');
    await until(page, 'the socket to open', 5_000, (t) => t.count('a', 'open') >= 1);

    const shapes = ['arraybuffer', 'uint8array', 'subarray'] as const;
    const specs: Spec[] = Array.from({ length: 500 }, (_, i) =>
      i % 4 === 0 ? `m${i} é✓` : { bytes: [i & 0xff, i >> 8, i % 7, 0xff], as: shapes[(i % 4) - 1] ?? 'arraybuffer' },
    );
    const results = await run(page, (t, list) => t.send('a', list), specs);
    expect(results).toEqual(specs.map(() => 'sent'));
    await until(page, '500 echoes', 10_000, (t) => t.count('a', 'message') >= 500);

    const received = await run(page, (t) => t.log('a', 'message'));
    expect(received).toHaveLength(500);
    const got = received.map((e) => {
      const data = e as unknown as DataDescription;
      return 'text' in data ? data.text : 'bytes' in data ? { kind: data.kind, bytes: data.bytes } : data.kind;
    });
    const expected = specs.map(
      (spec) => (typeof spec === 'string' ? spec : { kind: 'arraybuffer', bytes: spec.bytes }), // every binary echo is an ArrayBuffer
    );
    expect(got).toEqual(expected);
    // The server got them in the same order, binary as 4-byte frames (a view sends only its bytes).
    expect(server.received).toEqual(specs.map((spec) => (typeof spec === 'string' ? spec : '<binary 4 bytes>')));
    expect(await run(page, (t) => t.snapshot('a').stats)).toMatchObject({ messagesOut: 500, messagesIn: 500 });
  });

  it('server restart: close 1006 → reconnecting within the backoff windows → open (reconnected); sends while down are buffered and arrive once, in order, before open listeners send', async () => {
    const maxDelay = 800;
    const ceiling = 4; // windows 100, 200, 400, 800 ms
    const server = await wsServer(ECHO);
    const { page } = await openTestPage();
    browser.allowConsoleErrors(WEBSOCKET_FAILED); // Chromium logs every refused attempt during the outage
    await run(page, (t, options) => t.create('a', options.url, options.socket), {
      url: server.url,
      socket: { maxDelay, ceiling },
    });
    await until(page, 'the socket to open', 5_000, (t) => t.count('a', 'open') >= 1);
    expect(await run(page, (t) => t.send('a', ['before']))).toEqual(['sent']);
    await waitFor(() => server.received.length === 1, 3_000, 'the server to receive "before"');

    await server.stop();
    await until(page, 'the page to see the connection drop', 3_000, (t) => t.count('a', 'close') >= 1);
    const down = Array.from({ length: 20 }, (_, i) => `down-${i}`);
    expect(await run(page, (t, list) => t.send('a', list), down)).toEqual(down.map(() => 'buffered'));
    expect((await run(page, (t) => t.snapshot('a'))).bufferedCount).toBe(20);
    // Let it fail a few times (windows 1–3 at least), then bring the server back.
    await until(page, 'three reconnecting events', 5_000, (t) => t.count('a', 'reconnecting') >= 3);
    expect(server.received).toEqual(['before']);
    // An open listener that sends: its message must come after the flushed ones.
    await run(page, (t) => {
      t.socket('a').once('open', () => t.note('a', 'open-listener', { result: t.socket('a').send('from-open') }));
    });
    await server.start();
    await until(page, 'the socket to reopen', maxDelay + 3_000, (t) => t.count('a', 'open') >= 2);

    await waitFor(() => server.received.length >= 22, 3_000, 'the buffered messages to reach the server');
    expect(server.received).toEqual(['before', ...down, 'from-open']); // exactly once, in order
    expect(server.upgrades).toHaveLength(2); // refused attempts never reached it
    await until(page, 'the echoes', 3_000, (t) => t.count('a', 'message') >= 22);
    expect(texts(await run(page, (t) => t.log('a', 'message')))).toEqual(['before', ...down, 'from-open']);

    const log = await run(page, (t) => t.log('a'));
    const lost = log.findIndex((e) => e.event === 'close') - 1; // the state changes first
    expect(log.slice(lost, lost + 3).map((e) => e.event)).toEqual(['state', 'close', 'reconnecting']);
    expect(log[lost]).toMatchObject({ previous: 'open', current: 'reconnecting' });
    expect(log[lost + 1]).toMatchObject({ code: 1006, wasClean: false, willReconnect: true, readyState: 0 });
    // Every failed attempt: ERR_RS_CONNECTION_FAILED, close 1006, and a retry.
    const outage = log.slice(lost + 2);
    const failed = outage.filter((e) => e.event === 'close');
    expect(failed.length).toBeGreaterThanOrEqual(2);
    for (const close of failed) expect(close).toMatchObject({ code: 1006, willReconnect: true });
    expect(outage.filter((e) => e.event === 'error').map((e) => e.code)).toEqual(
      failed.map(() => 'ERR_RS_CONNECTION_FAILED'),
    );
    expect(outage.filter((e) => e.event === 'reconnecting')).toHaveLength(failed.length + 1);
    const delays = checkBackoff(log, maxDelay, ceiling);
    expect(delays.length).toBeGreaterThanOrEqual(3);

    const opens = log.filter((e) => e.event === 'open');
    const attempts = log.filter((e) => e.event === 'connecting');
    expect(opens[1]).toMatchObject({ reconnected: true, readyState: 1, attempt: attempts.at(-1)?.attempt });
    // Flushed before `open` listeners ran: the listener's own send went straight out.
    expect(log.find((e) => e.event === 'open-listener')).toMatchObject({ result: 'sent' });
    const snapshot = await run(page, (t) => t.snapshot('a'));
    expect(snapshot).toMatchObject({ state: 'open', readyState: 1, bufferedCount: 0 });
  });

  it('close() while reconnecting stops everything: queued messages and later sends are dropped (and reported), no attempt after the server returns', async () => {
    const server = await wsServer(ECHO);
    const { page } = await openTestPage();
    browser.allowConsoleErrors(WEBSOCKET_FAILED);
    await run(page, (t, url) => t.create('a', url, { maxDelay: 800, ceiling: 4 }), server.url);
    await until(page, 'the socket to open', 5_000, (t) => t.count('a', 'open') >= 1);

    await server.stop();
    await until(page, 'the page to see the connection drop', 3_000, (t) => t.count('a', 'close') >= 1);
    expect(await run(page, (t) => t.send('a', ['q1', 'q2']))).toEqual(['buffered', 'buffered']);
    // Close while the socket waits to retry (right after a `reconnecting`, before any timer can run).
    const closing = await run(page, async (t) => {
      await t.inState('a', 'reconnecting', 3_000);
      const socket = t.socket('a');
      const before = socket.state;
      socket.close();
      return { before, after: socket.state };
    });
    expect(closing).toEqual({ before: 'reconnecting', after: 'closed' });
    expect(await run(page, (t) => t.send('a', ['late']))).toEqual(['dropped']);

    const drops = await run(page, (t) => t.log('a', 'drop'));
    expect(drops.map((d) => ({ reason: d.reason, messages: texts(d.messages as Entry[]) }))).toEqual([
      { reason: 'closed', messages: ['q1', 'q2'] },
      { reason: 'closed', messages: ['late'] },
    ]);
    const errors = await run(page, (t) => {
      const socket = t.socket('a');
      const codeOf = (call: () => void) => {
        try {
          call();
          return 'no error';
        } catch (error) {
          return (error as { code?: string }).code;
        }
      };
      return { open: codeOf(() => socket.open()), reconnect: codeOf(() => socket.reconnect()) };
    });
    expect(errors).toEqual({ open: 'ERR_RS_CLOSED', reconnect: 'ERR_RS_CLOSED' });
    const snapshot = await run(page, (t) => t.snapshot('a'));
    expect(snapshot).toMatchObject({ state: 'closed', readyState: 3, bufferedCount: 0 });
    expect(snapshot.stats).toMatchObject({ dropped: 3, nextRetryAt: undefined });

    // The server comes back; for 1.5 s (longer than the widest window, 800 ms) nothing may happen.
    const upgrades = server.upgrades.length;
    await server.start();
    await unchangedFor(1_500, 'the upgrades the server saw and the page log', async () => ({
      upgrades: server.upgrades.length,
      log: await run(page, (t) => t.log('a').length),
      state: await run(page, (t) => t.socket('a').state),
    }));
    expect(server.upgrades.length).toBe(upgrades);
  });

  it('close() while open sends a close frame (the server sees 1000 and the reason) and ends closed; sends afterwards are dropped', async () => {
    const server = await wsServer(ECHO);
    const { page } = await openTestPage();
    await run(page, (t, url) => t.create('a', url), server.url);
    await until(page, 'the socket to open', 5_000, (t) => t.count('a', 'open') >= 1);
    expect(await run(page, (t) => t.send('a', ['hello']))).toEqual(['sent']);
    await until(page, 'the echo', 3_000, (t) => t.count('a', 'message') >= 1);

    const right = await run(page, (t) => {
      t.socket('a').close(1000, 'bye');
      return t.socket('a').state;
    });
    expect(right).toBe('closing'); // waiting for the server's close frame
    await until(page, 'the socket to be closed', 4_000, (t) => t.socket('a').state === 'closed');
    await waitFor(() => server.disconnects.length === 1, 3_000, 'the server to see the close');
    expect(server.disconnects[0]).toMatchObject({ code: 1000, reason: 'bye' });

    const log = await run(page, (t) => t.log('a'));
    const after = log.slice(log.findIndex((e) => e.event === 'state' && e.current === 'closing'));
    expect(after.map((e) => (e.event === 'state' ? `${e.previous}→${e.current}` : e.event))).toEqual([
      'open→closing',
      'closing→closed',
      'close',
    ]);
    // The state first: inside the close listener the socket already reads closed.
    expect(after[2]).toMatchObject({ code: 1000, reason: 'bye', wasClean: true, willReconnect: false, readyState: 3 });

    expect(await run(page, (t) => t.send('a', ['after close']))).toEqual(['dropped']);
    expect(await run(page, (t) => t.log('a', 'drop').map((d) => d.reason))).toEqual(['closed']);
    // The server is up: still no new connection.
    await unchangedFor(500, 'the upgrades the server saw', async () => server.upgrades.length);
    expect(server.upgrades).toHaveLength(1);
    expect(await run(page, (t) => t.snapshot('a'))).toMatchObject({
      state: 'closed',
      readyState: 3,
      stats: { connects: 1, messagesOut: 1, messagesIn: 1, dropped: 1 },
    });
  });

  it('an app-level heartbeat detects a dead link (ERR_RS_DEAD_LINK, close 1006 "heartbeat timeout") and reconnects within interval + timeout', async () => {
    const interval = 300;
    const timeout = 300;
    const server = await wsServer(ECHO); // the echo of 'ping' is the pong
    const { page } = await openTestPage();
    await run(
      page,
      (t, o) =>
        t.create('a', o.url, {
          maxDelay: 800,
          ceiling: 4,
          heartbeat: {
            interval: o.interval,
            timeout: o.timeout,
            // message: 'ping' and isPong: (d) => d === 'ping', instrumented to log when each happens.
            message: () => {
              t.note('a', 'ping-sent');
              return 'ping';
            },
            isPong: (data: unknown) => {
              const pong = data === 'ping';
              if (pong) t.note('a', 'pong');
              return pong;
            },
          },
        }),
      { url: server.url, interval, timeout },
    );
    await until(page, 'the socket to open', 5_000, (t) => t.count('a', 'open') >= 1);
    await until(page, 'two pongs', 3_000, (t) => t.count('a', 'pong') >= 2);
    // Pongs are swallowed; other messages still come through.
    expect(await run(page, (t) => t.send('a', ['hello']))).toEqual(['sent']);
    await until(page, 'the echo of hello', 3_000, (t) => t.count('a', 'message') >= 1);
    expect(texts(await run(page, (t) => t.log('a', 'message')))).toEqual(['hello']);

    // The link goes dead: the server stops reading this connection (ws pause()), so no echo/pong.
    expect(server.clients).toHaveLength(1);
    (server.clients[0] as unknown as { pause(): void }).pause();
    await until(page, 'ERR_RS_DEAD_LINK', 3_000, (t) => t.log('a', 'error').some((e) => e.code === 'ERR_RS_DEAD_LINK'));
    await until(page, 'the socket to reopen', 3_000, (t) => t.count('a', 'open') >= 2);

    const log = await run(page, (t) => t.log('a'));
    const dead = log.findIndex((e) => e.event === 'error');
    expect(log[dead]).toMatchObject({ code: 'ERR_RS_DEAD_LINK' });
    expect(log.slice(dead - 1, dead + 3).map((e) => e.event)).toEqual(['state', 'error', 'close', 'reconnecting']);
    expect(log[dead - 1]).toMatchObject({ previous: 'open', current: 'reconnecting' });
    expect(log[dead + 1]).toMatchObject({
      code: 1006,
      reason: 'heartbeat timeout',
      wasClean: false,
      willReconnect: true,
    });
    const before = log.slice(0, dead);
    const lastPong = before.filter((e) => e.event === 'pong').at(-1);
    const lastPing = before.filter((e) => e.event === 'ping-sent').at(-1);
    if (!lastPong || !lastPing) throw new Error('no ping/pong before the dead link');
    const pings = before.filter((e) => e.event === 'ping-sent');
    // A ping every interval…
    for (let i = 1; i < pings.length; i++) {
      const gap = (pings[i]?.t ?? 0) - (pings[i - 1]?.t ?? 0);
      expect(gap, `ping ${i} interval`).toBeGreaterThanOrEqual(interval - 5);
      expect(gap, `ping ${i} interval`).toBeLessThanOrEqual(interval + 100);
    }
    // …the unanswered one declared dead `timeout` after it went out, within interval + timeout of the silence.
    const deadAt = log[dead]?.t ?? Number.NaN;
    expect(lastPing.t).toBeGreaterThan(lastPong.t);
    expect(deadAt - lastPing.t).toBeGreaterThanOrEqual(timeout - 5);
    expect(deadAt - lastPing.t).toBeLessThanOrEqual(timeout + 100);
    expect(deadAt - lastPong.t).toBeLessThanOrEqual(interval + timeout + 100);
    // Reconnected within interval + timeout + the first backoff window (100 ms) + a margin.
    const reopened = log.filter((e) => e.event === 'open')[1];
    expect(reopened).toMatchObject({ reconnected: true });
    expect((reopened?.t ?? Number.NaN) - lastPong.t).toBeLessThanOrEqual(interval + timeout + 100 + 400);
    checkBackoff(log, 800, 4);

    // The new connection is watched too: it keeps getting pongs and stays open.
    const pongs = log.filter((e) => e.event === 'pong').length;
    await until(page, 'pongs on the new connection', 3_000, (t, n) => t.count('a', 'pong') >= n + 2, pongs);
    expect(await run(page, (t) => t.socket('a').state)).toBe('open');
    expect(server.connections).toBe(2);
  });

  it('stats follow what happened: attempts, connects, reconnects, messages in and out, dropped, uptime/downtime, nextRetryAt', async () => {
    const server = await wsServer(ECHO);
    const { page } = await openTestPage();
    browser.allowConsoleErrors(WEBSOCKET_FAILED);
    await run(page, (t, url) => t.create('a', url, { maxDelay: 800, ceiling: 4 }), server.url);
    await until(page, 'the socket to open', 5_000, (t) => t.count('a', 'open') >= 1);
    const live = Array.from({ length: 10 }, (_, i) => `live-${i}`);
    expect(await run(page, (t, list) => t.send('a', list), live)).toEqual(live.map(() => 'sent'));
    await until(page, '10 echoes', 3_000, (t) => t.count('a', 'message') >= 10);
    const open = await run(page, (t) => t.snapshot('a'));
    expect(open.stats).toMatchObject({
      attempts: 1,
      connects: 1,
      reconnects: 0,
      messagesIn: 10,
      messagesOut: 10,
      dropped: 0,
      downtime: 0,
      lastError: undefined,
      nextRetryAt: undefined,
    });
    expect(open.stats.uptime).toBeGreaterThanOrEqual(0);

    await server.stop();
    await until(page, 'a failed attempt', 3_000, (t) => t.count('a', 'error') >= 1);
    const queued = ['q-0', 'q-1', 'q-2', 'q-3', 'q-4'];
    expect(await run(page, (t, list) => t.send('a', list), queued)).toEqual(queued.map(() => 'buffered'));
    const down = await run(page, async (t) => {
      await t.inState('a', 'reconnecting', 3_000); // waiting to retry
      return t.snapshot('a');
    });
    expect(down.stats).toMatchObject({
      connects: 1,
      messagesOut: 10,
      uptime: 0,
      lastError: 'ERR_RS_CONNECTION_FAILED',
    });
    expect(down.stats.downtime).toBeGreaterThan(0);
    // When the pending retry is due: within one window of now. It may already be a little in the
    // past when the page's timer runs late (a loaded machine), hence the slack below.
    expect(down.stats.nextRetryAt).toBeGreaterThanOrEqual(down.now - 100);
    expect(down.stats.nextRetryAt).toBeLessThanOrEqual(down.now + 800);
    expect(down.bufferedCount).toBe(5);
    expect(down.attempt).toBeGreaterThanOrEqual(2); // consecutive failures: the drop and the refused attempts

    await server.start();
    await until(page, 'the socket to reopen', 4_000, (t) => t.count('a', 'open') >= 2);
    await until(page, '15 echoes', 3_000, (t) => t.count('a', 'message') >= 15);
    expect(await run(page, (t) => t.send('a', ['one more']))).toEqual(['sent']);
    await until(page, '16 echoes', 3_000, (t) => t.count('a', 'message') >= 16);
    const log = await run(page, (t) => t.log('a'));
    const back = await run(page, (t) => t.snapshot('a'));
    expect(back.stats).toMatchObject({
      attempts: log.filter((e) => e.event === 'connecting').length,
      connects: 2,
      reconnects: 1,
      messagesIn: 16,
      messagesOut: 16,
      dropped: 0,
      downtime: 0,
      nextRetryAt: undefined,
    });
    expect(back.stats.attempts).toBe(log.filter((e) => e.event === 'state' && e.current === 'connecting').length + 1);
    expect(back.stats.attempts).toBeGreaterThanOrEqual(3);
    expect(server.received).toEqual([...live, ...queued, 'one more']);

    await run(page, (t) => t.socket('a').close());
    await until(page, 'the socket to be closed', 4_000, (t) => t.socket('a').state === 'closed');
    expect(await run(page, (t) => t.send('a', ['x', 'y']))).toEqual(['dropped', 'dropped']);
    const closed = await run(page, (t) => t.snapshot('a'));
    expect(closed.stats).toMatchObject({ connects: 2, messagesOut: 16, dropped: 2, uptime: 0 });
    expect(closed.stats.dropped).toBe(
      (await run(page, (t) => t.log('a', 'drop'))).reduce((n, d) => n + (d.messages as unknown[]).length, 0),
    );
  });
});
