/**
 * Shared fixtures for the ResilientSocket unit tests: mock-socket servers and clients on unique
 * URLs, an event recorder, and a cleanup that closes everything and checks that no timer leaks;
 * the checks of option errors and resolved options the options-*.test.ts files share, and the
 * message check and backoff the reconnect-*.test.ts files share.
 *
 * mock-socket schedules every open, close and client→server message with a 4 ms `setTimeout`, so
 * the tests run under `vi.useFakeTimers()` and move time with `await vi.advanceTimersByTimeAsync()`.
 */
import { type Client, WebSocket as MockWebSocket, type Server } from 'mock-socket';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { truncatedBinaryExponential } from '../../src/backoff/truncated-binary-exponential.js';
import { EVENT_NAMES, type ResilientSocketEvents } from '../../src/core/events.js';
import { type Config, resolveOptions } from '../../src/core/resolve.js';
import { checkTarget } from '../../src/core/target.js';
import type { Data } from '../../src/data.js';
import { isResilientSocketError, type ResilientSocketError } from '../../src/errors.js';
import type { ResilientSocketOptions, UrlProvider } from '../../src/node.js';
import { ResilientSocket } from '../../src/node.js';
import { FlakyServer } from '../../src/testing/flaky-server.js';
import { browserTransport } from '../../src/transports/browser.js';
import type { Transport } from '../../src/transports/transport.js';
import type { WebSocketConstructorLike } from '../../src/transports/websocket-like.js';
import { expectInputError, PRODUCTION } from '../helpers/mode.js';

/** mock-socket's delay before it dispatches open, close and client→server messages. */
export const MOCK_DELAY = 4;

/** mock-socket's WebSocket, typed as what the `WebSocket` option takes. */
export const WebSocketImpl = MockWebSocket as unknown as WebSocketConstructorLike;

export { EVENT_NAMES };
export type EventName = keyof ResilientSocketEvents;

let nextPort = 20_000;

/** A URL no other test in this file uses (mock-socket's registry of servers is a module singleton). */
export function uniqueUrl(): string {
  nextPort += 1;
  return `ws://localhost:${nextPort}`;
}

/** A mock server plus the server-side ends of the connections it accepted and what it received. */
export interface TestServer {
  readonly url: string;
  readonly server: Server;
  /** Server-side ends of the accepted connections, in order. */
  readonly clients: Client[];
  /** Every message received from any client, in order. */
  readonly received: Data[];
  /** The server-side end of the latest connection. */
  last(): Client;
  /** Closes the latest connection from the server side (the client hears it 4 ms later). */
  closeLast(code?: number, reason?: string): void;
  /** Sends to every connected client (delivered synchronously). */
  broadcast(data: Data): void;
  /** Removes the server: open connections drop (1006), later attempts on its URL fail (error + close 1000 after 4 ms). */
  stop(): void;
  /** The test kit's server underneath, for drop/down/up/silence/script. */
  readonly flaky: FlakyServer;
}

const servers = new Set<TestServer>();
const sockets = new Set<ResilientSocket>();

/**
 * Starts a mock server: the test kit's {@link FlakyServer} (so every socket unit test exercises
 * it), plus the full list of accepted connections in order, closed ones included.
 */
export function startServer(url: string = uniqueUrl(), onConnection?: (client: Client) => void): TestServer {
  const flaky = new FlakyServer({ url });
  const clients: Client[] = [];
  flaky.server.on('connection', (client) => {
    clients.push(client);
    onConnection?.(client);
  });
  const handle: TestServer = {
    url,
    server: flaky.server,
    flaky,
    clients,
    received: flaky.received,
    last() {
      const client = clients[clients.length - 1];
      if (!client) throw new Error('the server has no connection yet');
      return client;
    },
    closeLast(code = 1000, reason = '') {
      handle.last().close({ code, reason, wasClean: true });
    },
    broadcast(data) {
      flaky.server.emit('message', data);
    },
    stop() {
      flaky.stop();
    },
  };
  servers.add(handle);
  return handle;
}

/** Creates a ResilientSocket on mock-socket, tracked for cleanup. */
export function createSocket(url: UrlProvider, options: ResilientSocketOptions = {}): ResilientSocket {
  const socket = new ResilientSocket(url, { WebSocket: WebSocketImpl, ...options });
  sockets.add(socket);
  return socket;
}

