/**
 * `resume()`: resume awareness. When the page becomes visible again, comes back from the
 * back/forward cache, or the network comes back (in Node: the process wakes from a suspension), a
 * connection that says it is open is probed (through the `heartbeat()` feature: it knows how to
 * ask), an attempt that has been connecting for longer than {@link HUNG_ATTEMPT_GRACE} is
 * abandoned for a fresh one, and a socket waiting out a backoff delay retries now, keeping its
 * failure count. While the browser is offline, or (`pauseWhileHidden`) the page has been hidden
 * for a while, no attempt is made and no delay drawn. On `pagehide` the connection is closed
 * politely and the socket waits for the page to be shown again (`./bfcache.ts`).
 *
 * The signals come from one set of listeners shared by every socket (`./signals.ts`); a socket
 * costs one Map entry there, and, only while an attempt connects or the page is hidden, an entry
 * in a WeakMap here.
 */
import { type Feature, type Host, pauseRetry } from '../../core/feature.js';
import { LIVENESS, serviceOf } from '../../core/services.js';
import {
  assertBoolean,
  assertKnownKeys,
  assertNumber,
  assertObjectOrFalse,
  expectedText,
  typeError,
  withDefault,
} from '../../validation.js';
import { intern } from '../intern.js';
import { type BfcacheOptions, pageHidden, pageSignal, pageState } from './bfcache.js';
import {
  isHidden,
  isOffline,
  type ResumeSignal,
  unwatchResume,
  unwatchSuspend,
  watchResume,
  watchSuspend,
} from './signals.js';

/**
 * How long an attempt may have been connecting when a resume signal arrives and still be left to
 * finish, in ms. An older one was most likely started on a network that is gone (it would hang
 * until `connectTimeout`): it is abandoned (`ERR_RS_CONNECT_TIMEOUT`, counted as a failure) and a
 * fresh attempt starts at once. A younger one may well be on the network that is back: it is left
 * alone. Not an option: a second is long for a WebSocket upgrade on a working network and short
 * next to `connectTimeout`.
 */
export const HUNG_ATTEMPT_GRACE = 1_000;

/**
 * Resume awareness: what the socket does when the page or the process comes back, or the network
 * goes and comes back.
 */
export interface ResumeOptions extends BfcacheOptions {
  /**
   * How long a connection that says it is open has to answer the probe sent on a resume, in ms
   * (> 0). No answer means it died while nobody was looking: it is closed (`ERR_RS_DEAD_LINK`,
   * close reason `'probe timeout'`) and replaced. The probe is the heartbeat's ping, so it needs
   * the `heartbeat()` feature (`ResilientSocket` always has it).
   * @default 3_000
   * @example
   * ```ts
   * resume({ probeTimeout: 1_500 })
   * ```
   */
  probeTimeout?: number;
  /**
   * While the browser says it is offline (`navigator.onLine === false`), make no attempt and draw
   * no delay; try at once when it is back online. Set `false` when the server may be reachable
   * without a network (the same machine).
   * @default true
   * @example
   * ```ts
   * resume({ pauseWhileOffline: false }) // ws://localhost works offline
   * ```
   */
  pauseWhileOffline?: boolean;
  /**
   * Where there is no page to watch (Node), find a suspended process or machine by timer drift
   * (one unref'd 1 s timer per clock, shared by all sockets, running only while a connection the
   * heartbeat watches is open) and treat the wake-up as a resume.
   * @default true
   * @example
   * ```ts
   * resume({ detectSuspend: false })
   * ```
   */
  detectSuspend?: boolean;
  /**
   * Stop reconnecting in a page hidden for this long, in ms (>= 0), or `false` to keep
   * reconnecting in the background. Once the page has been hidden for `pauseWhileHidden` ms, no
   * new attempt starts: a retry that falls due waits, and a loss draws no delay; a connection that
   * is open stays open. When the page is visible again, a socket that is not open tries at once,
   * keeping its failure count. `open()` and `reconnect()` connect when called, hidden or not; if
   * that attempt fails, the retry waits for the page.
   * @default false
   * @example
   * ```ts
   * resume({ pauseWhileHidden: 60_000 }) // a tab left in the background for a minute stops retrying
   * ```
   */
  pauseWhileHidden?: number | false;
}

