/**
 * The back/forward cache on a socket (`resume({ bfcache })`): `pagehide` closes politely, keeps
 * the queue and makes no attempt; `pageshow` from the cache reconnects at once and flushes.
 * Fake timers, mock-socket servers (a browser-like WebSocket: it refuses 1001 from scripts), and
 * the page's events stubbed on globalThis (the real browser: test/browser/bfcache.test.ts; `ws`
 * and its 1001: test/integration/socket-bfcache.test.ts).
 */
import { WebSocket as MockWebSocket } from 'mock-socket';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorCodes } from '../../../src/errors.js';
import type { WebSocketConstructorLike } from '../../../src/transports/websocket-like.js';
import {
  advance,
  cleanup,
  createSocket,
  expectOptionError,
  MOCK_DELAY,
  record,
  startServer,
} from '../../resilient-socket/helpers.js';
import { countingBackoff, stubPage } from './page.js';

/** mock-socket's WebSocket, recording what `close()` was called with (it refuses 1001, as browsers do). */
function closeRecordingWebSocket() {
  const closes: unknown[][] = [];
  class Recording extends MockWebSocket {
    override close(code?: number, reason?: string): void {
      closes.push([code, reason]);
      super.close(code, reason);
    }
  }
  return { WebSocket: Recording as unknown as WebSocketConstructorLike, closes };
}

const WAITING = 'page hidden for the back/forward cache';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  await cleanup();
  vi.unstubAllGlobals();
});

describe('pagehide with an open connection', () => {
  it('closes it politely (1000 "page hidden" on a browser WebSocket), keeps the queue, waits with no timer; pageshow reconnects at once and flushes', async () => {
    const page = stubPage();
    const { flaky: server } = startServer();
    const { WebSocket, closes } = closeRecordingWebSocket();
    const backoff = countingBackoff(30_000);
    const socket = createSocket(server.url, { WebSocket, backoff, stableAfter: 0 });
    const log = record(socket);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    log.clear();

    page.pagehide(true);
    // 1001 refused by the browser-like WebSocket, 1000 accepted.
    expect(closes).toEqual([
      [1001, 'page hidden'],
      [1000, 'page hidden'],
    ]);
    expect(socket.state).toBe('reconnecting');
    expect(log.names()).toEqual(['state', 'close']);
    expect(log.of('state')[0]).toMatchObject({ previous: 'open', current: 'reconnecting', reason: WAITING });
    expect(log.of('close')[0]).toEqual({ code: 1000, reason: 'page hidden', wasClean: false, willReconnect: true });
    expect(socket.send('while hidden')).toBe('buffered');
    await advance(MOCK_DELAY); // the close handshake finishes in the background
    expect(server.openConnections).toBe(0);
    expect(vi.getTimerCount()).toBe(0); // no retry timer, nothing else
    const attempts = server.attempts;
    await advance(10 * 60_000);
    expect(server.attempts).toBe(attempts);
    expect(socket.stats.nextRetryAt).toBeUndefined();
    expect(socket.failures).toBe(0);
    expect(backoff.drawn).toBe(0);
    expect(log.names()).toEqual(['state', 'close']); // no error, no reconnecting event
    expect(socket.bufferedCount).toBe(1);

    page.pageshow(true);
    expect(socket.state).toBe('connecting'); // in the pageshow event's own task
    expect(log.of('state').at(-1)?.reason).toBe('retrying now: page restored from the back/forward cache');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['while hidden']);
    expect(socket.bufferedCount).toBe(0);
    expect(backoff.drawn).toBe(0);
    expect(log.errors()).toEqual([]);
    expect(log.of('open')).toEqual([{ attempt: 1, reconnected: true }]); // the first since the last stable connection
  });

  it('a page unloaded for good (persisted: false) closes politely too, and makes no attempt', async () => {
    const page = stubPage();
    const { flaky: server } = startServer();
    const { WebSocket, closes } = closeRecordingWebSocket();
    const socket = createSocket(server.url, { WebSocket });
    const log = record(socket);
    await advance(MOCK_DELAY);
    page.pagehide(false);
    expect(closes.at(-1)).toEqual([1000, 'page hidden']);
    expect(socket.state).toBe('reconnecting');
    expect(log.of('state').at(-1)?.reason).toBe('page hidden for good');
    const attempts = server.attempts;
    await advance(10 * 60_000);
    expect(server.attempts).toBe(attempts);
    expect(log.errors()).toEqual([]);
  });

  it('a connection lost to the server while the page is away (its close handshake) starts nothing', async () => {
    const page = stubPage();
    const { flaky: server } = startServer();
    const socket = createSocket(server.url);
    await advance(MOCK_DELAY);
    page.pagehide(true);
    server.drop(); // whatever happens to the old connection now
    await advance(60_000);
    expect(socket.state).toBe('reconnecting');
    expect(server.attempts).toBe(1);
    expect(socket.failures).toBe(0);
  });
});