/** One recorded event: its name and its payload (undefined for `stable`). */
export interface Recorded {
  readonly name: EventName;
  readonly payload: unknown;
}

/** Records every event of `socket` (and optionally only `names`), in order. */
export function record(socket: ResilientSocket, names: readonly EventName[] = EVENT_NAMES) {
  const events: Recorded[] = [];
  for (const name of names) {
    (socket.on as (event: string, fn: (...args: unknown[]) => void) => unknown)(name, (...args: unknown[]) => {
      events.push({ name, payload: args[0] });
    });
  }
  return {
    events,
    /** Names in order, e.g. `['connecting', 'state', 'open']`. */
    names(): string[] {
      return events.map((e) => e.name);
    },
    /** Payloads of one event, in order. */
    of<E extends EventName>(name: E): ResilientSocketEvents[E][0][] {
      return events.filter((e) => e.name === name).map((e) => e.payload as ResilientSocketEvents[E][0]);
    },
    /** `previous→current` for every state event. */
    states(): string[] {
      return events
        .filter((e) => e.name === 'state')
        .map((e) => {
          const change = e.payload as ResilientSocketEvents['state'][0];
          return `${change.previous}→${change.current}`;
        });
    },
    /** Error codes, in order. */
    errors(): string[] {
      return events.filter((e) => e.name === 'error').map((e) => (e.payload as ResilientSocketError).code);
    },
    clear(): void {
      events.length = 0;
    },
  };
}

/** Moves fake time forward, running timers and the microtasks between them. */
export async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

/** Lets pending microtasks (URL provider, handshake promises) run without moving time. */
export async function settle(): Promise<void> {
  await vi.advanceTimersByTimeAsync(0);
}

/**
 * Creates a socket connected to `server` (a fresh server when omitted), records its events and
 * waits until it is open.
 */
export async function openSocket(options: ResilientSocketOptions = {}, server: TestServer = startServer()) {
  const socket = createSocket(server.url, options);
  const log = record(socket);
  await advance(MOCK_DELAY);
  expect(socket.state).toBe('open');
  return { server, socket, log };
}

/** Runs `fn` and returns what it threw (failing if it returned). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw, but it returned');
}

/** Asserts `value` is a ResilientSocketError with `code`, and returns it. */
export function expectRsError(value: unknown, code: string): ResilientSocketError {
  expect(isResilientSocketError(value)).toBe(true);
  expect((value as ResilientSocketError).code).toBe(code);
  return value as ResilientSocketError;
}

/**
 * afterEach body: closes every socket and server created through these helpers, lets
 * mock-socket's pending 4 ms timers run, and resets the fake timers.
 */
export async function cleanup(): Promise<void> {
  for (const socket of sockets) {
    try {
      socket.close();
    } catch {
      // a test may have left the socket in a state where close() throws; nothing to clean then
    }
    socket.removeAllListeners();
  }
  sockets.clear();
  for (const server of servers) server.stop();
  servers.clear();
  await vi.advanceTimersByTimeAsync(MOCK_DELAY * 3);
  vi.clearAllTimers();
  vi.useRealTimers();
  vi.restoreAllMocks();
}

/** Registers the hooks of a file whose tests run on fake timers: fake timers before each test, {@link cleanup} after. */
export function useFakeTimersAndCleanup(): void {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(cleanup);
}

/**
 * A mock-socket WebSocket subclass that records every instance and constructor call, to inspect
 * the underlying sockets (binaryType, protocols, wsOptions) the ResilientSocket created.
 */
export function trackingWebSocket(overrides: { close?: (this: MockWebSocket) => void } = {}) {
  const instances: MockWebSocket[] = [];
  const calls: unknown[][] = [];
  class Tracking extends MockWebSocket {
    constructor(url: string, protocols?: string | string[], ...rest: unknown[]) {
      super(url, protocols);
      instances.push(this);
      calls.push([url, protocols, ...rest]);
    }
  }
  if (overrides.close) Tracking.prototype.close = overrides.close;
  return { WebSocket: Tracking as unknown as WebSocketConstructorLike, instances, calls };
}

