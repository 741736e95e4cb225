/**
 * Arbitrary input thrown at ResilientSocket's public surface (constructor, send, close, listeners),
 * on mock-socket under fake timers. The only allowed outcomes are a working socket / result, or a
 * TypeError / RangeError naming, in backticks, an argument or option that really was bad (the
 * oracle below restates docs/guide/getting-started.md "Options" and the TSDoc of ResilientSocketOptions); documented
 * ResilientSocketErrors (ERR_RS_BUFFER_OVERFLOW, ERR_RS_CLOSED, ERR_RS_NO_WEBSOCKET) where the
 * docs list them. Never a hang, an unhandled rejection, another error type or a corrupted state.
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant, MAX_TIMER_DELAY } from '../../src/backoff/index.js';
import { EVENT_NAMES, type ResilientSocketEvents } from '../../src/core/events.js';
import type { SocketState } from '../../src/core/states.js';
import { ErrorCodes, isResilientSocketError, type ResilientSocketError } from '../../src/errors.js';
import { CLOSE_TIMEOUT, ResilientSocket } from '../../src/node.js';
import {
  advance,
  cleanup,
  expectRsError,
  MOCK_DELAY,
  settle,
  startServer,
  type TestServer,
  thrown,
  uniqueUrl,
  WebSocketImpl,
} from '../full/helpers.js';
import {
  anyNumber,
  anything,
  anyValue,
  attempt,
  BUFFER_OPTIONS,
  CLOCK_SHAPE,
  checkBoolean,
  checkFunction,
  checkKnownKeys,
  checkNumber,
  checkPingNeedsPong,
  checkProtocols,
  checkShape,
  checkWindows,
  checkWsOptions,
  expectNamed,
  expectOptionError,
  globalClock,
  HEARTBEAT_OPTIONS,
  isOptionsObject,
  Problems,
  RESUME_OPTIONS,
  SIGNAL_SHAPE,
  SOCKET_OPTIONS,
  show,
  tokenArb,
  unhandledTracker,
  validBackoff,
  validProtocols,
} from './arbitraries.js';

const NUM_RUNS = 150;
// A failing property shrinks its counterexample, which can take longer than the default 5 s;
// a timeout would hide the counterexample (and leave the run going in the background).
vi.setConfig({ testTimeout: 60_000 });
const ALL_STATES: readonly SocketState[] = ['idle', 'connecting', 'open', 'reconnecting', 'closing', 'closed'];

const tracker = unhandledTracker();
beforeAll(() => tracker.install());
afterAll(() => tracker.uninstall());
/**
 * The process warnings the runs' sockets give: arbitrary sockets that drop messages or give up
 * with nobody listening say so, once each (`RS_UNHEARD_DROP`, the give-up's code). Captured, and
 * checked to be only those.
 */
let warnings: string[] = [];
const emitWarning = process.emitWarning;
// Replaced by hand, not with vi.spyOn: each run's cleanup restores every mock.
beforeAll(() => {
  process.emitWarning = ((_warning: unknown, options?: { code?: string }) => {
    warnings.push(options?.code ?? 'no code');
  }) as typeof process.emitWarning;
});
afterAll(() => {
  process.emitWarning = emitWarning;
});
beforeEach(() => {
  vi.useFakeTimers();
  warnings = [];
});
afterEach(async () => {
  vi.useFakeTimers(); // a property run's cleanup may have switched them off already
  closeAll();
  await cleanup();
  expect(await tracker.take()).toEqual([]);
  const UNHEARD = ['RS_UNHEARD_DROP', 'ERR_RS_RETRIES_EXHAUSTED', 'ERR_RS_FATAL_CLOSE', 'ERR_RS_UNAUTHORIZED'];
  expect(warnings.filter((code) => !UNHEARD.includes(code))).toEqual([]);
});

// ─── per-run plumbing ──────────────────────────────────────────────────────────────────────

/** Sockets constructed directly (not through createSocket, which cannot take non-object options). */
const live = new Set<ResilientSocket>();

function construct(url: unknown, options: unknown): ResilientSocket {
  const socket = new ResilientSocket(url as never, options as never);
  live.add(socket);
  return socket;
}

function closeAll(): void {
  for (const socket of live) {
    try {
      socket.close();
    } catch {
      // a run may leave a socket whose close() throws; the run has failed already
    }
    socket.removeAllListeners();
  }
  live.clear();
}

/** One property run: fake timers on, and every socket, server and timer gone afterwards. */
async function run(body: () => Promise<void>): Promise<void> {
  vi.useFakeTimers();
  try {
    await body();
    expect(await tracker.take(), 'unhandled rejections / uncaught exceptions').toEqual([]);
  } finally {
    closeAll();
    await cleanup();
  }
}

/** Collects every `error` event; asserts each is a ResilientSocketError. */
function collectErrors(socket: ResilientSocket): ResilientSocketError[] {
  const errors: ResilientSocketError[] = [];
  socket.on('error', (error) => {
    errors.push(error);
  });
  return errors;
}

function expectAllRsErrors(errors: readonly unknown[]): void {
  for (const error of errors) expect(isResilientSocketError(error), show(error)).toBe(true);
}

/** close() (or an abort) leads to `closed` within mock-socket's delay, with nothing left behind. */
async function expectClosesCleanly(
  socket: ResilientSocket,
  end: () => void = () => socket.close(),
  wait: number = MOCK_DELAY,
): Promise<void> {
  end();
  expect(['closing', 'closed']).toContain(socket.state);
  await advance(wait);
  expect(socket.state).toBe('closed');
  expect(socket.bufferedCount).toBe(0);
  expect(vi.getTimerCount(), 'timers left after close').toBe(0);
  expectRsError(
    thrown(() => socket.open()),
    ErrorCodes.CLOSED,
  );
  expectRsError(
    thrown(() => socket.reconnect()),
    ErrorCodes.CLOSED,
  );
  expect(socket.send('after close')).toBe('dropped');
}

// ─── generators ────────────────────────────────────────────────────────────────────────────

/** Marks an option as absent from the options object (as opposed to present and undefined). */
const ABSENT = Symbol('absent');

