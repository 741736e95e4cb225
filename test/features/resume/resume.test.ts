/**
 * Resume awareness on a socket: probes after a resume, retries at once while waiting, pauses
 * while offline, and Node's suspension detection. Fake timers and a FlakyServer (test kit); the
 * browser globals are stubbed (the real browser is covered in test/browser/resume.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../../src/backoff/constant.js';
import { ErrorCodes } from '../../../src/errors.js';
import { resume } from '../../../src/features/resume/resume.js';
import { DRIFT_CHECK_INTERVAL } from '../../../src/features/resume/signals.js';
import { FlakyServer } from '../../../src/testing/flaky-server.js';
import { expectInputError, inMode } from '../../helpers/mode.js';
import {
  advance,
  cleanup,
  createSocket,
  expectOptionError,
  MOCK_DELAY,
  record,
  startServer,
} from '../../resilient-socket/helpers.js';
import { countingBackoff, stubPage as stubBrowser } from './page.js';

const PING = { interval: 30_000, timeout: 10_000, message: 'ping', isPong: (d: unknown) => d === 'pong' };

/** A test-kit server that answers 'ping' with 'pong' until `silence()` (a link that died quietly). */
const pongServers: FlakyServer[] = [];
function pongServer(): FlakyServer {
  const server = new FlakyServer({ reply: (message) => (message === 'ping' ? 'pong' : undefined) });
  pongServers.push(server);
  return server;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  for (const server of pongServers.splice(0)) server.stop();
  await cleanup();
  vi.unstubAllGlobals();
});

describe('resume() options', () => {
  it('false is a TypeError naming `resume`: leaving the feature out turns it off', () => {
    expectInputError(
      () => resume(false as never),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'resume',
      'Expected `resume` options to be an object; leave resume() out of `features` to turn it off',
    );
  });
});

describe('a page that comes back probes its open connection', () => {
  it.each([
    ['visibilitychange to visible', (b: ReturnType<typeof stubBrowser>) => b.visible()],
    ['pageshow from the back/forward cache', (b: ReturnType<typeof stubBrowser>) => b.pageshow()],
    ['online', (b: ReturnType<typeof stubBrowser>) => b.online()],
  ])('%s: a live link answers and stays; nothing is reported', async (_name, signal) => {
    const browser = stubBrowser();
    const server = pongServer();
    const socket = createSocket(server.url, { heartbeat: PING });
    const log = record(socket);
    await advance(MOCK_DELAY);
    signal(browser);
    await advance(MOCK_DELAY * 3);
    expect(server.received).toEqual(['ping']); // the probe, 30 s before the heartbeat's first ping
    await advance(5_000);
    expect(socket.state).toBe('open');
    expect(log.errors()).toEqual([]);
  });

  it('a dead link (no answer within probeTimeout) is closed and replaced, long before the heartbeat would notice', async () => {
    const browser = stubBrowser();
    const server = pongServer();
    const socket = createSocket(server.url, { heartbeat: PING, resume: { probeTimeout: 1_500 } });
    const log = record(socket);
    await advance(MOCK_DELAY);
    server.silence(); // the page slept; the connection died without a close
    browser.visible();
    await advance(1_499);
    expect(socket.state).toBe('open');
    await advance(1);
    expect(log.errors()).toEqual([ErrorCodes.DEAD_LINK]);
    expect(log.of('error')[0]?.message).toBe(
      inMode('No answer to the probe within 1500 ms after a resume', ErrorCodes.DEAD_LINK),
    );
    expect(log.of('close')[0]).toMatchObject({ code: 1006, reason: 'probe timeout', willReconnect: true });
    server.up();
    await advance(100);
    expect(socket.state).toBe('open');
    expect(server.connections).toBe(2);
  });

  // Only the answer to the probe proves the link alive: otherwise a link dead only from client to
  // server passes the probe while the server keeps streaming.
  it('only the answer to the probe counts: other messages do not, and the connection is replaced', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    const socket = createSocket(server.url, {
      heartbeat: { interval: 10_000, timeout: 2_000, message: 'ping', isPong: (d) => d === 'pong' },
      resume: { probeTimeout: 1_000 },
    });
    const log = record(socket);
    await advance(MOCK_DELAY);
    browser.visible();
    server.send('news'); // not a pong: the server streams, but our ping may never have arrived
    await advance(999);
    expect(socket.state).toBe('open');
    expect(log.of('message')).toEqual(['news']);
    await advance(1);
    expect(log.errors()).toEqual([ErrorCodes.DEAD_LINK]);
    expect(log.of('close')[0]).toMatchObject({ reason: 'probe timeout' });
  });

  it('going offline probes too: a connection the network change killed closes after probeTimeout, then waits for the network', async () => {
    const browser = stubBrowser();
    const server = pongServer();
    const socket = createSocket(server.url, { heartbeat: PING, resume: { probeTimeout: 1_000 } });
    const log = record(socket);
    await advance(MOCK_DELAY);
    server.silence();
    browser.offline();
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['ping']);
    await advance(1_000);
    expect(log.of('close')[0]).toMatchObject({ reason: 'probe timeout' });
    expect(socket.state).toBe('reconnecting');
    expect(log.of('state').at(-1)?.reason).toBe('offline: waiting for the network');
    server.up();
    browser.online();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('a blip shorter than probeTimeout survives: the probe sent on offline is answered, the connection stays', async () => {
    const browser = stubBrowser();
    const server = pongServer();
    const socket = createSocket(server.url, { heartbeat: PING, resume: { probeTimeout: 1_000 } });
    const log = record(socket);
    await advance(MOCK_DELAY);
    browser.offline(); // the network blinks, but this link lives on
    await advance(MOCK_DELAY * 3);
    expect(server.received).toEqual(['ping']);
    browser.online();
    await advance(5_000);
    expect(server.received).toEqual(['ping', 'ping']); // online probes again; answered too
    expect(socket.stats).toMatchObject({ messagesOut: 2, messagesIn: 2 });
    expect(socket.state).toBe('open');
    expect(server.connections).toBe(1);
    expect(log.errors()).toEqual([]);
    expect(log.of('close')).toEqual([]);
  });

  it('a connection with no way to ask (browser socket, no heartbeat message) is left alone', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    const socket = createSocket(server.url);
    const log = record(socket);
    await advance(MOCK_DELAY);
    browser.visible();
    await advance(60_000);
    expect(server.received).toEqual([]);
    expect(socket.state).toBe('open');
    expect(log.errors()).toEqual([]);
  });
});

