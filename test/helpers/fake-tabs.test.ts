import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeBroadcastChannel, FakeBrowser, type FakeLock, type FakeTab } from './fake-tabs.js';

// Self-test of the fake tabs: the Web Locks and BroadcastChannel semantics that tests of a shared
// (leader-elected) socket rely on.

/**
 * Runs the tabs' tasks (setTimeout 0) and the microtasks between them. Not advanceTimersByTimeAsync(0):
 * fake timers schedule a 0 ms timer set during a tick 1 ms later, so a chain of tasks needs more.
 */
const flush = () => vi.runAllTimersAsync();

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A promise's state, without waiting for it. */
function track<T>(promise: Promise<T>) {
  const state: { status: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } = { status: 'pending' };
  promise.then(
    (value) => Object.assign(state, { status: 'resolved', value }),
    (error) => Object.assign(state, { status: 'rejected', error }),
  );
  return state;
}

/** Holds `name` in `tab` until the returned `release()` (or `fail()`). */
function hold(tab: FakeTab, name = 'leader', options = {}) {
  const held = deferred<string>();
  const granted: (FakeLock | null)[] = [];
  const result = track(
    tab.locks.request(name, options, (lock) => {
      granted.push(lock);
      return held.promise;
    }),
  );
  return { granted, result, release: held.resolve, fail: held.reject };
}

function inbox(channel: FakeBroadcastChannel): unknown[] {
  const received: unknown[] = [];
  channel.addEventListener('message', (event) => received.push((event as MessageEvent).data));
  return received;
}