/** The defaults of {@link ResumeOptions}. */
export const RESUME_DEFAULTS = /* @__PURE__ */ Object.freeze({
  probeTimeout: 3_000,
  pauseWhileOffline: true,
  detectSuspend: true,
  bfcache: true,
  pauseWhileHidden: false as number | false,
});

interface Resolved {
  readonly probeTimeout: number;
  readonly pauseWhileOffline: boolean;
  readonly detectSuspend: boolean;
  readonly bfcache: boolean;
  readonly pauseWhileHidden: number | false;
}

function resolve(value: object | undefined): Resolved {
  assertKnownKeys('resume', value, Object.keys(RESUME_DEFAULTS));
  const options = (value ?? {}) as ResumeOptions;
  const probeTimeout = withDefault(options.probeTimeout, RESUME_DEFAULTS.probeTimeout);
  assertNumber('resume.probeTimeout', probeTimeout, { above: 0 });
  const pauseWhileOffline = withDefault(options.pauseWhileOffline, RESUME_DEFAULTS.pauseWhileOffline);
  assertBoolean('resume.pauseWhileOffline', pauseWhileOffline);
  const detectSuspend = withDefault(options.detectSuspend, RESUME_DEFAULTS.detectSuspend);
  assertBoolean('resume.detectSuspend', detectSuspend);
  const pauseWhileHidden = withDefault(options.pauseWhileHidden, RESUME_DEFAULTS.pauseWhileHidden);
  if (pauseWhileHidden !== false) {
    if (typeof pauseWhileHidden !== 'number') {
      throw typeError(
        'resume.pauseWhileHidden',
        process.env.NODE_ENV !== 'production'
          ? expectedText('resume.pauseWhileHidden', 'a number (ms) or false', pauseWhileHidden)
          : '',
      );
    }
    assertNumber('resume.pauseWhileHidden', pauseWhileHidden, { min: 0, allowInfinity: true });
  }
  const bfcache = withDefault(options.bfcache, RESUME_DEFAULTS.bfcache);
  assertBoolean('resume.bfcache', bfcache);
  return { probeTimeout, pauseWhileOffline, detectSuspend, bfcache, pauseWhileHidden };
}

/** When each socket's current attempt started (by its clock), while it connects. */
const attemptStarts = /* @__PURE__ */ new WeakMap<object, number>();
/** When each socket saw the page hidden (by its clock), while it is (`pauseWhileHidden` only). */
const hiddenSince = /* @__PURE__ */ new WeakMap<object, number>();
/** The socket whose hung attempt is being abandoned: its loss is retried at once. */
let restarting: object | undefined;

/**
 * The `resume` feature: resume awareness (see {@link ResumeOptions}). With the `heartbeat()`
 * feature, a connection that says it is open is probed on a resume; without it, only waiting
 * sockets are affected (they retry now, or wait for the network). `ResilientSocket`'s `resume`
 * option.
 * @throws TypeError / RangeError naming the option (`resume.probeTimeout`, …).
 * @example
 * ```ts
 * new BaseSocket(url, { features: [heartbeat(), resume({ probeTimeout: 1_500 })] })
 * ```
 */
