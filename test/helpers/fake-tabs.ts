/**
 * Several browser tabs of one origin in one Node test process: in-memory fakes of the Web Locks
 * API (https://w3c.github.io/web-locks/) and of BroadcastChannel, and tabs that freeze, thaw, crash.
 *
 * Timing: deterministic, no real delays. What runs a tab's code asynchronously (a lock callback, a
 * message listener) goes through the tab's in-order inbox; each item runs in its own
 * `globalThis.setTimeout(…, 0)` (looked up at call time): a task, as in a browser, which fake
 * timers control. Under `vi.useFakeTimers()` run them with `await vi.runAllTimersAsync()`, or
 * `await vi.advanceTimersByTimeAsync(ms)` with ms ≥ the number of hops in the chain (a 0 ms timer
 * set while fake timers run is due 1 ms later, so `advanceTimersByTimeAsync(0)` runs only the
 * first hop). With real timers they run by themselves. The promises `request()` returns settle at
 * once (their reactions are microtasks); a frozen tab's wait in its inbox.
 */

/** The Web Locks mode; only `exclusive` is needed for leader election, `shared` is supported too. */
export type FakeLockMode = 'exclusive' | 'shared';
export type FakeLock = { readonly name: string; readonly mode: FakeLockMode };
export interface FakeLockOptions {
  mode?: FakeLockMode | undefined;
  ifAvailable?: boolean | undefined;
  steal?: boolean | undefined;
  signal?: AbortSignal | undefined;
}
/** `clientId` is the id of the tab that made the request. */
export type FakeLockInfo = { name: string; mode: FakeLockMode; clientId: string };
export type FakeLockCallback<T> = (lock: FakeLock | null) => T;
/** What `navigator.locks` is; structurally a DOM `LockManager`. */
export interface FakeLockManager {
  request<T>(name: string, callback: FakeLockCallback<T>): Promise<Awaited<T>>;
  request<T>(name: string, options: FakeLockOptions, callback: FakeLockCallback<T>): Promise<Awaited<T>>;
  /** The whole origin's locks (all tabs), each list in request order. */
  query(): Promise<{ held: FakeLockInfo[]; pending: FakeLockInfo[] }>;
}
/** A BroadcastChannel (an EventTarget); listeners receive a `MessageEvent` (`event.data`). */
export interface FakeBroadcastChannel extends EventTarget {
  readonly name: string;
  /** Called with a `MessageEvent`; typed loosely so that a handler of `{ data }` fits. */
  onmessage: ((event: { readonly data: unknown }) => unknown) | null;
  postMessage(data: unknown): void;
  close(): void;
}
export interface FakeTab {
  readonly id: string;
  readonly locks: FakeLockManager;
  readonly BroadcastChannel: new (name: string) => FakeBroadcastChannel;
  /** Stops the tab: its inbox (messages, lock callbacks, settlements) waits until `thaw()`; its locks stay held. */
  freeze(): void;
  thaw(): void;
  /** The tab is gone: its locks are released, its pending requests dropped (none of its promises ever settle), its channels closed silently. */
  crash(): void;
  readonly frozen: boolean;
  readonly crashed: boolean;
}

const domError = (message: string, name: string): Error => new globalThis.DOMException(message, name);
const clone = (data: unknown): unknown => {
  try {
    return structuredClone(data);
  } catch {
    return data; // not cloneable (a function, a class instance with a private slot): passed as-is
  }
};

type Callback = FakeLockCallback<unknown>;
interface Request {
  seq: number;
  name: string;
  mode: FakeLockMode;
  tab: Tab;
  callback: Callback;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  state: 'pending' | 'held' | 'gone';
  detach?: () => void; // removes the signal's abort listener
}

/** What the tabs of one origin share. */
interface Origin {
  readonly posted: FakeBrowser['posted'];
  readonly channels: Set<Channel>; // the open ones, in creation order
  readonly locks: LockState;
}

class Tab implements FakeTab {
  frozen = false;
  crashed = false;
  readonly locks: FakeLockManager;
  readonly BroadcastChannel: FakeTab['BroadcastChannel'];
  readonly #inbox: (() => void)[] = [];
  #scheduled = 0; // setTimeouts under way that will each run one inbox item

