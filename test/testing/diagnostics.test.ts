import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import type { ResilientSocketOptions } from '../../src/node.js';
import { ResilientSocket } from '../../src/node.js';
import type { FlakyServer } from '../../src/testing/flaky-server.js';
import { until } from '../../src/testing/until.js';
import { waitFor } from '../../src/testing/wait-for.js';
import type { WebSocketConstructorLike } from '../../src/transports/websocket-like.js';
import { cleanup, flakyServer, MOCK_DELAY, socketOn, time, track } from './fixture.js';

// What until() and waitFor() say when they give up: the likely cause, and only that. Fake timers
// everywhere but in the tests of the real-time bound.

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

const FIXED = { backoff: constant({ delay: 100 }) } as const;

const BYPASS = /a FlakyServer's URL, but not with that server's WebSocket class/;
const FIX = '{ WebSocket: server.WebSocket }';
const FAKE_TIMERS = /fake timers/i;

/**
 * A WebSocket class that is not the FlakyServer's (as the global WebSocket or `ws` would be):
 * every attempt fails on a microtask, error then close 1006, the way a lookup of `flaky-1.test`
 * fails. Counts the sockets it made.
 */
function otherWebSocket() {
  let created = 0;
  class Elsewhere {
    readyState = 0;
    protocol = '';
    readonly #listeners = new Map<string, Set<(event: unknown) => void>>();
    constructor(readonly url: string) {
      created++;
      queueMicrotask(() => {
        this.readyState = 3;
        this.#emit('error', {});
        this.#emit('close', { code: 1006, reason: '', wasClean: false });
      });
    }
    addEventListener(type: string, listener: (event: unknown) => void): void {
      const set = this.#listeners.get(type) ?? new Set();
      set.add(listener);
      this.#listeners.set(type, set);
    }
    removeEventListener(type: string, listener: (event: unknown) => void): void {
      this.#listeners.get(type)?.delete(listener);
    }
    send(): void {}
    close(): void {}
    #emit(type: string, event: unknown): void {
      for (const listener of [...(this.#listeners.get(type) ?? [])]) listener(event);
    }
  }
  return { WebSocket: Elsewhere as unknown as WebSocketConstructorLike, created: () => created };
}

/** A socket on `server.url` created without `server.WebSocket`: the mistake under test. */
function bypassingSocket(server: FlakyServer, options: ResilientSocketOptions = {}) {
  const other = otherWebSocket();
  const socket = track(new ResilientSocket(server.url, { ...FIXED, WebSocket: other.WebSocket, ...options }));
  socket.on('error', () => undefined);
  return { socket, created: other.created };
}

describe('a socket created without { WebSocket: server.WebSocket }', () => {
  it('until() says so, with the fix, and does not blame fake timers (fake time)', async () => {
    const server = flakyServer();
    const { socket, created } = bypassingSocket(server);
    const error = await until(socket, 'open', { ...time, within: 500 }).catch((thrown: Error) => thrown);
    expect(created()).toBeGreaterThan(1);
    expect(server.attempts).toBe(0);
    expect(error).toBeInstanceOf(Error);
    const { message } = error as Error;
    expect(message).toMatch(/^until\(socket, 'open'\): did not happen within 500 ms of fake time; state is '/);
    expect(message).toMatch(BYPASS);
    expect(message).toContain(server.url);
    expect(message).toContain(FIX);
    expect(message).not.toMatch(FAKE_TIMERS);
  });

  it('until() says so in real time too, with no word about fake timers', async () => {
    vi.useRealTimers();
    const server = flakyServer();
    const { socket } = bypassingSocket(server, { backoff: constant({ delay: 5 }) });
    const error = (await until(socket, 'open', { within: 50 }).catch((thrown: Error) => thrown)) as Error;
    expect(error.message).toMatch(BYPASS);
    expect(error.message).toContain(FIX);
    expect(error.message).not.toMatch(FAKE_TIMERS);
  });

  it('until() also recognises attempts made before it was called', async () => {
    const server = flakyServer();
    const { socket, created } = bypassingSocket(server);
    await vi.advanceTimersByTimeAsync(250);
    expect(created()).toBeGreaterThanOrEqual(2);
    // The socket is waiting out its backoff: until() sees no attempt start before it gives up.
    await expect(until(socket, 'open', { ...time, within: 10 })).rejects.toThrow(BYPASS);
  });

  it('until() says so when the socket gives up while it waits', async () => {
    const server = flakyServer();
    const { socket } = bypassingSocket(server, { maxRetries: 2 });
    const error = (await until(socket, 'open', time).catch((thrown: Error) => thrown)) as Error;
    expect(error.message).toMatch(/^until\(socket, 'open'\): the socket closed \(.+\) before it happened; /);
    expect(error.message).toMatch(BYPASS);
  });

  it('waitFor() points at the FlakyServer nothing tried to reach', async () => {
    const server = flakyServer();
    bypassingSocket(server);
    const error = (await waitFor(() => server.received.length > 0, { ...time, within: 300 }).catch(
      (thrown: Error) => thrown,
    )) as Error;
    expect(error.message).toMatch(/^waitFor: condition did not hold within 300 ms of fake time; /);
    expect(error.message).toContain(`nothing has tried to connect to the FlakyServer at ${server.url}`);
    expect(error.message).toContain(FIX);
    expect(error.message).not.toMatch(FAKE_TIMERS);
  });

  it('no such hint when the socket does use server.WebSocket (the server is merely down)', async () => {
    const server = flakyServer();
    server.down();
    const socket = socketOn(server, FIXED);
    const error = (await until(socket, 'open', { ...time, within: 300 }).catch((thrown: Error) => thrown)) as Error;
    expect(server.attempts).toBeGreaterThan(0);
    expect(error.message).toMatch(/did not happen within 300 ms of fake time/);
    expect(error.message).not.toMatch(/FlakyServer/);
    await expect(waitFor(() => false, { ...time, within: 10 })).rejects.toThrow(
      /^waitFor: condition did not hold within 10 ms of fake time$/,
    );
  });

  it("no such hint for mock-socket's own WebSocket class, which does reach the server", async () => {
    const { WebSocket: MockWebSocket } = await import('mock-socket');
    const server = flakyServer();
    const socket = track(
      new ResilientSocket(server.url, { ...FIXED, WebSocket: MockWebSocket as unknown as WebSocketConstructorLike }),
    );
    await until(socket, 'open', time);
    const error = (await until(socket, 'message', { ...time, within: 50 }).catch((thrown: Error) => thrown)) as Error;
    expect(error.message).toMatch(
      /^until\(socket, 'message'\): did not happen within 50 ms of fake time; state is 'open'$/,
    );
  });
});

describe('fake timers are named only when they are the likely cause', () => {
  it('until() without advance while fake timers are installed: says to pass advance', async () => {
    const server = flakyServer();
    const socket = socketOn(server, FIXED);
    // Real time passes; mock-socket's 4 ms open timer is fake and never fires.
    const error = (await until(socket, 'open', { within: 20 }).catch((thrown: Error) => thrown)) as Error;
    expect(socket.state).toBe('connecting');
    expect(error.message).toMatch(/^until\(socket, 'open'\): did not happen within 20 ms; state is 'connecting'/);
    expect(error.message).toMatch(/fake timers are installed/);
    expect(error.message).toContain('pass `advance`');
    expect(error.message).not.toMatch(/FlakyServer/);
  });

  it('waitFor() without advance while fake timers are installed: says to pass advance', async () => {
    await expect(waitFor(() => false, { within: 20 })).rejects.toThrow(
      /^waitFor: condition did not hold within 20 ms; fake timers are installed.*pass `advance`/,
    );
  });

  it('in real time with real timers: neither until() nor waitFor() mentions fake timers', async () => {
    vi.useRealTimers();
    const waitError = (await waitFor(() => false, { within: 20 }).catch((thrown: Error) => thrown)) as Error;
    expect(waitError.message).toBe('waitFor: condition did not hold within 20 ms');
    const socket = socketOn(flakyServer(), { autoConnect: false });
    const untilError = (await until(socket, 'open', { within: 20 }).catch((thrown: Error) => thrown)) as Error;
    expect(untilError.message).toBe("until(socket, 'open'): did not happen within 20 ms; state is 'idle'");
  });
});

describe('until() on a socket already in the state its target event announces', () => {
  it("'open' on an open socket still waits for the next open (after a reconnect)", async () => {
    const server = flakyServer();
    const socket = socketOn(server, FIXED);
    await until(socket, 'open', time);
    const next = until(socket, 'open', time);
    server.drop();
    await expect(next).resolves.toMatchObject({ reconnected: true });
  });

  it("'open' on an open socket: the timeout says it was already open, and how to wait for it", async () => {
    const socket = socketOn(flakyServer(), FIXED);
    await until(socket, 'open', time);
    const started = Date.now();
    const error = (await until(socket, 'open', { ...time, within: 1_000 }).catch((thrown: Error) => thrown)) as Error;
    expect(Date.now() - started).toBe(1_000);
    expect(error.message).toBe(
      "until(socket, 'open'): did not happen within 1000 ms of fake time; state is 'open'; " +
        "the socket was already 'open' when until() was called, and until() waits for the next 'open' event, " +
        'not for the state (the event that came with it had most likely been emitted already). ' +
        "Start until() before the action that causes it (const next = until(socket, 'open'); …; await next)",
    );
  });

  it("'reconnecting' while reconnecting", async () => {
    const server = flakyServer();
    server.down();
    const socket = socketOn(server, FIXED);
    await until(socket, 'reconnecting', time);
    expect(socket.state).toBe('reconnecting');
    // The next attempt starts 100 ms later and fails 4 ms after that: beyond 50 ms.
    await expect(until(socket, 'reconnecting', { ...time, within: 50 })).rejects.toThrow(
      "until(socket, 'reconnecting'): did not happen within 50 ms of fake time; state is 'reconnecting'; " +
        "the socket was already 'reconnecting' when until() was called, and until() waits for the next 'reconnecting' event",
    );
  });

  it("'connecting' while connecting", async () => {
    const socket = socketOn(flakyServer(), FIXED);
    await until(socket, 'connecting', time);
    expect(socket.state).toBe('connecting');
    // mock-socket opens the connection MOCK_DELAY ms later, with no new `connecting` before.
    await expect(until(socket, 'connecting', { ...time, within: MOCK_DELAY - 2 })).rejects.toThrow(
      "the socket was already 'connecting' when until() was called, and until() waits for the next 'connecting' event",
    );
  });

  it('the note also goes with the rejection when the socket closes while waiting', async () => {
    const socket = socketOn(flakyServer(), FIXED);
    await until(socket, 'open', time);
    const next = until(socket, 'open', time);
    socket.close();
    await expect(next).rejects.toThrow(
      /^until\(socket, 'open'\): the socket closed \(.+\) before it happened; the socket was already 'open' when until\(\) was called, /,
    );
  });

  it('no note when the socket was elsewhere, or when an occurrence came and where refused it', async () => {
    const server = flakyServer();
    server.down();
    const socket = socketOn(server, FIXED);
    await until(socket, 'reconnecting', time);
    await expect(until(socket, 'open', { ...time, within: 50 })).rejects.toThrow(/^(?!.*already).*$/);

    server.up();
    await until(socket, 'open', time);
    const refused = until(socket, 'open', { ...time, within: 500, where: () => false });
    server.drop();
    await expect(refused).rejects.toThrow(
      /^until\(socket, 'open'\): did not happen within 500 ms of fake time; state is 'open' \([^;]+\)$/,
    );
  });
});
