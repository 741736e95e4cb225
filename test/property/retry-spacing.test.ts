/**
 * No hot loop: over arbitrary backoff options and arbitrary sequences of attempt endings (every
 * way an attempt can end: refused, timed out, a constructor or a provider that throws or returns
 * something invalid, a refused upgrade, a failed or stuck handshake, a close code, a dead link, a
 * protocol error), every attempt after a loss starts exactly when the `reconnecting` event said,
 * never earlier, and that delay is the policy's (a twin of the policy, fed the same random draws,
 * says what it must be).
 *
 * The documented exceptions are explicit, each with what it must do instead:
 * - a first refused upgrade with 401 or 403 is retried at once (delay 0; the policy still draws);
 *   a second in a row gives up;
 * - `open()` (after a give-up) and `reconnect()` (during a wait) start an attempt at once, with a
 *   fresh backoff;
 * - a resume signal (page visible, restored from the back/forward cache, back online) during a
 *   wait retries at once, keeping the failure count; offline pauses the wait until online. (A loss
 *   while offline waits for the network without drawing a delay: not generated here, see
 *   test/features/resume/resume.test.ts.)
 *
 * A backoff whose first window would be under 1 ms (`maxDelay / 2^(ceiling − 1)`, for the default
 * and the truncated and phased policies) must be refused at construction instead.
 *
 * Everything runs on an injected TestClock with a scripted WebSocket (./attempt-fates.ts).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type BackoffPolicyLike,
  constant,
  decorrelatedJitter,
  equalJitter,
  exponential,
  fullJitter,
  MAX_TIMER_DELAY,
  phasedBinaryExponential,
  truncatedBinaryExponential,
} from '../../src/backoff/index.js';
import { ErrorCodes } from '../../src/errors.js';
import { handshake, ResilientSocket } from '../../src/node.js';
import { TestClock } from '../../src/testing/test-clock.js';
import { expectInputError } from '../helpers/mode.js';
import { attempt } from './arbitraries.js';
import { errorOf, FATAL_CODES, type Fate, fateArb, playable, Script, type Stage } from './attempt-fates.js';

vi.setConfig({ testTimeout: 120_000 });

// ─── plans ─────────────────────────────────────────────────────────────────────────────────

type Custom = number | 'throws' | 'NaN' | 'string';
type BackoffPlan =
  | { readonly kind: 'default' | 'truncated' | 'phased'; readonly maxDelay: number; readonly ceiling?: number }
  | { readonly kind: 'full' | 'equal' | 'decorrelated' | 'exponential'; readonly base: number; readonly cap: number }
  | { readonly kind: 'constant'; readonly delay: number }
  | { readonly kind: 'custom'; readonly values: readonly Custom[] };

/** During a wait, at `at` (a fraction of it): nothing, `reconnect()`, a resume signal, or offline for `back` ms. */
type Interrupt =
  | { readonly kind: 'none' }
  | { readonly kind: 'reconnect()'; readonly at: number }
  | { readonly kind: 'resume'; readonly at: number; readonly signal: 'online' | 'visible' | 'pageshow' }
  | { readonly kind: 'offline'; readonly at: number; readonly back: number };

interface Plan {
  readonly backoff: BackoffPlan;
  readonly connectTimeout: number;
  readonly handshakeTimeout: number;
  readonly stableAfter: number;
  readonly heartbeat: { readonly interval: number; readonly timeout: number };
  readonly maxRetries: number;
  readonly maxRetryAfter: number;
  /** `shouldReconnect`: the default, always yes, or yes after that many ms (past 10 s it times out). */
  readonly decides: 'default' | 'always' | number;
  readonly stage: Stage;
  readonly fates: readonly Fate[];
  readonly interrupts: readonly Interrupt[];
  readonly draws: readonly number[];
  readonly reopenAfter: number;
}

/** The largest ceiling for `maxDelay`, restated: the largest n with 2^(n − 1) <= maxDelay. */
function mostCeiling(maxDelay: number): number {
  let n = 1;
  while (2 ** n <= maxDelay) n++;
  return n;
}

