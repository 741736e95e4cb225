import { describe, expect, it } from 'vitest';
import { LingeringCloseServer } from '../faults/lingering-close-server.js';
import { useTestPages } from './harness.js';
import { PAGE_DIR, run, until } from './recorder-page.js';

// What a browser lets a script see of a server's close frame that is not followed by the TCP
// close (a proxy or a server saying 1001 Going Away during a deploy): only `readyState` turning
// CLOSING (2). Chromium answers the frame and waits for the server to hang up; it reports the
// close (with the server's code and reason, wasClean true) when its own timer runs out, about
// 2 s later (measured). Meanwhile nothing is written into the closing connection: send() queues.

const { cleanup, openTestPage } = useTestPages(PAGE_DIR, 'rsTest');

describe('a close frame without a TCP close, in Chromium', () => {
  it('the native WebSocket turns CLOSING at the frame and reports the close ~2 s later; the socket queues meanwhile and reports the code', async () => {
    const server = cleanup.add(new LingeringCloseServer(), (s) => s.stop());
    await server.start();
    const { page } = await openTestPage();

    // The control: Chromium's own WebSocket.
    await page.evaluate(`new Promise((resolve) => {
      const ws = new WebSocket(${JSON.stringify(server.url)});
      window.native = { ws, log: [] };
      ws.onopen = () => resolve();
      ws.onclose = (e) => window.native.log.push([performance.now(), e.code, e.reason, e.wasClean]);
    })`);
    await run(
      page,
      (t, url) => t.create('a', url, { heartbeat: false, resume: false, maxDelay: 100, ceiling: 1 }),
      server.url,
    );
    await until(page, 'the socket to open', 5_000, (t) => t.count('a', 'open') >= 1);

    server.sayGoodbye(1001, 'going away');
    await page.waitForFunction('window.native.ws.readyState === 2', undefined, { timeout: 2_000, polling: 5 });
    await page.waitForTimeout(100); // the socket's own connection got the same frame at the same moment
    const goodbyeSeen = (await page.evaluate('performance.now()')) as number;
    // The close frame has arrived (the native socket is CLOSING): the socket writes nothing into it.
    expect(await run(page, (t) => t.send('a', ['during the goodbye']))).toEqual(['buffered']);

    await page.waitForFunction('window.native.log.length === 1', undefined, { timeout: 5_000, polling: 20 });
    const [closedAt, code, reason, wasClean] = ((await page.evaluate('window.native.log')) as unknown[][])[0] as [
      number,
      number,
      string,
      boolean,
    ];
    expect([code, reason, wasClean]).toEqual([1001, 'going away', true]);
    const waited = closedAt - goodbyeSeen;
    expect(waited).toBeGreaterThan(1_000); // Chromium waited for the TCP close (2 s measured)

    await until(page, 'the socket to report the close', 5_000, (t) => t.count('a', 'close') >= 1);
    const [close] = await run(page, (t) => t.log('a', 'close'));
    expect(close).toMatchObject({ code: 1001, reason: 'going away', wasClean: true, willReconnect: true });
    await until(page, 'the reconnect', 5_000, (t) => t.count('a', 'open') >= 2);
    expect(await run(page, (t) => t.snapshot('a'))).toMatchObject({ bufferedCount: 0 });
    expect(await run(page, (t) => t.log('a', 'drop'))).toEqual([]);
    expect(server.upgraded).toBe(3); // the control, the socket, its reconnect
  });
});
