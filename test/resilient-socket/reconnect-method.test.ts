/**
 * `reconnect(code?, reason?)` called by the app: it lets the current connection go with a close
 * frame carrying the code and reason, skips a pending wait, connects at once with a fresh backoff
 * (from idle and after a give-up too), and leaves nothing of the old connection behind.
 */
import { WebSocket as MockWebSocket } from 'mock-socket';
import { describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import type { BackoffPolicyLike } from '../../src/backoff/types.js';
import { CLOSE_TIMEOUT } from '../../src/node.js';
import type { WebSocketConstructorLike } from '../../src/transports/websocket-like.js';
import {
  advance,
  createSocket,
  MOCK_DELAY,
  openSocket,
  record,
  startServer,
  uniqueUrl,
  useFakeTimersAndCleanup,
} from './helpers.js';

useFakeTimersAndCleanup();

describe('reconnect()', () => {
  it('drops the current connection (close willReconnect: true) and connects at once with attempt 1', async () => {
    const { server, socket, log } = await openSocket({ backoff: constant({ delay: 5000 }) });
    log.clear();
    socket.reconnect();
    expect(log.events).toEqual([
      { name: 'state', payload: { previous: 'open', current: 'connecting', reason: 'reconnect() called' } },
      { name: 'close', payload: { code: 1000, reason: '', wasClean: false, willReconnect: true } },
    ]);
    expect(socket.state).toBe('connecting');
    await advance(0);
    expect(log.of('connecting')).toEqual([{ attempt: 1, url: server.url }]);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.of('open')).toEqual([{ attempt: 1, reconnected: true }]);
    expect(server.clients).toHaveLength(2);
    expect(server.clients[0]?.readyState).toBe(3); // the old connection was closed
    expect(log.names()).not.toContain('reconnecting');
  });

  it('skips a pending wait and resets the failure count and backoff', async () => {
    const backoff: BackoffPolicyLike = { next: vi.fn(() => 60_000), reset: vi.fn() };
    const socket = createSocket(uniqueUrl(), { backoff }); // no server
    const log = record(socket);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(socket.failures).toBe(1);
    socket.reconnect();
    expect(backoff.reset).toHaveBeenCalledTimes(1);
    expect(socket.failures).toBe(0);
    expect(socket.attempt).toBe(1);
    expect(socket.state).toBe('connecting');
    expect(socket.stats.nextRetryAt).toBeUndefined();
    await advance(0);
    expect(log.of('connecting').map((c) => c.attempt)).toEqual([1, 1]);
    expect(vi.getTimerCount()).toBeGreaterThan(0);
  });

  it('works from idle and after a give-up', async () => {
    const url = uniqueUrl();
    startServer(url);
    const idle = createSocket(url, { autoConnect: false });
    idle.reconnect();
    await advance(MOCK_DELAY);
    expect(idle.state).toBe('open');

    const lonely = createSocket(uniqueUrl(), { maxRetries: 0 });
    const giveups = record(lonely, ['giveup']); // heard, as an app would
    await advance(MOCK_DELAY);
    expect(lonely.state).toBe('closed');
    expect(giveups.of('giveup').map((info) => info.error.code)).toEqual(['ERR_RS_RETRIES_EXHAUSTED']);
    lonely.reconnect();
    expect(lonely.state).toBe('connecting');
  });
});

// Regression, it was: reconnect() cut the connection (the
// server saw 1006, no close frame) while the client's own close event said 1000, and took no code
// or reason.
describe('reconnect(code?, reason?) closes politely', () => {
  it('sends a close frame with the code and reason; the close event reports them', async () => {
    const { server, socket, log } = await openSocket();
    const seenByServer: [number, string][] = [];
    server
      .last()
      .addEventListener('close', ((event: { code: number; reason: string }) =>
        seenByServer.push([event.code, event.reason])) as never);
    log.clear();
    socket.reconnect(4001, 'switching shard');
    expect(log.of('close')).toEqual([{ code: 4001, reason: 'switching shard', wasClean: false, willReconnect: true }]);
    await advance(MOCK_DELAY);
    expect(seenByServer).toEqual([[4001, 'switching shard']]);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(server.clients).toHaveLength(2);
  });

  it.each<[string, unknown[], ErrorConstructor]>([
    ['reconnect(999)', [999], RangeError],
    ['reconnect(1006)', [1006], RangeError],
    ["reconnect(1000, 'x'.repeat(124))", [1000, 'x'.repeat(124)], RangeError],
    ["reconnect('a')", ['a'], TypeError],
    ['reconnect(1000, 5)', [1000, 5], TypeError],
  ])('%s throws %o and changes nothing', async (_, args, Type) => {
    const { socket, log } = await openSocket();
    log.clear();
    expect(() => (socket.reconnect as (...a: unknown[]) => void)(...args)).toThrow(Type);
    expect(socket.state).toBe('open');
    expect(log.events).toEqual([]);
  });

  /** A WebSocket whose close frame gets no answer (a server gone quiet); `terminate()` as in ws. */
  function stubbornWebSocket() {
    const instances: (MockWebSocket & { terminated: boolean })[] = [];
    class Stubborn extends MockWebSocket {
      terminated = false;
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols);
        instances.push(this);
      }
      override close(): void {}
      terminate(): void {
        this.terminated = true;
      }
    }
    return { WebSocket: Stubborn as unknown as WebSocketConstructorLike, instances };
  }

  it('the old connection’s late messages never reach anyone; its closing handshake is cut after CLOSE_TIMEOUT', async () => {
    const stubborn = stubbornWebSocket();
    const server = startServer();
    const socket = createSocket(server.url, { WebSocket: stubborn.WebSocket, stableAfter: 60_000 });
    const log = record(socket);
    await advance(MOCK_DELAY);
    const old = server.last();
    socket.reconnect();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    old.send('late, from the old connection');
    server.last().send('fresh');
    expect(log.of('message')).toEqual(['fresh']);
    await advance(CLOSE_TIMEOUT - MOCK_DELAY - 1);
    expect(stubborn.instances[0]?.terminated).toBe(false); // still waiting for the server's answer
    await advance(1);
    expect(stubborn.instances[0]?.terminated).toBe(true); // cut
    expect(stubborn.instances[1]?.terminated).toBe(false);
    expect(log.of('close')).toHaveLength(1); // the one reconnect() reported
    expect(vi.getTimerCount()).toBe(1); // the new connection's stable timer only
  });

  it('close() while the old connection still closes cuts it too: nothing is left', async () => {
    const stubborn = stubbornWebSocket();
    const server = startServer();
    const socket = createSocket(server.url, { WebSocket: stubborn.WebSocket });
    await advance(MOCK_DELAY);
    socket.reconnect();
    expect(stubborn.instances[0]?.terminated).toBe(false);
    socket.close();
    expect(socket.state).toBe('closed');
    expect(stubborn.instances[0]?.terminated).toBe(true);
    await advance(MOCK_DELAY);
    expect(vi.getTimerCount()).toBe(0);
  });
});