/**
 * Whether `T` and `N` give a first window `T / 2^(N − 1)` of at least 1 ms (docs/guide/getting-started.md "Options"): the
 * socket and the factories refuse the rest. 2^(N − 1) is exact, so this compares without rounding.
 */
const fits = ({ maxDelay, ceiling }: { readonly maxDelay: number; readonly ceiling?: number }): boolean =>
  maxDelay >= 1 && (ceiling === undefined || maxDelay >= 2 ** (ceiling - 1));

const maxDelayArb = fc.oneof(
  { weight: 6, arbitrary: fc.double({ min: 1, max: 60_000, noNaN: true }) },
  { weight: 2, arbitrary: fc.nat(15).map((k) => 2 ** k) },
  { weight: 1, arbitrary: fc.double({ min: 0.001, max: 1, maxExcluded: true, noNaN: true }) },
);
/** `T` and `N`: mostly ones that fit, sometimes a ceiling past the largest that fits (up to 30 000). */
const windowsArb = maxDelayArb.chain((maxDelay) =>
  fc.record(
    {
      maxDelay: fc.constant(maxDelay),
      ceiling: fc.oneof(
        { weight: 6, arbitrary: fc.integer({ min: 1, max: mostCeiling(maxDelay) }) },
        { weight: 1, arbitrary: fc.integer({ min: mostCeiling(maxDelay) + 1, max: 30_000 }) },
      ),
    },
    { requiredKeys: ['maxDelay'] },
  ),
);
const baseCapArb = fc
  .double({ min: 1, max: 5_000, noNaN: true })
  .chain((base) => fc.record({ base: fc.constant(base), cap: fc.double({ min: base, max: 60_000, noNaN: true }) }));

const backoffArb: fc.Arbitrary<BackoffPlan> = fc.oneof(
  { weight: 3, arbitrary: windowsArb.map((w) => ({ kind: 'default' as const, ...w })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom('truncated' as const, 'phased' as const), windowsArb)
      .map(([kind, w]) => ({ kind, ...w })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('full' as const, 'equal' as const, 'decorrelated' as const, 'exponential' as const),
        baseCapArb,
      )
      .map(([kind, bc]) => ({ kind, ...bc })),
  },
  {
    weight: 1,
    arbitrary: fc.double({ min: 0, max: 60_000, noNaN: true }).map((delay) => ({ kind: 'constant' as const, delay })),
  },
  {
    weight: 1,
    arbitrary: fc
      .array(
        fc.oneof(
          fc.double({ min: -100, max: 1e12, noNaN: true }),
          fc.constantFrom<Custom>('throws', 'NaN', 'string', 0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
        ),
        { minLength: 1, maxLength: 6 },
      )
      .map((values) => ({ kind: 'custom' as const, values })),
  },
);

/** A fraction in [0, 1): spread evenly (fc.double alone is biased to the extremes), the extremes too. */
const fraction = fc.oneof(
  fc.integer({ min: 0, max: 999 }).map((k) => k / 1_000),
  fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
);
const interruptArb: fc.Arbitrary<Interrupt> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reconnect()' as const), at: fraction }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('resume' as const),
      at: fraction,
      signal: fc.constantFrom('online' as const, 'visible' as const, 'pageshow' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('offline' as const), at: fraction, back: fc.nat(60_000) }) },
);

const planArb: fc.Arbitrary<Plan> = fc.record({
  backoff: backoffArb,
  connectTimeout: fc.integer({ min: 10, max: 20_000 }),
  handshakeTimeout: fc.integer({ min: 10, max: 20_000 }),
  stableAfter: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20_000 })),
  heartbeat: fc.record({
    interval: fc.integer({ min: 1_000, max: 30_000 }),
    timeout: fc.integer({ min: 50, max: 10_000 }),
  }),
  maxRetries: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.nat(6)),
  maxRetryAfter: fc.constantFrom(0, 1_000, 300_000, Number.POSITIVE_INFINITY),
  decides: fc.oneof(fc.constantFrom<'default' | 'always'>('default', 'always'), fc.nat(15_000)),
  stage: fc.record({ urlProvider: fc.boolean(), protocolsProvider: fc.boolean(), handshake: fc.boolean() }),
  fates: fc.array(fateArb, { minLength: 1, maxLength: 8 }),
  interrupts: fc.array(interruptArb, { minLength: 1, maxLength: 8 }),
  draws: fc.array(fraction, { minLength: 1, maxLength: 10 }),
  reopenAfter: fc.nat(5_000),
});

