/**
 * Resume awareness for a page in the background and for attempts that hang: `pauseWhileHidden`
 * holds retries in a page hidden long enough, and a resume signal (visible again, back online, a
 * suspended process waking) abandons an attempt that has been connecting for longer than
 * HUNG_ATTEMPT_GRACE for a fresh one. Fake timers, a FlakyServer (test kit), browser globals
 * stubbed; a WebSocket that never opens stands for a hung attempt.
 */
import { WebSocket as MockWebSocket } from 'mock-socket';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../../src/backoff/constant.js';
import { ErrorCodes } from '../../../src/errors.js';
import { HUNG_ATTEMPT_GRACE, resume } from '../../../src/features/resume/resume.js';
import { DRIFT_CHECK_INTERVAL } from '../../../src/features/resume/signals.js';
import type { WebSocketConstructorLike } from '../../../src/transports/websocket-like.js';
import { expectInputError, inMode } from '../../helpers/mode.js';
import { advance, cleanup, createSocket, MOCK_DELAY, record, startServer } from '../../resilient-socket/helpers.js';
import { countingBackoff, stubPage as stubBrowser } from './page.js';

/** A WebSocket that stays CONNECTING until the test says otherwise (a blackholed upgrade). */
class HungWebSocket extends EventTarget {
  readyState = 0;
  closeCalls = 0;
  binaryType = 'blob';
  readonly protocol = '';
  readonly extensions = '';
  readonly bufferedAmount = 0;
  constructor(readonly url: string) {
    super();
  }
  send(): void {
    throw new Error('not open');
  }
  close(): void {
    this.closeCalls++;
  }
}

/** A WebSocket constructor whose first `hang` sockets hang; the later ones are mock-socket's. */
function hangFirst(hang: number) {
  const hung: HungWebSocket[] = [];
  function WebSocket(url: string, protocols?: string | string[]) {
    if (hung.length < hang) {
      const socket = new HungWebSocket(url);
      hung.push(socket);
      return socket;
    }
    return new MockWebSocket(url, protocols);
  }
  return { hung, WebSocket: WebSocket as unknown as WebSocketConstructorLike };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  await cleanup();
  vi.unstubAllGlobals();
});

