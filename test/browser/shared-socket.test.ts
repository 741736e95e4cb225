import { describe, expect, it } from 'vitest';
import { WEBSOCKET_FAILED } from './harness.js';
import {
  allOpen,
  broadcastAndCheck,
  burst,
  type Connection,
  CountingServer,
  fromTab,
  leaderOf,
  oneLeader,
  QUIET_MS,
  report,
  roles,
  run,
  sendBurstsAndCheck,
  snapshots,
  type Tab,
  unchangedFor,
  untilServer,
  untilTabs,
  useSharedTabs,
} from './shared-page.js';

// `resilient-socket/shared` in Chromium (./shared-page.ts says how): three tabs of one origin share
// one connection; a burst from every tab reaches the server once, in order; a server restart makes
// one reconnect, not one per tab; the connection closes with the last tab.

const { cleanup, browser, openTabs } = useSharedTabs();

describe('SharedSocket in Chromium: three tabs of one origin, one real ws server', () => {
  it('loads dist/shared.js; three tabs make ONE connection, with exactly one leader', async () => {
    const server = await CountingServer.start(cleanup);
    const { tabs } = await openTabs(server);
    expect(await run(tabs[0] as Tab, (t) => t.exports)).toContain('SharedSocket');
    await unchangedFor(QUIET_MS, 'the roles and states', async () => [
      roles(await snapshots(tabs)),
      server.connections.length,
    ]);
    expect(server.connections).toHaveLength(1);
    expect(server.open).toHaveLength(1);
    const all = await snapshots(tabs);
    expect(roles(all).sort()).toEqual(['follower', 'follower', 'leader']);
    expect(all.map((s) => [s.state, s.readyState])).toEqual([
      ['open', 1],
      ['open', 1],
      ['open', 1],
    ]);
    // The leader heard `role: leader` once; the followers never led.
    for (const [i, tab] of tabs.entries()) {
      const heard = (await run(tab, (t) => t.log('role'))).map((e) => e.value);
      if (all[i]?.role === 'leader') expect(heard, tab.name).toEqual(['leader']);
      else expect(heard, tab.name).not.toContain('leader');
      expect(await run(tab, (t) => t.count('open')), `${tab.name} open events`).toBe(1);
    }
  });

  it('a burst of 5 messages from every tab reaches the server exactly once, in each tab’s order; every tab receives every server message', async () => {
    const server = await CountingServer.start(cleanup);
    const { tabs } = await openTabs(server);
    await sendBurstsAndCheck(server, tabs, 5);
    expect(server.connections).toHaveLength(1);
    expect(server.received.filter((r) => r.connection !== 1)).toEqual([]);

    await broadcastAndCheck(server, tabs, ['news-1', 'news-2', 'news-3']);
    // The echo of nothing: no tab got a message twice, or someone else's outbound message.
    for (const tab of tabs) expect(await run(tab, (t) => t.messages())).toEqual(['news-1', 'news-2', 'news-3']);
    expect(server.connections).toHaveLength(1);
  });

  it('a server restart: ONE reconnect for the three tabs (one new connection), every tab open again', async () => {
    const server = await CountingServer.start(cleanup);
    const { tabs } = await openTabs(server);
    const { leader } = await leaderOf(tabs);
    browser.allowConsoleErrors(WEBSOCKET_FAILED); // the leader's attempts refused while the server is down

    await server.ws.crash();
    await untilTabs(tabs, 'every tab to see the connection lost', 3_000, (all) => all.every((s) => s.state !== 'open'));
    // Sent by every tab while the server is down: each tab queues its own.
    const during = await Promise.all(tabs.map((tab) => run(tab, (t, texts) => t.send(texts), burst(tab, 2))));
    for (const result of during) expect(result).toEqual(['buffered', 'buffered']);
    const restartedAt = performance.now();
    await server.ws.start();
    await untilServer(server, 'the reconnect', 3_000, () => server.connections.length >= 2);
    report(
      'reconnect after the server restart (listening again → new connection)',
      (server.connections[1] as Connection).at - restartedAt,
    );
    await untilTabs(tabs, 'every tab open again, one leader', 3_000, (all) => allOpen(all) && oneLeader(all));
    await unchangedFor(QUIET_MS * 2, 'the connections and roles', async () => [
      server.connections.length,
      server.open.length,
      roles(await snapshots(tabs)),
    ]);
    expect(server.connections).toHaveLength(2);
    expect(server.open.map((c) => c.id)).toEqual([2]);
    // The same leader reconnected; every tab heard the close and a reconnected open.
    expect((await leaderOf(tabs)).leader).toBe(leader);
    // (`close` is emitted for the lost connection and for every attempt refused before the server
    // listened again: the followers mirror the leader's.)
    const closes = await run(leader, (t) => t.count('close'));
    expect(closes).toBeGreaterThanOrEqual(1);
    for (const tab of tabs) {
      const opens = await run(tab, (t) => t.log('open'));
      expect(
        opens.map((e) => e.reconnected),
        tab.name,
      ).toEqual([false, true]);
      expect(await run(tab, (t) => t.count('close')), tab.name).toBe(closes);
    }
    // What they queued during the outage went out once, in order, on the new connection.
    await untilServer(server, 'the queued messages', 2_000, () => server.texts.length >= 6);
    for (const tab of tabs) expect(fromTab(server, tab), tab.name).toEqual(burst(tab, 2));
    expect(server.received.filter((r) => r.connection !== 2)).toEqual([]);
    await sendBurstsAndCheck(server, tabs, 3, 100);
    expect(server.texts).toHaveLength(6 + 9);
    await broadcastAndCheck(server, tabs, ['after-restart']);
  });

  it('socket.close() in every tab, the leader last: the connection stays open until the last one closes it (code 1000)', async () => {
    const server = await CountingServer.start(cleanup);
    const { tabs } = await openTabs(server);
    const { leader, followers } = await leaderOf(tabs);
    for (const tab of followers) expect(await run(tab, (t) => t.close())).toBe('closed');
    await unchangedFor(QUIET_MS, 'the connections', () => [server.connections.length, server.open.length]);
    expect(server.open.map((c) => c.id)).toEqual([1]);
    expect(await run(leader, (t) => t.snapshot())).toMatchObject({ role: 'leader', state: 'open' });

    const closedAt = performance.now();
    expect(await run(leader, (t) => t.close())).toMatch(/^clos(ing|ed)$/);
    await untilServer(server, 'the server to see the connection close', 2_000, () => server.open.length === 0);
    report(
      'last tab socket.close() → server close event',
      (server.connections[0]?.closed?.at ?? Number.NaN) - closedAt,
    );
    expect(server.connections[0]?.closed?.code).toBe(1000);
    await unchangedFor(QUIET_MS, 'the connections', () => server.connections.length);
    expect(server.connections).toHaveLength(1);
  });

  it('page.close() of every tab, the leader last: the connection stays open until the last tab is gone', async () => {
    const server = await CountingServer.start(cleanup);
    const { tabs } = await openTabs(server);
    const { leader, followers } = await leaderOf(tabs);
    for (const tab of followers) await tab.page.close();
    await unchangedFor(QUIET_MS, 'the connections', () => [server.connections.length, server.open.length]);
    expect(server.open.map((c) => c.id)).toEqual([1]);
    expect(await run(leader, (t) => t.snapshot())).toMatchObject({ role: 'leader', state: 'open' });

    const closedAt = performance.now();
    await leader.page.close();
    await untilServer(server, 'the server to see the connection close', 2_000, () => server.open.length === 0);
    report('last tab page.close() → server close event', (server.connections[0]?.closed?.at ?? Number.NaN) - closedAt);
    await unchangedFor(QUIET_MS, 'the connections', () => server.connections.length);
    expect(server.connections).toHaveLength(1);
  });
});