/** Usually absent, often valid, sometimes anything. */
function field(valid: fc.Arbitrary<unknown>, invalidWeight: number, absentWeight = 6): fc.Arbitrary<unknown> {
  const parts: fc.WeightedArbitrary<unknown>[] = [
    { weight: absentWeight, arbitrary: fc.constant(ABSENT) },
    { weight: 4, arbitrary: valid },
  ];
  if (invalidWeight > 0) parts.push({ weight: invalidWeight, arbitrary: anyValue });
  return fc.oneof(...parts);
}

/** Controllers of the signals the generators create, so a run can abort them. */
const controllers = new WeakMap<AbortSignal, AbortController>();

function controlledSignal(): AbortSignal {
  const controller = new AbortController();
  controllers.set(controller.signal, controller);
  return controller.signal;
}

const timeoutArb = fc.oneof(
  fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
  fc.constantFrom(Number.MIN_VALUE, 1, 10_000, Number.POSITIVE_INFINITY),
);

const dataArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.uint8Array({ maxLength: 16 }),
  fc.uint8Array({ maxLength: 16 }).map((a) => a.buffer),
  fc.uint8Array({ maxLength: 16 }).map((a) => new DataView(a.buffer)),
  fc.float64Array({ maxLength: 4 }),
  fc.string({ maxLength: 8 }).map((s) => new Blob([s])),
  fc.nat(16).map((n) => new SharedArrayBuffer(n)),
);

/** Valid values for every option (the mix with invalid ones is made by `field`). */
const validOptions: Record<string, fc.Arbitrary<unknown>> = {
  protocols: fc.oneof(
    validProtocols,
    fc.func(fc.oneof(validProtocols, fc.string(), fc.array(fc.string(), { maxLength: 3 }), anyValue)),
  ),
  wsOptions: fc.oneof(
    fc.object(),
    fc.constant({ headers: { a: 'b' } }),
    fc.record({ headers: fc.dictionary(tokenArb, fc.oneof(fc.string(), fc.integer(), fc.array(fc.string()))) }),
  ),
  autoConnect: fc.boolean(),
  // From 1 ms; a tiny one (refused: no ceiling fits it) comes from the invalid mix.
  maxDelay: fc.oneof(fc.double({ min: 1, max: 1e6, noNaN: true }), fc.constantFrom(1, 1e300)),
  // Mostly within what the default maxDelay allows (14); larger ones need a larger maxDelay.
  ceiling: fc.oneof(fc.integer({ min: 1, max: 14 }), fc.integer({ min: 1, max: 64 })),
  backoff: fc.oneof(validBackoff, fc.record({ next: fc.func(anyValue), reset: fc.func(anything) })),
  stableAfter: fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constantFrom(0, -0)),
  connectTimeout: timeoutArb,
  maxRetries: fc.oneof(fc.nat(10), fc.constant(Number.POSITIVE_INFINITY)),
  maxRetryAfter: fc.oneof(fc.nat(), fc.constantFrom(0, -0, Number.POSITIVE_INFINITY)),
  shouldReconnect: fc.func(anything),
  heartbeat: fc.oneof(
    fc.constant(false),
    // `message` needs `isPong` (an app-level ping must recognise its answers); `isPong` alone is allowed.
    fc.record(
      {
        interval: fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        timeout: fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        isPong: fc.func(anything),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        interval: fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        timeout: fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        message: fc.oneof(dataArb, fc.func(anyValue)),
        isPong: fc.func(anything),
      },
      { requiredKeys: ['message', 'isPong'] },
    ),
  ),
  buffer: fc.record(
    {
      maxMessages: fc.nat(2000),
      maxBytes: fc.oneof(fc.nat(), fc.constant(Number.POSITIVE_INFINITY)),
      overflow: fc.constantFrom('drop-oldest', 'drop-newest', 'error'),
      ttl: fc.oneof(fc.double({ min: 1e-3, max: 1e6, noNaN: true }), fc.constant(Number.POSITIVE_INFINITY)),
    },
    { requiredKeys: [] },
  ),
  handshake: fc.func(anything),
  handshakeTimeout: timeoutArb,
  binaryType: fc.oneof(fc.constantFrom('blob', 'arraybuffer', 'nodebuffer'), fc.string()),
  signal: fc.oneof(
    fc.constant(null).map(controlledSignal),
    anything.map((reason) => AbortSignal.abort(reason)),
    fc.record({
      aborted: fc.boolean(),
      addEventListener: fc.func(fc.constant(undefined)),
      removeEventListener: fc.func(fc.constant(undefined)),
    }),
  ),
  unref: fc.boolean(),
  clock: fc.constant(null).map(globalClock),
};

/** Less frequent options: a `backoff` together with `maxDelay`/`ceiling` is a conflict. */
const RARE = new Set(['backoff', 'maxDelay', 'ceiling']);

function isConstructorOtherThanMock(value: unknown): boolean {
  return typeof value === 'function' && typeof value.prototype === 'object' && value !== WebSocketImpl;
}

/**
 * The WebSocket option: almost always mock-socket; sometimes anything else. Constructors other than
 * mock-socket's are left out: see the BUG test "a WebSocket option whose instances are not
 * WebSockets".
 */
const webSocketArb = fc.oneof(
  { weight: 15, arbitrary: fc.constant<unknown>(WebSocketImpl) },
  { weight: 1, arbitrary: anyValue.filter((value) => !isConstructorOtherThanMock(value)) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

function optionsRecord(invalidWeight: number): fc.Arbitrary<Record<string, unknown>> {
  const fields: Record<string, fc.Arbitrary<unknown>> = { WebSocket: webSocketArb };
  for (const [key, valid] of Object.entries(validOptions)) {
    fields[key] = field(valid, invalidWeight, RARE.has(key) ? 16 : 6);
  }
  return fc
    .record(fields)
    .map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== ABSENT)));
}

type UrlSpec =
  | { kind: 'server' }
  | { kind: 'server-url-object' }
  | { kind: 'no-server' }
  | { kind: 'value'; value: unknown }
  | { kind: 'provider'; result: UrlSpec; async: boolean };

