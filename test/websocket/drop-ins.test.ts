/**
 * The two drop-ins, and which one a user holds: `resilient-socket/websocket`'s `ResilientWebSocket`
 * is `BaseWebSocket`, the core alone, which takes features as `BaseSocket` does (`features: [...]`;
 * a feature's option given flat is a TypeError naming the factory); the main entry's
 * `ResilientWebSocket` has every feature. Their names, `String(Class)` and instances say which.
 * The core drop-in notices a dead link once given `heartbeat()` (silence detection here, on
 * mock-socket under fake timers; protocol pings against a real server in
 * test/integration/websocket-heartbeat.test.ts).
 */
import { Server } from 'mock-socket';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ResilientWebSocket as FullBrowser } from '../../src/index.js';
import { heartbeat, stats } from '../../src/modular.js';
import { ResilientWebSocket as FullNode } from '../../src/node.js';
import { BaseWebSocket, ResilientWebSocket as CoreBrowser } from '../../src/websocket.js';
import { BaseWebSocket as BaseNode, ResilientWebSocket as CoreNode } from '../../src/websocket-node.js';
import { expectInputError } from '../helpers/mode.js';
import { advance, cleanup, MOCK_DELAY, WebSocketImpl } from '../resilient-socket/helpers.js';

const made = new Set<{ close(): void }>();
const servers = new Set<Server>();
let port = 35_000;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  for (const socket of made) socket.close();
  made.clear();
  for (const server of servers) server.stop();
  servers.clear();
  await cleanup();
});

describe('which drop-in a user holds', () => {
  it('resilient-socket/websocket exports one class under two names: BaseWebSocket, the core drop-in', () => {
    expect(CoreBrowser).toBe(BaseWebSocket);
    expect(CoreNode).toBe(BaseNode);
    for (const Class of [CoreBrowser, CoreNode]) {
      expect(Class.name).toBe('BaseWebSocket');
      expect(String(Class)).toBe(
        'class BaseWebSocket { [the core drop-in of resilient-socket/websocket: features by `features`] }',
      );
      const socket = new Class('ws://127.0.0.1:1/', [], { WebSocket: WebSocketImpl, autoConnect: false });
      made.add(socket);
      expect(socket.constructor.name).toBe('BaseWebSocket');
    }
  });

  it("the main entry's ResilientWebSocket is the drop-in with every feature, and a BaseWebSocket", () => {
    for (const Class of [FullBrowser, FullNode]) {
      expect(Class.name).toBe('ResilientWebSocket');
      expect(String(Class)).toBe('class ResilientWebSocket { [the drop-in of resilient-socket with every feature] }');
      const socket = new Class('ws://127.0.0.1:1/', [], { WebSocket: WebSocketImpl, autoConnect: false });
      made.add(socket);
      expect(socket.constructor.name).toBe('ResilientWebSocket');
      expect(socket).toBeInstanceOf(BaseWebSocket);
      expect(socket.stats.connects).toBe(0); // the stats() feature is installed
    }
  });
});

describe.each([
  ['browser build', CoreBrowser],
  ['Node build', CoreNode],
])('the core drop-in (%s) takes features as BaseSocket does', (_build, Class) => {
  it("a feature's option given flat is a TypeError naming the factory to import", () => {
    const make = (options: Record<string, unknown>) => () =>
      new Class('ws://127.0.0.1:1/', [], { WebSocket: WebSocketImpl, autoConnect: false, ...options } as never);
    // In development the message says what to import; in production it names the option.
    expectInputError(
      make({ heartbeat: { interval: 1_000 } }),
      TypeError,
      'ERR_RS_NEEDS_FEATURE',
      'heartbeat',
      "`heartbeat` belongs to the heartbeat() feature: import { heartbeat } from 'resilient-socket/modular' and add heartbeat(…) to `features`",
    );
    expectInputError(
      make({ resume: {} }),
      TypeError,
      'ERR_RS_NEEDS_FEATURE',
      'resume',
      /import \{ resume \} from 'resilient-socket\/modular'/,
    );
    // Without the feature, what needs it says so.
    const bare = make({})();
    made.add(bare);
    expectInputError(
      () => bare.stats,
      TypeError,
      'ERR_RS_NEEDS_FEATURE',
      'stats()',
      /This needs the stats\(\) feature: import \{ stats \}/,
    );
    const withStats = make({ features: [stats()] })();
    made.add(withStats);
    expect(withStats.stats.connects).toBe(0);
  });

  it('with heartbeat(), a link that goes silent is found dead within interval + timeout and replaced; without, never', async () => {
    const url = `ws://127.0.0.1:${++port}/`;
    const server = new Server(url, { mock: false });
    servers.add(server);
    let connections = 0;
    server.on('connection', () => connections++);
    const watched = new Class(url, [], {
      WebSocket: WebSocketImpl,
      backoff: { next: () => 100, reset: () => undefined },
      features: [heartbeat({ interval: 1_000, timeout: 500 })],
    });
    const unwatched = new Class(url, [], { WebSocket: WebSocketImpl });
    made.add(watched);
    made.add(unwatched);
    const seen: unknown[][] = [];
    watched.onerror = (event) => seen.push(['error', event.error?.code, watched.readyState]);
    watched.onclose = (event) => seen.push(['close', event.code, event.reason, watched.readyState]);
    unwatched.onclose = (event) => seen.push(['unwatched close', event.code]);
    await advance(MOCK_DELAY);
    expect([watched.readyState, unwatched.readyState, connections]).toEqual([1, 1, 2]);
    // The server says nothing (no message: silence detection, as on a browser WebSocket).
    await advance(1_000 + 500 - 1);
    expect(seen).toEqual([]);
    await advance(1);
    expect(seen).toEqual([
      ['error', 'ERR_RS_DEAD_LINK', 0],
      ['close', 1006, 'heartbeat timeout', 0],
    ]);
    await advance(100 + MOCK_DELAY);
    expect([watched.readyState, connections]).toEqual([1, 3]);
    await advance(60_000);
    expect(seen.filter(([type]) => type === 'unwatched close')).toEqual([]);
    expect(unwatched.readyState).toBe(1);
  });
});
