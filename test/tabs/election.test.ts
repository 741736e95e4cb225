/**
 * The election of `SharedSocket`'s leader (src/tabs/election.ts): the liveness watch as a pure
 * step (ask, wait, steal with the stagger, ask again after this tab slept), and a tab that a
 * `role` listener closes as it is deposed, which must not queue for the lock again.
 */
import { describe, expect, it } from 'vitest';
import { unref } from '../../src/features/unref/unref.js';
import { type Watch, watch } from '../../src/tabs/election.js';
import { LEADER_TIMEOUT, PING_EVERY, STAGGER } from '../../src/tabs/protocol.js';
import { FakeBrowser } from '../helpers/fake-tabs.js';
import { advance, startServer } from '../resilient-socket/helpers.js';
import { useSharedSockets } from './helpers.js';

/** A follower's watch fields: it last ticked at `lastTick_`, heard its leader at `heardAt_`, asked at `pingedAt_`. */
const state = (fields: Partial<Watch> = {}): Watch => ({
  lastTick_: 1_000,
  heardAt_: 900,
  pingedAt_: 1_000,
  rank_: 0,
  ...fields,
});

describe('watch(): what a follower does at a tick', () => {
  it('asks when no question is pending, or when the leader answered the last one', () => {
    expect(watch(state({ pingedAt_: undefined }), 1_200)).toBe('ask');
    expect(watch(state({ heardAt_: 1_000 }), 1_200)).toBe('ask');
    expect(watch(state({ heardAt_: 1_100 }), 1_200)).toBe('ask');
  });

  it('waits while the answer is not overdue, then steals (first in line: after LEADER_TIMEOUT)', () => {
    const asked = state({ lastTick_: 1_000 + LEADER_TIMEOUT - PING_EVERY });
    expect(watch(asked, 1_000 + PING_EVERY)).toBeUndefined();
    expect(watch(asked, 1_000 + LEADER_TIMEOUT)).toBeUndefined();
    expect(watch(asked, 1_000 + LEADER_TIMEOUT + 1)).toBe('steal');
  });

  it('staggers the followers by their place in line', () => {
    const second = state({ rank_: 2, lastTick_: 1_000 + LEADER_TIMEOUT });
    expect(watch(second, 1_000 + LEADER_TIMEOUT + 1)).toBeUndefined();
    expect(watch(second, 1_000 + LEADER_TIMEOUT + 2 * STAGGER)).toBeUndefined();
    expect(watch(second, 1_000 + LEADER_TIMEOUT + 2 * STAGGER + 1)).toBe('steal');
  });

  it('asks again, rather than steal, after a tick that came late (this tab was frozen itself)', () => {
    const slept = 4 * PING_EVERY + LEADER_TIMEOUT;
    expect(watch(state({ lastTick_: 1_000 }), 1_000 + slept + 1)).toBe('ask');
    expect(watch(state({ lastTick_: 1_001 }), 1_000 + slept + 1)).toBe('steal');
  });

  it('is a pure function of the fields and the time', () => {
    const fields = state();
    const copy = { ...fields };
    watch(fields, 5_000);
    expect(fields).toEqual(copy);
  });
});

describe('being deposed', () => {
  const share = useSharedSockets();

  it('a tab that a role listener closes as it is deposed leaves the lock queue for good', async () => {
    const server = startServer();
    const browser = new FakeBrowser();
    const [oldTab, nextTab] = [browser.tab(), browser.tab()];
    const [old, next] = [share(oldTab, server), share(nextTab, server)];
    await advance(20);
    expect(old.role).toBe('leader');
    old.on('role', (role) => {
      if (role === 'follower') old.close();
    });
    oldTab.freeze();
    await advance(LEADER_TIMEOUT + 2 * PING_EVERY + 100);
    expect(next.role).toBe('leader');
    oldTab.thaw(); // it learns it was deposed, and its listener closes it
    await advance(50);
    expect(old.state).toBe('closed');
    const { held, pending } = await oldTab.locks.query();
    expect([...held, ...pending].filter((lock) => lock.clientId === oldTab.id)).toEqual([]);
    // The lock goes on to a tab that is alive, not to the closed one.
    const third = share(browser.tab(), server);
    await advance(20);
    next.close();
    await advance(100);
    expect(third.role).toBe('leader');
    expect(third.state).toBe('open');
  });
});

describe('the watch with unref()', () => {
  const share = useSharedSockets();

  it('does not hold a Node process open: its timer is unref’d, as the socket’s own', () => {
    const unrefs: number[] = [];
    const clock = {
      setTimeout: (callback: () => void, ms: number) => {
        const handle = setTimeout(callback, ms);
        return { handle, ms, unref: () => unrefs.push(ms) };
      },
      clearTimeout: (timer: unknown) => clearTimeout((timer as { handle: ReturnType<typeof setTimeout> }).handle),
      now: () => Date.now(),
    };
    const server = startServer();
    const tab = new FakeBrowser().tab();
    share(tab, server, { clock, features: [unref()] });
    expect(unrefs).toContain(PING_EVERY);
    unrefs.length = 0;
    share(new FakeBrowser().tab(), server, { clock });
    expect(unrefs).toEqual([]);
  });
});