// ─── the policy and its twin ───────────────────────────────────────────────────────────────

/** A random source replaying `draws` in turn. */
function replay(draws: readonly number[]): () => number {
  let i = 0;
  return () => draws[i++ % draws.length] as number;
}

/** A user's own policy returning `values` in turn (a throw, NaN or a string where it says so). */
function customPolicy(values: readonly Custom[]): BackoffPolicyLike {
  let i = 0;
  return {
    next() {
      const value = values[i++ % values.length];
      if (value === 'throws') throw new Error('broken policy');
      if (value === 'NaN') return Number.NaN;
      if (value === 'string') return '5' as unknown as number;
      return value as number;
    },
    reset() {
      i = 0;
    },
  };
}

/** The `backoff` option for `plan` (undefined for the default, which draws from Math.random). */
function policyFor(plan: BackoffPlan, random: () => number): BackoffPolicyLike | undefined {
  switch (plan.kind) {
    case 'default':
      return undefined;
    case 'truncated':
      return truncatedBinaryExponential({ maxDelay: plan.maxDelay, ...ceilingOf(plan), random });
    case 'phased':
      return phasedBinaryExponential({ maxDelay: plan.maxDelay, ...ceilingOf(plan), random });
    case 'full':
      return fullJitter({ base: plan.base, cap: plan.cap, random });
    case 'equal':
      return equalJitter({ base: plan.base, cap: plan.cap, random });
    case 'decorrelated':
      return decorrelatedJitter({ base: plan.base, cap: plan.cap, random });
    case 'exponential':
      return exponential({ base: plan.base, cap: plan.cap });
    case 'constant':
      return constant({ delay: plan.delay });
    case 'custom':
      return customPolicy(plan.values);
  }
}

/** `{ ceiling }` when the plan gives one (left out, it is the default). */
const ceilingOf = (plan: { readonly ceiling?: number }): { ceiling?: number } =>
  plan.ceiling === undefined ? {} : { ceiling: plan.ceiling };

const clamp = (ms: number): number => Math.min(MAX_TIMER_DELAY, Math.max(0, ms));

/**
 * What the socket must draw after each loss: a policy of its own made alike, fed the same draws;
 * for the default backoff, the documented formula `u · T · 2^(min(n, N) − N)`, with `N` the given
 * ceiling or 10 lowered to fit `T`. A policy answer that is not a number is a 1 s wait.
 */
function twinOf(plan: Plan): { next(): number; reset(): void } {
  const random = replay(plan.draws);
  const b = plan.backoff;
  if (b.kind === 'default') {
    const N = b.ceiling ?? Math.min(10, mostCeiling(b.maxDelay));
    let n = 0;
    return {
      next: () => clamp(random() * (b.maxDelay * 2 ** (Math.min(++n, N) - N))),
      reset: () => {
        n = 0;
      },
    };
  }
  const policy = policyFor(b, random) as BackoffPolicyLike;
  return {
    next() {
      try {
        const value: unknown = policy.next();
        return typeof value === 'number' && !Number.isNaN(value) ? clamp(value) : 1_000;
      } catch {
        return 1_000;
      }
    },
    reset: () => policy.reset(),
  };
}

// ─── one run ───────────────────────────────────────────────────────────────────────────────

type Entry =
  | { readonly t: number; readonly e: 'start'; readonly attempts: number }
  | { readonly t: number; readonly e: 'stable' | 'open()' | 'reconnect()' | 'offline' }
  | { readonly t: number; readonly e: 'reconnecting'; readonly attempt: number; readonly delay: number }
  | { readonly t: number; readonly e: 'giveup'; readonly code: string }
  | { readonly t: number; readonly e: 'error'; readonly code: string }
  | { readonly t: number; readonly e: 'resume'; readonly signal: string };