const plainUrlSpec: fc.Arbitrary<UrlSpec> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<UrlSpec>({ kind: 'server' }) },
  { weight: 1, arbitrary: fc.constant<UrlSpec>({ kind: 'server-url-object' }) },
  { weight: 1, arbitrary: fc.constant<UrlSpec>({ kind: 'no-server' }) },
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.webUrl({ withFragments: true, withQueryParameters: true }),
        fc.webUrl().map((url) => url.replace(/^http/, 'ws')),
        fc.webUrl().map((url) => new URL(url)),
        fc.constantFrom('ws://', 'ws://x#', 'ws://x/#', 'ftp://x', '/relative', 'ws://a b', 'wss://h:99999', 'WS://UP'),
        fc.string(),
        anyValue.filter((value) => typeof value !== 'function'),
      )
      .map((value): UrlSpec => ({ kind: 'value', value })),
  },
);
const urlSpecArb: fc.Arbitrary<UrlSpec> = fc.oneof(
  { weight: 5, arbitrary: plainUrlSpec },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('provider' as const), result: plainUrlSpec, async: fc.boolean() }),
  },
);

function resolveUrl(spec: UrlSpec, server: TestServer): unknown {
  switch (spec.kind) {
    case 'server':
      return server.url;
    case 'server-url-object':
      return new URL(server.url);
    case 'no-server':
      return uniqueUrl();
    case 'value':
      return spec.value;
    case 'provider': {
      const value = resolveUrl(spec.result, server);
      return spec.async ? () => Promise.resolve(value) : () => value;
    }
  }
}

// ─── the options oracle ────────────────────────────────────────────────────────────────────

function isData(value: unknown): boolean {
  return (
    typeof value === 'string' ||
    value instanceof ArrayBuffer ||
    ArrayBuffer.isView(value) ||
    value instanceof SharedArrayBuffer ||
    value instanceof Blob
  );
}

function isPolicy(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { next?: unknown }).next === 'function' &&
    typeof (value as { reset?: unknown }).reset === 'function'
  );
}

function checkUrl(problems: Problems, url: unknown): void {
  if (typeof url === 'function') return; // a provider: checked before every attempt
  if (typeof url !== 'string' && !(url instanceof URL)) {
    problems.add('url', 'type');
    return;
  }
  // "an absolute ws:, wss:, http: or https: URL", without a #fragment
  const parsed = URL.canParse(String(url)) ? new URL(String(url)) : undefined;
  if (!parsed || !['ws:', 'wss:', 'http:', 'https:'].includes(parsed.protocol) || parsed.hash !== '') {
    problems.add('url', 'range');
  }
}

/** Which arguments of `new ResilientSocket(url, options)` are bad, per docs/guide/getting-started.md and the TSDoc. */
function socketProblems(url: unknown, options: unknown): Problems {
  const p = new Problems();
  checkUrl(p, url);
  if (options !== undefined && !isOptionsObject(options)) {
    p.add('options', 'type');
    return p;
  }
  const o = options ?? {};
  checkKnownKeys(p, '', o, SOCKET_OPTIONS);
  if (typeof o.protocols !== 'function') checkProtocols(p, 'protocols', o.protocols);
  checkWsOptions(p, o.wsOptions);
  checkBoolean(p, 'autoConnect', o.autoConnect);
  checkNumber(p, 'stableAfter', o.stableAfter, { min: 0 });
  checkNumber(p, 'connectTimeout', o.connectTimeout, { above: 0, infinity: true });
  checkNumber(p, 'maxRetries', o.maxRetries, { integer: true, min: 0, infinity: true });
  checkNumber(p, 'maxRetryAfter', o.maxRetryAfter, { min: 0, infinity: true });
  checkFunction(p, 'shouldReconnect', o.shouldReconnect);
  checkNumber(p, 'handshakeTimeout', o.handshakeTimeout, { above: 0, infinity: true });
  checkFunction(p, 'handshake', o.handshake);
  if (o.binaryType !== undefined && typeof o.binaryType !== 'string') p.add('binaryType', 'type');
  // "one of the values the WebSocket takes": ws's four (the default here is ws: it is installed), a browser's two.
  const wsLike =
    o.WebSocket === undefined ||
    typeof (o.WebSocket as { prototype?: { ping?: unknown } } | null)?.prototype?.ping === 'function';
  const binaryTypes = wsLike ? ['nodebuffer', 'arraybuffer', 'fragments', 'blob'] : ['blob', 'arraybuffer'];
  if (typeof o.binaryType === 'string' && !binaryTypes.includes(o.binaryType)) p.add('binaryType', 'range');
  checkShape(p, 'signal', o.signal, ...SIGNAL_SHAPE);
  checkBoolean(p, 'unref', o.unref);
  checkShape(p, 'clock', o.clock, ...CLOCK_SHAPE);

  // backoff, or maxDelay/ceiling for the default one; not both.
  if (o.backoff === undefined) {
    checkWindows(p, o.maxDelay, o.ceiling);
  } else if (o.maxDelay !== undefined || o.ceiling !== undefined) {
    p.add('backoff', 'type');
    if (o.maxDelay !== undefined) p.add('maxDelay', 'type');
    if (o.ceiling !== undefined) p.add('ceiling', 'type');
  } else if (typeof o.backoff === 'function') {
    // The generated factories are pure or return fresh policies, so calling one here is harmless.
    if (!isPolicy((o.backoff as () => unknown)())) p.add('backoff', 'type');
  } else if (!isPolicy(o.backoff)) {
    p.add('backoff', 'type');
  }

  const heartbeat = o.heartbeat;
  if (heartbeat !== undefined && heartbeat !== false) {
    if (!isOptionsObject(heartbeat)) {
      p.add('heartbeat', 'type');
    } else {
      checkKnownKeys(p, 'heartbeat', heartbeat, HEARTBEAT_OPTIONS);
      checkPingNeedsPong(p, heartbeat);
      checkNumber(p, 'heartbeat.interval', heartbeat.interval, { above: 0 });
      checkNumber(p, 'heartbeat.timeout', heartbeat.timeout, { above: 0 });
      const { message } = heartbeat;
      if (message !== undefined && typeof message !== 'function' && !isData(message)) {
        p.add('heartbeat.message', 'type');
      }
      checkFunction(p, 'heartbeat.isPong', heartbeat.isPong);
    }
  }

  const buffer = o.buffer;
  if (buffer !== undefined) {
    if (!isOptionsObject(buffer)) {
      p.add('buffer', 'type');
    } else {
      checkKnownKeys(p, 'buffer', buffer, BUFFER_OPTIONS);
      checkNumber(p, 'buffer.maxMessages', buffer.maxMessages, { integer: true, min: 0 });
      checkNumber(p, 'buffer.maxBytes', buffer.maxBytes, { integer: true, min: 0, infinity: true });
      const { overflow } = buffer;
      if (overflow !== undefined) {
        if (typeof overflow !== 'string') p.add('buffer.overflow', 'type');
        else if (!['drop-oldest', 'drop-newest', 'error'].includes(overflow)) p.add('buffer.overflow', 'range');
      }
      checkNumber(p, 'buffer.ttl', buffer.ttl, { above: 0, infinity: true });
    }
  }

  const resume = o.resume;
  if (resume !== undefined && resume !== false) {
    if (!isOptionsObject(resume)) {
      p.add('resume', 'type');
    } else {
      checkKnownKeys(p, 'resume', resume, RESUME_OPTIONS);
      checkNumber(p, 'resume.probeTimeout', resume.probeTimeout, { above: 0 });
      checkBoolean(p, 'resume.pauseWhileOffline', resume.pauseWhileOffline);
      checkBoolean(p, 'resume.detectSuspend', resume.detectSuspend);
    }
  }

  const ws = o.WebSocket;
  if (ws !== undefined && !(typeof ws === 'function' && typeof ws.prototype === 'object')) {
    p.add('WebSocket', 'type');
  }
  return p;
}

