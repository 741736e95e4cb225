import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { ErrorCodes } from '../../src/errors.js';
import { type UntilOptions, until } from '../../src/testing/until.js';
import { cleanup, flakyServer, listenerCounts, MOCK_DELAY, socketOn, time } from './fixture.js';

// until() against a ResilientSocket on a FlakyServer. Fake timers everywhere, except the one test
// of the real-time timeout itself (50 ms of real time).

/** The real setTimeout, captured before any test installs fake timers. */
const realSetTimeout = globalThis.setTimeout;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

const FIXED = { backoff: constant({ delay: 100 }) } as const;

/** A socket that never connects (autoConnect: false), so it has no timers of its own. */
function idleSocket() {
  return socketOn(flakyServer(), { autoConnect: false });
}

describe('resolves with the payload', () => {
  it('open: the OpenInfo', async () => {
    const socket = socketOn(flakyServer(), FIXED);
    expect(await until(socket, 'open', time)).toEqual({ attempt: 1, reconnected: false });
  });

  it('message: the data', async () => {
    const server = flakyServer({ echo: true });
    const socket = socketOn(server, FIXED);
    await until(socket, 'open', time);
    socket.send('hello');
    expect(await until(socket, 'message', time)).toBe('hello');
  });

  it('reconnecting: { attempt, delay }', async () => {
    const server = flakyServer({ script: ['refuse'] });
    const socket = socketOn(server, { backoff: constant({ delay: 250 }) });
    expect(await until(socket, 'reconnecting', time)).toEqual({ attempt: 2, delay: 250 });
  });

  it('stable: undefined (an event without payload)', async () => {
    const socket = socketOn(flakyServer(), { ...FIXED, stableAfter: 1_000 });
    await expect(until(socket, 'stable', time)).resolves.toBeUndefined();
  });

  it('where: the first occurrence that passes', async () => {
    const server = flakyServer({ echo: true });
    const socket = socketOn(server, FIXED);
    await until(socket, 'open', time);
    for (const m of ['a', 'b', 'c']) socket.send(m);
    const seen: unknown[] = [];
    const data = await until(socket, 'message', {
      ...time,
      where: (d) => {
        seen.push(d);
        return d === 'b';
      },
    });
    expect(data).toBe('b');
    expect(seen).toEqual(['a', 'b']);
  });
});