  constructor(
    readonly id: string,
    readonly origin: Origin,
  ) {
    this.locks = {
      request: (name: string, ...rest: unknown[]) => origin.locks.request(this, name, ...rest),
      query: () => Promise.resolve(origin.locks.query()),
    } as FakeLockManager;
    this.BroadcastChannel = channelClass(this);
  }

  /** Runs `task` as a task of this tab (in order; at thaw if frozen; never if crashed). */
  post(task: () => void): void {
    if (this.crashed) return;
    this.#inbox.push(task);
    if (!this.frozen) this.#schedule(1);
  }

  /** Runs `task` now, or (frozen) after what waits in the inbox. */
  settle(task: () => void): void {
    if (this.frozen) this.post(task);
    else if (!this.crashed) task();
  }

  #schedule(count: number): void {
    for (let i = 0; i < count; i++) {
      this.#scheduled++;
      globalThis.setTimeout(() => {
        this.#scheduled--;
        if (!this.frozen && !this.crashed) this.#inbox.shift()?.();
      }, 0);
    }
  }

  freeze(): void {
    this.frozen = !this.crashed;
  }

  thaw(): void {
    if (!this.frozen) return;
    this.frozen = false;
    this.#schedule(this.#inbox.length - this.#scheduled);
  }

  crash(): void {
    if (this.crashed) return;
    this.crashed = true;
    this.frozen = false;
    this.#inbox.length = 0;
    for (const channel of this.origin.channels) if (channel.tab === this) channel.close();
    this.origin.locks.forget(this);
  }
}

/** `tab.BroadcastChannel`: a constructor of channels of that tab. */
const channelClass = (tab: Tab) =>
  class BroadcastChannel extends Channel {
    constructor(name: string) {
      super(String(name), tab);
    }
  };

class Channel extends EventTarget implements FakeBroadcastChannel {
  #closed: boolean;
  #onmessage: { fn: FakeBroadcastChannel['onmessage']; listener: (event: Event) => void } | undefined;

  constructor(
    readonly name: string,
    readonly tab: Tab,
  ) {
    super();
    this.#closed = tab.crashed;
    if (!tab.crashed) tab.origin.channels.add(this);
  }

