/**
 * Resume awareness: the signals that a connection may have died while nobody was looking, and
 * that waiting out a backoff delay is pointless. In a browser: the page became visible again
 * (`visibilitychange`), came back from the back/forward cache (`pageshow` with `persisted`), or
 * the network came back (`online`); `offline` says attempts would be wasted, a hidden page
 * (`visibilitychange` to hidden) may soon want none, and `pagehide` says the page is going into the
 * back/forward cache (or away for good). In Node: timers
 * firing far later than asked mean the process (or the machine) was suspended.
 *
 * One set of listeners and at most one drift timer per clock serve every socket: a socket costs
 * one Map entry (its handle, and its feature's shared listener), not listeners or objects of its
 * own.
 */
import { type Clock, systemClock, type TimerHandle, unrefTimer } from '../../clock.js';

/**
 * What can happen: `'resumed'` (page visible, restored from the back/forward cache, process
 * resumed, network back online), `'offline'` (the browser went offline), `'hidden'` (the page
 * was hidden) or `'pagehide'` (the page is going into the back/forward cache, or away for good).
 * @internal
 */
export type ResumeSignal = 'resumed' | 'offline' | 'hidden' | 'pagehide';

/**
 * Who is told: one function per feature object, shared by all its sockets, called with the
 * socket (a handle) that subscribed.
 * @internal
 */
export type ResumeListener = (socket: object, signal: ResumeSignal, reason: string) => void;

/** How often the drift watcher checks, in ms. */
export const DRIFT_CHECK_INTERVAL = 1_000;
/** A check this much later than {@link DRIFT_CHECK_INTERVAL} means the process was suspended, in ms. */
export const DRIFT_THRESHOLD = 2_000;

interface EventTargetLike {
  addEventListener(type: string, listener: (event: Event) => void): void;
  removeEventListener(type: string, listener: (event: Event) => void): void;
}

/** The browser globals the watcher listens to; absent in Node. */
interface BrowserEnvironment {
  readonly window: EventTargetLike;
  readonly document: (EventTargetLike & { readonly visibilityState?: string }) | undefined;
}

/** Whether the runtime says it is offline (`navigator.onLine === false`); unknown counts as online. */
export function isOffline(): boolean {
  const navigator = (globalThis as { navigator?: { onLine?: unknown } }).navigator;
  return navigator?.onLine === false;
}

/** Whether the page says it is hidden (`document.visibilityState === 'hidden'`); no page counts as visible. */
export function isHidden(): boolean {
  const document = (globalThis as { document?: { visibilityState?: unknown } }).document;
  return document?.visibilityState === 'hidden';
}

function browserEnvironment(): BrowserEnvironment | undefined {
  const globals = globalThis as unknown as Partial<EventTargetLike> & { document?: BrowserEnvironment['document'] };
  if (typeof globals.addEventListener !== 'function' || typeof globals.removeEventListener !== 'function')
    return undefined;
  return { window: globals as EventTargetLike, document: globals.document };
}

// ---------------------------------------------------------------------------------------------
// Browser signals: one set of listeners on window/document for all subscribers.

const browserSubscribers = /* @__PURE__ */ new Map<object, ResumeListener>();
let attached: { env: BrowserEnvironment; detach: () => void } | undefined;

function notify(subscribers: ReadonlyMap<object, ResumeListener>, signal: ResumeSignal, reason: string): void {
  // A copy: a subscriber may unsubscribe (close) while being told.
  for (const [socket, listener] of [...subscribers]) {
    try {
      listener(socket, signal, reason);
    } catch {
      // a socket reports its own failures; one cannot keep the others from hearing
    }
  }
}

function attachBrowser(env: BrowserEnvironment): () => void {
  const tell = (signal: ResumeSignal, reason: string) => notify(browserSubscribers, signal, reason);
  const onVisibility = () => {
    const visibility = env.document?.visibilityState;
    if (visibility === 'visible') tell('resumed', 'page visible');
    else if (visibility === 'hidden') tell('hidden', 'page hidden');
  };
  const onPageShow = (event: Event) => {
    if ((event as Event & { persisted?: boolean }).persisted === true) {
      tell('resumed', 'page restored from the back/forward cache');
    }
  };
  const onPageHide = (event: Event) =>
    tell(
      'pagehide',
      `page hidden ${(event as Event & { persisted?: boolean }).persisted ? 'for the back/forward cache' : 'for good'}`,
    );
  const onOnline = () => tell('resumed', 'network back online');
  const onOffline = () => tell('offline', 'network offline');
  env.document?.addEventListener('visibilitychange', onVisibility);
  env.window.addEventListener('pageshow', onPageShow);
  env.window.addEventListener('pagehide', onPageHide);
  env.window.addEventListener('online', onOnline);
  env.window.addEventListener('offline', onOffline);
  return () => {
    env.document?.removeEventListener('visibilitychange', onVisibility);
    env.window.removeEventListener('pageshow', onPageShow);
    env.window.removeEventListener('pagehide', onPageHide);
    env.window.removeEventListener('online', onOnline);
    env.window.removeEventListener('offline', onOffline);
  };
}

