import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { exponential } from '../../src/backoff/exponential.js';
import { retry } from '../../src/backoff/retry.js';
import type { BackoffPolicyLike } from '../../src/backoff/types.js';
import { expectInputError, rethrow } from '../helpers/mode.js';

/** Fails `failures` times with Error('fail N'), then resolves with `value`. */
function flaky<T>(failures: number, value: T) {
  return vi.fn(async (attempt: number) => {
    if (attempt <= failures) throw new Error(`fail ${attempt}`);
    return value;
  });
}

/** Settles a promise into an inspectable record without unhandled rejections. */
function track<T>(promise: Promise<T>) {
  const state: { status: 'pending' | 'fulfilled' | 'rejected'; value?: T; reason?: unknown } = { status: 'pending' };
  promise.then(
    (value) => Object.assign(state, { status: 'fulfilled', value }),
    (reason) => Object.assign(state, { status: 'rejected', reason }),
  );
  return state;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
});

describe('retry: success and exhaustion', () => {
  it('resolves at once when the first attempt succeeds, without timers', async () => {
    const fn = vi.fn(async () => 42);
    await expect(retry(fn)).resolves.toBe(42);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(fn).toHaveBeenCalledWith(1, { attempt: 1, signal: undefined });
  });

  it('waits the policy delays between attempts, then resolves with the first success', async () => {
    const fn = flaky(3, 'ok');
    const result = track(retry(fn, { backoff: exponential({ base: 100, cap: 1000 }) }));
    await vi.advanceTimersByTimeAsync(0);
    expect(fn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(fn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fn).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(200);
    expect(fn).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(399);
    expect(result.status).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toEqual({ status: 'fulfilled', value: 'ok' });
    expect(fn.mock.calls.map((c) => c[0])).toEqual([1, 2, 3, 4]);
  });

  it('rejects with the last error after maxAttempts', async () => {
    const fn = flaky(Number.POSITIVE_INFINITY, 'never');
    const result = track(retry(fn, { maxAttempts: 3, backoff: constant({ delay: 10 }) }));
    await vi.advanceTimersByTimeAsync(100);
    expect(result.status).toBe('rejected');
    expect((result.reason as Error).message).toBe('fail 3');
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it('defaults to 10 attempts and truncated binary exponential backoff', async () => {
    const fn = flaky(Number.POSITIVE_INFINITY, 'never');
    const result = track(retry(fn));
    // Sum of the default windows for 9 waits: 19.53 ms · (2^9 − 1) < 10 s.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(result.status).toBe('rejected');
    expect((result.reason as Error).message).toBe('fail 10');
    expect(fn).toHaveBeenCalledTimes(10);
  });

  it('accepts maxAttempts: Infinity', async () => {
    const fn = flaky(50, 'done');
    const result = track(retry(fn, { maxAttempts: Number.POSITIVE_INFINITY, backoff: constant({ delay: 1 }) }));
    await vi.advanceTimersByTimeAsync(100);
    expect(result).toEqual({ status: 'fulfilled', value: 'done' });
  });

  it('treats a synchronous throw like a rejection, and keeps non-Error reasons as they are', async () => {
    let calls = 0;
    const result = track(
      retry(
        () => {
          calls++;
          throw 'plain string';
        },
        { maxAttempts: 2, backoff: constant({ delay: 0 }) },
      ),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ status: 'rejected', reason: 'plain string' });
    expect(calls).toBe(2);
  });

  it('accepts a synchronous return value', async () => {
    await expect(retry(() => 'sync')).resolves.toBe('sync');
  });
});

describe('retry: retryIf and onRetry', () => {
  it('stops when retryIf says no, with that error, and passes (error, attempt)', async () => {
    const fn = flaky(5, 'x');
    const retryIf = vi.fn((_error: unknown, attempt: number) => attempt < 2);
    const result = track(retry(fn, { retryIf, backoff: constant({ delay: 5 }) }));
    await vi.advanceTimersByTimeAsync(50);
    expect(result.status).toBe('rejected');
    expect((result.reason as Error).message).toBe('fail 2');
    expect(retryIf.mock.calls.map((c) => [(c[0] as Error).message, c[1]])).toEqual([
      ['fail 1', 1],
      ['fail 2', 2],
    ]);
  });

  it('awaits an async retryIf', async () => {
    const fn = flaky(1, 'y');
    const retryIf = vi.fn(async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return true;
    });
    const result = track(retry(fn, { retryIf, backoff: constant({ delay: 0 }) }));
    await vi.advanceTimersByTimeAsync(29);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(retryIf).toHaveBeenCalledTimes(1);
    // 30 ms for the predicate, then the 0 ms wait.
    // (a 0 ms timer armed during a fake tick is due one tick later)
    await vi.advanceTimersByTimeAsync(2);
    expect(result).toEqual({ status: 'fulfilled', value: 'y' });
  });

  it('does not ask retryIf when no attempts remain', async () => {
    const retryIf = vi.fn(() => true);
    const result = track(retry(flaky(9, 'z'), { maxAttempts: 1, retryIf }));
    await vi.advanceTimersByTimeAsync(0);
    expect(result.status).toBe('rejected');
    expect(retryIf).not.toHaveBeenCalled();
  });

  it('rejects with what retryIf throws', async () => {
    const boom = new Error('predicate bug');
    const result = track(
      retry(flaky(1, 'q'), {
        retryIf: () => {
          throw boom;
        },
      }),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ status: 'rejected', reason: boom });
  });

  it('tells onRetry the failed attempt, the coming delay and the error', async () => {
    const onRetry = vi.fn();
    const result = track(
      retry(flaky(2, 'ok'), {
        backoff: exponential({ base: 100, cap: 1000 }),
        onRetry,
      }),
    );
    await vi.advanceTimersByTimeAsync(300);
    expect(result.status).toBe('fulfilled');
    expect(onRetry.mock.calls.map(([info]) => [info.attempt, info.delay, (info.error as Error).message])).toEqual([
      [1, 100, 'fail 1'],
      [2, 200, 'fail 2'],
    ]);
  });

  it('rejects with what onRetry throws and leaves no timer', async () => {
    const boom = new Error('hook bug');
    const result = track(
      retry(flaky(1, 'q'), {
        onRetry: async () => {
          throw boom;
        },
      }),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ status: 'rejected', reason: boom });
  });
});