// ─── constructor ───────────────────────────────────────────────────────────────────────────

describe('new ResilientSocket(url, options) under arbitrary input', () => {
  it('constructs a working socket, or throws a TypeError/RangeError naming a bad argument', async () => {
    const optionsArb = fc.oneof(
      { weight: 6, arbitrary: optionsRecord(1) },
      { weight: 4, arbitrary: optionsRecord(0) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: anyValue },
    );
    await fc.assert(
      fc.asyncProperty(urlSpecArb, optionsArb, fc.boolean(), (urlSpec, options, abortToEnd) =>
        run(async () => {
          const server = startServer();
          const url = resolveUrl(urlSpec, server);
          const problems = socketProblems(url, options);
          const made = attempt(() => construct(url, options));

          if (!made.ok) {
            const noWebSocket =
              problems.size === 0 &&
              isOptionsObject(options) &&
              options.WebSocket === undefined &&
              typeof (globalThis as { WebSocket?: unknown }).WebSocket !== 'function';
            if (noWebSocket || (options === undefined && problems.size === 0)) {
              expectRsError(made.error, ErrorCodes.NO_WEBSOCKET);
            } else {
              expect(problems.size, `threw ${show(made.error)} for valid input`).toBeGreaterThan(0);
              expectOptionError(made.error, problems);
            }
            return;
          }
          expect(problems.size, `constructed despite: ${problems}`).toBe(0);

          const socket = made.value;
          const o = (options ?? {}) as Record<string, unknown>;
          const signal = o.signal as AbortSignal | undefined;
          const errors = collectErrors(socket);
          const expectedState: SocketState = signal?.aborted
            ? 'closed'
            : o.autoConnect === false
              ? 'idle'
              : 'connecting';
          expect(socket.state).toBe(expectedState);

          await advance(50); // throws if a timer callback throws
          expect(ALL_STATES).toContain(socket.state);
          expectAllRsErrors(errors);

          const controller = signal ? controllers.get(signal) : undefined;
          await expectClosesCleanly(
            socket,
            abortToEnd && controller && !controller.signal.aborted ? () => controller.abort() : undefined,
          );
          expectAllRsErrors(errors);
        }),
      ),
      { numRuns: 200 },
    );
  });

  it('each option alone with an arbitrary value: accepted and working, or named in the error', async () => {
    const paths = [
      ...Object.keys(validOptions),
      'WebSocket',
      'heartbeat.interval',
      'heartbeat.timeout',
      'heartbeat.message',
      'heartbeat.isPong',
      'buffer.maxMessages',
      'buffer.maxBytes',
      'buffer.overflow',
      'buffer.ttl',
      'wsOptions.headers',
      'wsOptions.origin',
      'wsOptions.protocolVersion',
      'wsOptions.handshakeTimeout',
      'wsOptions.maxPayload',
      'wsOptions.agent',
    ];
    const badValue = fc.oneof(
      { weight: 3, arbitrary: anyValue.filter((value) => !isConstructorOtherThanMock(value)) },
      { weight: 1, arbitrary: fc.constantFrom<unknown>(null, Number.NaN, -1, 0, -0, 1.5, Number.POSITIVE_INFINITY) },
    );
    await fc.assert(
      fc.asyncProperty(optionsRecord(0), fc.constantFrom(...paths), badValue, (base, path, value) =>
        run(async () => {
          const server = startServer();
          const [key, sub] = path.split('.') as [string, string | undefined];
          const options: Record<string, unknown> = { ...base, WebSocket: WebSocketImpl };
          if (sub === undefined) options[key] = value;
          else options[key] = { ...(isOptionsObject(base[key]) ? base[key] : {}), [sub]: value };
          const problems = socketProblems(server.url, options);
          const made = attempt(() => construct(server.url, options));
          if (!made.ok) {
            if (problems.size === 0 && options.WebSocket === undefined) {
              expectRsError(made.error, ErrorCodes.NO_WEBSOCKET);
            } else {
              expect(problems.size, `threw ${show(made.error)} for valid input`).toBeGreaterThan(0);
              expectOptionError(made.error, problems);
            }
            return;
          }
          expect(problems.size, `constructed despite: ${problems}`).toBe(0);
          const errors = collectErrors(made.value);
          await advance(MOCK_DELAY);
          await expectClosesCleanly(made.value);
          expectAllRsErrors(errors);
        }),
      ),
      { numRuns: 300 },
    );
  });

  // Regression (fixed in src): was (before the core redesign) src/socket/options.ts isAbortSignal() accepts any object with a boolean `aborted` and an
  // `addEventListener` function, but close() calls `signal.removeEventListener(...)` (resilient-
  // socket.ts, close(): `this.#options.signal?.removeEventListener(...)`). For such a duck-typed
  // signal close() throws `TypeError: this[#options].signal?.removeEventListener is not a function`
  // *after* setting #disposed = true and before clearing timers or closing the connection: the socket
  // keeps its state ('connecting'/'open'), its timers and its WebSocket, and every later close() is a
  // silent no-op (it returns early on #disposed). retry() validates the same kind of option and does
  // require removeEventListener. Either the constructor should reject it (TypeError naming `signal`),
  // or close() should work.
  it('a duck-typed signal without removeEventListener is rejected, or close() works', async () => {
    const server = startServer();
    const signal = { aborted: false, addEventListener: () => undefined };
    let socket: ResilientSocket;
    try {
      socket = construct(server.url, { WebSocket: WebSocketImpl, signal });
    } catch (error) {
      expectNamed(error, TypeError, 'signal');
      return;
    }
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(() => socket.close()).not.toThrow();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('closed');
    expect(vi.getTimerCount()).toBe(0);
  });

  // Regression (fixed in src): was the `WebSocket` option is only checked to be a function with a prototype. With a
  // constructor whose instances are not WebSockets (e.g. `Object`, `Date`, or a class missing
  // addEventListener), `new this.#WebSocket(url, protocols)` succeeds, and the next statement in
  // #openSocket, `new Connection(socket, …)`, throws `TypeError: this.socket.addEventListener is not a
  // function` *outside* the try/catch that guards the constructor call. It runs inside the `.then`
  // of `void this.#resolveTarget().then(...)` in #startAttempt, so it becomes an unhandled
  // rejection; no `error` event is emitted, and the attempt hangs in `connecting` until
  // connectTimeout (forever with `connectTimeout: Infinity`). Expected: ERR_RS_CONNECTION_FAILED
  // (or a TypeError naming `WebSocket` at construction).
  it('a WebSocket option whose instances are not WebSockets is reported, not an unhandled rejection', async () => {
    let socket: ResilientSocket;
    try {
      socket = construct(uniqueUrl(), { WebSocket: Object, connectTimeout: 1_000 });
    } catch (error) {
      expectNamed(error, TypeError, 'WebSocket');
      return;
    }
    const errors = collectErrors(socket);
    await settle();
    const unhandled = await tracker.take();
    expect(unhandled).toEqual([]);
    expect(errors.map((error) => error.code)).toContain(ErrorCodes.CONNECTION_FAILED);
  });
});