let browser: FakeBrowser;
beforeEach(() => {
  vi.useFakeTimers();
  browser = new FakeBrowser();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('locks', () => {
  it('grants one exclusive holder at a time, in request order, and the next when the holder settles', async () => {
    const [a, b, c] = [browser.tab('a'), browser.tab('b'), browser.tab('c')];
    const holders = [hold(a), hold(b), hold(c)];
    expect(holders[0]?.granted).toEqual([]); // the callback runs in a task, not synchronously
    await flush();
    expect(holders.map((h) => h.granted.length)).toEqual([1, 0, 0]);
    expect(holders[0]?.granted[0]).toEqual({ name: 'leader', mode: 'exclusive' });

    holders[0]?.release('a done');
    await flush();
    expect(holders[0]?.result).toEqual({ status: 'resolved', value: 'a done' });
    expect(holders.map((h) => h.granted.length)).toEqual([1, 1, 0]);

    holders[1]?.fail(new Error('b failed')); // a rejection releases the lock too
    await flush();
    expect(holders[1]?.result.error).toEqual(new Error('b failed'));
    expect(holders.map((h) => h.granted.length)).toEqual([1, 1, 1]);
  });

  it('request() settles with the callback result, released at once for a plain value or a throw', async () => {
    const tab = browser.tab();
    const value = track(tab.locks.request('x', () => 42));
    const thrown = track(
      tab.locks.request('x', () => {
        throw new Error('boom');
      }),
    );
    const other = track(tab.locks.request('y', async (lock) => lock?.name));
    await flush();
    expect(value).toEqual({ status: 'resolved', value: 42 });
    expect(thrown.error).toEqual(new Error('boom'));
    expect(other).toEqual({ status: 'resolved', value: 'y' });
    expect(await tab.locks.query()).toEqual({ held: [], pending: [] });
  });

  it('ifAvailable: grants when free, else calls back with null at once', async () => {
    const [a, b] = [browser.tab('a'), browser.tab('b')];
    const first = hold(a, 'leader', { ifAvailable: true });
    await flush();
    expect(first.granted).toEqual([{ name: 'leader', mode: 'exclusive' }]);

    const second = track(b.locks.request('leader', { ifAvailable: true }, (lock) => lock));
    await flush();
    expect(second).toEqual({ status: 'resolved', value: null });
    expect((await b.locks.query()).pending).toEqual([]); // not queued
  });

  it('steal: the holder loses the lock (AbortError) and the stealer gets it ahead of the queue', async () => {
    const [a, b, c] = [browser.tab('a'), browser.tab('b'), browser.tab('c')];
    const holder = hold(a);
    await flush();
    const waiter = hold(c);
    const thief = hold(b, 'leader', { steal: true });
    await flush();
    expect(holder.result.status).toBe('rejected');
    expect(holder.result.error).toBeInstanceOf(DOMException);
    expect((holder.result.error as DOMException).name).toBe('AbortError');
    expect(thief.granted).toEqual([{ name: 'leader', mode: 'exclusive' }]);
    expect(waiter.granted).toEqual([]);

    holder.release('late'); // ignored: it no longer holds anything
    await flush();
    expect(holder.result.status).toBe('rejected');
    expect(await a.locks.query()).toMatchObject({ held: [{ clientId: 'b' }], pending: [{ clientId: 'c' }] });

    thief.release('b done');
    await flush();
    expect(waiter.granted).toHaveLength(1);
  });

  it('steal with ifAvailable or with a signal is a NotSupportedError', async () => {
    const tab = browser.tab();
    const callback = vi.fn();
    await expect(tab.locks.request('x', { steal: true, ifAvailable: true }, callback)).rejects.toMatchObject({
      name: 'NotSupportedError',
    });
    const signal = new AbortController().signal;
    await expect(tab.locks.request('x', { steal: true, signal }, callback)).rejects.toMatchObject({
      name: 'NotSupportedError',
    });
    expect(callback).not.toHaveBeenCalled();
  });

  it('an aborted signal drops a pending request (rejects with its reason); after the grant it does nothing', async () => {
    const [a, b] = [browser.tab('a'), browser.tab('b')];
    const holder = hold(a);
    const controller = new AbortController();
    const waiting = hold(b, 'leader', { signal: controller.signal });
    await flush();
    expect((await a.locks.query()).pending).toHaveLength(1);
    controller.abort(new Error('gave up'));
    await flush();
    expect(waiting.result).toEqual({ status: 'rejected', error: new Error('gave up') });
    expect((await a.locks.query()).pending).toEqual([]);

    const late = new AbortController();
    const next = hold(b, 'leader', { signal: late.signal });
    holder.release('a done');
    await flush();
    expect(next.granted).toHaveLength(1);
    late.abort();
    next.release('b done');
    await flush();
    expect(next.result).toEqual({ status: 'resolved', value: 'b done' });

    const aborted = AbortSignal.abort();
    await expect(b.locks.request('leader', { signal: aborted }, vi.fn())).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it("crash releases the tab's locks (its promises never settle), drops its requests, grants the next", async () => {
    const [a, b] = [browser.tab('a'), browser.tab('b')];
    const holder = hold(a);
    const other = hold(a, 'other');
    await flush();
    const waiter = hold(b);
    const alsoA = hold(a);
    await flush();
    a.crash();
    await flush();
    expect(waiter.granted).toHaveLength(1);
    expect(a.crashed).toBe(true);
    expect(await b.locks.query()).toEqual({
      held: [{ name: 'leader', mode: 'exclusive', clientId: 'b' }],
      pending: [],
    });
    holder.release('too late');
    other.release('too late');
    await flush();
    expect([holder.result.status, other.result.status, alsoA.result.status]).toEqual(['pending', 'pending', 'pending']);
    expect(alsoA.granted).toEqual([]);
  });

  it('query() lists the origin’s held and pending locks in request order', async () => {
    const [a, b] = [browser.tab('a'), browser.tab('b')];
    hold(a, 'x');
    hold(b, 'y');
    hold(b, 'x');
    hold(a, 'y');
    hold(a, 'z', { mode: 'shared' });
    hold(b, 'z', { mode: 'shared' });
    await flush();
    expect(await b.locks.query()).toEqual({
      held: [
        { name: 'x', mode: 'exclusive', clientId: 'a' },
        { name: 'y', mode: 'exclusive', clientId: 'b' },
        { name: 'z', mode: 'shared', clientId: 'a' },
        { name: 'z', mode: 'shared', clientId: 'b' },
      ],
      pending: [
        { name: 'x', mode: 'exclusive', clientId: 'b' },
        { name: 'y', mode: 'exclusive', clientId: 'a' },
      ],
    });
  });

  it('works with real timers too', async () => {
    vi.useRealTimers();
    const tab = browser.tab();
    expect(await tab.locks.request('x', (lock) => lock?.name)).toBe('x');
  });

  it('is a DOM LockManager as far as TypeScript is concerned', () => {
    const locks: LockManager = browser.tab().locks;
    expect(locks).toBeDefined();
  });
});

describe('BroadcastChannel', () => {
  it('delivers to every other open channel of that name (same tab too), not to the sender, asynchronously', async () => {
    const [a, b] = [browser.tab('a'), browser.tab('b')];
    const sender = new a.BroadcastChannel('bus');
    const sameTab = new a.BroadcastChannel('bus');
    const otherTab = new b.BroadcastChannel('bus');
    const otherName = new b.BroadcastChannel('other');
    const [fromSender, fromSameTab, fromOther, fromOtherName] = [sender, sameTab, otherTab, otherName].map(inbox);
    const viaHandler: unknown[] = [];
    otherTab.onmessage = (event) => viaHandler.push(event.data);

    sender.postMessage({ n: 1 });
    expect(fromOther).toEqual([]);
    await flush();
    expect(fromSender).toEqual([]);
    expect(fromSameTab).toEqual([{ n: 1 }]);
    expect(fromOther).toEqual([{ n: 1 }]);
    expect(viaHandler).toEqual([{ n: 1 }]);
    expect(fromOtherName).toEqual([]);
    expect(sender.name).toBe('bus');
    expect(browser.posted).toEqual([{ from: 'a', channel: 'bus', data: { n: 1 } }]);
  });

  it('delivers a structured clone, or the value itself when it cannot be cloned', async () => {
    const [a, b] = [browser.tab(), browser.tab()];
    const sender = new a.BroadcastChannel('bus');
    const received = inbox(new b.BroadcastChannel('bus'));
    const data = { list: [1] };
    const fn = () => 1;
    sender.postMessage(data);
    data.list.push(2); // after posting: not seen
    sender.postMessage(fn);
    await flush();
    expect(received).toEqual([{ list: [1] }, fn]);
    expect(received[0]).not.toBe(data);
  });

  it('keeps posting order per receiver', async () => {
    const [a, b, c] = [browser.tab(), browser.tab(), browser.tab()];
    const fromA = new a.BroadcastChannel('bus');
    const fromB = new b.BroadcastChannel('bus');
    const received = inbox(new c.BroadcastChannel('bus'));
    for (let i = 0; i < 3; i++) {
      fromA.postMessage(`a${i}`);
      fromB.postMessage(`b${i}`);
    }
    await flush();
    expect(received).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2']);
  });

  it('a closed channel neither receives (not even what was in flight) nor sends', async () => {
    const [a, b] = [browser.tab(), browser.tab()];
    const sender = new a.BroadcastChannel('bus');
    const receiver = new b.BroadcastChannel('bus');
    const received = inbox(receiver);
    sender.postMessage('in flight');
    receiver.close();
    sender.postMessage('after close');
    await flush();
    expect(received).toEqual([]);
    expect(() => receiver.postMessage('x')).toThrow(expect.objectContaining({ name: 'InvalidStateError' }));
  });

  it('removeEventListener and onmessage = null stop delivery', async () => {
    const [a, b] = [browser.tab(), browser.tab()];
    const sender = new a.BroadcastChannel('bus');
    const receiver = new b.BroadcastChannel('bus');
    const listener = vi.fn();
    const handler = vi.fn();
    receiver.addEventListener('message', listener);
    receiver.onmessage = handler;
    expect(receiver.onmessage).toBe(handler);
    receiver.removeEventListener('message', listener);
    receiver.onmessage = null;
    sender.postMessage('x');
    await flush();
    expect(listener).not.toHaveBeenCalled();
    expect(handler).not.toHaveBeenCalled();
  });

  it("a crashed tab's channels are closed silently: nothing to or from them", async () => {
    const [a, b] = [browser.tab('a'), browser.tab('b')];
    const fromA = new a.BroadcastChannel('bus');
    const toB = new b.BroadcastChannel('bus');
    const receivedByA = inbox(fromA);
    const receivedByB = inbox(toB);
    fromA.postMessage('before'); // already sent: delivered
    toB.postMessage('to a');
    a.crash();
    expect(() => fromA.postMessage('after')).not.toThrow();
    await flush();
    expect(receivedByA).toEqual([]);
    expect(receivedByB).toEqual(['before']);
    expect(browser.posted.map((p) => p.data)).toEqual(['before', 'to a']);
  });
});

describe('freeze and thaw', () => {
  it("queues a frozen tab's messages and delivers them in order at thaw", async () => {
    const [a, b, c] = [browser.tab(), browser.tab(), browser.tab()];
    const sender = new a.BroadcastChannel('bus');
    const frozen = inbox(new b.BroadcastChannel('bus'));
    const awake = inbox(new c.BroadcastChannel('bus'));
    sender.postMessage(1); // in flight when the tab freezes
    b.freeze();
    expect(b.frozen).toBe(true);
    sender.postMessage(2);
    await flush();
    expect(frozen).toEqual([]);
    expect(awake).toEqual([1, 2]);
    sender.postMessage(3);
    b.thaw();
    expect(b.frozen).toBe(false);
    await flush();
    expect(frozen).toEqual([1, 2, 3]);
  });

  it('a frozen tab keeps its locks; a grant to it runs the callback only at thaw', async () => {
    const [a, b] = [browser.tab('a'), browser.tab('b')];
    const holder = hold(a);
    await flush();
    a.freeze();
    const waiter = hold(b);
    await flush();
    expect(waiter.granted).toEqual([]); // a still holds it while frozen
    a.thaw();
    holder.release('a done');
    b.freeze();
    await flush();
    expect(waiter.granted).toEqual([]);
    expect((await a.locks.query()).held).toEqual([{ name: 'leader', mode: 'exclusive', clientId: 'b' }]);
    b.thaw();
    await flush();
    expect(waiter.granted).toHaveLength(1);
  });

  it('a steal from a frozen holder rejects its promise only at thaw', async () => {
    const [a, b] = [browser.tab('a'), browser.tab('b')];
    const holder = hold(a);
    await flush();
    a.freeze();
    const thief = hold(b, 'leader', { steal: true });
    await flush();
    expect(thief.granted).toHaveLength(1);
    expect(holder.result.status).toBe('pending');
    a.thaw();
    await flush();
    expect(holder.result.status).toBe('rejected');
    expect((holder.result.error as DOMException).name).toBe('AbortError');
  });
});
