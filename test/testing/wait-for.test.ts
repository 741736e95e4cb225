import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TestClock } from '../../src/testing/test-clock.js';
import { waitFor } from '../../src/testing/wait-for.js';
import { cleanup, flakyServer, MOCK_DELAY, socketOn, time } from './fixture.js';

// waitFor() in fake time (vitest's and a TestClock's), and once in real time with a tiny `within`
// (that test is about the real-time timeout itself).

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

describe('waitFor', () => {
  it('resolves at once, without moving time, when the condition already holds', async () => {
    const advance = vi.fn(time.advance);
    const started = Date.now();
    await waitFor(() => true, { advance });
    expect(advance).not.toHaveBeenCalled();
    expect(Date.now()).toBe(started);
  });

  it('waits for what a FlakyServer received, advancing fake time only as far as needed', async () => {
    const server = flakyServer();
    const socket = socketOn(server);
    socket.send('queued'); // flushed on open, received 4 ms later
    const started = Date.now();
    await waitFor(() => server.received.length === 1, time);
    expect(server.received).toEqual(['queued']);
    expect(Date.now() - started).toBe(2 * MOCK_DELAY); // open after 4 ms, the message 4 ms later
    expect(vi.getTimerCount()).toBe(1); // the socket's stable timer, nothing of waitFor's
  });

  it('checks the condition after every step, and overshoots by less than one step', async () => {
    const clock = new TestClock();
    let ready = false;
    clock.setTimeout(() => {
      ready = true;
    }, 25);
    await waitFor(() => ready, { advance: (ms) => clock.advance(ms), step: 10 });
    expect(clock.now()).toBe(30);
  });

  it('rejects after `within` ms of fake time, naming `what`', async () => {
    const started = Date.now();
    await expect(waitFor(() => false, { ...time, within: 250, what: 'the third message' })).rejects.toThrow(
      'waitFor: the third message did not hold within 250 ms',
    );
    expect(Date.now() - started).toBe(250);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects after `within` ms of real time without advance', async () => {
    vi.useRealTimers();
    const started = performance.now();
    await expect(waitFor(() => false, { within: 30, step: 5 })).rejects.toThrow(
      'waitFor: condition did not hold within 30 ms',
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('rejects with what the condition threw', async () => {
    const boom = new Error('boom');
    let calls = 0;
    await expect(
      waitFor(() => {
        calls++;
        if (calls === 3) throw boom;
        return false;
      }, time),
    ).rejects.toBe(boom);
    expect(calls).toBe(3);
  });

  it('rejects with what advance threw', async () => {
    const broken = new Error('clock broke');
    await expect(
      waitFor(() => false, {
        advance: () => {
          throw broken;
        },
      }),
    ).rejects.toBe(broken);
  });

  it.each([
    ['a condition that is not a function', 'yes', {}, TypeError],
    ['a negative within', () => false, { within: -1 }, RangeError],
    ['a NaN within', () => false, { within: Number.NaN }, RangeError],
    ['a zero step', () => false, { step: 0 }, RangeError],
    ['an advance that is not a function', () => false, { advance: 1 }, TypeError],
  ])('throws at once for %s', (_name, condition, options, type) => {
    expect(() => waitFor(condition as () => boolean, options as object)).toThrow(type);
  });
});
