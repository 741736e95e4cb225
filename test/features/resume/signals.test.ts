import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Clock } from '../../../src/clock.js';
import { systemClock } from '../../../src/clock.js';
import {
  DRIFT_CHECK_INTERVAL,
  DRIFT_THRESHOLD,
  isOffline,
  type ResumeListener,
  type ResumeSignal,
  unwatchResume,
  watchResume,
  watchSuspend,
} from '../../../src/features/resume/signals.js';
import { TestClock } from '../../../src/testing/test-clock.js';

/** The method a test subscriber is told through (a socket is told through its feature's listener). */
const RESUME = Symbol('tell');
type ResumeSubscriber = { [RESUME]: (signal: ResumeSignal, reason: string) => void };
/** The one listener every test subscriber shares, as a feature's sockets share theirs. */
const tell: ResumeListener = (subscriber, signal, reason) => (subscriber as ResumeSubscriber)[RESUME](signal, reason);

/** A subscriber that records what it was told. */
function recorder() {
  const calls: string[] = [];
  const subscriber: ResumeSubscriber = {
    [RESUME]: (signal, reason) =>
      calls.push(signal === 'resumed' || signal === 'pagehide' ? `${signal}: ${reason}` : signal),
  };
  return { calls, subscriber };
}

/** Subscribes to both kinds of signal, as a socket with an open, watched connection is; returns the unsubscribe call. */
function watch(subscriber: ResumeSubscriber, clock: Clock, detectSuspend: boolean): () => void {
  watchResume(subscriber, tell);
  if (detectSuspend) watchSuspend(subscriber, tell, clock);
  return () => unwatchResume(subscriber, clock);
}