// ─── timing options vs. a healthy connection ───────────────────────────────────────────────

describe('valid timing options never cut a healthy connection early', () => {
  const timerMs = fc.oneof(fc.integer({ min: 10, max: MAX_TIMER_DELAY }), fc.constantFrom(10, 10_000, MAX_TIMER_DELAY));

  it('with connectTimeout, handshakeTimeout, stableAfter, heartbeat <= 2^31 - 1 ms', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(timerMs, fc.constant(Number.POSITIVE_INFINITY)),
        fc.boolean(),
        fc.oneof(timerMs, fc.constant(Number.POSITIVE_INFINITY)),
        fc.oneof(fc.integer({ min: 0, max: 8 }), timerMs),
        fc.option(
          timerMs.chain((interval) =>
            fc.record({
              interval: fc.constant(interval),
              timeout: fc.integer({ min: 10, max: MAX_TIMER_DELAY }),
            }),
          ),
          { nil: undefined },
        ),
        (connectTimeout, withHandshake, handshakeTimeout, stableAfter, heartbeat) =>
          run(async () => {
            const server = startServer();
            const socket = construct(server.url, {
              WebSocket: WebSocketImpl,
              connectTimeout,
              handshakeTimeout,
              stableAfter,
              ...(withHandshake ? { handshake: () => Promise.resolve() } : {}),
              ...(heartbeat ? { heartbeat } : {}),
            });
            const errors = collectErrors(socket);
            let stable = 0;
            socket.on('stable', () => {
              stable += 1;
            });
            await advance(MOCK_DELAY);
            expect(socket.state).toBe('open');
            await advance(6);
            expect(socket.state).toBe('open');
            expect(errors.map((e) => e.code)).toEqual([]);
            expect(stable).toBe(stableAfter <= 6 ? 1 : 0);
            await expectClosesCleanly(socket);
          }),
      ),
      { numRuns: 100 },
    );
  });

  // Regression (fixed in src): was connectTimeout, handshakeTimeout, stableAfter and heartbeat.interval/timeout accept any
  // finite number, but are handed to setTimeout unclamped (resilient-socket.ts #startAttempt,
  // #onSocketOpen, #acceptOpen; heartbeat.ts start()/#armProbe()/#probe(); silence mode uses
  // interval + timeout). setTimeout fires a delay above 2^31 − 1 ms after 1 ms (docs/guide/backoff.md says as
  // much for backoff delays, which *are* clamped). So `connectTimeout: 2 ** 31` abandons every attempt
  // after 1 ms (the socket never connects), `handshakeTimeout: 2 ** 31` fails every handshake that
  // takes over 1 ms, `heartbeat: { interval: 2 ** 31 }` (or interval + timeout > 2^31 − 1) declares
  // every link dead after 1 ms, and `stableAfter: 2 ** 31` declares the connection stable after 1 ms
  // (resetting the backoff, defeating its purpose). Expected: clamp these to 2^31 − 1 (or reject them
  // with a RangeError).
  it.each<[string, Record<string, unknown>, number]>([
    ['connectTimeout: 2 ** 31', { connectTimeout: 2 ** 31 }, 0],
    [
      'handshakeTimeout: 2 ** 31',
      { handshakeTimeout: 2 ** 31, handshake: () => new Promise((r) => setTimeout(r, 3)) },
      3,
    ],
    ['stableAfter: 2 ** 31', { stableAfter: 2 ** 31 }, 0],
    ['heartbeat: { interval: 2 ** 31 }', { heartbeat: { interval: 2 ** 31 } }, 0],
    ['heartbeat: { interval: 2 ** 30, timeout: 2 ** 30 }', { heartbeat: { interval: 2 ** 30, timeout: 2 ** 30 } }, 0],
  ])('%s keeps a healthy connection open for 100 ms without errors or `stable`', async (_name, options, extra) => {
    const server = startServer();
    const socket = construct(server.url, { WebSocket: WebSocketImpl, ...options });
    const errors = collectErrors(socket);
    let stable = 0;
    socket.on('stable', () => {
      stable += 1;
    });
    await advance(MOCK_DELAY + extra + 100);
    expect(errors.map((e) => e.code)).toEqual([]);
    expect(socket.state).toBe('open');
    expect(stable).toBe(0);
  });
});

// ─── sockets in every state ────────────────────────────────────────────────────────────────

