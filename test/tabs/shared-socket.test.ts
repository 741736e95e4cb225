/**
 * `SharedSocket` (src/tabs/): several tabs of one origin simulated in one process (the fake Web
 * Locks and BroadcastChannel of `../helpers/fake-tabs.ts`, with tabs that freeze, thaw and
 * crash), on mock-socket servers under fake timers. One connection for all tabs; followers that
 * mirror it and send through the leader, in order, never losing a message silently; failover when
 * the leader closes, crashes or freezes (and what "re-sent once" covers); two elections at once;
 * the last tab closing the connection; options refused at construction.
 */
import { describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import type { ResilientSocketError } from '../../src/errors.js';
import { bufferPolicy } from '../../src/features/buffer-policy/buffer-policy.js';
import { stats } from '../../src/features/stats/stats.js';
import type { ResilientSocket } from '../../src/node.js';
import { LEADER_TIMEOUT, PING_EVERY, STALE_AFTER } from '../../src/tabs/protocol.js';
import { SharedSocket, type SharedSocketOptions } from '../../src/tabs/shared-socket.js';
import { FakeBrowser, type FakeTab } from '../helpers/fake-tabs.js';
import { advance, MOCK_DELAY, record, startServer, type TestServer, thrown } from '../resilient-socket/helpers.js';
import { useSharedSockets } from './helpers.js';

/** The longest a follower waits before taking over a silent leader (first in line), plus a tick. */
const TAKEOVER = LEADER_TIMEOUT + 2 * PING_EVERY;

const share = useSharedSockets();

/** `n` tabs of one origin, each with a SharedSocket to `server` (and its event log), settled. */
async function tabs(n: number, server: TestServer, options: SharedSocketOptions = {}) {
  const browser = new FakeBrowser();
  const all = Array.from({ length: n }, () => browser.tab());
  const sockets = all.map((tab) => share(tab, server.url, options));
  const logs = sockets.map((socket) => record(socket as unknown as ResilientSocket));
  await advance(20);
  return { browser, tabs: all, sockets, logs };
}

/** Connections the server holds open now. */
const openAt = (server: TestServer): number => server.clients.filter((c) => c.readyState === 1).length;

const leaderOf = (sockets: SharedSocket[]): SharedSocket => {
  const leaders = sockets.filter((s) => s.role === 'leader');
  expect(leaders).toHaveLength(1);
  return leaders[0] as SharedSocket;
};

describe('one connection for all tabs', () => {
  it('elects one leader that holds the only connection; every tab shows it open', async () => {
    const server = startServer();
    const { sockets, logs } = await tabs(3, server);
    expect(server.clients).toHaveLength(1);
    expect(sockets.map((s) => s.role)).toEqual(['leader', 'follower', 'follower']);
    for (const [i, socket] of sockets.entries()) {
      expect(socket.state).toBe('open');
      expect(socket.readyState).toBe(1);
      expect(socket.url).toBe(server.url);
      expect((logs[i] as ReturnType<typeof record>).states()).toEqual(['connecting→open']);
      expect((logs[i] as ReturnType<typeof record>).of('open')).toEqual([{ attempt: 1, reconnected: false }]);
    }
  });

  it('a tab that joins an open connection gets its own open event, and no new connection', async () => {
    const server = startServer();
    const { browser } = await tabs(2, server);
    const late = share(browser.tab(), server.url);
    const log = record(late as unknown as ResilientSocket);
    await advance(10);
    expect(server.clients).toHaveLength(1);
    expect(late.role).toBe('follower');
    expect(log.states()).toEqual(['connecting→open']);
    expect(log.of('open')).toEqual([{ attempt: 1, reconnected: false }]);
  });

  it('every tab sends through the one connection: each message once, in order per tab', async () => {
    const server = startServer();
    const { sockets } = await tabs(3, server);
    const results = [];
    for (let round = 0; round < 5; round++) {
      for (const [i, socket] of sockets.entries()) results.push(socket.send(`${i}:${round}`));
    }
    expect(results.every((r) => r === 'sent')).toBe(true);
    await advance(20);
    expect(server.received).toHaveLength(15);
    expect(new Set(server.received).size).toBe(15);
    for (const i of [0, 1, 2]) {
      const mine = server.received.filter((d) => String(d).startsWith(`${i}:`));
      expect(mine).toEqual([0, 1, 2, 3, 4].map((r) => `${i}:${r}`));
    }
    // Written means confirmed: nothing waits any more.
    expect(sockets.map((s) => s.bufferedCount)).toEqual([0, 0, 0]);
  });

  it('every tab receives every message, binary as Blob by default or ArrayBuffer', async () => {
    const server = startServer();
    const { sockets } = await tabs(3, server);
    (sockets[2] as SharedSocket).binaryType = 'arraybuffer';
    const got: unknown[][] = sockets.map(() => []);
    for (const [i, s] of sockets.entries()) s.on('message', (data) => got[i]?.push(data));
    server.broadcast('one');
    server.broadcast(new Uint8Array([1, 2, 3]).buffer);
    server.broadcast('three');
    await advance(10);
    for (const [i, messages] of got.entries()) {
      expect(messages).toHaveLength(3);
      expect(messages[0]).toBe('one');
      expect(messages[2]).toBe('three');
      const binary = messages[1];
      if (i === 2) expect(binary).toBeInstanceOf(ArrayBuffer);
      else expect(binary).toBeInstanceOf(Blob);
    }
    expect(() => {
      (sockets[0] as SharedSocket).binaryType = 'nodebuffer' as never;
    }).toThrow(RangeError);
  });

  it('errors reach the followers as ResilientSocketErrors with their code', async () => {
    const server = startServer();
    // A fixed retry delay: with random draws, an attempt could fail in the last tick of the wait
    // below, with its relay to the follower (a task, as in a browser) still on its way.
    const { sockets, logs } = await tabs(2, server, { backoff: constant({ delay: 45 }) });
    server.closeLast(4000, 'bye');
    await advance(MOCK_DELAY + 1);
    server.stop();
    await advance(200);
    const follower = logs[1] as ReturnType<typeof record>;
    expect(follower.errors().length).toBeGreaterThan(0);
    expect(follower.errors()).toEqual((logs[0] as ReturnType<typeof record>).errors());
    const error = follower.of('error')[0] as ResilientSocketError;
    expect(error.name).toBe('ResilientSocketError');
    expect(follower.of('close')[0]).toMatchObject({ code: 4000, reason: 'bye', willReconnect: true });
    expect((sockets[1] as SharedSocket).failures).toBe((sockets[0] as SharedSocket).failures);
  });
});

describe("a follower's send()", () => {
  it('queues in its own tab while no connection is open, then flushes in order (same results as ResilientSocket)', async () => {
    const server = startServer();
    const { sockets } = await tabs(2, server);
    const follower = sockets[1] as SharedSocket;
    server.stop();
    await advance(MOCK_DELAY + 1);
    expect(follower.state).not.toBe('open');
    expect(follower.send('a')).toBe('buffered');
    expect(follower.send('b')).toBe('buffered');
    expect(follower.bufferedCount).toBe(2);
    const drops: unknown[] = [];
    follower.on('drop', (info) => drops.push(info));
    expect(follower.send('c', { buffer: false })).toBe('dropped');
    expect(drops).toEqual([{ reason: 'not-connected', messages: ['c'] }]);
    const back = startServer(server.url);
    await advance(15_000);
    expect(follower.state).toBe('open');
    expect(back.received).toEqual(['a', 'b']);
    expect(follower.bufferedCount).toBe(0);
  });

  it('applies the buffer limits and policy of its options, reporting drops in the sending tab only', async () => {
    const server = startServer();
    const { sockets } = await tabs(2, server, { buffer: { maxMessages: 2 }, features: [bufferPolicy()] });
    server.stop();
    await advance(MOCK_DELAY + 1);
    const drops: unknown[][] = [[], []];
    for (const [i, s] of sockets.entries()) s.on('drop', (info) => drops[i]?.push(info));
    for (const data of ['1', '2', '3']) (sockets[1] as SharedSocket).send(data);
    expect(drops[1]).toEqual([{ reason: 'overflow', messages: ['1'] }]);
    expect(drops[0]).toEqual([]);
  });

  it('a message the leader had not confirmed when its connection dropped is sent again, once', async () => {
    const server = startServer();
    const { browser, tabs: all, sockets } = await tabs(2, server);
    const follower = sockets[1] as SharedSocket;
    // The leader's tab is busy (frozen) for a moment: the message waits in its inbox...
    (all[0] as FakeTab).freeze();
    expect(follower.send('late')).toBe('sent');
    expect(follower.bufferedCount).toBe(1);
    await advance((STALE_AFTER + LEADER_TIMEOUT) / 2); // not long enough to be taken over
    // ...and reaches it too old to be written: it comes back to the follower, which sends it again.
    (all[0] as FakeTab).thaw();
    await advance(50);
    expect(browser.posted.filter((p) => (p.data as { type: string }).type === 'nack')).toHaveLength(1);
    expect(server.received).toEqual(['late']);
    expect(follower.bufferedCount).toBe(0);
    expect(sockets.map((s) => s.role)).toEqual(['leader', 'follower']);
  });
});

describe('failover', () => {
  it("the leader's close() hands the connection over: one new connection, with the usual backoff", async () => {
    const server = startServer();
    const { sockets, logs } = await tabs(3, server);
    const roles: string[] = [];
    (sockets[1] as SharedSocket).on('role', (role) => roles.push(role));
    (sockets[0] as SharedSocket).close();
    await advance(MOCK_DELAY + 100);
    expect(roles).toEqual(['leader']);
    expect(server.clients).toHaveLength(2);
    expect(openAt(server)).toBe(1);
    for (const log of logs.slice(1)) {
      expect(log.states()).toEqual([
        'connecting→open',
        'open→reconnecting',
        'reconnecting→connecting',
        'connecting→open',
      ]);
      expect(log.of('close')).toEqual([
        { code: 1006, reason: 'the leader tab left', wasClean: false, willReconnect: true },
      ]);
      const [wait] = log.of('reconnecting');
      // The first window of the default backoff (maxDelay 10 s, ceiling 10): [0, 10000 / 2^9).
      expect(wait?.delay).toBeLessThan(10_000 / 2 ** 9);
      expect(log.of('open').at(-1)).toEqual({ attempt: 2, reconnected: true });
    }
    (sockets[2] as SharedSocket).send('after');
    await advance(10);
    expect(server.received).toEqual(['after']);
  });

  it('a crashed leader tab releases the lock: the next tab takes over at once', async () => {
    const server = startServer();
    const { tabs: all, sockets } = await tabs(3, server);
    (all[0] as FakeTab).crash();
    // Its code is gone and its connection ends with it (here: its socket, closed without a word to the others).
    (sockets[0] as SharedSocket).removeAllListeners();
    (sockets[0] as SharedSocket).close();
    await advance(MOCK_DELAY + 50);
    expect(sockets[1]?.role).toBe('leader');
    expect(sockets[2]?.role).toBe('follower');
    expect(openAt(server)).toBe(1);
    expect(server.clients).toHaveLength(2);
  });

  it('a frozen leader is taken over within 1 s; what it had not written is re-sent once; it follows when it thaws', async () => {
    const server = startServer();
    const { tabs: all, sockets } = await tabs(3, server);
    const [old, first, second] = sockets as [SharedSocket, SharedSocket, SharedSocket];
    first.send('f1');
    await advance(5);
    expect(server.received).toEqual(['f1']);
    (all[0] as FakeTab).freeze();
    const frozenAt = Date.now();
    // Mid-send: these reach the frozen leader's inbox, unwritten.
    expect(first.send('f2')).toBe('sent');
    expect(second.send('s1')).toBe('sent');
    let tookOver = 0;
    first.on('role', () => {
      tookOver = Date.now() - frozenAt;
    });
    await advance(TAKEOVER + 100);
    expect(first.role).toBe('leader');
    expect(tookOver).toBeGreaterThan(0);
    expect(tookOver).toBeLessThan(1_000);
    expect(second.role).toBe('follower');
    expect(server.received).toEqual(['f1', 'f2', 's1']);
    // The thawed tab learns it was taken over: it lets its connection go and follows.
    (all[0] as FakeTab).thaw();
    await advance(50);
    expect(old.role).toBe('follower');
    expect(old.state).toBe('open');
    expect(openAt(server)).toBe(1);
    expect(server.received).toEqual(['f1', 'f2', 's1']);
    old.send('o1');
    await advance(10);
    expect(server.received).toEqual(['f1', 'f2', 's1', 'o1']);
  });

  it('two elections at once (both followers steal together): one leader and one connection remain, nothing doubled', async () => {
    const server = startServer();
    const browser = new FakeBrowser();
    const frozen = browser.tab();
    const old = share(frozen, server.url);
    await advance(20);
    frozen.freeze();
    // Two tabs join a leader that never answers: neither learns its place in line, so both take
    // the lock at the same moment.
    const [tabA, tabB] = [browser.tab(), browser.tab()];
    const steals = [tabA, tabB].map((tab) => vi.spyOn(tab.locks, 'request'));
    const [first, second] = [share(tabA, server.url), share(tabB, server.url)];
    const roles: string[] = [];
    first.on('role', (role) => roles.push(`first:${role}`));
    second.on('role', (role) => roles.push(`second:${role}`));
    expect(first.send('a')).toBe('buffered');
    expect(second.send('b')).toBe('buffered');
    await advance(TAKEOVER + 200);
    for (const spy of steals)
      expect(spy.mock.calls.filter((call) => (call[1] as { steal?: boolean }).steal)).toHaveLength(1);
    // The second steal takes the lock from the first (before or after its callback ran).
    expect(roles.at(-1)).toBe('second:leader');
    expect(first.role).toBe('follower');
    frozen.thaw();
    await advance(500);
    expect(leaderOf([old, first, second])).toBe(second);
    expect(openAt(server)).toBe(1);
    expect([...server.received].sort()).toEqual(['a', 'b']);
    for (const socket of [old, first, second]) expect(socket.state).toBe('open');
  });

  it('a server restart: one reconnect for all tabs, not one per tab', async () => {
    const server = startServer();
    const { sockets } = await tabs(3, server);
    server.stop();
    await advance(MOCK_DELAY + 1);
    const back = startServer(server.url);
    await advance(15_000);
    expect(back.clients).toHaveLength(1);
    for (const socket of sockets) expect(socket.state).toBe('open');
  });

  it('the last tab to close closes the connection, leaving no timer behind', async () => {
    const server = startServer();
    const { sockets } = await tabs(3, server);
    for (const socket of sockets) socket.close();
    await advance(3_500);
    expect(openAt(server)).toBe(0);
    expect(server.clients).toHaveLength(1); // and no new connection on the way
    for (const socket of sockets) expect(socket.state).toBe('closed');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('commands and shared features', () => {
  it("a follower's reconnect() and open() are run by the leader", async () => {
    const server = startServer();
    const { sockets } = await tabs(2, server, { maxRetries: 0 });
    (sockets[1] as SharedSocket).reconnect(4001, 'again');
    await advance(20);
    expect(server.clients).toHaveLength(2);
    expect(openAt(server)).toBe(1);
    server.stop();
    await advance(100);
    expect(sockets.map((s) => s.state)).toEqual(['closed', 'closed']);
    const back = startServer(server.url);
    (sockets[1] as SharedSocket).open();
    await advance(20);
    expect(back.clients).toHaveLength(1);
    expect(sockets.map((s) => s.state)).toEqual(['open', 'open']);
  });

  it('a give-up reaches every tab, with its queue dropped', async () => {
    const server = startServer();
    const { sockets, logs } = await tabs(2, server, { maxRetries: 1 });
    server.stop();
    await advance(MOCK_DELAY + 1);
    (sockets[1] as SharedSocket).send('never');
    await advance(2_000);
    const follower = logs[1] as ReturnType<typeof record>;
    expect(follower.of('giveup')).toHaveLength(1);
    expect(follower.of('drop')).toEqual([{ reason: 'closed', messages: ['never'] }]);
    expect((sockets[1] as SharedSocket).send('after')).toBe('dropped');
  });

  it('stats in a follower are the shared connection’s, with its own drops', async () => {
    const server = startServer();
    const { sockets } = await tabs(2, server, { features: [stats()] });
    server.broadcast('x');
    await advance(100);
    const [leader, follower] = [sockets[0] as SharedSocket, sockets[1] as SharedSocket];
    expect(follower.stats.connects).toBe(1);
    expect(follower.stats.messagesIn).toBe(leader.stats.messagesIn);
    expect(follower.stats.uptime).toBeGreaterThanOrEqual(100);
    follower.send('y', { buffer: false });
    server.stop();
    await advance(MOCK_DELAY + 1);
    follower.send('z', { buffer: false });
    expect(follower.stats.dropped).toBe(1);
    expect(leader.stats.dropped).toBe(0);
  });

  it('a listener that throws in a follower is reported there, never fatal', async () => {
    const server = startServer();
    const { sockets } = await tabs(2, server);
    const follower = sockets[1] as SharedSocket;
    const errors: string[] = [];
    follower.on('error', (error) => errors.push(error.code));
    follower.on('message', () => {
      throw new Error('boom');
    });
    server.broadcast('x');
    await advance(10);
    expect(errors).toEqual(['ERR_RS_LISTENER_THREW']);
    expect(follower.state).toBe('open');
  });
});

describe('options', () => {
  const tab = new FakeBrowser().tab();
  const base = { locks: tab.locks as never, BroadcastChannel: tab.BroadcastChannel as never, autoConnect: false };

  it('refuses bad options with a typed error naming them', () => {
    expect(thrown(() => new SharedSocket('ws://127.0.0.1:1', { ...base, channel: 3 as never }))).toBeInstanceOf(
      TypeError,
    );
    expect(String(thrown(() => new SharedSocket('ws://127.0.0.1:1', { ...base, locks: {} as never })))).toMatch(
      /`locks`/,
    );
    expect(
      String(thrown(() => new SharedSocket('ws://127.0.0.1:1', { ...base, BroadcastChannel: 1 as never }))),
    ).toMatch(/`BroadcastChannel`/);
    expect(String(thrown(() => new SharedSocket(() => 'ws://127.0.0.1:1', base)))).toMatch(/`channel`/);
    expect(String(thrown(() => new SharedSocket('ws://127.0.0.1:1', { ...base, maxDelay: -1 })))).toMatch(/maxDelay/);
  });

  it('refuses clearly where there is no Web Locks API', () => {
    // Node 26 has one (`navigator.locks`): a runtime without it is made here.
    vi.stubGlobal('navigator', {});
    const error = thrown(
      () => new SharedSocket('ws://127.0.0.1:1', { BroadcastChannel: tab.BroadcastChannel as never }),
    );
    vi.unstubAllGlobals();
    expect((error as ResilientSocketError).code).toBe('ERR_RS_NO_SHARING');
    expect(String(error)).toMatch(/Web Locks/);
  });

  it('with autoConnect: false a tab joins on open()', async () => {
    const server = startServer();
    const browser = new FakeBrowser();
    const socket = share(browser.tab(), server.url, { autoConnect: false });
    await advance(20);
    expect(socket.state).toBe('idle');
    expect(server.clients).toHaveLength(0);
    socket.open();
    await advance(20);
    expect(socket.state).toBe('open');
    expect(socket.role).toBe('leader');
  });
});