  get onmessage(): FakeBroadcastChannel['onmessage'] {
    return this.#onmessage?.fn ?? null;
  }
  set onmessage(fn: FakeBroadcastChannel['onmessage']) {
    if (this.#onmessage) this.removeEventListener('message', this.#onmessage.listener);
    this.#onmessage = undefined;
    if (typeof fn !== 'function') return;
    this.#onmessage = { fn, listener: (event) => fn.call(this, event as MessageEvent) };
    this.addEventListener('message', this.#onmessage.listener);
  }

  postMessage(data: unknown): void {
    if (this.tab.crashed) return; // a crashed tab's leftover timers may still call this: dropped silently
    if (this.#closed) throw domError("Failed to execute 'postMessage': the channel is closed", 'InvalidStateError');
    this.tab.origin.posted.push({ from: this.tab.id, channel: this.name, data: clone(data) });
    for (const receiver of this.tab.origin.channels) {
      if (receiver === this || receiver.name !== this.name) continue;
      const copy = clone(data);
      receiver.tab.post(() => {
        if (!receiver.#closed) receiver.dispatchEvent(new MessageEvent('message', { data: copy }));
      });
    }
  }

  close(): void {
    this.#closed = true;
    this.tab.origin.channels.delete(this);
  }
}

/** The origin's lock state, shared by its tabs. */
class LockState {
  readonly #held = new Map<string, Request[]>();
  readonly #queues = new Map<string, Request[]>();
  #seq = 0;

  request(tab: Tab, name: string, ...args: unknown[]): Promise<unknown> {
    const [options, callback] = (args.length > 1 ? args : [{}, args[0]]) as [FakeLockOptions | null, Callback];
    const { mode = 'exclusive', ifAvailable = false, steal = false, signal } = options ?? {};
    if (tab.crashed) return new Promise(() => {});
    if (typeof callback !== 'function') return Promise.reject(new TypeError('callback is not a function'));
    if (mode !== 'exclusive' && mode !== 'shared') return Promise.reject(new TypeError(`bad mode ${String(mode)}`));
    const notSupported = (why: string) => Promise.reject(domError(why, 'NotSupportedError'));
    if (name.startsWith('-')) return notSupported('lock names starting with "-" are reserved');
    if (steal && ifAvailable) return notSupported('steal and ifAvailable cannot be used together');
    if (steal && mode !== 'exclusive') return notSupported('steal requires mode "exclusive"');
    if (signal && (steal || ifAvailable)) return notSupported('signal cannot be used with steal or ifAvailable');
    if (signal?.aborted) return Promise.reject(signal.reason ?? domError('The request was aborted', 'AbortError'));

    return new Promise((resolve, reject) => {
      const request: Request = { seq: this.#seq++, name, mode, tab, callback, resolve, reject, state: 'pending' };
      const queue = this.#list(this.#queues, name);
      if (ifAvailable && (queue.length > 0 || !this.#compatible(request))) {
        request.state = 'gone';
        tab.post(() => this.#run(request, null));
        return;
      }
      if (steal) {
        for (const holder of this.#list(this.#held, name).splice(0)) {
          holder.state = 'gone';
          holder.tab.settle(() => holder.reject(domError('The lock was stolen', 'AbortError')));
        }
        queue.unshift(request);
      } else queue.push(request);
      if (signal) {
        const onAbort = () => {
          if (request.state !== 'pending') return;
          request.state = 'gone';
          queue.splice(queue.indexOf(request), 1);
          tab.settle(() => reject(signal.reason ?? domError('The request was aborted', 'AbortError')));
          this.#grant(name);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        request.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.#grant(name);
    });
  }

  query(): { held: FakeLockInfo[]; pending: FakeLockInfo[] } {
    const info = (requests: Map<string, Request[]>) =>
      [...requests.values()]
        .flat()
        .sort((a, b) => a.seq - b.seq)
        .map((r) => ({ name: r.name, mode: r.mode, clientId: r.tab.id }));
    return { held: info(this.#held), pending: info(this.#queues) };
  }

  /** Drops a crashed tab's requests (without settling them) and grants what that frees. */
  forget(tab: Tab): void {
    for (const list of [...this.#held.values(), ...this.#queues.values()]) {
      for (const r of list.filter((r) => r.tab === tab)) {
        r.state = 'gone';
        r.detach?.();
        list.splice(list.indexOf(r), 1);
      }
    }
    for (const name of this.#queues.keys()) this.#grant(name);
  }

  #list(map: Map<string, Request[]>, name: string): Request[] {
    const list = map.get(name) ?? [];
    map.set(name, list);
    return list;
  }

  #compatible(request: Request): boolean {
    const held = this.#list(this.#held, request.name);
    return request.mode === 'shared' ? held.every((h) => h.mode === 'shared') : held.length === 0;
  }

  /** Grants the queue's head while it can be granted (FIFO). */
  #grant(name: string): void {
    const queue = this.#list(this.#queues, name);
    while (queue[0] && this.#compatible(queue[0])) {
      const request = queue.shift() as Request;
      request.state = 'held';
      request.detach?.();
      this.#list(this.#held, name).push(request);
      request.tab.post(() => {
        if (request.state === 'held') this.#run(request, { name, mode: request.mode });
      });
    }
  }

  /** Calls the callback; the lock (if any) is held until its result settles. */
  #run(request: Request, lock: FakeLock | null): void {
    const done = (settle: () => void) => {
      if (lock && request.state !== 'held') return; // stolen or crashed: the result is ignored
      if (lock) {
        request.state = 'gone';
        const held = this.#list(this.#held, request.name);
        held.splice(held.indexOf(request), 1);
        this.#grant(request.name);
      }
      request.tab.settle(settle);
    };
    const call = async () => request.callback(lock && Object.freeze(lock)); // a throw rejects
    call().then(
      (value) => done(() => request.resolve(value)),
      (error) => done(() => request.reject(error)),
    );
  }
}

/** One origin: its tabs share the locks and the channel names. */
export class FakeBrowser {
  /** Every message posted (by an open channel), in order; `data` is a structured clone of what was posted. */
  readonly posted: Array<{ from: string; channel: string; data: unknown }> = [];
  /** The tabs made so far (crashed ones too). */
  readonly tabs: FakeTab[] = [];
  readonly #origin: Origin = { posted: this.posted, channels: new Set(), locks: new LockState() };

  /** A new tab; ids default to `tab-1`, `tab-2`, …. */
  tab(id = `tab-${this.tabs.length + 1}`): FakeTab {
    const tab = new Tab(id, this.#origin);
    this.tabs.push(tab);
    return tab;
  }
}
