import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { unchangedFor, useTestPages, WEBSOCKET_FAILED } from './harness.js';
import {
  fullSocketChunk,
  MODULAR_EXPORTS,
  names,
  PAGE_DIR,
  PRODUCTION,
  type RsTest,
  run,
  type Spec,
  staticImports,
  texts,
  until,
} from './modular-page.js';

// The modular build in Chromium (./modular-page.ts): BaseSocket from the modular build with no
// features: what the page loads of dist/, connecting, echoing, a server restart, close(), and what
// needs a feature that is not installed. The tests drive the page with page.evaluate against real
// `ws` servers on 127.0.0.1 (TestWsServer) and check the logs from Node. Every wait is bounded; the
// only fixed periods are observation windows in which nothing may happen.

const { browser, openTestPage, wsServer } = useTestPages(PAGE_DIR, 'rsTest');

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
});