describe('retry: backoff option', () => {
  it('resets a policy object at the start of every call', async () => {
    const policy = exponential({ base: 10, cap: 1000 });
    policy.next();
    policy.next();
    const onRetry = vi.fn();
    const result = track(retry(flaky(1, 'a'), { backoff: policy, onRetry }));
    await vi.advanceTimersByTimeAsync(10);
    expect(result.status).toBe('fulfilled');
    expect(onRetry.mock.calls[0]?.[0].delay).toBe(10);
  });

  it('calls a backoff factory once per retry() call', async () => {
    const factory = vi.fn(() => constant({ delay: 1 }));
    await Promise.all([
      vi.advanceTimersByTimeAsync(10),
      retry(flaky(1, 1), { backoff: factory }),
      retry(flaky(1, 2), { backoff: factory }),
    ]);
    expect(factory).toHaveBeenCalledTimes(2);
  });

  it("accepts the user's own policy object", async () => {
    const delays = [7, 13];
    const policy: BackoffPolicyLike = { next: () => delays.shift() ?? 0, reset: vi.fn() };
    const onRetry = vi.fn();
    const result = track(retry(flaky(2, 'own'), { backoff: policy, onRetry }));
    await vi.advanceTimersByTimeAsync(19);
    expect(result.status).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toEqual({ status: 'fulfilled', value: 'own' });
    expect(policy.reset).toHaveBeenCalledTimes(1);
    expect(onRetry.mock.calls.map(([info]) => info.delay)).toEqual([7, 13]);
  });

  it('clamps a custom policy delay to [0, 2^31 − 1] and rejects NaN with a TypeError', async () => {
    const onRetry = vi.fn();
    const huge = track(
      retry(flaky(1, 'x'), {
        backoff: { next: () => 1e12, reset() {} },
        onRetry,
        maxAttempts: 2,
      }),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(onRetry.mock.calls[0]?.[0].delay).toBe(2 ** 31 - 1);
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1);
    expect(huge.status).toBe('fulfilled');

    const nan = track(retry(flaky(1, 'x'), { backoff: { next: () => Number.NaN, reset() {} } }));
    await vi.advanceTimersByTimeAsync(0);
    expect(nan.status).toBe('rejected');
    expectInputError(
      rethrow(nan.reason),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'backoff.next()',
      'Expected `backoff.next()` to return a number, got number NaN',
    );
  });
});

