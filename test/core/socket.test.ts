/**
 * `BaseSocket` with no features (src/core/socket.ts): the core alone, on mock-socket under fake
 * timers. What it does by itself (connect, queue and flush, reconnect with the default backoff,
 * give up, stop on a fatal close, close without leftovers), and how it refuses what needs a
 * feature it does not have (each option naming the factory to import) or options it does not know.
 */
import { type WebSocket as MockWebSocket, Server } from 'mock-socket';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Feature } from '../../src/core/feature.js';
import { BaseSocket } from '../../src/core/socket.js';
import { ErrorCodes } from '../../src/errors.js';
import { abortSignal } from '../../src/features/abort-signal/abort-signal.js';
import { bufferPolicy } from '../../src/features/buffer-policy/buffer-policy.js';
import { handshake } from '../../src/features/handshake/handshake.js';
import { heartbeat } from '../../src/features/heartbeat/heartbeat.js';
import { providers } from '../../src/features/providers/providers.js';
import { resume } from '../../src/features/resume/resume.js';
import { stats } from '../../src/features/stats/stats.js';
import { unref } from '../../src/features/unref/unref.js';
import { upgradeRejection } from '../../src/features/upgrade-rejection/upgrade-rejection.js';
import type { ResilientSocket } from '../../src/node.js';
import { errorMessage, expectInputError, PRODUCTION } from '../helpers/mode.js';
import {
  advance,
  cleanup,
  expectRsError,
  MOCK_DELAY,
  record,
  startServer,
  tbeWindow,
  trackingWebSocket,
  uniqueUrl,
  WebSocketImpl,
} from '../resilient-socket/helpers.js';

const sockets = new Set<BaseSocket>();

/** A BaseSocket on mock-socket, closed after the test. */
function base(url: string, options: ConstructorParameters<typeof BaseSocket>[1] = {}): BaseSocket {
  const socket = new BaseSocket(url, { WebSocket: WebSocketImpl, ...options });
  sockets.add(socket);
  return socket;
}

/** The helpers' recorder (typed for ResilientSocket, which adds nothing to BaseSocket's surface). */
const recordBase = (socket: BaseSocket) => record(socket as ResilientSocket);

/** `new BaseSocket(url, options)` on mock-socket that stays idle (for option errors). */
const make =
  (options: Record<string, unknown>, url: unknown = uniqueUrl()) =>
  () =>
    new BaseSocket(url as string, { WebSocket: WebSocketImpl, autoConnect: false, ...options } as never);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  for (const socket of sockets) socket.close();
  sockets.clear();
  await cleanup();
});