describe('pauseWhileHidden: a page hidden that long makes no attempt', () => {
  it('a retry that falls due once the page has been hidden that long waits; visible again tries at once, keeping the failure count', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    server.down();
    const socket = createSocket(server.url, {
      backoff: constant({ delay: 1_000 }),
      resume: { pauseWhileHidden: 5_000 },
    });
    const log = record(socket);
    await advance(MOCK_DELAY);
    browser.hide();
    await advance(4_999); // still retrying: the retries at about 1, 2, 3 and 4 s
    const attempts = server.attempts;
    expect(attempts).toBe(5);
    await advance(10 * 60_000); // the retry that falls due just after 5 s waits, for as long as it takes
    expect(server.attempts).toBe(attempts);
    expect(socket.state).toBe('reconnecting');
    expect(vi.getTimerCount()).toBe(0);
    const failures = socket.failures;

    server.up();
    browser.visible();
    expect(socket.state).toBe('connecting');
    expect(log.of('state').at(-1)?.reason).toBe('retrying now: page visible');
    expect(socket.failures).toBe(failures); // kept: no reset until a stable connection
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('a loss while hidden that long draws no delay and waits for the page; the open connection had stayed open', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    const backoff = countingBackoff(1_000);
    const socket = createSocket(server.url, { backoff, resume: { pauseWhileHidden: 0 } });
    const log = record(socket);
    await advance(MOCK_DELAY);
    browser.hide();
    await advance(60 * 60_000);
    expect(socket.state).toBe('open'); // hidden for an hour, and still connected
    expect(log.of('close')).toEqual([]);

    server.drop();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(log.of('state').at(-1)?.reason).toBe('page hidden: waiting for it to be visible');
    expect(log.names()).not.toContain('reconnecting');
    expect(backoff.drawn).toBe(0);
    expect(socket.stats.nextRetryAt).toBeUndefined();
    const attempts = server.attempts;
    await advance(60_000);
    expect(server.attempts).toBe(attempts);

    browser.visible();
    expect(socket.state).toBe('connecting');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('visible again before the time is up: nothing was paused, and the next hiding counts from zero', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    server.down();
    const socket = createSocket(server.url, {
      backoff: constant({ delay: 1_000 }),
      resume: { pauseWhileHidden: 3_000 },
    });
    await advance(MOCK_DELAY);
    browser.hide();
    await advance(2_500);
    browser.visible(); // retries at once
    browser.hide();
    const attempts = server.attempts;
    await advance(2_900); // hidden 2.9 s this time: not paused, whatever the 2.5 s before
    expect(server.attempts).toBeGreaterThanOrEqual(attempts + 2);
    const later = server.attempts;
    await advance(60_000);
    expect(server.attempts).toBeLessThanOrEqual(later + 1); // paused from 3 s on
    expect(socket.state).toBe('reconnecting');
  });

  it('a page already hidden when the socket is made counts from then', async () => {
    stubBrowser('hidden');
    const { flaky: server } = startServer();
    server.down();
    const socket = createSocket(server.url, {
      backoff: constant({ delay: 1_000 }),
      resume: { pauseWhileHidden: 2_000 },
    });
    await advance(1_500);
    const attempts = server.attempts;
    expect(attempts).toBe(2);
    await advance(60_000);
    expect(server.attempts).toBe(attempts); // the retry due just after 2 s waits
    expect(socket.state).toBe('reconnecting');
  });

  it('pauseWhileHidden: false keeps retrying in a hidden page', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    server.down();
    createSocket(server.url, { backoff: constant({ delay: 1_000 }), resume: { pauseWhileHidden: false } });
    await advance(MOCK_DELAY);
    browser.hide();
    const attempts = server.attempts;
    await advance(10 * (1_000 + MOCK_DELAY));
    expect(server.attempts).toBe(attempts + 10);
  });

  it('close() while paused leaves no timer and no listener', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    server.down();
    const socket = createSocket(server.url, { resume: { pauseWhileHidden: 0 } });
    await advance(MOCK_DELAY);
    browser.hide();
    await advance(60_000);
    expect(socket.state).toBe('reconnecting');
    socket.close();
    expect(socket.state).toBe('closed');
    expect(browser.listening).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    browser.visible();
    expect(socket.state).toBe('closed');
  });

  it('hidden and offline together: back online while hidden still waits for the page, visible while offline for the network', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    const socket = createSocket(server.url, { resume: { pauseWhileHidden: 1_000 } });
    const log = record(socket);
    await advance(MOCK_DELAY);
    browser.hide();
    await advance(1_000);
    browser.offline();
    server.drop();
    await advance(MOCK_DELAY);
    expect(log.of('state').at(-1)?.reason).toBe('offline: waiting for the network');
    const attempts = server.attempts;
    browser.online();
    await advance(60_000);
    expect(server.attempts).toBe(attempts); // the page is still hidden
    expect(socket.state).toBe('reconnecting');
    browser.offline();
    browser.visible();
    await advance(60_000);
    expect(server.attempts).toBe(attempts); // visible, but offline
    browser.online();
    expect(socket.state).toBe('connecting');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('reconnect() while paused connects at once (the user asked); if that attempt fails, the retry waits for the page', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    server.down();
    const socket = createSocket(server.url, { resume: { pauseWhileHidden: 0 } });
    const log = record(socket);
    await advance(MOCK_DELAY);
    browser.hide();
    await advance(60_000);
    const attempts = server.attempts;
    socket.reconnect();
    expect(socket.state).toBe('connecting');
    await advance(MOCK_DELAY);
    expect(server.attempts).toBe(attempts + 1);
    expect(socket.state).toBe('reconnecting');
    expect(log.of('state').at(-1)?.reason).toBe('page hidden: waiting for it to be visible');
    await advance(60_000);
    expect(server.attempts).toBe(attempts + 1);
  });
});

