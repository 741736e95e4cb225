/**
 * Shared rig of the reliability suite (close codes, providers and handshakes, close() everywhere,
 * the buffer across an outage): a real ws server on 127.0.0.1, a ResilientSocket whose underlying
 * sockets are all recorded, and the one check every test ends with, "what is left behind after
 * close()":
 *
 * - the socket is `closed`, and `open()` / `reconnect()` throw `ERR_RS_CLOSED`;
 * - the server saw the client go (no accepted connection still open), and sees no new upgrade
 *   during a quiet period afterwards;
 * - no timer is left: the number of `Timeout` resources (`process.getActiveResourcesInfo()`) is
 *   back to the baseline taken before the socket was created;
 * - no listener is left on any underlying ws socket once it is CLOSED.
 */
import { expect } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import type { ResilientSocketOptions, UrlProvider } from '../../src/node.js';
import { ResilientSocket } from '../../src/node.js';
import type { WebSocketConstructorLike } from '../../src/transports/websocket-like.js';
import { isBound } from '../../src/transports/ws/binding.js';
import { type BehaviourSetting, ECHO, startTestServer, type TestWsServer } from '../faults/index.js';
import { SocketRecorder } from '../helpers/socket-recorder.js';
import { activeTimeouts, timerBaseline } from '../helpers/timers.js';
import { type Cleanup, sleep, waitFor } from '../helpers/wait.js';

/** The events the socket may listen to on an underlying ws socket; none may be left after close(). */
export const WS_EVENTS = ['open', 'message', 'close', 'error', 'pong', 'unexpected-response'] as const;

/** A subclass of ws's WebSocket that records every instance (one per connection attempt). */
export function trackingWs(): { TrackingWs: WebSocketConstructorLike; instances: WsWebSocket[] } {
  const instances: WsWebSocket[] = [];
  class TrackingWs extends WsWebSocket {
    constructor(address: string, protocols?: string | string[], options?: WsWebSocket.ClientOptions) {
      super(address, protocols, options);
      instances.push(this);
    }
  }
  return { TrackingWs: TrackingWs as unknown as WebSocketConstructorLike, instances };
}

/** `[name, case]` rows for `it.each(…)('%s', …)`: vitest truncates `$name` in titles at 40 characters. */
export function named<T extends { readonly name: string }>(cases: readonly T[]): [string, T][] {
  return cases.map((c) => [c.name, c]);
}

/** The error `fn` throws (fails the test if it does not throw). */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  expect.fail('expected the call to throw');
}

/** One test's world: a started server, the tracked WebSocket class and the timer baseline. */
export interface Rig {
  readonly server: TestWsServer;
  readonly instances: WsWebSocket[];
  readonly TrackingWs: WebSocketConstructorLike;
  /** `Timeout` resources before the socket was created. */
  readonly baseline: number;
  /** Creates the socket (with `WebSocket: TrackingWs`), registers its close() for cleanup, records its events. */
  socket(url?: UrlProvider, options?: ResilientSocketOptions): { socket: ResilientSocket; rec: SocketRecorder };
}

/** Starts a server with `behaviour`, then takes the timer baseline (after the server, before any socket). */
export async function createRig(cleanup: Cleanup, behaviour: BehaviourSetting = ECHO): Promise<Rig> {
  const server = await startTestServer(cleanup, behaviour);
  const { TrackingWs, instances } = trackingWs();
  const baseline = await timerBaseline();
  return {
    server,
    instances,
    TrackingWs,
    baseline,
    socket(url = server.url, options = {}) {
      const socket = cleanup.add(new ResilientSocket(url, { WebSocket: TrackingWs, ...options }), (s) => s.close());
      return { socket, rec: new SocketRecorder(socket) };
    },
  };
}

