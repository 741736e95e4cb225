/**
 * What the socket-input-*.test.ts properties share: fake timers, a tracker of unhandled rejections
 * and process warnings checked after every test, sockets constructed directly (with any url and
 * options) and closed after every run, the generators of constructor arguments, and sockets brought
 * into each state.
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';
import { constant } from '../../src/backoff/index.js';
import type { ResilientSocketEvents } from '../../src/core/events.js';
import type { SocketState } from '../../src/core/states.js';
import { ErrorCodes, isResilientSocketError, type ResilientSocketError } from '../../src/errors.js';
import { bufferPolicy, handshake, ResilientSocket } from '../../src/node.js';
import {
  advance,
  cleanup,
  expectRsError,
  MOCK_DELAY,
  startServer,
  type TestServer,
  thrown,
  uniqueUrl,
  WebSocketImpl,
} from '../resilient-socket/helpers.js';
import {
  anything,
  anyValue,
  globalClock,
  madeBy,
  show,
  tokenArb,
  unhandledTracker,
  validBackoff,
  validProtocols,
} from './arbitraries.js';

export const NUM_RUNS = 150;
export const ALL_STATES: readonly SocketState[] = ['idle', 'connecting', 'open', 'reconnecting', 'closing', 'closed'];

/** Unhandled rejections and uncaught exceptions: none may happen (see setUpSocketInput). */
export const tracker = unhandledTracker();

/**
 * Registers what every socket-input file needs around its tests (call it once, at the top of the
 * file): the test timeout, the unhandled-rejection tracker, the capture of process warnings, fake
 * timers, and the check after each test that nothing was left behind.
 */
export function setUpSocketInput(): void {
  // A failing property shrinks its counterexample, which can take longer than the default 5 s;
  // a timeout would hide the counterexample (and leave the run going in the background).
  vi.setConfig({ testTimeout: 60_000 });

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
}

// ─── per-run plumbing ──────────────────────────────────────────────────────────────────────

/** Sockets constructed directly (not through createSocket, which cannot take non-object options). */
const live = new Set<ResilientSocket>();

export function construct(url: unknown, options: unknown): ResilientSocket {
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
export async function run(body: () => Promise<void>): Promise<void> {
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
export function collectErrors(socket: ResilientSocket): ResilientSocketError[] {
  const errors: ResilientSocketError[] = [];
  socket.on('error', (error) => {
    errors.push(error);
  });
  return errors;
}

export function expectAllRsErrors(errors: readonly unknown[]): void {
  for (const error of errors) expect(isResilientSocketError(error), show(error)).toBe(true);
}

/** close() (or an abort) leads to `closed` within mock-socket's delay, with nothing left behind. */
export async function expectClosesCleanly(
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
export const controllers = new WeakMap<AbortSignal, AbortController>();

function controlledSignal(): AbortSignal {
  const controller = new AbortController();
  controllers.set(controller.signal, controller);
  return controller.signal;
}

const timeoutArb = fc.oneof(
  fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
  fc.constantFrom(Number.MIN_VALUE, 1, 10_000, Number.POSITIVE_INFINITY),
);

export const dataArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.uint8Array({ maxLength: 16 }),
  fc.uint8Array({ maxLength: 16 }).map((a) => a.buffer),
  fc.uint8Array({ maxLength: 16 }).map((a) => new DataView(a.buffer)),
  fc.float64Array({ maxLength: 4 }),
  fc.string({ maxLength: 8 }).map((s) => new Blob([s])),
  fc.nat(16).map((n) => new SharedArrayBuffer(n)),
);

/** Valid values for every option (the mix with invalid ones is made by `field`). */
export const validOptions: Record<string, fc.Arbitrary<unknown>> = {
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
    },
    { requiredKeys: [] },
  ),
  // bufferPolicy({ overflow, ttl })'s value; a plain options object (the old flat `buffer.overflow`/`buffer.ttl`
  // as an object), and anything else, comes from the invalid mix.
  bufferPolicy: fc
    .record(
      {
        overflow: fc.constantFrom('drop-oldest' as const, 'drop-newest' as const, 'error' as const),
        ttl: fc.oneof(fc.double({ min: 1e-3, max: 1e6, noNaN: true }), fc.constant(Number.POSITIVE_INFINITY)),
      },
      { requiredKeys: [] },
    )
    .map((policies) => madeBy('bufferPolicy', bufferPolicy(policies))),
  // handshake(hook, { timeout })'s value; the old plain hook, and anything else, comes from the invalid mix.
  handshake: fc
    .tuple(fc.func(anything), fc.option(timeoutArb, { nil: undefined }))
    .map(([hook, timeout]) =>
      madeBy('handshake', handshake(hook as () => void, timeout === undefined ? {} : { timeout })),
    ),
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

export function isConstructorOtherThanMock(value: unknown): boolean {
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

export function optionsRecord(invalidWeight: number): fc.Arbitrary<Record<string, unknown>> {
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
export const urlSpecArb: fc.Arbitrary<UrlSpec> = fc.oneof(
  { weight: 5, arbitrary: plainUrlSpec },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('provider' as const), result: plainUrlSpec, async: fc.boolean() }),
  },
);

export function resolveUrl(spec: UrlSpec, server: TestServer): unknown {
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

// ─── data ──────────────────────────────────────────────────────────────────────────────────

/** Whether `value` is data send() takes: a string, an ArrayBuffer (shared or not), a view or a Blob. */
export function isData(value: unknown): boolean {
  return (
    typeof value === 'string' ||
    value instanceof ArrayBuffer ||
    ArrayBuffer.isView(value) ||
    value instanceof SharedArrayBuffer ||
    value instanceof Blob
  );
}

// ─── sockets in every state ────────────────────────────────────────────────────────────────

export const stateArb = fc.constantFrom<SocketState>(...ALL_STATES);

/** A socket on a live mock server, brought into `state`, with a 20 ms constant backoff. */
export async function socketIn(state: SocketState, extra: Record<string, unknown> = {}) {
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