describe('a resume signal restarts an attempt that hangs', () => {
  it.each([
    ['back online', 'network back online', (b: ReturnType<typeof stubBrowser>) => b.online()],
    [
      'visible after being hidden',
      'page visible',
      (b: ReturnType<typeof stubBrowser>) => {
        b.hide();
        b.visible();
      },
    ],
  ])(
    '%s: an attempt connecting for over the grace is abandoned (a failure), a fresh one starts at once, the old one is closed and heard no more',
    async (_name, reason, signal) => {
      const browser = stubBrowser();
      const { flaky: server } = startServer();
      const { hung, WebSocket } = hangFirst(1);
      const socket = createSocket(server.url, { WebSocket });
      const log = record(socket);
      await advance(4_000); // a blackholed upgrade: connectTimeout (10 s) would end it at 10 s
      expect(socket.state).toBe('connecting');
      expect(hung).toHaveLength(1);

      signal(browser);
      expect(socket.state).toBe('connecting');
      expect(socket.attempt).toBe(2);
      expect(socket.failures).toBe(1);
      expect(hung[0]?.closeCalls).toBe(1);
      expect(log.errors()).toEqual([ErrorCodes.CONNECT_TIMEOUT]);
      expect(log.of('error')[0]?.message).toBe(
        inMode(
          `Connection attempt 1 had been connecting for 4000 ms at a resume (${reason}): abandoned for a fresh attempt`,
          ErrorCodes.CONNECT_TIMEOUT,
        ),
      );
      expect(log.of('close')).toEqual([
        { code: 1006, reason: 'restarted on resume', wasClean: false, willReconnect: true },
      ]);
      expect(log.of('reconnecting')).toEqual([{ attempt: 2, delay: 0 }]);
      expect(log.of('state').at(-1)?.reason).toBe(`retrying now: ${reason}`);
      await advance(MOCK_DELAY);
      expect(socket.state).toBe('open');

      // The abandoned socket opens and talks late: nobody hears it.
      const events = log.events.length;
      hung[0]?.dispatchEvent(new Event('open'));
      hung[0]?.dispatchEvent(Object.assign(new Event('message'), { data: 'late' }));
      hung[0]?.dispatchEvent(Object.assign(new Event('close'), { code: 1000, reason: '', wasClean: true }));
      await advance(MOCK_DELAY);
      expect(log.events.length).toBe(events);
      expect(socket.state).toBe('open');
    },
  );

  it('an attempt connecting for the grace or less is left alone; a later signal past it restarts it', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    const { hung, WebSocket } = hangFirst(1);
    const socket = createSocket(server.url, { WebSocket });
    const log = record(socket);
    await advance(HUNG_ATTEMPT_GRACE);
    browser.online();
    expect(socket.attempt).toBe(1);
    expect(hung[0]?.closeCalls).toBe(0);
    expect(log.errors()).toEqual([]);
    await advance(1);
    browser.online();
    expect(socket.attempt).toBe(2);
    expect(log.errors()).toEqual([ErrorCodes.CONNECT_TIMEOUT]);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('reconnect() while connecting starts the count again for the attempt it makes', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    const { hung, WebSocket } = hangFirst(2);
    const socket = createSocket(server.url, { WebSocket });
    await advance(5_000);
    socket.reconnect(); // a second attempt, hung too
    await advance(500);
    expect(hung).toHaveLength(2);
    browser.online(); // the second attempt is 0.5 s old
    expect(socket.attempt).toBe(1); // reconnect() reset the count; still its first attempt
    expect(hung[1]?.closeCalls).toBe(0);
    await advance(HUNG_ATTEMPT_GRACE);
    browser.online();
    expect(hung[1]?.closeCalls).toBe(1);
    expect(socket.attempt).toBe(2);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('going offline leaves the attempt alone; with retries held (offline), an abandoned attempt waits for the network', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    const { hung, WebSocket } = hangFirst(1);
    const socket = createSocket(server.url, { WebSocket, resume: { pauseWhileHidden: 0 } });
    const log = record(socket);
    browser.hide();
    await advance(3_000);
    browser.offline();
    expect(hung[0]?.closeCalls).toBe(0);
    // A resume signal while the page is still hidden (pauseWhileHidden: 0): the hung attempt goes,
    // and the retry waits for the page.
    browser.online();
    expect(hung[0]?.closeCalls).toBe(1);
    expect(socket.state).toBe('reconnecting');
    expect(log.of('state').at(-1)?.reason).toBe('page hidden: waiting for it to be visible');
    browser.visible();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('a URL provider that hangs is abandoned too (no socket yet: no close event)', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    let calls = 0;
    const socket = createSocket(() => (++calls === 1 ? new Promise<string>(() => {}) : server.url));
    const log = record(socket);
    await advance(2_000);
    browser.online();
    expect(log.errors()).toEqual([ErrorCodes.CONNECT_TIMEOUT]);
    expect(log.of('close')).toEqual([]);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(calls).toBe(2);
  });

  it('in Node: waking from a suspension restarts an attempt hung since before it', async () => {
    const { flaky: server } = startServer();
    const { hung, WebSocket } = hangFirst(1);
    const socket = createSocket(server.url, { WebSocket });
    const log = record(socket);
    await advance(500);
    vi.setSystemTime(Date.now() + 60_000); // the machine slept a minute; the timers did not move
    await advance(DRIFT_CHECK_INTERVAL);
    expect(hung[0]?.closeCalls).toBe(1);
    expect(log.errors()).toEqual([ErrorCodes.CONNECT_TIMEOUT]);
    expect(log.of('state').map((change) => change.reason)).toEqual([
      inMode(
        'Connection attempt 1 had been connecting for 61000 ms at a resume (process resumed after about 61000 ms without timers): abandoned for a fresh attempt',
        ErrorCodes.CONNECT_TIMEOUT,
      ),
      'retrying now: process resumed after about 61000 ms without timers',
      'connection opened',
    ]);
    expect(socket.state).toBe('open');
  });

  it('in Node: connectTimeout: Infinity arms no suspension watch while connecting (no timer at all)', async () => {
    const { flaky: server } = startServer();
    const { WebSocket } = hangFirst(1);
    createSocket(server.url, { WebSocket, connectTimeout: Number.POSITIVE_INFINITY });
    await advance(500);
    expect(vi.getTimerCount()).toBe(0);
    const other = startServer();
    createSocket(other.url, { WebSocket: hangFirst(1).WebSocket });
    expect(vi.getTimerCount()).toBe(2); // its connect deadline, and the suspension watch
  });
});

describe('pauseWhileHidden validation', () => {
  it.each<[unknown, TypeErrorConstructor | RangeErrorConstructor, string, string]>([
    [
      true,
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'Expected `resume.pauseWhileHidden` to be a number (ms) or false, got boolean true',
    ],
    [
      '1s',
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'Expected `resume.pauseWhileHidden` to be a number (ms) or false, got string "1s"',
    ],
    [
      null,
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'Expected `resume.pauseWhileHidden` to be a number (ms) or false, got null',
    ],
    [
      -1,
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'Expected `resume.pauseWhileHidden` to be a finite number >= 0 or Infinity, got -1',
    ],
    [
      Number.NaN,
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'Expected `resume.pauseWhileHidden` to be a finite number >= 0 or Infinity, got NaN',
    ],
  ])('%s → %o', (value, Kind, code, text) => {
    expectInputError(() => resume({ pauseWhileHidden: value as never }), Kind, code, 'resume.pauseWhileHidden', text);
    const { flaky: server } = startServer();
    expectInputError(
      () => createSocket(server.url, { resume: { pauseWhileHidden: value as never } }),
      Kind,
      code,
      'resume.pauseWhileHidden',
      text,
    );
  });

  it('0, a number of ms, Infinity and false are taken', () => {
    for (const pauseWhileHidden of [0, 30_000, Number.POSITIVE_INFINITY, false] as const) {
      expect(resume({ pauseWhileHidden }).name).toBe('resume');
    }
  });
});