const stateArb = fc.constantFrom<SocketState>(...ALL_STATES);

/** A socket on a live mock server, brought into `state`, with a 20 ms constant backoff. */
async function socketIn(state: SocketState, extra: Record<string, unknown> = {}) {
  const server = startServer();
  const socket = construct(server.url, {
    WebSocket: WebSocketImpl,
    backoff: constant({ delay: 20 }),
    heartbeat: false,
    autoConnect: state !== 'idle',
    ...extra,
  });
  const errors = collectErrors(socket);
  const closes: ResilientSocketEvents['close'][0][] = [];
  socket.on('close', (info) => {
    closes.push(info);
  });
  if (state !== 'idle' && state !== 'connecting') {
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    if (state === 'reconnecting') {
      server.closeLast(4000, 'restart');
      await advance(MOCK_DELAY);
    } else if (state === 'closing') {
      socket.close();
    } else if (state === 'closed') {
      socket.close();
      await advance(MOCK_DELAY);
    }
  }
  expect(socket.state).toBe(state);
  closes.length = 0;
  return { server, socket, errors, closes };
}

const sendOptionsArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(undefined),
  fc.record({ buffer: fc.boolean() }, { requiredKeys: [] }),
  fc.record({ buffer: anyValue }),
  anyValue,
);

type Op =
  | { kind: 'send'; data: unknown; options: unknown }
  | { kind: 'advance'; ms: number }
  | { kind: 'server-close'; code: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      data: fc.oneof({ weight: 3, arbitrary: dataArb }, { weight: 1, arbitrary: anyValue }),
      options: sendOptionsArb,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 40 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('server-close' as const), code: fc.constantFrom(1000, 1001, 4000, 1011) }),
  },
);

const bufferArb = fc.record(
  {
    maxMessages: fc.integer({ min: 0, max: 4 }),
    maxBytes: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant(Number.POSITIVE_INFINITY)),
    overflow: fc.constantFrom('drop-oldest', 'drop-newest', 'error'),
    ttl: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 1, max: 60 })),
  },
  { requiredKeys: [] },
);

describe('send(data, options) under arbitrary input, in every state', () => {
  it('returns sent/buffered/dropped or throws a TypeError naming the argument; the books always balance', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, bufferArb, fc.array(opArb, { maxLength: 12 }), (state, buffer, ops) =>
        run(async () => {
          fc.pre(!ops.some((op) => op.kind === 'send' && isOptionsObject(op.options) && op.options.buffer === null));
          const { server, socket, errors } = await socketIn(state, { buffer });
          let dropEvents = 0;
          socket.on('drop', ({ messages }) => {
            dropEvents += messages.length;
          });
          const out0 = socket.stats.messagesOut;
          const dropped0 = socket.stats.dropped;
          const results = { sent: 0, buffered: 0, dropped: 0 };
          const maxMessages = buffer.maxMessages ?? 1000;

          const expectBooksBalance = (): void => {
            const flushed = socket.stats.messagesOut - out0 - results.sent;
            const evicted = dropEvents - results.dropped;
            expect(socket.bufferedCount, `results ${JSON.stringify(results)}, drops ${dropEvents}`).toBe(
              results.buffered - evicted - flushed,
            );
            expect(socket.stats.dropped - dropped0).toBe(dropEvents);
            expect(socket.bufferedCount).toBeLessThanOrEqual(maxMessages);
          };

          for (const op of ops) {
            if (op.kind === 'advance') {
              await advance(op.ms);
            } else if (op.kind === 'server-close') {
              if (socket.state === 'open') {
                server.closeLast(op.code, 'bye');
                await advance(MOCK_DELAY);
              }
            } else {
              const before = { state: socket.state, count: socket.bufferedCount };
              const problems = new Problems();
              if (!isData(op.data)) problems.add('data', 'type');
              if (op.options !== undefined && !isOptionsObject(op.options)) problems.add('send options', 'type');
              const wantsBuffer = isOptionsObject(op.options) ? op.options.buffer : undefined;
              if (isOptionsObject(op.options) && wantsBuffer !== undefined && typeof wantsBuffer !== 'boolean') {
                problems.add('buffer', 'type');
              }
              if (isOptionsObject(op.options)) checkKnownKeys(problems, '', op.options, ['buffer']);
              const sent = attempt(() => socket.send(op.data as never, op.options as never));
              if (!sent.ok) {
                if (problems.size === 0 && isResilientSocketError(sent.error)) {
                  // Documented: the buffer is full and overflow is 'error'.
                  expect(sent.error.code).toBe(ErrorCodes.BUFFER_OVERFLOW);
                  expect(buffer.overflow).toBe('error');
                } else {
                  expect(problems.size, `send threw ${show(sent.error)} for valid input`).toBeGreaterThan(0);
                  expectOptionError(sent.error, problems);
                }
                expect(socket.state).toBe(before.state);
                expect(socket.bufferedCount).toBe(before.count);
              } else {
                expect(problems.size, `send accepted ${problems}`).toBe(0);
                const result = sent.value;
                expect(['sent', 'buffered', 'dropped']).toContain(result);
                results[result] += 1;
                if (before.state === 'closing' || before.state === 'closed') expect(result).toBe('dropped');
                else if (before.state === 'open' && before.count === 0) expect(result).toBe('sent');
                else if (wantsBuffer === false) expect(result).toBe('dropped');
                else expect(result).not.toBe('sent');
              }
            }
            expectBooksBalance();
            expect(ALL_STATES).toContain(socket.state);
          }
          expectAllRsErrors(errors);
          await expectClosesCleanly(socket);
          results.dropped += 1; // expectClosesCleanly's own send after close
          expectBooksBalance();
        }),
      ),
      { numRuns: NUM_RUNS },
    );
  });

  // Regression (fixed in src): was send() reads its option as `options?.buffer ?? true`, so `{ buffer: null }` silently means
  // `true` while every other non-boolean throws a TypeError naming `buffer`. The package's own rule
  // (src/validation.ts withDefault(): "Only `undefined` means use the default: `null` is passed
  // through so that validation rejects it as a wrong type instead of silently defaulting (which
  // `??` would do)") says null must be rejected. Minor: an inconsistency, not a crash.
  it('send(data, { buffer: null }) throws a TypeError naming `buffer`', async () => {
    const { socket } = await socketIn('connecting');
    const error = thrown(() => socket.send('x', { buffer: null } as never));
    expectNamed(error, TypeError, 'buffer');
  });
});

