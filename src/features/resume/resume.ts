/**
 * `resume()`: resume awareness. When the page becomes visible again, comes back from the
 * back/forward cache, or the network comes back (in Node: the process wakes from a suspension), a
 * connection that says it is open is probed (through the `heartbeat()` feature: it knows how to
 * ask) and a socket waiting out a backoff delay retries now, keeping its failure count. While the
 * browser is offline, no attempt is made and no delay drawn. On `pagehide` the connection is
 * closed politely and the socket waits for the page to be shown again (`./bfcache.ts`).
 *
 * The signals come from one set of listeners shared by every socket (`./signals.ts`); a socket
 * costs one Map entry there, and nothing else.
 */
import { type Feature, findFeature, type Host, pauseRetry } from '../../core/feature.js';
import {
  assertBoolean,
  assertKnownKeys,
  assertNumber,
  assertObjectOrFalse,
  typeError,
  withDefault,
} from '../../validation.js';
import type { HeartbeatService } from '../heartbeat/heartbeat.js';
import { intern } from '../intern.js';
import { type BfcacheOptions, pageHidden, pageSignal, pageState } from './bfcache.js';
import { isOffline, type ResumeSignal, unwatchResume, unwatchSuspend, watchResume, watchSuspend } from './signals.js';

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
}

/** The defaults of {@link ResumeOptions}. */
export const RESUME_DEFAULTS = /* @__PURE__ */ Object.freeze({
  probeTimeout: 3_000,
  pauseWhileOffline: true,
  detectSuspend: true,
  bfcache: true,
});

interface Resolved {
  readonly probeTimeout: number;
  readonly pauseWhileOffline: boolean;
  readonly detectSuspend: boolean;
  readonly bfcache: boolean;
}

function resolve(value: object | undefined): Resolved {
  assertKnownKeys('resume', value, Object.keys(RESUME_DEFAULTS));
  const o = (value ?? {}) as ResumeOptions;
  const probeTimeout = withDefault(o.probeTimeout, RESUME_DEFAULTS.probeTimeout);
  assertNumber('resume.probeTimeout', probeTimeout, { above: 0 });
  const pauseWhileOffline = withDefault(o.pauseWhileOffline, RESUME_DEFAULTS.pauseWhileOffline);
  assertBoolean('resume.pauseWhileOffline', pauseWhileOffline);
  const detectSuspend = withDefault(o.detectSuspend, RESUME_DEFAULTS.detectSuspend);
  assertBoolean('resume.detectSuspend', detectSuspend);
  const bfcache = withDefault(o.bfcache, RESUME_DEFAULTS.bfcache);
  assertBoolean('resume.bfcache', bfcache);
  return { probeTimeout, pauseWhileOffline, detectSuspend, bfcache };
}

/** The heartbeat feature of the socket and its position, if it has one. */
function heartbeatOf(m: Host): [HeartbeatService, number] | undefined {
  const found = findFeature(m, 'heartbeat');
  return found && [found[0] as unknown as HeartbeatService, found[1]];
}

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
  const o = resolve(options);

  /** What the shared watchers tell this feature's sockets. */
  const listener = (socket: object, signal: ResumeSignal, reason: string): void => {
    const m = socket as Host;
    if (pageSignal(m, signal, reason, o.bfcache)) return; // pagehide: ./bfcache.ts
    if (m.state_ === 'open') {
      // Whatever happened, an open connection may have died unnoticed: ask it.
      const heartbeat = heartbeatOf(m);
      heartbeat?.[0].probe(m, heartbeat[1], o.probeTimeout);
    } else if (m.state_ === 'reconnecting' && !m.deciding_) {
      if (signal === 'offline' || held()) {
        if (o.pauseWhileOffline) pauseRetry(m);
      } else {
        m.startAttempt_(`retrying now: ${reason}`);
      }
    }
  };
  /** Retries wait for the network. */
  const held = (): boolean => o.pauseWhileOffline && isOffline();

  return intern<Feature & { readonly options_: Resolved }>({
    name: 'resume',
    rank: 40,
    options_: o,
    init(m) {
      watchResume(m, listener);
    },
    open(m) {
      // Suspension is watched only while a connection the heartbeat watches is open: the drift
      // timer then adds no kind of timer that was not already running.
      const heartbeat = heartbeatOf(m);
      if (o.detectSuspend && heartbeat?.[0].watching(m, heartbeat[1])) watchSuspend(m, listener, m.config_.clock);
    },
    state(m, _me, previous, next) {
      // Everything ends with closed; leaving closed after a give-up listens to the page again.
      if (previous === 'open') unwatchSuspend(m, m.config_.clock);
      pageState(m, next);
      if (next === 'closed') unwatchResume(m, m.config_.clock);
      else if (previous === 'closed') watchResume(m, listener);
    },
    // No network: the decision after a loss waits for it (no attempt burnt, no delay drawn), and
    // so does a retry whose wait is over.
    hold: (m) => held() || pageHidden(m),
    dispose(m) {
      unwatchResume(m, m.config_.clock);
    },
  });
}