describe('a socket waiting out a backoff delay', () => {
  it('retries now when the page comes back, keeping its failure count', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    server.down();
    const backoff = countingBackoff(60_000);
    const socket = createSocket(server.url, { backoff });
    const log = record(socket);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(socket.failures).toBe(1);
    expect(socket.attempt).toBe(2);
    server.up();
    browser.visible();
    expect(socket.state).toBe('connecting');
    expect(log.of('state').at(-1)?.reason).toBe('retrying now: page visible');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(backoff.drawn).toBe(1);
  });

  it('a server still down when the page comes back: the early retry fails and the count goes on (no reset)', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    server.down();
    const socket = createSocket(server.url, { maxDelay: 60_000, ceiling: 10 });
    const log = record(socket);
    await advance(MOCK_DELAY);
    expect(socket.failures).toBe(1);
    browser.visible(); // retry now, into a server that is still down
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(socket.failures).toBe(2);
    expect(socket.attempt).toBe(3);
    expect(log.of('reconnecting').map((r) => r.attempt)).toEqual([2, 3]);
    expect(server.attempts).toBe(2);
  });

  it('while offline: no attempt and no delay drawn; online retries at once', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    const backoff = countingBackoff(1_000);
    const socket = createSocket(server.url, { backoff });
    const log = record(socket);
    await advance(MOCK_DELAY);
    server.down();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(backoff.drawn).toBe(1);

    browser.offline(); // the wait is cancelled
    expect(socket.stats.nextRetryAt).toBeUndefined();
    const attempts = server.attempts;
    await advance(10 * 60_000);
    expect(server.attempts).toBe(attempts);
    expect(backoff.drawn).toBe(1);

    server.up();
    browser.online();
    expect(socket.state).toBe('connecting');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.names()).not.toContain('giveup');
  });

  it('a connection lost while offline waits for the network without drawing a delay', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    const backoff = countingBackoff(1_000);
    const socket = createSocket(server.url, { backoff });
    const log = record(socket);
    await advance(MOCK_DELAY);
    browser.offline();
    server.drop();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(log.of('state').at(-1)?.reason).toBe('offline: waiting for the network');
    expect(log.names()).not.toContain('reconnecting');
    expect(backoff.drawn).toBe(0);
    expect(socket.stats.nextRetryAt).toBeUndefined();
    browser.online();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('pauseWhileOffline: false keeps retrying while offline', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    server.down();
    const socket = createSocket(server.url, {
      backoff: constant({ delay: 1_000 }),
      resume: { pauseWhileOffline: false },
    });
    await advance(MOCK_DELAY);
    browser.offline();
    const attempts = server.attempts;
    await advance(3 * (1_000 + MOCK_DELAY));
    expect(server.attempts).toBe(attempts + 3);
    expect(socket.state).toBe('reconnecting');
  });

  it('resume: false ignores every signal', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    server.down();
    const socket = createSocket(server.url, { backoff: constant({ delay: 60_000 }), resume: false });
    await advance(MOCK_DELAY);
    server.up();
    browser.visible();
    browser.online();
    expect(socket.state).toBe('reconnecting');
    browser.offline();
    expect(socket.stats.nextRetryAt).toBeDefined();
  });

  it('close() unsubscribes: a closed socket hears nothing', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    const socket = createSocket(server.url, { heartbeat: PING });
    await advance(MOCK_DELAY);
    expect(browser.listening).toBeGreaterThan(0);
    socket.close();
    await advance(MOCK_DELAY * 3);
    expect(browser.listening).toBe(0); // the shared listeners went with the last subscriber
    browser.visible();
    browser.online();
    expect(socket.state).toBe('closed');
    expect(server.received).toEqual([]);
  });
});