describe('retry: AbortSignal', () => {
  it('rejects with the reason without calling fn when already aborted', async () => {
    const fn = vi.fn(async () => 1);
    const controller = new AbortController();
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(retry(fn, { signal: controller.signal })).rejects.toBe(reason);
    expect(fn).not.toHaveBeenCalled();
  });

  it('rejects at once when aborted during a call, even if fn never settles', async () => {
    const controller = new AbortController();
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const fn = vi.fn((_attempt: number, context: { signal: AbortSignal | undefined }) => {
      expect(context.signal).toBe(controller.signal);
      return new Promise<never>(() => {});
    });
    const result = track(retry(fn, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(0);
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(result.status).toBe('rejected');
    expect((result.reason as DOMException).name).toBe('AbortError');
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it('rejects at once when aborted while sleeping, and clears the timer', async () => {
    const controller = new AbortController();
    const fn = flaky(Number.POSITIVE_INFINITY, 0);
    const result = track(retry(fn, { signal: controller.signal, backoff: constant({ delay: 60_000 }) }));
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort('bye');
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ status: 'rejected', reason: 'bye' });
    expect(vi.getTimerCount()).toBe(0);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('removes its abort listener after success and after failure', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    await retry(async () => 'ok', { signal: controller.signal });
    await expect(retry(flaky(9, 0), { signal: controller.signal, maxAttempts: 1 })).rejects.toThrow('fail 1');
    expect(add).toHaveBeenCalledTimes(2);
    expect(remove).toHaveBeenCalledTimes(2);
    expect(remove.mock.calls.map((c) => c[1])).toEqual(add.mock.calls.map((c) => c[1]));
  });

  it('a late abort after success is harmless', async () => {
    const controller = new AbortController();
    await expect(retry(async () => 'ok', { signal: controller.signal })).resolves.toBe('ok');
    controller.abort();
  });
});

describe('retry: timers', () => {
  it('unrefs the wait timer when unref is true, and not otherwise', async () => {
    const handles: { unref: ReturnType<typeof vi.fn> }[] = [];
    const clock = {
      now: () => 0,
      setTimeout: (cb: () => void) => {
        const handle = { unref: vi.fn(), cb };
        handles.push(handle);
        queueMicrotask(cb);
        return handle;
      },
      clearTimeout: vi.fn(),
    };
    await retry(flaky(1, 'u'), { clock, unref: true });
    await retry(flaky(1, 'r'), { clock });
    expect(handles).toHaveLength(2);
    expect(handles[0]?.unref).toHaveBeenCalledTimes(1);
    expect(handles[1]?.unref).not.toHaveBeenCalled();
  });

  it('routes waits through an injected clock', async () => {
    const pending: { cb: () => void; ms: number }[] = [];
    const clock = {
      now: () => 0,
      setTimeout: (cb: () => void, ms: number) => pending.push({ cb, ms }),
      clearTimeout: vi.fn(),
    };
    const result = track(retry(flaky(1, 'c'), { clock, backoff: constant({ delay: 1234 }) }));
    await vi.advanceTimersByTimeAsync(0);
    expect(pending.map((p) => p.ms)).toEqual([1234]);
    expect(result.status).toBe('pending');
    pending[0]?.cb();
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ status: 'fulfilled', value: 'c' });
  });
});

describe('retry: bad input', () => {
  const fn = async () => 1;
  it.each([
    [{ maxAttempts: '3' }, TypeError, 'ERR_RS_INVALID_TYPE', 'maxAttempts', /`maxAttempts`.*string "3"/],
    [
      { maxAttempts: 0 },
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'maxAttempts',
      /`maxAttempts` to be an integer >= 1 or Infinity, got 0/,
    ],
    [{ maxAttempts: 1.5 }, RangeError, 'ERR_RS_INVALID_VALUE', 'maxAttempts', /`maxAttempts`.*1\.5/],
    [{ maxAttempts: Number.NaN }, RangeError, 'ERR_RS_INVALID_VALUE', 'maxAttempts', /`maxAttempts`.*NaN/],
    [{ retryIf: true }, TypeError, 'ERR_RS_INVALID_TYPE', 'retryIf', /`retryIf` to be a function, got boolean true/],
    [{ onRetry: 'log' }, TypeError, 'ERR_RS_INVALID_TYPE', 'onRetry', /`onRetry`/],
    [{ signal: {} }, TypeError, 'ERR_RS_INVALID_TYPE', 'signal', /`signal` to be an AbortSignal/],
    [{ unref: 1 }, TypeError, 'ERR_RS_INVALID_TYPE', 'unref', /`unref` to be a boolean, got number 1/],
    [{ backoff: 5 }, TypeError, 'ERR_RS_INVALID_TYPE', 'backoff', /`backoff` to be a backoff policy/],
    [{ backoff: { next() {} } }, TypeError, 'ERR_RS_INVALID_TYPE', 'backoff', /`backoff`/],
    [{ backoff: () => null }, TypeError, 'ERR_RS_INVALID_TYPE', 'backoff()', /`backoff\(\)`/],
    [{ clock: {} }, TypeError, 'ERR_RS_INVALID_TYPE', 'clock', /`clock`/],
    [
      { maxAttempt: 3 },
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      'maxAttempt',
      /^Unknown option `maxAttempt`: did you mean `maxAttempts`\?$/,
    ],
    [
      { retryif: () => true },
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      'retryif',
      /^Unknown option `retryif`: did you mean `retryIf`\?$/,
    ],
    [
      { onretry: undefined },
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      'onretry',
      /Unknown option `onretry`: did you mean `onRetry`\?/,
    ],
    [
      { retries: 3 },
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      'retries',
      /^Unknown option `retries`: the options of retry\(\) are `backoff`, `maxAttempts`, `retryIf`, `onRetry`, `signal`, `unref`, `clock`$/,
    ],
    // p-retry's name for it: refused rather than ignored (it would have meant "retry 5 times")
    [{ retries: 5, maxAttempts: 2 }, TypeError, 'ERR_RS_UNKNOWN_OPTION', 'retries', /Unknown option `retries`/],
  ])('rejects options %o with a typed error naming the option', async (options, type, code, name, message) => {
    const spy = vi.fn(fn);
    const error = await retry(spy, options as never).catch((e: unknown) => e);
    expectInputError(rethrow(error), type, code, name, message);
    expect(spy).not.toHaveBeenCalled();
  });

  it('rejects a non-function operation and a non-object options argument', async () => {
    const rejection = (promise: Promise<unknown>) => promise.catch((e: unknown) => e);
    const notFunction = await rejection(retry(42 as never));
    expectInputError(
      rethrow(notFunction),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'fn',
      /`fn` to be a function, got number 42/,
    );
    const notObject = await rejection(retry(fn, null as never));
    expectInputError(
      rethrow(notObject),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'retry options',
      /`retry options` to be an object, got null/,
    );
  });
});