describe('the core alone', () => {
  it('connects: connecting, then open', async () => {
    const server = startServer();
    const socket = base(server.url);
    const log = recordBase(socket);
    expect(socket.state).toBe('connecting');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(socket.readyState).toBe(1);
    expect(log.names()).toEqual(['connecting', 'state', 'open']);
    expect(log.of('connecting')).toEqual([{ attempt: 1, url: server.url }]);
    expect(log.states()).toEqual(['connecting→open']);
    expect(log.of('open')).toEqual([{ attempt: 1, reconnected: false }]);
    expect(server.clients).toHaveLength(1);
  });

  it('queues sends while connecting and flushes them in order on open, before `open` listeners run', async () => {
    const server = startServer();
    const socket = base(server.url);
    expect(socket.send('a')).toBe('buffered');
    expect(socket.send('b')).toBe('buffered');
    expect(socket.send('c')).toBe('buffered');
    expect(socket.bufferedCount).toBe(3);
    let seenAtOpen = -1;
    socket.on('open', () => {
      seenAtOpen = socket.bufferedCount;
      expect(socket.send('d')).toBe('sent');
    });
    await advance(MOCK_DELAY);
    expect(seenAtOpen).toBe(0);
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['a', 'b', 'c', 'd']);
    expect(socket.bufferedCount).toBe(0);
    expect(socket.send('e')).toBe('sent');
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('reconnects after the server closes, after a delay in [0, the first window)', async () => {
    const server = startServer();
    const socket = base(server.url);
    await advance(MOCK_DELAY);
    const log = recordBase(socket);
    server.closeLast(1011, 'restart');
    await advance(MOCK_DELAY);
    expect(log.states()).toEqual(['open→reconnecting']);
    expect(log.of('close')).toMatchObject([{ code: 1011, reason: 'restart', willReconnect: true }]);
    const [scheduled] = log.of('reconnecting');
    expect(scheduled?.attempt).toBe(2);
    expect(scheduled?.delay).toBeGreaterThanOrEqual(0);
    expect(scheduled?.delay).toBeLessThan(tbeWindow(1)); // 19.53125 ms: T = 10 s, N = 10
    await advance(Math.ceil(scheduled?.delay ?? 0) + MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.of('open')).toEqual([{ attempt: 2, reconnected: true }]);
    expect(server.clients).toHaveLength(2);
  });

  it('the default backoff is truncated binary exponential: delay n is random · 10 s · 2^(min(n, 10) − 10)', async () => {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const socket = base(uniqueUrl()); // no server: every attempt fails
    const log = recordBase(socket);
    await advance(25_000); // the first 12 waits add up to about 20 s
    expect(random).toHaveBeenCalled();
    const delays = log.of('reconnecting').slice(0, 12);
    expect(delays.map((r) => r.delay)).toEqual(Array.from({ length: 12 }, (_, i) => 0.5 * tbeWindow(i + 1)));
    expect(delays.map((r) => r.attempt)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
    expect(log.of('open')).toEqual([]);
  });

  it('with Math.random itself, every delay lies in [0, its window)', async () => {
    const socket = base(uniqueUrl());
    const log = recordBase(socket);
    const failures: number[] = [];
    socket.on('reconnecting', () => failures.push(socket.failures));
    await advance(40_000);
    const delays = log.of('reconnecting').map((r) => r.delay);
    expect(delays.length).toBeGreaterThanOrEqual(10);
    delays.forEach((delay, i) => {
      expect(delay, `delay ${i + 1}`).toBeGreaterThanOrEqual(0);
      expect(delay, `delay ${i + 1}`).toBeLessThan(tbeWindow(failures[i] as number));
    });
    expect(failures.slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
  });

  it('gives up after maxRetries: closed, the errors, close, giveup; no attempt after', async () => {
    const tracking = trackingWebSocket();
    const socket = base(uniqueUrl(), { WebSocket: tracking.WebSocket, maxRetries: 2 });
    const log = recordBase(socket);
    await advance(5_000);
    expect(socket.state).toBe('closed');
    expect(tracking.instances).toHaveLength(3);
    expect(log.states()).toEqual([
      'connecting→reconnecting',
      'reconnecting→connecting',
      'connecting→reconnecting',
      'reconnecting→connecting',
      'connecting→closed',
    ]);
    expect(log.errors()).toEqual([
      'ERR_RS_CONNECTION_FAILED',
      'ERR_RS_CONNECTION_FAILED',
      'ERR_RS_CONNECTION_FAILED',
      'ERR_RS_RETRIES_EXHAUSTED',
    ]);
    const errors = log.of('error');
    const exhausted = expectRsError(errors[3], ErrorCodes.RETRIES_EXHAUSTED);
    expect(exhausted.cause).toBe(errors[2]);
    expect(exhausted.message).toBe(
      errorMessage(ErrorCodes.RETRIES_EXHAUSTED, 'Gave up after 3 consecutive failures (maxRetries 2)'),
    );
    expect(log.of('giveup')).toEqual([{ attempts: 3, failures: 3, error: exhausted }]);
    expect(log.of('close').at(-1)?.willReconnect).toBe(false);
    // The last events: state → closed, the errors, the close, then giveup.
    expect(log.names().slice(-5)).toEqual(['state', 'error', 'error', 'close', 'giveup']);
    await advance(60_000);
    expect(tracking.instances).toHaveLength(3);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops on a fatal close code (1008): ERR_RS_FATAL_CLOSE, giveup, closed, no retry', async () => {
    const server = startServer();
    const socket = base(server.url);
    await advance(MOCK_DELAY);
    const log = recordBase(socket);
    server.closeLast(1008, 'policy violation');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('closed');
    expect(log.states()).toEqual(['open→closed']);
    const error = expectRsError(log.of('error')[0], ErrorCodes.FATAL_CLOSE);
    expect(error.closeCode).toBe(1008);
    if (PRODUCTION) expect(error.message).toBe(ErrorCodes.FATAL_CLOSE);
    else expect(error.message).toContain('1008 (policy violation)');
    expect(log.of('close')).toMatchObject([{ code: 1008, reason: 'policy violation', willReconnect: false }]);
    expect(log.of('giveup')).toEqual([{ attempts: 1, failures: 1, error }]);
    expect(log.of('reconnecting')).toEqual([]);
    await advance(30_000);
    expect(server.clients).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a non-fatal close code (1011) does reconnect (control for the 1008 test)', async () => {
    const server = startServer();
    const socket = base(server.url);
    await advance(MOCK_DELAY);
    server.closeLast(1011);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
  });
});

describe('close() leaves nothing behind', () => {
  /** Every listener still registered on a mock-socket WebSocket, by event type. */
  const listenersOf = (ws: MockWebSocket): Record<string, number> => {
    const all = (ws as unknown as { listeners: Record<string, unknown[]> }).listeners;
    return Object.fromEntries(
      Object.entries(all)
        .filter(([, l]) => l.length > 0)
        .map(([type, l]) => [type, l.length]),
    );
  };

  it('on an open socket: closing, then closed; no timer and no listener on the mock WebSocket', async () => {
    // A bare mock-socket server: the test kit's server listens on the client too.
    const url = uniqueUrl();
    const server = new Server(url);
    try {
      const tracking = trackingWebSocket();
      const socket = base(url, { WebSocket: tracking.WebSocket });
      await advance(MOCK_DELAY);
      expect(socket.state).toBe('open');
      const ws = tracking.instances[0] as MockWebSocket;
      expect(listenersOf(ws)).toEqual({ close: 1, error: 1, message: 1, open: 1 });
      socket.close(1000, 'bye');
      expect(socket.state).toBe('closing');
      await advance(MOCK_DELAY);
      expect(socket.state).toBe('closed');
      expect(vi.getTimerCount()).toBe(0);
      expect(listenersOf(ws)).toEqual({});
      await advance(10_000);
      expect(tracking.instances).toHaveLength(1);
    } finally {
      server.stop();
    }
  });

  it('while reconnecting (a retry pending): no timer left at once', async () => {
    const tracking = trackingWebSocket();
    const socket = base(uniqueUrl(), { WebSocket: tracking.WebSocket, maxDelay: 60_000, ceiling: 1 });
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(vi.getTimerCount()).toBe(1); // the retry
    socket.close();
    expect(socket.state).toBe('closed');
    expect(vi.getTimerCount()).toBe(0);
    for (const ws of tracking.instances) expect(listenersOf(ws)).toEqual({});
  });

  it('while connecting: no timer and no listener once the mock socket has closed', async () => {
    const server = startServer();
    const tracking = trackingWebSocket();
    const socket = base(server.url, { WebSocket: tracking.WebSocket });
    await advance(0); // the target resolved: the WebSocket exists, not open yet
    expect(tracking.instances).toHaveLength(1);
    socket.close();
    expect(socket.state).toBe('closed');
    await advance(MOCK_DELAY * 2);
    expect(vi.getTimerCount()).toBe(0);
    expect(listenersOf(tracking.instances[0] as MockWebSocket)).toEqual({});
  });
});

describe('what needs a feature', () => {
  it("BaseSocket.name is 'BaseSocket'", () => {
    expect(BaseSocket.name).toBe('BaseSocket');
    expect(make({})().constructor.name).toBe('BaseSocket');
  });

  it('socket.stats throws a TypeError naming stats()', () => {
    const socket = make({})();
    expectInputError(
      () => socket.stats,
      TypeError,
      'ERR_RS_NEEDS_FEATURE',
      'stats()',
      /stats\(\) feature: import \{ stats \} from 'resilient-socket\/modular'/,
    );
  });

  it('with stats() installed, socket.stats reads (control)', () => {
    expect(make({ features: [stats()] })().stats).toMatchObject({ attempts: 0, connects: 0 });
  });

  it('socket[Symbol.asyncIterator]() throws a TypeError naming asyncIteration()', async () => {
    const socket = make({})();
    expectInputError(
      () => socket[Symbol.asyncIterator](),
      TypeError,
      'ERR_RS_NEEDS_FEATURE',
      'asyncIteration()',
      /asyncIteration\(\)/,
    );
    // As `for await` sees it.
    await expect(
      (async () => {
        for await (const _ of socket) break;
      })(),
    ).rejects.toThrow(/asyncIteration\(\)/);
  });

  const fn = () => 'ws://localhost:1';
  it.each<[string, Record<string, unknown>, string, string, unknown?]>([
    ['heartbeat', { heartbeat: { interval: 1_000 } }, 'heartbeat', 'heartbeat'],
    ['heartbeat: false', { heartbeat: false }, 'heartbeat', 'heartbeat'],
    ['resume', { resume: {} }, 'resume', 'resume'],
    ['handshake', { handshake: () => undefined }, 'handshake', 'handshake'],
    ['maxRetryAfter', { maxRetryAfter: 1_000 }, 'maxRetryAfter', 'upgradeRejection'],
    ['signal', { signal: new AbortController().signal }, 'signal', 'abortSignal'],
    ['unref', { unref: true }, 'unref', 'unref'],
    ['buffer.overflow', { buffer: { overflow: 'error' } }, 'buffer.overflow', 'bufferPolicy'],
    ['buffer.ttl', { buffer: { ttl: 1_000 } }, 'buffer.ttl', 'bufferPolicy'],
    // ResilientSocket's flat `bufferPolicy: bufferPolicy(…)`: on a BaseSocket the feature goes in `features`.
    ['bufferPolicy', { bufferPolicy: bufferPolicy() }, 'bufferPolicy', 'bufferPolicy'],
    ['url as a function', {}, 'url', 'providers', fn],
    ['protocols as a function', { protocols: () => 'v1' }, 'protocols', 'providers'],
  ])('%s without its feature: a TypeError naming the factory', (_what, options, name, factory, url) => {
    expectInputError(
      make(options, url),
      TypeError,
      'ERR_RS_NEEDS_FEATURE',
      name,
      `\`${name}\` belongs to the ${factory}() feature: import { ${factory} } from 'resilient-socket/modular' and add ${factory}(…) to \`features\``,
    );
  });

  it.each<[string, Record<string, unknown>, Feature, string, string]>([
    ['heartbeat', { heartbeat: { interval: 1_000 } }, heartbeat(), 'heartbeat', 'heartbeat'],
    ['resume', { resume: {} }, resume(), 'resume', 'resume'],
    ['handshake', { handshake: () => undefined }, handshake(() => undefined), 'handshake', 'handshake'],
    ['maxRetryAfter', { maxRetryAfter: 1_000 }, upgradeRejection(), 'maxRetryAfter', 'upgradeRejection'],
    ['buffer.overflow', { buffer: { overflow: 'error' } }, bufferPolicy(), 'buffer.overflow', 'bufferPolicy'],
    ['buffer.ttl', { buffer: { ttl: 1_000 } }, bufferPolicy(), 'buffer.ttl', 'bufferPolicy'],
  ])(
    '%s with its feature installed but given to the socket: give it to the factory',
    (_w, options, f, name, factory) => {
      expectInputError(
        make({ ...options, features: [f] }),
        TypeError,
        'ERR_RS_UNKNOWN_OPTION',
        name,
        `\`${name}\` is not an option of the socket: give it to the ${factory}() factory itself`,
      );
    },
  );

  // The handshake's timeout is handshake(hook, { timeout })'s own: no socket takes a `handshakeTimeout`.
  it.each<[string, Feature[]]>([
    ['without the handshake feature', []],
    ['with it installed', [handshake(() => undefined, { timeout: 1_000 })]],
  ])('handshakeTimeout %s: an unknown option', (_w, features) => {
    expectInputError(
      make({ handshakeTimeout: 1_000, features }),
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      'handshakeTimeout',
      /^Unknown option `handshakeTimeout`/,
    );
  });

  it('the per-socket options a feature owns are taken once it is installed (signal, url and protocols providers)', () => {
    const signal = new AbortController().signal;
    expect(() => make({ signal, features: [abortSignal()] })()).not.toThrow();
    expect(() => make({ protocols: () => 'v1', features: [providers()] }, fn)()).not.toThrow();
    expect(() => make({ features: [unref()] })()).not.toThrow();
  });
});

describe('the `features` option', () => {
  it.each<[string, unknown]>([
    ['an object', { heartbeat: true }],
    ['a feature alone', heartbeat()],
    ['null', null],
    ['a string', 'heartbeat'],
  ])('not an array (%s) → TypeError naming `features`', (_what, features) => {
    expectInputError(
      make({ features }),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'features',
      /^Expected `features` to be an array of features, got /,
    );
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['a factory not called', heartbeat],
    ['an object without a rank', { name: 'mine' }],
    ['an object without a name', { rank: 1 }],
    ['a string', 'heartbeat'],
  ])('an item that is not a feature (%s) → TypeError naming `features[i]`', (_what, item) => {
    expectInputError(
      make({ features: [stats(), item] }),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'features[1]',
      /^Expected `features\[1\]` to be a feature \(from heartbeat\(\), resume\(\), …\), got /,
    );
  });

  it('the same feature twice → RangeError', () => {
    expectInputError(
      make({ features: [stats(), stats()] }),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'features',
      'Expected `features` to have each feature once, got stats() twice',
    );
  });

  it('two features of the same kind (different options) → RangeError', () => {
    expectInputError(
      make({ features: [heartbeat({ interval: 1_000 }), heartbeat({ interval: 2_000 })] }),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'features',
      /heartbeat\(\) twice/,
    );
  });

  it('an empty array is the core alone', () => {
    const socket = make({ features: [] })();
    expect(() => socket.stats).toThrow(TypeError);
  });
});

describe('unknown options are refused', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['a made-up name', { nope: 1 }, 'nope'],
    ['a misspelling', { maxDelays: 3 }, 'maxDelays'],
    ['in buffer', { buffer: { nope: 1 } }, 'buffer.nope'],
    ['a ResilientSocket-only flat name in buffer', { buffer: { maxMessage: 1 } }, 'buffer.maxMessage'],
  ])('%s → TypeError "Unknown option"', (_what, options, name) => {
    expectInputError(
      make(options),
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      name,
      new RegExp(`^Unknown option \`${name.replace('.', '\\.')}\``),
    );
  });

  it('a misspelling gets a suggestion', () => {
    expectInputError(
      make({ maxDelays: 3 }),
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      'maxDelays',
      /did you mean `maxDelay`\?/,
    );
  });

  // Regression: at commits 53aab25/0f77615 (src/core/options.ts, then resolve.ts) `FEATURE_OPTIONS[key]`
  // was a plain lookup, so `{ toString: 1 }` threw "`toString` belongs to the function toString() {
  // [native code] }() feature: …". Fixed in 5aec8ad by `factoryOf` (own keys only).
  it.each(['toString', 'constructor'])(
    'a name inherited from Object.prototype (%s) is an unknown option, not a feature option',
    (name) => {
      const error = expectInputError(
        make({ [name]: 1 }),
        TypeError,
        'ERR_RS_UNKNOWN_OPTION',
        name,
        new RegExp(`^Unknown option \`${name}\``),
      );
      expect(error.message).not.toContain('native code');
    },
  );

  // Regression: at commit 0f77615 every key of `buffer` found in FEATURE_OPTIONS was reported as
  // belonging to bufferPolicy(): `buffer: { signal: 1 }` threw "`buffer.signal` belongs to the
  // bufferPolicy() feature …". Fixed in 5aec8ad: only `overflow` and `ttl` name bufferPolicy().
  it.each(['signal', 'heartbeat'])('`buffer.%s` is an unknown option of buffer', (key) => {
    expectInputError(
      make({ buffer: { [key]: 1 } }),
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      `buffer.${key}`,
      new RegExp(`^Unknown option \`buffer\\.${key}\``),
    );
  });
});
