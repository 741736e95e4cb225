/**
 * Shared set-up for the test-kit tests (`src/testing/`): a FlakyServer and a ResilientSocket on
 * it, both tracked so `cleanup()` closes and stops them, flushes mock-socket's 4 ms timers and
 * puts the real timers back.
 */
import { vi } from 'vitest';
import type { ResilientSocketEvents } from '../../src/core/events.js';
import { EVENT_NAMES } from '../../src/core/events.js';
import type { ResilientSocketOptions } from '../../src/node.js';
import { ResilientSocket } from '../../src/node.js';
import { FlakyServer, type FlakyServerOptions } from '../../src/testing/flaky-server.js';

/** mock-socket's delay before it dispatches open, close and client→server messages. */
export const MOCK_DELAY = 4;

/** The fake-timer `advance` for `until`. */
export const time = { advance: (ms: number) => vi.advanceTimersByTimeAsync(ms) };

const servers = new Set<FlakyServer>();
const sockets = new Set<ResilientSocket>();

/** A FlakyServer stopped by `cleanup()`. */
export function flakyServer(options?: FlakyServerOptions): FlakyServer {
  const server = new FlakyServer(options);
  servers.add(server);
  return server;
}

/**
 * A ResilientSocket on `server`, closed by `cleanup()`. Errors are expected in these tests (the
 * server fails on purpose), so an `error` listener is attached unless `quiet` is false.
 */
export function socketOn(server: FlakyServer, options: ResilientSocketOptions = {}, quiet = true): ResilientSocket {
  const socket = new ResilientSocket(server.url, { WebSocket: server.WebSocket, ...options });
  if (quiet) socket.on('error', () => undefined);
  sockets.add(socket);
  return socket;
}

/** A socket tracked for cleanup, created elsewhere. */
export function track<T extends ResilientSocket>(socket: T): T {
  sockets.add(socket);
  return socket;
}

/** Records the payloads of `event`, in order. */
export function collect<E extends keyof ResilientSocketEvents>(
  socket: ResilientSocket,
  event: E,
): ResilientSocketEvents[E][0][] {
  const seen: ResilientSocketEvents[E][0][] = [];
  (socket.on as (e: string, l: (...args: unknown[]) => void) => unknown)(event, (...args: unknown[]) => {
    seen.push(args[0] as ResilientSocketEvents[E][0]);
  });
  return seen;
}

/** Listeners on `socket`, per event name (to check that a helper left none behind). */
export function listenerCounts(socket: ResilientSocket): Record<string, number> {
  return Object.fromEntries(EVENT_NAMES.map((name) => [name, socket.listenerCount(name)]));
}

/** afterEach body: closes every tracked socket, stops every tracked server, restores real timers. */
export async function cleanup(): Promise<void> {
  for (const socket of sockets) {
    socket.close();
    socket.removeAllListeners();
  }
  sockets.clear();
  for (const server of servers) server.stop();
  servers.clear();
  if (vi.isFakeTimers()) {
    await vi.advanceTimersByTimeAsync(MOCK_DELAY * 3);
    vi.clearAllTimers();
  }
  vi.useRealTimers();
}