/** What of ours is still on the underlying sockets (a binding, listeners), as `{ instance, event, count }` (empty when clean). */
export function listenersLeft(instances: readonly WsWebSocket[]): { instance: number; event: string; count: number }[] {
  const left: { instance: number; event: string; count: number }[] = [];
  instances.forEach((ws, instance) => {
    // Bound natively, a ws socket reports to us through its own emit (no listener to count).
    if (isBound(ws)) left.push({ instance, event: '(bound to a connection)', count: 1 });
    for (const event of WS_EVENTS) {
      const count = ws.listenerCount(event);
      if (count !== 0) left.push({ instance, event, count });
    }
  });
  return left;
}

export interface LeftoverCheck {
  /**
   * How long to watch the server for new upgrades after close() (ms). Every socket in this suite
   * retries after 30 ms, so a retry that close() failed to cancel shows within the default.
   * @default 80
   */
  quietMs?: number;
  /** How long the socket and the server may take to finish closing (ms). @default 1_000 */
  timeoutMs?: number;
}

/**
 * What close() must leave behind (call it after close(), or use {@link closeAndCheckLeftovers}).
 * Order matters: everything must have finished closing (the socket, the server's side, every
 * underlying ws socket) before timers and listeners are counted.
 */
export async function expectNothingLeft(
  rig: Rig,
  socket: ResilientSocket,
  rec: SocketRecorder,
  { quietMs = 80, timeoutMs = 1_000 }: LeftoverCheck = {},
): Promise<void> {
  const { server, instances } = rig;
  const describe = () => ({ state: socket.state, events: rec.summary().slice(-8) });
  await waitFor(() => socket.state === 'closed', timeoutMs, `state 'closed' after close() (is ${socket.state})`, {
    describe,
  });
  await waitFor(() => server.openClients === 0, timeoutMs, 'the server to see the client go', {
    describe: () => ({ openClients: server.openClients, ...describe() }),
  });
  await waitFor(
    () => instances.every((ws) => ws.readyState === WsWebSocket.CLOSED),
    timeoutMs,
    'every underlying ws socket to reach CLOSED',
    { describe: () => instances.map((ws) => ws.readyState) },
  );
  expect(server.disconnects, 'every accepted connection ended').toHaveLength(server.connections);

  // No attempt after close(): the server sees nothing new for a while, and the socket stays closed.
  const upgrades = server.upgrades.length;
  const created = instances.length;
  await sleep(quietMs);
  expect(server.upgrades.length, 'upgrades seen by the server after close()').toBe(upgrades);
  expect(instances.length, 'ws sockets created after close()').toBe(created);
  expect(socket.state).toBe('closed');

  await sleep(0);
  expect(activeTimeouts(), `live timers vs the baseline (${JSON.stringify(process.getActiveResourcesInfo())})`).toBe(
    rig.baseline,
  );
  expect(listenersLeft(instances), 'listeners left on the underlying ws sockets').toEqual([]);

  expect(thrownBy(() => socket.open())).toMatchObject({ name: 'ResilientSocketError', code: 'ERR_RS_CLOSED' });
  expect(thrownBy(() => socket.reconnect())).toMatchObject({ name: 'ResilientSocketError', code: 'ERR_RS_CLOSED' });
  expect(socket.state).toBe('closed');
}

/** The user's close(), then {@link expectNothingLeft}. */
export async function closeAndCheckLeftovers(
  rig: Rig,
  socket: ResilientSocket,
  rec: SocketRecorder,
  options?: LeftoverCheck,
): Promise<void> {
  socket.close();
  await expectNothingLeft(rig, socket, rec, options);
}

/** Collects unhandled rejections and uncaught exceptions while a test runs; call `stop()` to detach. */
export function watchUnhandled(cleanup: Cleanup): { readonly errors: unknown[]; stop(): void } {
  const errors: unknown[] = [];
  const onRejection = (reason: unknown) => errors.push(reason);
  const onException = (error: unknown) => errors.push(error);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  const stop = () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
  cleanup.add(undefined, stop);
  return { errors, stop };
}
