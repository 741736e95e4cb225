/**
 * Feature timer slots (src/core/feature.ts): `setTimer` fires the feature's `timer` hook with its
 * local slot, `hasTimer` and `clearTimer` work on that slot, and close() clears them all.
 */
import { describe, expect, it, vi } from 'vitest';
import { clearTimer, type Host, hasTimer, setTimer } from '../../src/core/feature.js';
import { advance, MOCK_DELAY, startServer } from '../resilient-socket/helpers.js';
import { base, recorder, setUpFeatureSockets } from './helpers.js';

setUpFeatureSockets();

describe('feature timers', () => {
  it('`setTimer_(me, local, ms)` fires the `timer` hook of that feature with its local slot', async () => {
    const log: string[] = [];
    const server = startServer();
    // Two features with slots: their slots follow the core's; each sees its own local numbers.
    const a = recorder('a', 10, log, {
      slots: 2,
      open: (m, me) => {
        setTimer(m, me, 1, 300);
        setTimer(m, me, 0, 500);
      },
    });
    const b = recorder('b', 20, log, { slots: 1, open: (m, me) => setTimer(m, me, 0, 100) });
    base(server.url, { features: [b.feature, a.feature] });
    await advance(MOCK_DELAY);
    const timers = () => log.filter((e) => e.includes('.timer'));
    await advance(99);
    expect(timers()).toEqual([]);
    await advance(1);
    expect(timers()).toEqual(['b.timer:0']);
    await advance(200);
    expect(timers()).toEqual(['b.timer:0', 'a.timer:1']);
    await advance(200);
    expect(timers()).toEqual(['b.timer:0', 'a.timer:1', 'a.timer:0']);
    await advance(5_000);
    expect(timers()).toHaveLength(3); // each fired once
  });

  it('hasTimer_ and clearTimer_ work on the local slot', async () => {
    const log: string[] = [];
    const server = startServer();
    let host: Host | undefined;
    const { feature } = recorder('t', 10, log, {
      slots: 1,
      open: (m, me) => {
        host = m;
        setTimer(m, me, 0, 100);
      },
    });
    base(server.url, { features: [feature] });
    await advance(MOCK_DELAY);
    expect(hasTimer(host as Host, 0, 0)).toBe(true);
    clearTimer(host as Host, 0, 0);
    expect(hasTimer(host as Host, 0, 0)).toBe(false);
    await advance(1_000);
    expect(log.filter((e) => e.includes('.timer'))).toEqual([]);
  });

  it('close() clears feature timers: the hook never fires, no timer is left, and none can be armed after', async () => {
    const log: string[] = [];
    const server = startServer();
    let host: Host | undefined;
    const { feature } = recorder('t', 10, log, {
      slots: 1,
      open: (m, me) => {
        host = m;
        setTimer(m, me, 0, 1_000);
      },
    });
    const socket = base(server.url, { features: [feature], stableAfter: 0 });
    await advance(MOCK_DELAY);
    expect(hasTimer(host as Host, 0, 0)).toBe(true);
    socket.close();
    expect(hasTimer(host as Host, 0, 0)).toBe(false);
    setTimer(host as Host, 0, 0, 10);
    expect(hasTimer(host as Host, 0, 0)).toBe(false);
    await advance(MOCK_DELAY);
    expect(vi.getTimerCount()).toBe(0);
    await advance(5_000);
    expect(log.filter((e) => e.includes('.timer'))).toEqual([]);
  });
});
