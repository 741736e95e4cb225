/**
 * phasedBinaryExponential in use: as a socket's backoff (the reconnect delays, one phase per run of
 * failures and a new one after the stable reset) and with retry() (one draw per call).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type PhasedBinaryExponentialPolicy,
  phasedBinaryExponential,
  retry,
  truncatedWindow,
} from '../../src/backoff/index.js';
import {
  advance,
  cleanup,
  createSocket,
  MOCK_DELAY,
  openSocket,
  record,
  startServer,
  uniqueUrl,
} from '../resilient-socket/helpers.js';
import { scripted } from './helpers.js';

describe('phasedBinaryExponential as the socket backoff', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(cleanup);

  it('the reconnect delays are 0.5·W_n with random 0 (defaults)', async () => {
    const socket = createSocket(uniqueUrl(), { backoff: () => phasedBinaryExponential({ random: () => 0 }) });
    const log = record(socket);
    await advance(2000);
    const reconnecting = log.of('reconnecting');
    expect(reconnecting.length).toBeGreaterThanOrEqual(6);
    reconnecting.forEach(({ attempt, delay }, i) => {
      expect(attempt).toBe(i + 2);
      expect(delay).toBe(0.5 * truncatedWindow(10_000, 10, i + 1));
    });
    expect(reconnecting.slice(0, 3).map((r) => r.delay)).toEqual([9.765625, 19.53125, 39.0625]);
  });

  it('the reconnect delays are 2^(ψ−1)·W_n with random ψ = 0.5', async () => {
    const socket = createSocket(uniqueUrl(), { backoff: () => phasedBinaryExponential({ random: () => 0.5 }) });
    const log = record(socket);
    await advance(2000);
    const delays = log.of('reconnecting').map((r) => r.delay);
    expect(delays.length).toBeGreaterThanOrEqual(6);
    delays.forEach((delay, i) => {
      expect(delay).toBe(2 ** -0.5 * truncatedWindow(10_000, 10, i + 1));
    });
  });

  it('one phase for the whole run of failures, then T, and a new phase after the stable reset', async () => {
    const url = uniqueUrl();
    const { random } = scripted([0, 0.5]);
    let policy: PhasedBinaryExponentialPolicy | undefined;
    const socket = createSocket(url, {
      backoff: () => {
        policy = phasedBinaryExponential({ maxDelay: 100, ceiling: 3, random });
        return policy;
      },
      stableAfter: 50,
    });
    const log = record(socket);
    // no server: failures at ~4, ~20.5, ~49.5, ~116 ms (mock-socket fails 4 ms after each attempt)
    await advance(150);
    // windows 25, 50 at ψ = 0: 12.5, 25; 62.5 more to reach T·(1 + g(0)) = 100; then T
    expect(log.of('reconnecting').map((r) => r.delay)).toEqual([12.5, 25, 62.5, 100]);
    expect(random).toHaveBeenCalledTimes(1);
    expect(policy?.phase).toBe(0);

    const server = startServer(url); // the retry at ~216 ms opens; stable 50 ms later
    await advance(150);
    expect(socket.state).toBe('open');
    expect(log.names()).toContain('stable');
    expect(policy?.phase).toBeUndefined();
    expect(policy?.attempt).toBe(0);
    expect(random).toHaveBeenCalledTimes(1);

    log.clear();
    server.closeLast(1011);
    await advance(MOCK_DELAY);
    expect(log.of('reconnecting')).toEqual([{ attempt: 1, delay: 2 ** -0.5 * 25 }]);
    expect(random).toHaveBeenCalledTimes(2);
    expect(policy?.phase).toBe(0.5);
  });

  it('a server-side drop retries after 2^(ψ−1)·a', async () => {
    const { server, log } = await openSocket({ backoff: () => phasedBinaryExponential({ random: () => 0.75 }) });
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    expect(log.of('reconnecting')).toEqual([{ attempt: 2, delay: 2 ** -0.25 * 19.53125 }]);
  });
});

describe('phasedBinaryExponential with retry()', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
  });

  it('waits 2^(ψ−1)·W_n between attempts, reaches T·(1 + g(ψ)), then T; one draw per retry() call', async () => {
    const random = vi.fn(() => 0);
    const delays: number[] = [];
    const fn = vi.fn(async (attempt: number) => {
      throw new Error(`fail ${attempt}`);
    });
    const settled = retry(fn, {
      maxAttempts: 5,
      backoff: () => phasedBinaryExponential({ maxDelay: 100, ceiling: 2, random }),
      onRetry: ({ delay }) => {
        delays.push(delay);
      },
    }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1000);
    expect(((await settled) as Error).message).toBe('fail 5');
    // window 50 at ψ = 0: 25; 75 more to reach T·(1 + g(0)) = 100; then T
    expect(delays).toEqual([25, 75, 100, 100]);
    expect(fn).toHaveBeenCalledTimes(5);
    expect(random).toHaveBeenCalledTimes(1);
  });

  it('a policy object reused across retry() calls draws a new phase for each call (retry resets it)', async () => {
    const { random } = scripted([0, 0.5]);
    const policy = phasedBinaryExponential({ maxDelay: 100, ceiling: 2, random });
    const runs: number[][] = [];
    for (let call = 0; call < 2; call += 1) {
      const delays: number[] = [];
      const settled = retry(
        async () => {
          throw new Error('no');
        },
        { maxAttempts: 3, backoff: policy, onRetry: ({ delay }) => void delays.push(delay) },
      ).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(1000);
      expect(((await settled) as Error).message).toBe('no');
      runs.push(delays);
    }
    // ψ = 0: 25, then 75 to reach T; ψ = 0.5: 50/√2, then T·(1 + g(0.5)) − 50/√2 ≈ 110.4 clamped to T
    expect(runs).toEqual([
      [25, 75],
      [2 ** -0.5 * 50, 100],
    ]);
    expect(random).toHaveBeenCalledTimes(2);
  });
});