/** Browser globals on Node for the resume feature: `window` events on globalThis, a document, navigator.onLine. */
function stubBrowser() {
  const window = new EventTarget();
  const document = Object.assign(new EventTarget(), { visibilityState: 'visible' });
  const navigator = { onLine: true };
  vi.stubGlobal('addEventListener', window.addEventListener.bind(window));
  vi.stubGlobal('removeEventListener', window.removeEventListener.bind(window));
  vi.stubGlobal('document', document);
  vi.stubGlobal('navigator', navigator);
  return (signal: 'online' | 'visible' | 'pageshow' | 'offline'): void => {
    navigator.onLine = signal !== 'offline';
    if (signal === 'visible') document.dispatchEvent(new Event('visibilitychange'));
    else if (signal === 'pageshow') window.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: true }));
    else window.dispatchEvent(new Event(signal));
  };
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

/**
 * Plays `plan` to the start of the attempt after its last fate (or its last give-up) and returns
 * what happened; `undefined` for a backoff that is refused at construction (checked here).
 */
async function play(plan: Plan): Promise<Entry[] | undefined> {
  const b = plan.backoff;
  if ((b.kind === 'default' || b.kind === 'truncated' || b.kind === 'phased') && !fits(b)) {
    // A first window under 1 ms: refused at construction, naming the option (a hot loop otherwise).
    const refused = attempt(() =>
      b.kind === 'default'
        ? new ResilientSocket('ws://fake.test/', { maxDelay: b.maxDelay, ...ceilingOf(b), autoConnect: false })
        : policyFor(b, Math.random),
    );
    const error = refused.ok ? undefined : (refused.error as Error);
    expect(error, `${JSON.stringify(b)} is refused`).toBeInstanceOf(RangeError);
    expectInputError(error, {
      kind: RangeError,
      code: 'ERR_RS_INVALID_VALUE',
      name: b.maxDelay < 1 ? 'maxDelay' : 'ceiling',
      message: b.maxDelay < 1 ? /^Expected `maxDelay` / : /^Expected `ceiling` to be at most \d+ with `maxDelay` /,
    });
    see('refused: first window under 1 ms');
    if (refused.ok) (refused.value as { close?: () => void } | undefined)?.close?.();
    return undefined;
  }
  const clock = new TestClock();
  const fates = plan.fates.map((fate) => playable(fate, plan.stage));
  const script = new Script(fates, clock, plan.connectTimeout, plan.handshakeTimeout);
  const signal = stubBrowser();
  if (plan.backoff.kind === 'default') vi.spyOn(Math, 'random').mockImplementation(replay(plan.draws));
  const trace: Entry[] = [];
  let done = false;
  // Recorded until the run is done (a clock step may go on past the attempt that ends it).
  const log = (entry: Record<string, unknown>): void => {
    if (!done) trace.push({ t: clock.now(), ...entry } as Entry);
  };
  const socket = new ResilientSocket(plan.stage.urlProvider ? script.url : 'ws://fake.test/feed', {
    WebSocket: script.WebSocket as never,
    clock,
    autoConnect: false,
    ...(b.kind === 'default'
      ? { maxDelay: b.maxDelay, ...ceilingOf(b) }
      : { backoff: policyFor(b, replay(plan.draws)) as BackoffPolicyLike }),
    ...(plan.stage.protocolsProvider ? { protocols: script.protocols as never } : {}),
    ...(plan.stage.handshake ? { handshake: handshake(script.handshake, { timeout: plan.handshakeTimeout }) } : {}),
    connectTimeout: plan.connectTimeout,
    stableAfter: plan.stableAfter,
    heartbeat: plan.heartbeat,
    maxRetries: plan.maxRetries,
    maxRetryAfter: plan.maxRetryAfter,
    ...(plan.decides === 'default'
      ? {}
      : {
          shouldReconnect: (): boolean | Promise<boolean> => {
            const ms = plan.decides;
            if (ms === 'always') return true;
            return new Promise((resolve) => clock.setTimeout(() => resolve(true), ms as number));
          },
        }),
  });
  let waits = 0;
  script.stop = () => socket.close();
  socket.on('state', ({ current }) => {
    if (current !== 'connecting') return;
    script.current++;
    log({ e: 'start', attempts: socket.stats.attempts });
    done ||= script.current >= fates.length;
    // The run is over: close now, so that a socket that retried without waiting stops here too.
    if (done) socket.close();
  });
  socket.on('stable', () => log({ e: 'stable' }));
  socket.on('error', (error) => log({ e: 'error', code: error.code }));
  socket.on('giveup', ({ error }) => {
    log({ e: 'giveup', code: error.code });
    if (script.current + 1 >= fates.length) done = true;
    else if (!done)
      clock.setTimeout(() => {
        log({ e: 'open()' });
        socket.open();
      }, plan.reopenAfter);
  });
  socket.on('reconnecting', ({ attempt, delay }) => {
    log({ e: 'reconnecting', attempt, delay });
    const interrupt = plan.interrupts[waits++ % plan.interrupts.length] as Interrupt;
    if (interrupt.kind === 'none') return;
    const at = Math.floor(interrupt.at * delay);
    if (at <= 0 || at >= delay) return;
    clock.setTimeout(() => {
      if (socket.state !== 'reconnecting') return;
      if (interrupt.kind === 'reconnect()') {
        log({ e: 'reconnect()' });
        socket.reconnect();
      } else if (interrupt.kind === 'resume') {
        log({ e: 'resume', signal: interrupt.signal });
        signal(interrupt.signal);
      } else {
        log({ e: 'offline' });
        signal('offline');
        clock.setTimeout(() => {
          log({ e: 'resume', signal: 'online' });
          signal('online');
        }, interrupt.back);
      }
    }, at);
  });
  try {
    log({ e: 'open()' });
    socket.open();
    for (let steps = 0; !done && steps < 5_000; steps++) if (!(await clock.next())) break;
    expect(script.repeated, 'attempts that started without a state change').toEqual([]);
    expect(done, `the run reached its last attempt (state ${socket.state}, ${trace.length} events)`).toBe(true);
    // Every attempt the socket made was seen starting (an attempt counts once, in any state).
    expect(socket.stats.attempts, 'attempts made').toBe(trace.filter((entry) => entry.e === 'start').length);
  } finally {
    socket.close();
  }
  return trace;
}