export function resume(options?: ResumeOptions): Feature {
  assertObjectOrFalse('resume', options);
  if ((options as unknown) === false) {
    throw typeError(
      'resume',
      process.env.NODE_ENV !== 'production'
        ? 'Expected `resume` options to be an object; leave resume() out of `features` to turn it off'
        : '',
    );
  }
  const settings = resolve(options);

  /** What the shared watchers tell this feature's sockets. */
  const listener = (socket: object, signal: ResumeSignal, reason: string): void => {
    const host = socket as Host;
    noteVisibility(host);
    if (pageSignal(host, signal, reason, settings.bfcache)) return; // pagehide: ./bfcache.ts
    if (signal === 'hidden') return;
    if (host.state_ === 'open') {
      // Whatever happened, an open connection may have died unnoticed: ask it.
      const heartbeat = serviceOf(host, LIVENESS);
      heartbeat?.[0][LIVENESS].probe(host, heartbeat[1], settings.probeTimeout);
    } else if (host.state_ === 'connecting') {
      if (signal === 'resumed') restartHung(host, reason);
    } else if (host.state_ === 'reconnecting' && !host.deciding_) {
      if (held(host)) pauseRetry(host);
      else if (signal === 'resumed') host.startAttempt_(`retrying now: ${reason}`);
    }
  };

  /** An attempt connecting for longer than the grace is abandoned (a failure) and a fresh one starts now. */
  const restartHung = (host: Host, reason: string): void => {
    const attempt = host.attempt_;
    const started = attemptStarts.get(host);
    const age = host.config_.clock.now() - (started as number);
    if (!attempt || started === undefined || age <= HUNG_ATTEMPT_GRACE) return;
    restarting = host;
    host.fail_(
      attempt,
      'ERR_RS_CONNECT_TIMEOUT',
      process.env.NODE_ENV !== 'production'
        ? `Connection attempt ${attempt.number} had been connecting for ${age} ms at a resume (${reason}): abandoned for a fresh attempt`
        : '',
      'restarted on resume',
    );
    restarting = undefined;
    // Unless it gave up, a listener took over, or retries wait (offline, hidden).
    if (host.state_ === 'reconnecting' && !host.deciding_ && !held(host)) host.startAttempt_(`retrying now: ${reason}`);
  };

  /** Follows the page's visibility for `pauseWhileHidden`: since when it is hidden, by this socket's clock. */
  const noteVisibility = (host: Host): void => {
    if (settings.pauseWhileHidden === false) return;
    if (!isHidden()) hiddenSince.delete(host);
    else if (!hiddenSince.has(host)) hiddenSince.set(host, host.config_.clock.now());
  };

  /**
   * Whether retries wait, and why: for the network (`true`: the core's reason), or for the page
   * once it has been hidden for `pauseWhileHidden` ms (`hiddenSince` has an entry only then).
   */
  const held = (host: Host): true | string | undefined => {
    if (settings.pauseWhileOffline && isOffline()) return true;
    const since = hiddenSince.get(host);
    if (since !== undefined && host.config_.clock.now() - since >= (settings.pauseWhileHidden as number)) {
      return 'page hidden: waiting for it to be visible';
    }
    return undefined;
  };

  return intern<Feature & { readonly options_: Resolved }>({
    name: 'resume',
    rank: 40,
    options_: settings,
    init(host) {
      watchResume(host, listener);
      noteVisibility(host);
    },
    open(host) {
      // Suspension is watched only while a connection the heartbeat watches is open (or an attempt
      // with a connect deadline connects): the drift timer then adds no kind of timer that was not
      // already running.
      const heartbeat = serviceOf(host, LIVENESS);
      if (settings.detectSuspend && heartbeat?.[0][LIVENESS].watching(host, heartbeat[1]))
        watchSuspend(host, listener, host.config_.clock);
    },
    state(host, _me, previous, next) {
      const clock = host.config_.clock;
      if (previous === 'open' || previous === 'connecting') unwatchSuspend(host, clock);
      if (next === 'connecting') {
        attemptStarts.set(host, clock.now());
        if (settings.detectSuspend && Number.isFinite(host.config_.connectTimeout)) watchSuspend(host, listener, clock);
      } else attemptStarts.delete(host);
      // Everything ends with closed; leaving closed after a give-up listens to the page again.
      pageState(host, next);
      if (next === 'closed') unwatchResume(host, clock);
      else if (previous === 'closed') {
        watchResume(host, listener);
        noteVisibility(host);
      }
    },
    // `reconnect()` while connecting replaces the attempt without a change of state.
    end(host) {
      if (host.state_ === 'connecting') attemptStarts.set(host, host.config_.clock.now());
    },
    // A hung attempt abandoned on a resume is retried at once (the delay is drawn all the same).
    lost(host, _me, loss) {
      if (restarting === host) loss.immediate = true;
    },
    // No network, a page hidden for long enough, or a page in the back/forward cache: the decision
    // after a loss waits for it (no attempt burnt, no delay drawn), and so does a retry whose wait
    // is over.
    hold: (host) => held(host) || (pageHidden(host) ? 'page hidden for the back/forward cache' : undefined),
    dispose(host) {
      unwatchResume(host, host.config_.clock);
      attemptStarts.delete(host);
      hiddenSince.delete(host);
    },
  });
}
