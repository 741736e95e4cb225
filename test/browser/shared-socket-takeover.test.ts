import { describe, expect, it } from 'vitest';
import { sleep } from '../helpers/wait.js';
import { eventually } from './harness.js';
import {
  allOpen,
  broadcastAndCheck,
  burst,
  type Connection,
  CountingServer,
  freeze,
  fromTab,
  HANG_MS,
  leaderOf,
  MAX_DELAY,
  oneLeader,
  QUIET_MS,
  report,
  roles,
  run,
  sendBurstsAndCheck,
  snapshots,
  TAKEOVER_MS,
  type Tab,
  unchangedFor,
  untilServer,
  untilTabs,
  useSharedTabs,
} from './shared-page.js';

// `resilient-socket/shared` in Chromium (./shared-page.ts says how): another tab takes over when the
// leader tab goes away or hangs, within 1 s + the backoff bound, with every message written once.

const { cleanup, openTabs } = useSharedTabs();

describe('SharedSocket in Chromium: three tabs of one origin, one real ws server', () => {
  for (const how of ['page.close()', 'socket.close()'] as const) {
    it(`the leader tab goes away (${how}): another tab leads, the server sees exactly one new connection within 1 s + the backoff bound`, async () => {
      const server = await CountingServer.start(cleanup);
      const { tabs } = await openTabs(server);
      const { leader, followers } = await leaderOf(tabs);
      const first = server.connections[0] as Connection;

      const closedAt = performance.now();
      const closing =
        how === 'page.close()'
          ? leader.page.close()
          : run(leader, (t) => t.close()).then((state) => expect(state).toMatch(/^clos(ing|ed)$/));
      // Sent by the other tabs during the handover (to the leader that is going, or queued).
      const during = await Promise.all(followers.map((tab) => run(tab, (t, texts) => t.send(texts), burst(tab, 3))));
      for (const result of during) for (const r of result) expect(['sent', 'buffered']).toContain(r);
      await closing;
      await untilServer(
        server,
        'a new connection',
        TAKEOVER_MS + MAX_DELAY + 2_000,
        () => server.connections.length >= 2,
      );
      const takeover = (server.connections[1] as Connection).at - closedAt;
      report(`takeover after ${how} of the leader (close → new server connection)`, takeover);
      expect(takeover).toBeLessThan(TAKEOVER_MS + MAX_DELAY);

      const after = await untilTabs(
        followers,
        'the other tabs open, one leader',
        3_000,
        (all) => allOpen(all) && oneLeader(all),
      );
      await untilServer(server, 'the old connection to close', 2_000, () => first.closed !== undefined);
      await unchangedFor(QUIET_MS, 'the connections and roles', async () => [
        server.connections.length,
        server.open.length,
        roles(await snapshots(followers)),
      ]);
      expect(server.connections).toHaveLength(2);
      expect(server.open.map((c) => c.id)).toEqual([2]);
      expect(roles(after).sort()).toEqual(['follower', 'leader']);
      if (how === 'socket.close()') {
        expect(first.closed?.code).toBe(1000); // the tab closed its own connection
        expect((await run(leader, (t) => t.snapshot())).state).toBe('closed');
      }
      // The new leader took over: it had been a follower, it heard `role: leader` once.
      const { leader: next } = await leaderOf(followers);
      expect((await run(next, (t) => t.log('role'))).map((e) => e.value)).toEqual(['leader']);
      // What the two tabs sent during the handover arrived once each, in order (on the old
      // connection if the leader wrote it before it went, else on the new one).
      await untilServer(server, 'the messages sent during the handover', 2_000, () => server.texts.length >= 6);
      expect(server.texts).toHaveLength(6);
      for (const tab of followers) expect(fromTab(server, tab), tab.name).toEqual(burst(tab, 3));
      // The shared connection works: both tabs' messages through it, once, in order.
      await sendBurstsAndCheck(server, followers, 5, 100);
      expect(server.received.slice(6).filter((r) => r.connection !== 2)).toEqual([]);
      await broadcastAndCheck(server, followers, ['after-takeover']);
      expect(server.connections).toHaveLength(2);
    });
  }

  it('a frozen leader: a follower takes over within 1 s + the backoff bound, the followers’ messages arrive once, the thawed leader follows; one open connection at the end', async () => {
    const server = await CountingServer.start(cleanup);
    const { tabs } = await openTabs(server);
    const { leader, followers } = await leaderOf(tabs);

    const { frozenAt, thawed } = await freeze(leader, HANG_MS);
    // Sent by the followers while the leader is frozen (handed to it: it cannot write them).
    const during = await Promise.all(followers.map((tab) => run(tab, (t, texts) => t.send(texts), burst(tab, 3))));
    for (const result of during) for (const r of result) expect(['sent', 'buffered']).toContain(r);

    await untilServer(
      server,
      'a new connection',
      TAKEOVER_MS + MAX_DELAY + 1_000,
      () => server.connections.length >= 2,
    );
    const takeover = (server.connections[1] as Connection).at - frozenAt;
    report('takeover from a frozen leader (freeze → new server connection)', takeover);
    expect(takeover).toBeLessThan(TAKEOVER_MS + MAX_DELAY);
    await untilTabs(
      followers,
      'the followers open, one of them leader',
      1_000,
      (all) => allOpen(all) && oneLeader(all),
    );

    // What the followers sent while the leader was frozen arrives once, in order, on the new connection.
    await untilServer(server, 'the messages sent during the freeze', 1_000, () => server.texts.length >= 6);
    for (const tab of followers) expect(fromTab(server, tab), tab.name).toEqual(burst(tab, 3));
    expect(server.received.filter((r) => r.connection !== 2)).toEqual([]);
    // Frozen, the old leader still holds its connection (nothing in it runs to close it).
    expect(performance.now() - frozenAt, 'checked while the leader is still frozen').toBeLessThan(HANG_MS);
    expect(server.connections).toHaveLength(2);
    expect(server.open).toHaveLength(2);
    // The server sends a message to every connection it has, as a pub/sub server does: the new
    // leader's, and the frozen tab's old one (where it waits, unread).
    server.broadcast('while-frozen');
    const read = () => Promise.all(followers.map((tab) => run(tab, (t) => t.messages())));
    await eventually(read, (got) => got.every((m) => m.includes('while-frozen')), 1_000, 'the followers to receive it');

    // Thawed: it learns it was deposed, follows, and its connection is closed.
    await thawed;
    await untilTabs(tabs, 'all three open, one leader, the old one following', 3_000, (all) => {
      const at = tabs.indexOf(leader);
      return allOpen(all) && oneLeader(all) && all[at]?.role === 'follower';
    });
    await untilServer(server, 'the old leader’s connection to close', 3_000, () => server.open.length === 1);
    await unchangedFor(QUIET_MS, 'the connections, roles and what the server received', async () => [
      server.connections.length,
      server.open.length,
      server.texts.length,
      roles(await snapshots(tabs)),
    ]);
    expect(server.open.map((c) => c.id)).toEqual([2]);
    expect(server.connections).toHaveLength(2);
    // Still exactly once: the thawed leader did not write the stale messages it found in its queue.
    expect(server.texts).toHaveLength(6);
    for (const tab of followers) expect(fromTab(server, tab), tab.name).toEqual(burst(tab, 3));
    expect((await run(leader, (t) => t.log('role'))).map((e) => e.value)).toEqual(['leader', 'follower']);
    // Every tab got the message sent during the freeze once: the followers from the new leader,
    // the thawed tab from its old connection or from the new leader, not from both.
    for (const tab of tabs) expect(await run(tab, (t) => t.messages()), tab.name).toEqual(['while-frozen']);

    // And the three tabs share the new connection.
    await sendBurstsAndCheck(server, tabs, 5, 100);
    await broadcastAndCheck(server, tabs, ['after-thaw']);
    expect(server.connections).toHaveLength(2);
  });

  // A follower hands a message to its leader, which is frozen; the follower then takes the lock
  // over, and the old leader thaws less than STALE_AFTER (400 ms) after the message was handed: it
  // reads its queue in order, finds the message young enough and writes it on its old connection
  // before it learns it was deposed. The new leader holds what it took back from a leader that was
  // taken over until that leader would refuse it (and counts the old leader's confirmation): the
  // server gets the message once (without that hold it arrives twice).
  // The race needs the hand to land in a window of about 100 ms, which a loaded machine can miss
  // (the follower already leading, or the thaw too late): the scenario then runs again, at most
  // RACE_RUNS times, until it happened once. Every run, raced or not, must deliver the message once.
  it('a message handed to a frozen leader just before a follower takes over is written once, also when the old leader thaws soon after', async () => {
    const RACE_RUNS = 4;
    const runs: { role: string; thawAfterHand: number; copies: number }[] = [];
    while (runs.length < RACE_RUNS && !runs.some(raced)) {
      const server = await CountingServer.start(cleanup);
      const { tabs, context } = await openTabs(server, 2);
      const { leader, followers } = await leaderOf(tabs);
      const follower = followers[0] as Tab;
      const { frozenAt, thawed } = await freeze(leader, 900);
      // 550 ms into the freeze: the follower cannot have taken over yet (its first unanswered ping
      // needs 500 ms, checked every 200 ms); the message is handed to the frozen leader. The page
      // reads its role in the same task as the send: whether the message went to the leader.
      const wait = Math.max(0, 550 - (performance.now() - frozenAt));
      const { role, result } = await run(
        follower,
        (t, ms) =>
          new Promise<{ role: string; result: string[] }>((done) =>
            setTimeout(() => done({ role: t.snapshot().role, result: t.send(['once']) }), ms),
          ),
        wait,
      );
      const handedAt = performance.now();
      expect(result).toEqual(['sent']);
      await thawed;
      const thawAfterHand = performance.now() - handedAt;
      await untilTabs(tabs, 'the follower leads, every tab open', 5_000, (all) => allOpen(all) && oneLeader(all));
      expect((await snapshots([follower]))[0]?.role).toBe('leader');
      await untilServer(server, 'the message', 2_000, () => server.texts.includes('once'));
      await sleep(QUIET_MS * 2); // time for a second copy
      const copies = server.received.filter((r) => r.text === 'once');
      runs.push({ role, thawAfterHand: Math.round(thawAfterHand), copies: copies.length });
      console.log(
        `[shared-socket] run ${runs.length}: ${JSON.stringify(runs.at(-1))}, copies ${JSON.stringify(copies)}`,
      );
      expect(copies).toHaveLength(1);
      expect(server.open).toHaveLength(1);
      await context.close();
      await server.ws.crash();
    }
    expect(runs.filter(raced), JSON.stringify(runs)).toHaveLength(1);
  });
});

/** A run of the takeover race in which the race happened: handed to the frozen leader, thawed < 400 ms later. */
const raced = (run: { role: string; thawAfterHand: number }) => run.role === 'follower' && run.thawAfterHand < 400;