// ─── the oracle ────────────────────────────────────────────────────────────────────────────

/** The errors that say how an attempt failed (a connection closed by the server reports none of them). */
const ATTEMPT_ERRORS = new Set(
  fateArbKinds()
    .map(errorOf)
    .filter((code) => code !== undefined),
);
function fateArbKinds(): Fate[] {
  return [
    { kind: 'refused', at: 0 },
    { kind: 'hang' },
    { kind: 'url', how: 'throws', after: 0, value: 0 },
    { kind: 'upgrade', at: 0, status: 500, retryAfter: undefined },
    { kind: 'handshake', at: 0, how: 'hangs', after: 0 },
    { kind: 'handshake', at: 0, how: 'throws', after: 0 },
    { kind: 'dead-link', at: 0 },
  ];
}

/** What was seen across all runs: every kind of ending and every exception must have been exercised. */
const seen = new Map<string, number>();
const see = (what: string): void => {
  seen.set(what, (seen.get(what) ?? 0) + 1);
};

/** The Retry-After wait a refused upgrade imposes (429 and 503 only), capped by `maxRetryAfter`. */
function retryAfterOf(fate: Fate, cap: number): number {
  if (fate.kind !== 'upgrade' || (fate.status !== 429 && fate.status !== 503)) return 0;
  if (fate.retryAfter === undefined || !/^\d+$/.test(fate.retryAfter)) return 0;
  return Math.min(Number(fate.retryAfter) * 1_000, cap);
}