/** A WebSocket that never opens, never fails and ignores close(): a connection attempt lost in the network. */
export class SilentWebSocket extends EventTarget {
  static readonly instances: SilentWebSocket[] = [];
  readyState = 0;
  readonly protocol = '';
  binaryType = 'blob';
  readonly closeCalls: unknown[][] = [];
  constructor(readonly url: string) {
    super();
    SilentWebSocket.instances.push(this);
  }
  send(): void {
    throw new Error('not open');
  }
  close(...args: unknown[]): void {
    this.closeCalls.push(args);
  }
}

/** Asserts that `fn` throws exactly `Type` with a message that names `name` in backticks. */
export function expectOptionError(fn: () => unknown, Type: ErrorConstructor, name: string): Error {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(Type);
  expect((error as Error).constructor).toBe(Type);
  expect((error as Error).message).toContain(`\`${name}\``);
  return error as Error;
}

/** The window of the n-th consecutive failure of truncatedBinaryExponential({ maxDelay: 10_000, ceiling: 10 }). */
export function tbeWindow(n: number): number {
  return 10_000 * 2 ** (Math.min(n, 10) - 10);
}

/** The code of a TypeError (a wrong type) or a RangeError (a bad value) about an option. */
const codeOf = (Type: ErrorConstructor): string =>
  Type === TypeError ? 'ERR_RS_INVALID_TYPE' : 'ERR_RS_INVALID_VALUE';

/** A pattern that finds `text` as it is (for a message that must contain it). */
export const containing = (text: string): RegExp => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

/**
 * Asserts that `fn` throws exactly `Type` with its code about the option `name`: in development a
 * message naming `` `name` `` that is `devText` (the whole of it) or matches it (a pattern); in
 * production the short message naming `name`.
 */
export function expectInvalidOption(
  fn: () => unknown,
  Type: ErrorConstructor,
  name: string,
  devText?: string | RegExp,
): Error & { code?: unknown } {
  const error = expectInputError(fn, Type, codeOf(Type), name, devText);
  expect(error.message).toContain(`\`${name}\``);
  return error;
}

/** Asserts a TypeError about the unknown option `name` (`ERR_RS_UNKNOWN_OPTION`); `devText` as in expectInvalidOption. */
export function expectUnknownOption(
  fn: () => unknown,
  name: string,
  devText?: string | RegExp,
): Error & { code?: unknown } {
  const error = expectInputError(fn, TypeError, 'ERR_RS_UNKNOWN_OPTION', name, devText);
  expect(error.message).toContain(`\`${name}\``);
  return error;
}

/** `ResilientSocket`'s flat options made into the core's (its `prepare`), as the constructor does. */
const prepare = (options: unknown): unknown =>
  (ResilientSocket as unknown as { prepare(options: unknown): unknown }).prepare(options);

/** Resolves `ResilientSocket` options the way its constructor does, on a transport that prefers `preferred`. */
export function resolveSocketOptions(url: unknown, options: unknown, preferred: () => unknown) {
  // One transport per preferred implementation: configs are shared only between sockets of one transport.
  const implementation = preferred();
  const transport = transports.get(implementation) ?? {
    ...browserTransport,
    preferred_: preferred as Transport['preferred_'],
  };
  transports.set(implementation, transport);
  return resolveOptions(url, prepare(options), transport, checkTarget);
}
const transports = new Map<unknown, Transport>();

/** The resolved options of the feature `name` in `config`. */
export function featureOptions(config: Config, name: string): Record<string, unknown> | undefined {
  return (config.features.find((f) => f.name === name) as { options_?: Record<string, unknown> } | undefined)?.options_;
}

/** Constructs (on mock-socket) without connecting, so validation is all that runs. */
export function construct(url: unknown, options: Record<string, unknown> = {}): ResilientSocket {
  return new ResilientSocket(
    url as string,
    {
      WebSocket: WebSocketImpl,
      autoConnect: false,
      ...options,
    } as ResilientSocketOptions,
  );
}

/**
 * The message of a ResilientSocketError with `code`: in development it contains `text`; in
 * production it is the code alone.
 */
export function expectMessage(error: { message: string } | undefined, code: string, text: string): void {
  if (PRODUCTION) expect(error?.message).toBe(code);
  else expect(error?.message).toContain(text);
}

/** TBE with T = 10 s, N = 10 and every draw 0.5: the n-th delay is 0.5 · 19.53125 · 2^(n−1). */
export function halfTbe() {
  return truncatedBinaryExponential({ maxDelay: 10_000, ceiling: 10, random: () => 0.5 });
}
