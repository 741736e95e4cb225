/**
 * The back/forward cache over `ws` and a real server on 127.0.0.1: `ws` accepts 1001 (going
 * away) from the client, so the server is told the page went away; the page's events are stubbed
 * on globalThis (the browser's own WebSocket, which takes only 1000: test/browser/bfcache.test.ts).
 * The client runs on ws, pinned with the `WebSocket` option: a runtime's global WebSocket refuses
 * 1001, as a browser's does.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { ResilientSocket } from '../../src/node.js';
import { startTestServer } from '../faults/index.js';
import { closeAndExpectGone, SocketRecorder } from '../helpers/socket-recorder.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

const cleanup = new Cleanup();
afterEach(async () => {
  await cleanup.run();
  vi.unstubAllGlobals();
});

/** `window` on globalThis, for the page's events. */
function stubPage() {
  const window = new EventTarget();
  vi.stubGlobal('addEventListener', window.addEventListener.bind(window));
  vi.stubGlobal('removeEventListener', window.removeEventListener.bind(window));
  vi.stubGlobal('navigator', { onLine: true });
  return {
    pagehide: () => window.dispatchEvent(Object.assign(new Event('pagehide'), { persisted: true })),
    pageshow: () => window.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: true })),
  };
}

describe('the back/forward cache over ws', () => {
  it('pagehide closes with 1001 "page hidden", the server sees it; nothing is tried while away; pageshow reconnects at once and flushes', async () => {
    const page = stubPage();
    const server = await startTestServer(cleanup);
    const socket = cleanup.add(new ResilientSocket(server.url, { WebSocket: WsWebSocket, maxDelay: 60_000 }), (s) =>
      closeAndExpectGone(s, server),
    );
    const rec = new SocketRecorder(socket);
    await waitFor(() => rec.count('open') === 1, 2_000, 'open');

    page.pagehide();
    await waitFor(() => server.disconnects.length === 1, 2_000, 'the server to see the close');
    expect(server.disconnects[0]).toMatchObject({ code: 1001, reason: 'page hidden' });
    expect(rec.events('close').map((e) => e.payload)).toEqual([
      { code: 1001, reason: 'page hidden', wasClean: false, willReconnect: true },
    ]);
    expect(socket.send('while away')).toBe('buffered');
    await sleep(300);
    expect(server.upgrades).toHaveLength(1);
    expect(socket.state).toBe('reconnecting');
    expect(rec.count('error')).toBe(0);

    const shown = performance.now();
    page.pageshow();
    await waitFor(() => server.received.includes('while away'), 2_000, 'the queued message');
    expect(performance.now() - shown).toBeLessThan(1_000); // no backoff wait (up to 60 s here)
    expect(server.upgrades).toHaveLength(2);
    expect(socket.failures).toBe(0);
  });
});