// ─── close ─────────────────────────────────────────────────────────────────────────────────

const codeArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>(undefined, 1000, 3000, 4999) },
  { weight: 3, arbitrary: fc.integer({ min: 3000, max: 4999 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(1001, 1005, 1006, 2999, 5000, 3000.5, -0, Number.NaN) },
  { weight: 1, arbitrary: fc.integer({ min: -10, max: 6000 }) },
  { weight: 1, arbitrary: fc.double({ min: 2999, max: 5000, noNaN: true }) },
  { weight: 1, arbitrary: anyNumber },
  { weight: 1, arbitrary: anyValue },
);
const reasonArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 20, maxLength: 60 }) },
  // Around the 123-byte limit, in 1-, 3- and 4-byte characters and lone surrogates (3 bytes each).
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.integer({ min: 118, max: 128 }).map((n) => 'a'.repeat(n)),
      fc.integer({ min: 39, max: 43 }).map((n) => '€'.repeat(n)),
      fc.integer({ min: 29, max: 33 }).map((n) => '😀'.repeat(n)),
      fc.integer({ min: 39, max: 43 }).map((n) => '\uD800'.repeat(n)),
      fc.integer({ min: 0, max: 3 }).map((n) => `${'a'.repeat(122 - n)}${'é'.repeat(n + 1)}`),
    ),
  },
  { weight: 1, arbitrary: anyValue },
);

/**
 * Whether mock-socket's close() refuses a reason that real WebSockets accept: it measures UTF-8
 * with encodeURIComponent, which throws on lone surrogates and counts an astral character as 5
 * bytes instead of 4. The socket then falls back to its close timeout (close(): "fall through to
 * the timeout, which cuts the connection").
 */
function mockRefusesReason(reason: unknown): boolean {
  if (typeof reason !== 'string') return false;
  try {
    const continuation = encodeURIComponent(reason).match(/%[89ABab]/g);
    return reason.length + (continuation ? continuation.length : 0) > 123;
  } catch {
    return true;
  }
}

function closeProblems(code: unknown, reason: unknown): Problems {
  const p = new Problems();
  if (code !== undefined) {
    if (typeof code !== 'number') p.add('code', 'type');
    else if (!(code === 1000 || (Number.isInteger(code) && code >= 3000 && code <= 4999))) p.add('code', 'range');
  }
  if (reason !== undefined) {
    if (typeof reason !== 'string') p.add('reason', 'type');
    else if (Buffer.byteLength(reason, 'utf8') > 123) p.add('reason', 'range');
  }
  return p;
}