/** Checks `trace` against `plan`: every start explained and on time, every delay the policy's. */
function verify(plan: Plan, trace: readonly Entry[]): void {
  const fates = plan.fates.map((fate) => playable(fate, plan.stage));
  const twin = twinOf(plan);
  let due: { at: number; why: string } | undefined;
  let index = -1;
  let fate: Fate | undefined;
  let ended = true;
  let failures = 0;
  let runAttempts = 0;
  let lastRefusedAuth = false;
  let errors: string[] = [];
  const fresh = (): void => {
    twin.reset();
    failures = runAttempts = 0;
    lastRefusedAuth = false;
  };
  for (const entry of trace) {
    const where = `at ${entry.t} ms, attempt ${index + 1} (${JSON.stringify(fate)})`;
    switch (entry.e) {
      case 'open()':
      case 'reconnect()':
        fresh();
        due = { at: entry.t, why: entry.e };
        break;
      case 'stable':
        fresh();
        break;
      case 'resume':
        due = { at: entry.t, why: `a resume signal (${entry.signal})` };
        break;
      case 'offline':
        due = undefined; // nothing until the network is back
        break;
      case 'start':
        expect(ended, `${where}: an attempt started while another was under way`).toBe(true);
        expect(due, `${where}: an attempt started with nothing asking for it`).toBeDefined();
        expect(entry.t, `${where}: started at ${entry.t}, due at ${due?.at} (${due?.why})`).toBe(due?.at);
        see(due?.why.startsWith('a resume') ? 'resume' : (due?.why as string));
        due = undefined;
        fate = fates[++index];
        expect(entry.attempts, `${where}: attempts made so far (none unseen)`).toBe(index + 1);
        runAttempts++;
        ended = false;
        errors = [];
        break;
      case 'error':
        errors.push(entry.code);
        break;
      case 'reconnecting':
      case 'giveup': {
        expect(ended, `${where}: one attempt ended twice`).toBe(false);
        ended = true;
        failures++;
        const ending = fate as Fate;
        see(ending.kind);
        const expectedError = errorOf(ending);
        if (expectedError) expect(errors[0], `${where}: its error`).toBe(expectedError);
        else
          expect(
            errors.filter((code) => ATTEMPT_ERRORS.has(code)),
            `${where}: errors`,
          ).toEqual([]);
        const auth = ending.kind === 'upgrade' && (ending.status === 401 || ending.status === 403);
        const fatal = ending.kind === 'close' && plan.decides === 'default' && FATAL_CODES.includes(ending.code);
        const stop =
          auth && lastRefusedAuth
            ? ErrorCodes.UNAUTHORIZED
            : fatal
              ? ErrorCodes.FATAL_CLOSE
              : failures > plan.maxRetries
                ? ErrorCodes.RETRIES_EXHAUSTED
                : undefined;
        lastRefusedAuth = auth;
        if (entry.e === 'giveup') {
          expect(entry.code, `${where}: why it gave up`).toBe(stop);
          see(`giveup ${entry.code}`);
          break;
        }
        expect(stop, `${where}: expected a give-up, got a retry`).toBeUndefined();
        expect(entry.attempt, `${where}: the next attempt's number`).toBe(runAttempts + 1);
        const drawn = twin.next(); // drawn even for an immediate retry
        const wanted = auth ? 0 : Math.min(Math.max(drawn, retryAfterOf(ending, plan.maxRetryAfter)), MAX_TIMER_DELAY);
        expect(entry.delay, `${where}: the delay (policy ${drawn})`).toBe(wanted);
        if (auth) see('immediate retry after a first 401/403');
        due = { at: entry.t + entry.delay, why: 'the backoff' };
        break;
      }
    }
  }
}

describe('no hot loop: every attempt after a loss waits out the backoff', () => {
  it('over arbitrary options and endings, each attempt starts exactly when the policy says (or an explicit exception)', async () => {
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        try {
          const trace = await play(plan);
          if (trace) verify(plan, trace);
        } finally {
          vi.restoreAllMocks();
          vi.unstubAllGlobals();
        }
      }),
      { numRuns: 200 },
    );
    // The property was not vacuous: every ending and every exception happened in some run.
    const wanted = [
      ...['refused', 'hang', 'constructor-throws', 'not-a-websocket', 'url', 'protocols', 'upgrade'],
      ...['handshake', 'close', 'dead-link', 'protocol-error'],
      ...['the backoff', 'open()', 'reconnect()', 'resume', 'immediate retry after a first 401/403'],
      'refused: first window under 1 ms',
    ];
    for (const what of wanted) expect(seen.get(what) ?? 0, `runs that saw: ${what}`).toBeGreaterThan(0);
  });
});
