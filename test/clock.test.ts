/**
 * The clock seam from the socket's side: any clock that keeps the Clock contract works, also one
 * whose `setTimeout` returns no handle (so its `clearTimeout` cannot cancel anything).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../src/backoff/constant.js';
import type { Clock } from '../src/clock.js';
import { advance, cleanup, createSocket, MOCK_DELAY, record, startServer } from './resilient-socket/helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

// Regression, it was: a clock whose setTimeout returns
// nothing stalled the socket in `reconnecting` (a slot holding `undefined` read as "not pending",
// so its timer's callback was ignored): no timer, no attempt, for ever.
describe('a clock whose setTimeout returns nothing', () => {
  /** The fake timers behind a clock that hands out no handle and cannot cancel. */
  const handleless: Clock = {
    setTimeout: (callback, ms) => {
      setTimeout(callback, ms);
      return undefined;
    },
    clearTimeout: () => undefined,
    now: () => Date.now(),
  };

  it('the socket still reconnects after a drop', async () => {
    const server = startServer();
    const socket = createSocket(server.url, { clock: handleless, backoff: constant({ delay: 100 }) });
    const log = record(socket);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    await advance(100 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.of('open')).toHaveLength(2);
  });

  it('a timer it could not cancel never fires a slot armed since (the connect timeout cannot mark it stable early)', async () => {
    const server = startServer();
    const socket = createSocket(server.url, { clock: handleless, connectTimeout: 1_000, stableAfter: 3_000 });
    const log = record(socket);
    await advance(MOCK_DELAY); // open: the connect timeout (due at 1 s) is "cleared", but still runs
    await advance(1_000);
    expect(log.names()).not.toContain('stable');
    expect(log.errors()).toEqual([]);
    await advance(2_000 - 1);
    expect(log.names()).not.toContain('stable');
    await advance(1);
    expect(log.names()).toContain('stable');
  });
});
