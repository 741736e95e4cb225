/**
 * Arbitrary input thrown at `new ResilientSocket(url, options)`, on mock-socket under fake timers.
 * The only allowed outcomes are a working socket that closes cleanly, or a TypeError / RangeError
 * naming, in backticks, an argument or option that really was bad (the oracle below restates
 * docs/guide/getting-started.md "Options" and the TSDoc of ResilientSocketOptions); ERR_RS_NO_WEBSOCKET
 * where the docs list it. Never a hang, an unhandled rejection, another error type or a corrupted state.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { SocketState } from '../../src/core/states.js';
import { ErrorCodes } from '../../src/errors.js';
import { bufferPolicy, handshake, type ResilientSocket } from '../../src/node.js';
import {
  advance,
  expectRsError,
  MOCK_DELAY,
  settle,
  startServer,
  uniqueUrl,
  WebSocketImpl,
} from '../resilient-socket/helpers.js';
import {
  anything,
  anyValue,
  attempt,
  BUFFER_OPTIONS,
  BUFFER_POLICY_OPTIONS,
  CLOCK_SHAPE,
  checkBoolean,
  checkFeature,
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
  HEARTBEAT_OPTIONS,
  isOptionsObject,
  Problems,
  RESUME_OPTIONS,
  SIGNAL_SHAPE,
  SOCKET_OPTIONS,
  show,
} from './arbitraries.js';
import {
  ALL_STATES,
  collectErrors,
  construct,
  controllers,
  expectAllRsErrors,
  expectClosesCleanly,
  isConstructorOtherThanMock,
  isData,
  optionsRecord,
  resolveUrl,
  run,
  setUpSocketInput,
  tracker,
  urlSpecArb,
  validOptions,
} from './socket-helpers.js';

setUpSocketInput();

// ─── the options oracle ────────────────────────────────────────────────────────────────────

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
  checkFeature(p, 'handshake', o.handshake);
  checkFeature(p, 'delivery', o.delivery);
  checkFeature(p, 'bufferPolicy', o.bufferPolicy);
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
      // `buffer.overflow`/`buffer.ttl` (now `bufferPolicy(…)`'s) are refused like an unknown key: a TypeError naming it.
      checkKnownKeys(p, 'buffer', buffer, BUFFER_OPTIONS);
      checkNumber(p, 'buffer.maxMessages', buffer.maxMessages, { integer: true, min: 0 });
      checkNumber(p, 'buffer.maxBytes', buffer.maxBytes, { integer: true, min: 0, infinity: true });
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
      'delivery',
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

  // The flat `handshakeTimeout` of old is `handshake(hook, { timeout })`: the factory checks it, by
  // the rule the socket used to (a number > 0, or Infinity), and names it `handshake.timeout`.
  it('handshake(hook, options) under arbitrary input: a feature the socket takes, or a TypeError/RangeError naming the bad part', async () => {
    const hookArb = fc.oneof({ weight: 4, arbitrary: fc.func(anything) }, { weight: 1, arbitrary: anyValue });
    const optionsArb = fc.oneof(
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 6, arbitrary: fc.record({ timeout: anyValue }) },
      { weight: 1, arbitrary: anyValue },
    );
    await fc.assert(
      fc.asyncProperty(hookArb, optionsArb, (hook, options) =>
        run(async () => {
          const p = new Problems();
          if (typeof hook !== 'function') p.add('handshake', 'type');
          if (options !== undefined && !isOptionsObject(options)) p.add('handshake options', 'type');
          else if (options !== undefined) {
            checkKnownKeys(p, '', options, ['timeout']);
            checkNumber(p, 'handshake.timeout', options.timeout, { above: 0, infinity: true });
          }
          const made = attempt(() => handshake(hook as () => void, options as never));
          if (!made.ok) {
            expect(p.size, `threw ${show(made.error)} for valid input`).toBeGreaterThan(0);
            expectOptionError(made.error, p);
            return;
          }
          expect(p.size, `made a feature despite: ${p}`).toBe(0);
          const server = startServer();
          const socket = construct(server.url, { WebSocket: WebSocketImpl, handshake: made.value });
          const errors = collectErrors(socket);
          await advance(MOCK_DELAY);
          await expectClosesCleanly(socket);
          expectAllRsErrors(errors);
        }),
      ),
      { numRuns: 200 },
    );
  });

  // The flat `buffer.overflow`/`buffer.ttl` of old are `bufferPolicy({ overflow, ttl })`: the factory
  // checks them, by the rules the socket used to, and names them `buffer.overflow`/`buffer.ttl`.
  it('bufferPolicy(options) under arbitrary input: a feature the socket takes, or a TypeError/RangeError naming the bad part', async () => {
    const optionsArb = fc.oneof(
      { weight: 1, arbitrary: fc.constant(undefined) },
      {
        weight: 6,
        arbitrary: fc.record(
          {
            overflow: fc.oneof(fc.constantFrom<unknown>('drop-oldest', 'drop-newest', 'error'), anyValue),
            ttl: fc.oneof(fc.double({ min: 1e-3, max: 1e6, noNaN: true }), anyValue),
          },
          { requiredKeys: [] },
        ),
      },
      { weight: 1, arbitrary: anyValue },
    );
    await fc.assert(
      fc.asyncProperty(optionsArb, (options) =>
        run(async () => {
          const p = new Problems();
          if (options !== undefined && !isOptionsObject(options)) p.add('buffer', 'type');
          else if (options !== undefined) {
            checkKnownKeys(p, 'buffer', options, BUFFER_POLICY_OPTIONS);
            const { overflow } = options;
            if (overflow !== undefined) {
              if (typeof overflow !== 'string') p.add('buffer.overflow', 'type');
              else if (!['drop-oldest', 'drop-newest', 'error'].includes(overflow)) p.add('buffer.overflow', 'range');
            }
            checkNumber(p, 'buffer.ttl', options.ttl, { above: 0, infinity: true });
          }
          const made = attempt(() => bufferPolicy(options as never));
          if (!made.ok) {
            expect(p.size, `threw ${show(made.error)} for valid input`).toBeGreaterThan(0);
            expectOptionError(made.error, p);
            return;
          }
          expect(p.size, `made a feature despite: ${p}`).toBe(0);
          const server = startServer();
          const socket = construct(server.url, { WebSocket: WebSocketImpl, bufferPolicy: made.value });
          const errors = collectErrors(socket);
          await advance(MOCK_DELAY);
          await expectClosesCleanly(socket);
          expectAllRsErrors(errors);
        }),
      ),
      { numRuns: 200 },
    );
  });

  // Guards: a duck-typed `signal` (a boolean `aborted` and `addEventListener`, but no
  // `removeEventListener`). Either the constructor rejects it (a TypeError naming `signal`), or
  // close() works with it: a close() that threw halfway would leave the socket with its state, its
  // timers and its WebSocket, and every later close() a silent no-op.
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

  // Regression: was the `WebSocket` option is only checked to be a function with a prototype. With a
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