describe('close(code, reason) under arbitrary input, in every state', () => {
  it('closes (sending code and reason), or throws naming `code`/`reason` and leaves the socket usable', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, codeArb, reasonArb, fc.boolean(), (state, code, reason, queued) =>
        run(async () => {
          const { socket, errors, closes } = await socketIn(state);
          if (queued) socket.send('queued');
          const before = { state: socket.state, count: socket.bufferedCount };
          const problems = closeProblems(code, reason);
          const closed = attempt(() => socket.close(code as never, reason as never));
          if (!closed.ok) {
            expect(problems.size, `close threw ${show(closed.error)} for valid arguments`).toBeGreaterThan(0);
            expectOptionError(closed.error, problems);
            // Nothing changed: the socket is as usable as before.
            expect(socket.state).toBe(before.state);
            expect(socket.bufferedCount).toBe(before.count);
            if (before.state === 'open') expect(socket.send('still works')).toBe('sent');
            if (before.state === 'idle') {
              socket.open();
              expect(socket.state).toBe('connecting');
            }
            await expectClosesCleanly(socket);
          } else {
            expect(problems.size, `close accepted ${problems}`).toBe(0);
            const refused = before.state === 'open' && mockRefusesReason(reason);
            await expectClosesCleanly(socket, () => undefined, refused ? CLOSE_TIMEOUT + MOCK_DELAY : MOCK_DELAY);
            if (before.state === 'open') {
              // The closing handshake carries what close() was given (or the timeout cut it).
              expect(closes.map(({ code: c, reason: r }) => ({ code: c, reason: r }))).toEqual([
                refused ? { code: 1006, reason: 'close timeout' } : { code: code ?? 1000, reason: reason ?? '' },
              ]);
            }
            // Idempotent, even with another round of arbitrary arguments.
            const again = attempt(() => socket.close(code as never, reason as never));
            expect(again.ok).toBe(true);
            expect(socket.state).toBe('closed');
          }
          expectAllRsErrors(errors);
        }),
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

// ─── throwing listeners ────────────────────────────────────────────────────────────────────

/** Every event but `error` (what a throwing `error` listener throws becomes a process warning instead). */
const THROWABLE_EVENTS = EVENT_NAMES.filter((name) => name !== 'error');

describe('listeners that throw', () => {
  it('never disturb the machine; every exception surfaces as ERR_RS_LISTENER_THREW or ERR_RS_CALLBACK_FAILED', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([...THROWABLE_EVENTS]),
        fc.array(anything, {
          minLength: THROWABLE_EVENTS.length,
          maxLength: THROWABLE_EVENTS.length,
        }),
        fc.constantFrom(0, 1, 1_000),
        fc.boolean(),
        fc.boolean(),
        (throwing, values, stableAfter, giveUp, throwingShouldReconnect) =>
          run(async () => {
            // A throwing shouldReconnect counts as "reconnect", so it cannot be combined with a fatal close.
            fc.pre(!(giveUp && throwingShouldReconnect));
            const server = startServer();
            const exceptions: unknown[] = [];
            const socket = construct(server.url, {
              WebSocket: WebSocketImpl,
              autoConnect: false,
              backoff: constant({ delay: 10 }),
              heartbeat: false,
              stableAfter,
              ...(throwingShouldReconnect
                ? {
                    shouldReconnect: () => {
                      const value = { thrownBy: 'shouldReconnect' };
                      exceptions.push(value);
                      throw value;
                    },
                  }
                : {}),
            });
            // Recorders first: a throwing listener stops the listeners after it.
            const transitions: string[] = [];
            socket.on('state', ({ previous, current }) => {
              transitions.push(`${previous}→${current}`);
            });
            let stable = 0;
            socket.on('stable', () => {
              stable += 1;
            });
            const errors = collectErrors(socket);
            const thrownBy = new Map<string, number>();
            throwing.forEach((event, i) => {
              const value = values[i];
              (socket.on as (event: string, fn: () => void) => unknown)(event, () => {
                thrownBy.set(event, (thrownBy.get(event) ?? 0) + 1);
                exceptions.push(value);
                throw value;
              });
            });

            socket.open();
            await advance(MOCK_DELAY + 2);
            expect(socket.state).toBe('open');
            server.broadcast('hello');
            expect(socket.send('now')).toBe('sent');
            server.closeLast(4000, 'restart');
            await advance(MOCK_DELAY);
            expect(socket.state).toBe('reconnecting');
            expect(socket.send('only now', { buffer: false })).toBe('dropped');
            expect(socket.send('queued')).toBe('buffered');
            await advance(10 + MOCK_DELAY + 2);
            expect(socket.state).toBe('open');
            expect(socket.bufferedCount).toBe(0);
            if (giveUp) {
              server.closeLast(1008, 'policy');
              await advance(MOCK_DELAY);
              expect(socket.state).toBe('closed');
            } else {
              socket.close();
              expect(socket.state).toBe('closing');
              await advance(MOCK_DELAY);
              expect(socket.state).toBe('closed');
            }

            expect(transitions).toEqual([
              'idle→connecting',
              'connecting→open',
              'open→reconnecting',
              'reconnecting→connecting',
              'connecting→open',
              ...(giveUp ? ['open→closed'] : ['open→closing', 'closing→closed']),
            ]);
            expect(stable).toBe(stableAfter <= 2 ? 2 : 0);
            expect(vi.getTimerCount()).toBe(0);
            expect(socket.stats.messagesOut).toBe(2);
            expect(server.received).toEqual(['now', 'queued']);

            // Every exception, and nothing else, surfaced once: a listener's as ERR_RS_LISTENER_THREW,
            // in the order they threw; shouldReconnect's as ERR_RS_CALLBACK_FAILED (reported with the
            // loss it decided about, after the state change it led to).
            expectAllRsErrors(errors);
            const USER = new Set<string>([ErrorCodes.LISTENER_THREW, ErrorCodes.CALLBACK_FAILED]);
            const threw = errors.filter((e) => e.code === ErrorCodes.LISTENER_THREW);
            const fromListeners = exceptions.filter(
              (e) => (e as { thrownBy?: unknown } | null)?.thrownBy !== 'shouldReconnect' || !throwingShouldReconnect,
            );
            const fromCallback = errors.filter((e) => e.code === ErrorCodes.CALLBACK_FAILED);
            expect(threw.length + fromCallback.length, `exceptions from ${throwing.join(', ') || 'nothing'}`).toBe(
              exceptions.length,
            );
            expect(fromCallback.length).toBe(exceptions.length - fromListeners.length);
            for (const error of fromCallback) {
              expect((error.cause as { thrownBy?: unknown }).thrownBy).toBe('shouldReconnect');
              expect(exceptions).toContain(error.cause);
            }
            threw.forEach((error, i) => {
              expect(Object.is(error.cause, fromListeners[i]), `cause ${i}`).toBe(true);
            });
            const others = errors.filter((e) => !USER.has(e.code)).map((e) => e.code);
            expect(others).toEqual(giveUp ? [ErrorCodes.FATAL_CLOSE] : []);
            // Each throwing listener was reached (every event happens in this script, but these four).
            for (const event of throwing) {
              if (event === 'giveup' && !giveUp) continue;
              if (event === 'stable' && stableAfter > 2) continue;
              if (event === 'acked') continue; // no reliable message in this script (no delivery())
              if (event === 'drain') continue; // nothing goes above the high-water mark in this script
              expect(thrownBy.get(event), `the ${event} listener ran`).toBeGreaterThan(0);
            }
          }),
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

// Regression (fixed): exceptions from user code were turned into messages with String(thrown), which itself throws
// (`TypeError: Cannot convert object to primitive value`) for a null-prototype object, or any value
// whose toString/valueOf throw or return an object:
//  - resilient-socket.ts #reportListenerError: `A listener threw: ${String(thrown)}` runs inside the
//    catch of #emit, so the TypeError escapes #emit and unwinds the state machine mid-step. A `state`
//    listener throwing Object.create(null) on open() makes open() itself throw, and leaves the socket
//    in `connecting` with no connect timer and no attempt in flight: stuck forever. The same escape
//    happens from every emit site (e.g. out of a mock-socket/ws close event handler for `giveup`),
//    and from shouldReconnect / backoff.next() failures, which use the same reporter.
//  - #startAttempt (provider failure), #onSocketOpen (handshake failure) and #openSocket (WebSocket
//    constructor failure) build `... ${String(error)}` inside a promise callback: the TypeError becomes
//    an unhandled rejection (which terminates a default Node process) and the attempt is only
//    abandoned by connectTimeout/handshakeTimeout, with no error event for the original failure.
// Now describeThrown() never throws, so the failure is reported as ERR_RS_LISTENER_THREW /
// ERR_RS_PROVIDER_FAILED / ERR_RS_HANDSHAKE_FAILED like any other.
describe('exceptions String() cannot convert', () => {
  it('a state listener throwing a null-prototype object does not break open()', async () => {
    const server = startServer();
    const socket = construct(server.url, { WebSocket: WebSocketImpl, autoConnect: false });
    const errors = collectErrors(socket);
    socket.once('state', () => {
      throw Object.create(null);
    });
    expect(() => socket.open()).not.toThrow();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(errors.map((e) => e.code)).toEqual([ErrorCodes.LISTENER_THREW]);
  });

  it('a URL provider rejecting with a null-prototype object is reported, not an unhandled rejection', async () => {
    const socket = construct(() => Promise.reject(Object.create(null)), {
      WebSocket: WebSocketImpl,
      connectTimeout: 1_000,
      // A fixed wait, so no second attempt can fall inside settle().
      backoff: { next: () => 5_000, reset: () => undefined },
    });
    const errors = collectErrors(socket);
    await settle();
    expect(await tracker.take()).toEqual([]);
    expect(errors.map((e) => e.code)).toEqual([ErrorCodes.PROVIDER_FAILED]);
  });
});