describe('state targets', () => {
  it("'idle' resolves at once when the socket is idle (even with within: 0)", async () => {
    const socket = idleSocket();
    await expect(until(socket, 'idle', { within: 0 })).resolves.toEqual({ state: 'idle' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("'closed' resolves at once when already closed", async () => {
    const socket = idleSocket();
    socket.close();
    await expect(until(socket, 'closed', { within: 0 })).resolves.toEqual({ state: 'closed' });
  });

  it("'closing' resolves at once when closing, then 'closed' once the server answered", async () => {
    const socket = socketOn(flakyServer(), FIXED);
    await until(socket, 'open', time);
    socket.close();
    expect(socket.state).toBe('closing');
    await expect(until(socket, 'closing', { within: 0 })).resolves.toEqual({ state: 'closing' });
    const started = Date.now();
    await expect(until(socket, 'closed', time)).resolves.toEqual({ state: 'closed' });
    expect(Date.now() - started).toBe(MOCK_DELAY);
  });

  it("'closed' waits for the state, and where sees { state }", async () => {
    const server = flakyServer();
    const socket = socketOn(server, { ...FIXED, maxRetries: 0 });
    await until(socket, 'open', time);
    server.down();
    const seen: unknown[] = [];
    const result = await until(socket, 'closed', { ...time, where: (s) => seen.push(s) > 0 });
    expect(result).toEqual({ state: 'closed' });
    expect(seen).toEqual([{ state: 'closed' }]);
  });
});

describe('rejects rather than hangs', () => {
  it('after `within` ms of fake time, when advance is given', async () => {
    const server = flakyServer();
    server.down();
    const socket = socketOn(server, FIXED);
    const started = Date.now();
    await expect(until(socket, 'open', { ...time, within: 500 })).rejects.toThrow(
      /^until\(socket, 'open'\): did not happen within 500 ms of fake time; state is '(reconnecting|connecting)' \(.+\)$/,
    );
    expect(Date.now() - started).toBe(500);
  });

  it('after `within` ms of real time, without advance', async () => {
    vi.useRealTimers();
    const socket = idleSocket();
    const started = performance.now();
    await expect(until(socket, 'open', { within: 50 })).rejects.toThrow(
      "until(socket, 'open'): did not happen within 50 ms; state is 'idle'",
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('at once when the socket is closed while waiting for something else, with the reason', async () => {
    const socket = socketOn(flakyServer({ script: ['refuse'] }), FIXED);
    await until(socket, 'reconnecting', time);
    const started = Date.now();
    const waiting = until(socket, 'message', time);
    socket.close();
    await expect(waiting).rejects.toThrow(
      "until(socket, 'message'): the socket closed (close() called) before it happened",
    );
    expect(Date.now() - started).toBeLessThanOrEqual(1);
  });

  it('as soon as the socket gives up, long before `within`', async () => {
    const server = flakyServer();
    server.down();
    const socket = socketOn(server, { ...FIXED, maxRetries: 2 });
    const started = Date.now();
    await expect(until(socket, 'open', { ...time, within: 60_000 })).rejects.toThrow(
      /the socket closed \(Gave up after 3 consecutive failures \(maxRetries 2\)\) before it happened/,
    );
    // Three refused attempts, 100 ms apart, each refused after mock-socket's 4 ms.
    expect(Date.now() - started).toBeLessThan(3 * (100 + MOCK_DELAY));
  });

  it("does not reject 'close', 'giveup' and 'drop' when the socket closes: they come with the closing", async () => {
    const server = flakyServer();
    server.down();
    const socket = socketOn(server, { ...FIXED, maxRetries: 1 });
    const giveup = await until(socket, 'giveup', time);
    expect(giveup.attempts).toBe(2);
    expect(giveup.error.code).toBe(ErrorCodes.RETRIES_EXHAUSTED);

    const other = socketOn(flakyServer(), FIXED);
    await until(other, 'open', time);
    const closing = until(other, 'close', time);
    other.close(4001, 'bye');
    await expect(closing).resolves.toMatchObject({ willReconnect: false });
  });

  it('when where throws, with what it threw', async () => {
    const socket = socketOn(flakyServer(), FIXED);
    const before = listenerCounts(socket);
    const boom = new Error('boom');
    await expect(
      until(socket, 'open', {
        ...time,
        where: () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
    expect(listenerCounts(socket)).toEqual(before);
  });

  it('when advance throws, with what it threw', async () => {
    const socket = idleSocket();
    const broken = new Error('clock broke');
    await expect(
      until(socket, 'open', {
        advance: () => {
          throw broken;
        },
      }),
    ).rejects.toBe(broken);
  });
});

describe('bad arguments throw at once', () => {
  it.each([
    ['a target that is not a string', 42, {}, TypeError],
    ['a negative within', 'open', { within: -1 }, RangeError],
    ['a NaN within', 'open', { within: Number.NaN }, RangeError],
    ['a zero step', 'open', { step: 0 }, RangeError],
    ['a negative step', 'open', { step: -5 }, RangeError],
    ['a NaN step', 'open', { step: Number.NaN }, RangeError],
    ['an advance that is not a function', 'open', { advance: 'soon' }, TypeError],
  ])('%s', (_name, target, options, type) => {
    const socket = idleSocket();
    const before = listenerCounts(socket);
    expect(() => until(socket, target as 'open', options as UntilOptions<'open'>)).toThrow(type);
    expect(listenerCounts(socket)).toEqual(before);
  });
});

describe('leaves no listener and no timer behind', () => {
  // An idle socket has no timers of its own: every timer counted here would be until's.
  it('real-time mode: on success', async () => {
    const socket = idleSocket();
    const before = listenerCounts(socket);
    const waiting = until(socket, 'closed', { within: 1_000 });
    // The real-time bound is a node:timers timer, which fake timers neither patch nor count.
    expect(vi.getTimerCount()).toBe(0);
    expect(listenerCounts(socket)).not.toEqual(before);
    socket.close();
    await expect(waiting).resolves.toEqual({ state: 'closed' });
    expect(listenerCounts(socket)).toEqual(before);
  });

  it('real-time mode: on timeout', async () => {
    const socket = idleSocket();
    const before = listenerCounts(socket);
    // 100 ms of real time: the bound holds even though fake timers are installed.
    const waiting = until(socket, 'open', { within: 100 });
    await expect(waiting).rejects.toThrow(/within 100 ms/);
    expect(vi.getTimerCount()).toBe(0);
    expect(listenerCounts(socket)).toEqual(before);
  });

  it('real-time mode: on rejection (socket closed)', async () => {
    const socket = idleSocket();
    const before = listenerCounts(socket);
    const waiting = until(socket, 'message', { within: 1_000 });
    socket.close();
    await expect(waiting).rejects.toThrow(/the socket closed/);
    expect(vi.getTimerCount()).toBe(0);
    expect(listenerCounts(socket)).toEqual(before);
  });

  it('advance mode: on success, timeout and rejection', async () => {
    const server = flakyServer({ echo: true });
    const socket = socketOn(server, { ...FIXED, heartbeat: false, stableAfter: 0 });
    const before = listenerCounts(socket);
    await until(socket, 'open', time);
    expect(listenerCounts(socket)).toEqual(before);
    // Open, stable and quiet: the socket itself has no timer pending now.
    expect(vi.getTimerCount()).toBe(0);

    await expect(until(socket, 'message', { ...time, within: 50 })).rejects.toThrow(/within 50 ms/);
    expect(listenerCounts(socket)).toEqual(before);
    expect(vi.getTimerCount()).toBe(0);

    const waiting = until(socket, 'message', time);
    socket.close();
    await expect(waiting).rejects.toThrow(/the socket closed/);
    expect(listenerCounts(socket)).toEqual(before);
    await vi.advanceTimersByTimeAsync(MOCK_DELAY);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('step', () => {
  it.each([1, 3, 7, 50])('overshoots the target by less than one step (step %i)', async (step) => {
    const socket = socketOn(flakyServer(), FIXED);
    let openedAt = Number.NaN;
    socket.on('open', () => {
      openedAt = Date.now();
    });
    let advanced = 0;
    let inFlight: Promise<unknown> = Promise.resolve();
    const advance = (ms: number) => {
      inFlight = vi.advanceTimersByTimeAsync(ms).then(() => {
        advanced += ms;
      });
      return inFlight;
    };
    const started = Date.now();
    await until(socket, 'open', { advance, step });
    await inFlight;
    expect(openedAt - started).toBe(MOCK_DELAY);
    const overshoot = started + advanced - openedAt;
    expect(overshoot).toBeGreaterThanOrEqual(0);
    expect(overshoot).toBeLessThan(step);
  });

  it('a within that is not a multiple of step is still honoured exactly', async () => {
    const socket = idleSocket();
    const calls: number[] = [];
    await expect(
      until(socket, 'open', {
        within: 25,
        step: 10,
        advance: (ms) => {
          calls.push(ms);
          return vi.advanceTimersByTimeAsync(ms);
        },
      }),
    ).rejects.toThrow(/within 25 ms/);
    expect(calls).toEqual([10, 10, 5]);
  });
});

describe('formerly known gaps (regression tests)', () => {
  // Was a design flaw: until() resolves from inside its own advance(step) call, and that call goes on
  // moving time to the end of the step after the test has resumed. The test's next lines then
  // race with timers firing "behind its back" (with a TestClock, two overlapping advance() calls
  // even make time go backwards: see test-clock.test.ts). Fix: await the in-flight advance before
  // settling the promise.
  it('when until() resolves, its advance has finished: time does not move on by itself', async () => {
    const socket = socketOn(flakyServer(), FIXED);
    await until(socket, 'open', { ...time, step: 100 });
    const resumedAt = Date.now();
    await vi.advanceTimersByTimeAsync(0);
    expect(Date.now()).toBe(resumedAt);
  });

  // Was a bug: for an event target, a socket that is *already* closed is not noticed: until() waits the
  // whole `within` (10 s by default, 10,000 fake steps) and then reports a timeout, instead of
  // rejecting at once with "the socket closed".
  it('rejects at once when the socket is already closed', async () => {
    const socket = idleSocket();
    socket.close();
    let advanced = 0;
    await expect(
      until(socket, 'open', {
        within: 1_000,
        advance: (ms) => {
          advanced += ms;
          return vi.advanceTimersByTimeAsync(ms);
        },
      }),
    ).rejects.toThrow(/the socket closed/);
    expect(advanced).toBe(0);
  });

  // Was a bug (listener leak): when the socket is already in the target state and `where` throws,
  // until() rejects, but then still registers its `state` listener, which is never removed.
  it('a where that throws on an already-reached state leaves no listener', async () => {
    const socket = idleSocket();
    const before = listenerCounts(socket);
    await expect(
      until(socket, 'idle', {
        where: () => {
          throw new Error('boom');
        },
      }),
    ).rejects.toThrow('boom');
    expect(listenerCounts(socket)).toEqual(before);
  });

  // Was a design flaw: without `advance`, `within` is documented as real time, but the timer comes
  // from the global setTimeout: under vi.useFakeTimers() a test that forgot `advance` hangs
  // until the runner's own timeout, with no hint. A timer that fake-timer libraries do not patch
  // (e.g. `setTimeout` from 'node:timers', captured at import) would reject after `within`.
  it('without advance, rejects after `within` real ms even under fake timers', async () => {
    const socket = idleSocket();
    const outcome = await Promise.race([
      until(socket, 'open', { within: 20 }).then(
        () => 'resolved',
        () => 'rejected',
      ),
      new Promise((resolve) => realSetTimeout(() => resolve('still pending after 200 ms of real time'), 200)),
    ]);
    expect(outcome).toBe('rejected');
  });

  // Were gaps in argument checking (the package's rule: wrong type → TypeError, bad value →
  // RangeError, at the call). A typo in the target waits the full `within` for an event that
  // does not exist; a string `within` is silently accepted; a `where` that is not a function only
  // fails when the first event arrives.
  /** Calls until(); if it returns a promise instead of throwing, keeps that from going unhandled. */
  const call = (target: string, options: object) => () => {
    void until(idleSocket(), target as 'open', options).catch(() => undefined);
  };

  it('an unknown target name throws a RangeError', () => {
    expect(call('opne', { within: 0 })).toThrow(RangeError);
  });

  it('a within that is not a number throws a TypeError', () => {
    expect(call('open', { within: '50' })).toThrow(TypeError);
  });

  it('a where that is not a function throws a TypeError', () => {
    expect(call('open', { where: true })).toThrow(TypeError);
  });
});
