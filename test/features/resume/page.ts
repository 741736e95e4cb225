/**
 * The page on Node, for the resume tests: `window` events on globalThis, `document.visibilityState`
 * and `navigator.onLine` stubbed (vi.stubGlobal: the suites' afterEach unstubs them), with a count
 * of the listeners added minus removed (what `close()` must bring back to zero), and a backoff that
 * counts its draws.
 */
import { vi } from 'vitest';
import type { BackoffPolicyLike } from '../../../src/backoff/types.js';

export function stubPage(visibility: 'visible' | 'hidden' = 'visible') {
  const window = new EventTarget();
  const document = Object.assign(new EventTarget(), { visibilityState: visibility });
  let listening = 0;
  for (const target of [window, document]) {
    const add = target.addEventListener.bind(target);
    const remove = target.removeEventListener.bind(target);
    target.addEventListener = (...args: Parameters<EventTarget['addEventListener']>) => {
      listening++;
      add(...args);
    };
    target.removeEventListener = (...args: Parameters<EventTarget['removeEventListener']>) => {
      listening--;
      remove(...args);
    };
  }
  vi.stubGlobal('addEventListener', window.addEventListener.bind(window));
  vi.stubGlobal('removeEventListener', window.removeEventListener.bind(window));
  vi.stubGlobal('document', document);
  vi.stubGlobal('navigator', { onLine: true });
  const show = (state: 'visible' | 'hidden') => {
    document.visibilityState = state;
    document.dispatchEvent(new Event('visibilitychange'));
  };
  const online = (onLine: boolean) => {
    vi.stubGlobal('navigator', { onLine });
    window.dispatchEvent(new Event(onLine ? 'online' : 'offline'));
  };
  return {
    /** Listeners on `window` and `document` now. */
    get listening() {
      return listening;
    },
    hide: () => show('hidden'),
    visible: () => show('visible'),
    pageshow(persisted = true) {
      window.dispatchEvent(Object.assign(new Event('pageshow'), { persisted }));
    },
    pagehide(persisted = true) {
      window.dispatchEvent(Object.assign(new Event('pagehide'), { persisted }));
    },
    offline: () => online(false),
    online: () => online(true),
  };
}

/** A backoff of a constant delay that counts its draws. */
export function countingBackoff(delay: number): BackoffPolicyLike & { drawn: number } {
  const policy = {
    drawn: 0,
    next: () => {
      policy.drawn++;
      return delay;
    },
    reset: () => undefined,
  };
  return policy;
}