describe('pagehide in the other states', () => {
  it('an attempt in flight is cut without counting as a failure; pageshow starts a fresh one at once', async () => {
    const page = stubPage();
    const { flaky: server } = startServer();
    const socket = createSocket(server.url);
    const log = record(socket);
    expect(socket.state).toBe('connecting');
    await Promise.resolve(); // the WebSocket is made a microtask after `connecting`
    page.pagehide(true);
    expect(socket.state).toBe('reconnecting');
    expect(socket.failures).toBe(0);
    await advance(60_000);
    expect(server.connections).toBe(0);
    expect(log.errors()).toEqual([]);
    expect(log.names()).not.toContain('reconnecting');
    page.pageshow(true);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(server.connections).toBe(1);
  });

  it('a socket waiting out a backoff delay stops waiting (no timer, failure count kept); pageshow retries at once', async () => {
    const page = stubPage();
    const { flaky: server } = startServer();
    server.down();
    const backoff = countingBackoff(60_000);
    const socket = createSocket(server.url, { backoff });
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(socket.failures).toBe(1);
    page.pagehide(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(socket.stats.nextRetryAt).toBeUndefined();
    await advance(10 * 60_000);
    expect(server.attempts).toBe(1);
    server.up();
    page.pageshow(true);
    expect(socket.state).toBe('connecting');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(backoff.drawn).toBe(1);
  });

  it('an async shouldReconnect that answers while the page is away: no attempt until pageshow', async () => {
    const page = stubPage();
    const { flaky: server } = startServer();
    let answer: (again: boolean) => void = () => undefined;
    const socket = createSocket(server.url, {
      backoff: countingBackoff(100),
      shouldReconnect: () => new Promise<boolean>((resolve) => (answer = resolve)),
    });
    await advance(MOCK_DELAY);
    server.drop();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting'); // deciding
    page.pagehide(true);
    answer(true);
    await advance(60_000);
    expect(server.attempts).toBe(1);
    expect(socket.state).toBe('reconnecting');
    page.pageshow(true);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('offline when the page comes back: it waits for the network, then connects', async () => {
    const page = stubPage();
    const { flaky: server } = startServer();
    const socket = createSocket(server.url);
    await advance(MOCK_DELAY);
    page.pagehide(true);
    page.offline();
    page.pageshow(true);
    await advance(60_000);
    expect(socket.state).toBe('reconnecting');
    expect(server.attempts).toBe(1);
    page.online();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('reconnect() while the page is away connects, and a later loss waits out a backoff delay as usual', async () => {
    const page = stubPage();
    const { flaky: server } = startServer();
    const socket = createSocket(server.url, { backoff: countingBackoff(1_000) });
    const log = record(socket);
    await advance(MOCK_DELAY);
    page.pagehide(true);
    expect(socket.state).toBe('reconnecting');
    socket.reconnect();
    expect(log.of('state').at(-1)?.reason).toBe('reconnect() called');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    server.drop();
    await advance(MOCK_DELAY);
    expect(log.of('reconnecting')).toEqual([{ attempt: 2, delay: 1_000 }]);
    await advance(1_000 + MOCK_DELAY);
    expect(socket.state).toBe('open');
  });
});

describe('close() while the page is away', () => {
  it('leaves nothing running: no timer, no listener, the queue reported dropped', async () => {
    const page = stubPage();
    const { flaky: server } = startServer();
    const socket = createSocket(server.url);
    const log = record(socket);
    await advance(MOCK_DELAY);
    page.pagehide(true);
    await advance(MOCK_DELAY); // the old connection's close handshake ends
    socket.send('queued');
    socket.close();
    expect(socket.state).toBe('closed');
    expect(vi.getTimerCount()).toBe(0);
    expect(page.listening).toBe(0);
    expect(log.of('drop')).toEqual([{ reason: 'closed', messages: ['queued'] }]);
    page.pageshow(true);
    await advance(60_000);
    expect(server.attempts).toBe(1);
    expect(socket.state).toBe('closed');
  });
});

describe('resume({ bfcache: false })', () => {
  it('pagehide leaves the connection open and the socket as it was', async () => {
    const page = stubPage();
    const { flaky: server } = startServer();
    const { WebSocket, closes } = closeRecordingWebSocket();
    const socket = createSocket(server.url, { WebSocket, resume: { bfcache: false }, stableAfter: 0 });
    const log = record(socket);
    await advance(MOCK_DELAY);
    log.clear();
    page.pagehide(true);
    await advance(60_000);
    expect(closes).toEqual([]);
    expect(socket.state).toBe('open');
    expect(server.openConnections).toBe(1);
    expect(log.names()).toEqual([]);
    expect(socket.send('x')).toBe('sent');
  });

  it('is validated like the other resume options', () => {
    const { flaky: server } = startServer();
    const error = expectOptionError(
      () => createSocket(server.url, { resume: { bfcache: 'no' } } as never),
      TypeError,
      'resume.bfcache',
    );
    expect((error as Error & { code?: string }).code).toBe(ErrorCodes.INVALID_TYPE);
  });
});