// A give-up (closed) must not leave the socket deaf to the page and the network: otherwise, after
// open(), going offline, a lost connection and back online leave it in `reconnecting` with no timer
// and no attempt, for ever.
describe('after a give-up, open() and reconnect() listen to the page and the network again', () => {
  it.each(['open', 'reconnect'] as const)(
    '%s(): offline, a lost connection, back online → it reconnects',
    async (method) => {
      const browser = stubBrowser();
      const { flaky: server } = startServer();
      server.down();
      const socket = createSocket(server.url, { maxRetries: 1, backoff: constant({ delay: 50 }) });
      const log = record(socket);
      await advance(MOCK_DELAY + 50 + MOCK_DELAY);
      expect(socket.state).toBe('closed'); // gave up after two failed attempts
      expect(browser.listening).toBe(0);

      server.up();
      socket[method]();
      await advance(MOCK_DELAY);
      expect(socket.state).toBe('open');
      expect(browser.listening).toBeGreaterThan(0);

      browser.offline();
      server.drop(); // the network change killed the connection
      await advance(MOCK_DELAY);
      expect(socket.state).toBe('reconnecting');
      expect(vi.getTimerCount()).toBe(0); // waiting for the network, as it should
      browser.online();
      expect(socket.state).toBe('connecting');
      await advance(MOCK_DELAY);
      expect(socket.state).toBe('open');
      expect(log.of('open')).toHaveLength(2);
    },
  );

  it('a socket that gave up stops listening, and close() after open() stops again', async () => {
    const browser = stubBrowser();
    const { flaky: server } = startServer();
    server.down();
    const socket = createSocket(server.url, { maxRetries: 0 });
    const giveups = record(socket, ['giveup']); // heard, as an app would
    await advance(MOCK_DELAY);
    expect(giveups.of('giveup')).toHaveLength(1);
    expect(browser.listening).toBe(0);
    socket.open();
    expect(browser.listening).toBeGreaterThan(0);
    socket.close();
    expect(browser.listening).toBe(0);
  });
});

describe('in Node: a suspended process probes its open connections', () => {
  it('the wall clock jumping ahead of the timers (a machine that slept) sends the probe within a second', async () => {
    const server = pongServer();
    const socket = createSocket(server.url, { heartbeat: PING, resume: { probeTimeout: 2_000 } });
    const log = record(socket);
    await advance(MOCK_DELAY);
    server.silence();
    vi.setSystemTime(Date.now() + 120_000);
    await advance(DRIFT_CHECK_INTERVAL + MOCK_DELAY);
    expect(server.received).toEqual(['ping']);
    await advance(2_000);
    expect(log.of('close')[0]).toMatchObject({ reason: 'probe timeout' });
  });

  it('watches only while a heartbeat-watched connection is open (no timer of its own otherwise)', async () => {
    const { flaky: server } = startServer();
    const plain = createSocket(server.url, { stableAfter: 0 }); // mock-socket, no heartbeat: no timer at all
    await advance(MOCK_DELAY);
    expect(plain.state).toBe('open');
    expect(vi.getTimerCount()).toBe(0);
    const watched = createSocket(server.url, { heartbeat: PING, stableAfter: 0 });
    await advance(MOCK_DELAY);
    expect(vi.getTimerCount()).toBe(2); // its ping, and the shared drift watcher
    const other = createSocket(server.url, { heartbeat: PING, stableAfter: 0 });
    await advance(MOCK_DELAY);
    expect(vi.getTimerCount()).toBe(3); // one more ping; the watcher is shared
    watched.close();
    other.close();
    await advance(MOCK_DELAY * 3);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('detectSuspend: false: no watcher', async () => {
    const { flaky: server } = startServer();
    createSocket(server.url, { heartbeat: PING, stableAfter: 0, resume: { detectSuspend: false } });
    await advance(MOCK_DELAY);
    expect(vi.getTimerCount()).toBe(1); // the ping only
  });
});

describe('resume option validation', () => {
  it.each<[unknown, ErrorConstructor, string]>([
    ['yes', TypeError, 'resume'],
    [null, TypeError, 'resume'],
    [{ probeTimeout: 0 }, RangeError, 'resume.probeTimeout'],
    [{ probeTimeout: '1s' }, TypeError, 'resume.probeTimeout'],
    [{ pauseWhileOffline: 'no' }, TypeError, 'resume.pauseWhileOffline'],
    [{ detectSuspend: 1 }, TypeError, 'resume.detectSuspend'],
  ])('resume: %j → %o naming %s', (resume, Type, name) => {
    const { flaky: server } = startServer();
    expectOptionError(() => createSocket(server.url, { resume } as never), Type, name);
  });
});