// ---------------------------------------------------------------------------------------------
// Suspension (Node): one self-rearming, unref'd timer per clock, for all subscribers on it.

interface DriftWatcher {
  readonly subscribers: Map<object, ResumeListener>;
  handle: TimerHandle | undefined;
  last: number;
  /**
   * The global `setTimeout` when the timer was armed. `systemClock` looks it up at call time, so
   * fake timers installed or removed since (a test runner between tests) mean the armed timer may
   * never fire: it is armed again on the next subscription (`systemClock` clears each timer with
   * its own kind of `clearTimeout`).
   */
  armedWith: unknown;
}

const driftWatchers = /* @__PURE__ */ new WeakMap<Clock, DriftWatcher>();

function armDrift(clock: Clock, watcher: DriftWatcher): void {
  watcher.last = clock.now();
  watcher.armedWith = globalThis.setTimeout;
  watcher.handle = clock.setTimeout(() => {
    watcher.handle = undefined;
    const late = clock.now() - watcher.last - DRIFT_CHECK_INTERVAL;
    if (watcher.subscribers.size === 0) return;
    armDrift(clock, watcher);
    if (late > DRIFT_THRESHOLD) {
      const slept = Math.round(late + DRIFT_CHECK_INTERVAL);
      notify(watcher.subscribers, 'resumed', `process resumed after about ${slept} ms without timers`);
    }
  }, DRIFT_CHECK_INTERVAL);
  // Watching must never keep a process alive.
  unrefTimer(watcher.handle);
}

// ---------------------------------------------------------------------------------------------

/**
 * Subscribes to the browser's resume signals (a no-op where there is no `window`). Subscribing
 * twice is the same as once.
 * @internal
 */
export function watchResume(socket: object, listener: ResumeListener): void {
  const env = browserEnvironment();
  if (!env) return;
  if (attached && attached.env.window !== env.window) {
    // The globals changed under us (tests stubbing them): move the listeners.
    attached.detach();
    attached = undefined;
  }
  browserSubscribers.set(socket, listener);
  if (!attached) attached = { env, detach: attachBrowser(env) };
}

/**
 * Subscribes to suspension detection by timer drift on `clock` (a no-op where there is a
 * `window`: pages have their own signals). The socket does this only while it holds an open
 * connection that a heartbeat watches: the drift timer then adds no kind of timer that was not
 * already running (tests that run all fake timers keep working with sockets that have none).
 * @internal
 */
export function watchSuspend(socket: object, listener: ResumeListener, clock: Clock): void {
  if (browserEnvironment()) return;
  let watcher = driftWatchers.get(clock);
  if (!watcher) {
    watcher = { subscribers: new Map(), handle: undefined, last: 0, armedWith: undefined };
    driftWatchers.set(clock, watcher);
  }
  watcher.subscribers.set(socket, listener);
  if (watcher.handle !== undefined && clock === systemClock && watcher.armedWith !== globalThis.setTimeout) {
    // Armed with timers that are gone (fake timers swapped): clear it, arm anew.
    clock.clearTimeout(watcher.handle);
    watcher.handle = undefined;
  }
  if (watcher.handle === undefined) armDrift(clock, watcher);
}

/** Ends a {@link watchSuspend} subscription (idempotent); the last one clears the clock's drift timer. @internal */
export function unwatchSuspend(socket: object, clock: Clock): void {
  const watcher = driftWatchers.get(clock);
  if (watcher?.subscribers.delete(socket) && watcher.subscribers.size === 0 && watcher.handle !== undefined) {
    clock.clearTimeout(watcher.handle);
    watcher.handle = undefined;
  }
}

/** Ends every subscription of `subscriber` (idempotent); the last one takes the shared listeners with it. @internal */
export function unwatchResume(socket: object, clock: Clock): void {
  if (browserSubscribers.delete(socket) && browserSubscribers.size === 0 && attached) {
    attached.detach();
    attached = undefined;
  }
  unwatchSuspend(socket, clock);
}