/** Browser globals on Node: window (globalThis as an EventTarget), document, navigator.onLine. */
function stubBrowser() {
  const window = new EventTarget();
  const document = Object.assign(new EventTarget(), { visibilityState: 'hidden' });
  const listeners = { window: 0, document: 0 };
  const count = (target: EventTarget, key: 'window' | 'document') => {
    const add = target.addEventListener.bind(target);
    const remove = target.removeEventListener.bind(target);
    target.addEventListener = (...args: Parameters<EventTarget['addEventListener']>) => {
      listeners[key]++;
      add(...args);
    };
    target.removeEventListener = (...args: Parameters<EventTarget['removeEventListener']>) => {
      listeners[key]--;
      remove(...args);
    };
  };
  count(window, 'window');
  count(document, 'document');
  vi.stubGlobal('addEventListener', window.addEventListener.bind(window));
  vi.stubGlobal('removeEventListener', window.removeEventListener.bind(window));
  vi.stubGlobal('document', document);
  vi.stubGlobal('navigator', { onLine: true });
  return {
    window,
    document,
    listeners,
    show() {
      document.visibilityState = 'visible';
      document.dispatchEvent(new Event('visibilitychange'));
    },
    hide() {
      document.visibilityState = 'hidden';
      document.dispatchEvent(new Event('visibilitychange'));
    },
    pageshow(persisted: boolean) {
      window.dispatchEvent(Object.assign(new Event('pageshow'), { persisted }));
    },
    pagehide(persisted: boolean) {
      window.dispatchEvent(Object.assign(new Event('pagehide'), { persisted }));
    },
    online(on: boolean) {
      vi.stubGlobal('navigator', { onLine: on });
      window.dispatchEvent(new Event(on ? 'online' : 'offline'));
    },
  };
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('in a browser (window and document present)', () => {
  it('visible again, restored from bfcache, back online: resumed with the reason; offline: offline; hidden: hidden', () => {
    const browser = stubBrowser();
    const { calls, subscriber } = recorder();
    const stop = watch(subscriber, systemClock, true);
    browser.hide(); // hidden is not a resume
    browser.show();
    browser.pageshow(false); // an ordinary page load is not a resume
    browser.pageshow(true);
    browser.online(false);
    browser.online(true);
    expect(calls).toEqual([
      'hidden',
      'resumed: page visible',
      'resumed: page restored from the back/forward cache',
      'offline',
      'resumed: network back online',
    ]);
    stop();
  });

  it('pagehide: into the back/forward cache, or unloaded for good, each with its reason', () => {
    const browser = stubBrowser();
    const { calls, subscriber } = recorder();
    const stop = watch(subscriber, systemClock, true);
    browser.pagehide(true);
    browser.pagehide(false);
    expect(calls).toEqual(['pagehide: page hidden for the back/forward cache', 'pagehide: page hidden for good']);
    stop();
  });

  it('one set of listeners for every subscriber, removed with the last; unsubscribing twice is harmless', () => {
    const browser = stubBrowser();
    const a = recorder();
    const b = recorder();
    const stopA = watch(a.subscriber, systemClock, true);
    const stopB = watch(b.subscriber, systemClock, true);
    expect(browser.listeners).toEqual({ window: 4, document: 1 });
    browser.show();
    expect([a.calls, b.calls]).toEqual([['resumed: page visible'], ['resumed: page visible']]);
    stopA();
    stopA();
    expect(browser.listeners).toEqual({ window: 4, document: 1 });
    browser.online(false);
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toEqual(['resumed: page visible', 'offline']);
    stopB();
    expect(browser.listeners).toEqual({ window: 0, document: 0 });
  });

  it('a subscriber that throws or unsubscribes while being told does not keep the others from hearing', () => {
    const browser = stubBrowser();
    const heard: string[] = [];
    let stopFirst = () => {};
    stopFirst = watch(
      {
        [RESUME]: () => {
          heard.push('first');
          stopFirst();
          throw new Error('boom');
        },
      },
      systemClock,
      true,
    );
    const stopSecond = watch({ [RESUME]: () => heard.push('second') }, systemClock, true);
    browser.show();
    browser.show();
    expect(heard).toEqual(['first', 'second', 'second']);
    stopSecond();
  });

  it('uses no timer (drift watching is for runtimes without a window)', () => {
    vi.useFakeTimers();
    stubBrowser();
    const stop = watch(recorder().subscriber, systemClock, true);
    expect(vi.getTimerCount()).toBe(0);
    stop();
  });

  it('isOffline() reads navigator.onLine; no navigator or no onLine counts as online', () => {
    vi.stubGlobal('navigator', { onLine: false });
    expect(isOffline()).toBe(true);
    vi.stubGlobal('navigator', { onLine: true });
    expect(isOffline()).toBe(false);
    vi.stubGlobal('navigator', {});
    expect(isOffline()).toBe(false);
    vi.stubGlobal('navigator', undefined);
    expect(isOffline()).toBe(false);
  });
});

describe('in Node: a suspended process is found by timer drift', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  it('timers on time: nothing; the wall clock jumping ahead of the timers: resumed, once', async () => {
    const { calls, subscriber } = recorder();
    const stop = watch(subscriber, systemClock, true);
    await vi.advanceTimersByTimeAsync(10 * DRIFT_CHECK_INTERVAL);
    expect(calls).toEqual([]);
    // A laptop lid closed for a minute: the wall clock moved, the (monotonic) timers did not.
    vi.setSystemTime(Date.now() + 60_000);
    await vi.advanceTimersByTimeAsync(DRIFT_CHECK_INTERVAL);
    expect(calls).toEqual(['resumed: process resumed after about 61000 ms without timers']);
    await vi.advanceTimersByTimeAsync(5 * DRIFT_CHECK_INTERVAL);
    expect(calls).toHaveLength(1);
    stop();
  });

  it('a drift at the threshold is load, not suspension; just above it is suspension', async () => {
    const { calls, subscriber } = recorder();
    const stop = watch(subscriber, systemClock, true);
    vi.setSystemTime(Date.now() + DRIFT_THRESHOLD);
    await vi.advanceTimersByTimeAsync(DRIFT_CHECK_INTERVAL);
    expect(calls).toEqual([]);
    vi.setSystemTime(Date.now() + DRIFT_THRESHOLD + 1);
    await vi.advanceTimersByTimeAsync(DRIFT_CHECK_INTERVAL);
    expect(calls).toHaveLength(1);
    stop();
  });

  it('one unref’d timer per clock for every subscriber, cleared with the last', async () => {
    const a = recorder();
    const b = recorder();
    const stopA = watch(a.subscriber, systemClock, true);
    const stopB = watch(b.subscriber, systemClock, true);
    expect(vi.getTimerCount()).toBe(1);
    vi.setSystemTime(Date.now() + 30_000);
    await vi.advanceTimersByTimeAsync(DRIFT_CHECK_INTERVAL);
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toHaveLength(1);
    stopA();
    expect(vi.getTimerCount()).toBe(1);
    stopB();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a watcher left armed under fake timers that are gone is armed again by the next subscriber', async () => {
    const leaked = recorder();
    watch(leaked.subscriber, systemClock, true); // a socket a previous test never closed
    vi.useRealTimers(); // …its fake timer goes with the fake clock
    vi.useFakeTimers();
    const { calls, subscriber } = recorder();
    const stop = watch(subscriber, systemClock, true);
    expect(vi.getTimerCount()).toBe(1);
    vi.setSystemTime(Date.now() + 60_000);
    await vi.advanceTimersByTimeAsync(DRIFT_CHECK_INTERVAL);
    expect(calls).toHaveLength(1);
    stop();
    unwatchResume(leaked.subscriber, systemClock);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never holds the process open: the watcher timer is unref’d', () => {
    const handles: { unref: ReturnType<typeof vi.fn> }[] = [];
    const clock = {
      now: () => 0,
      setTimeout: () => {
        const handle = { unref: vi.fn() };
        handles.push(handle);
        return handle;
      },
      clearTimeout: () => undefined,
    };
    const stop = watch(recorder().subscriber, clock, true);
    expect(handles).toHaveLength(1);
    expect(handles[0]?.unref).toHaveBeenCalledOnce();
    stop();
  });

  it('not subscribed to suspension: no timer, nothing heard', async () => {
    const { calls, subscriber } = recorder();
    const stop = watch(subscriber, systemClock, false);
    expect(vi.getTimerCount()).toBe(0);
    vi.setSystemTime(Date.now() + 60_000);
    await vi.advanceTimersByTimeAsync(DRIFT_CHECK_INTERVAL);
    expect(calls).toEqual([]);
    stop();
  });

  it('works on an injected clock: TestClock.jump() moves the wall clock without running timers', async () => {
    vi.useRealTimers();
    const clock = new TestClock();
    const { calls, subscriber } = recorder();
    const stop = watch(subscriber, clock, true);
    await clock.advance(5 * DRIFT_CHECK_INTERVAL);
    expect(calls).toEqual([]);
    clock.jump(45_000);
    await clock.advance(DRIFT_CHECK_INTERVAL);
    expect(calls).toEqual(['resumed: process resumed after about 46000 ms without timers']);
    stop();
    expect(clock.pending).toBe(0);
  });
});
