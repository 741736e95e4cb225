import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { ErrorCodes } from '../../src/errors.js';
import { ResilientSocket } from '../../src/node.js';
import { FlakyServer } from '../../src/testing/flaky-server.js';
import { until } from '../../src/testing/until.js';
import { cleanup, collect, flakyServer, MOCK_DELAY, socketOn, time, track } from './fixture.js';

// FlakyServer driving a real ResilientSocket, under fake timers (mock-socket runs on its own 4 ms
// setTimeout calls, so vitest's fake timers drive both sides).

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

/** A fixed 100 ms between attempts, so the counters below are exact. */
const FIXED = { backoff: constant({ delay: 100 }) } as const;

describe('accepting', () => {
  it('accepts a connection and echoes every message back to its sender', async () => {
    const server = flakyServer({ echo: true });
    const socket = socketOn(server, FIXED);
    expect(await until(socket, 'open', time)).toEqual({ attempt: 1, reconnected: false });
    expect(server.attempts).toBe(1);
    expect(server.connections).toBe(1);
    expect(server.openConnections).toBe(1);
    expect(server.clients).toHaveLength(1);

    expect(socket.send('hello')).toBe('sent');
    expect(await until(socket, 'message', time)).toBe('hello');
    expect(server.received).toEqual(['hello']);
  });

  it('reply answers a message on its connection (numbered from 1); undefined answers nothing', async () => {
    const seen: [unknown, number][] = [];
    const server = flakyServer({
      reply: (message, connection) => {
        seen.push([message, connection]);
        return message === 'hi' ? `hello ${connection}` : undefined;
      },
    });
    const socket = socketOn(server, FIXED);
    const messages = collect(socket, 'message');
    await until(socket, 'open', time);
    socket.send('ignored');
    socket.send('hi');
    await vi.advanceTimersByTimeAsync(MOCK_DELAY);
    expect(messages).toEqual(['hello 1']);
    expect(seen).toEqual([
      ['ignored', 1],
      ['hi', 1],
    ]);

    server.drop();
    await until(socket, 'open', time);
    socket.send('hi');
    expect(await until(socket, 'message', time)).toBe('hello 2');
  });

  it('with echo and reply, the echo comes first', async () => {
    const server = flakyServer({ echo: true, reply: (message) => `re: ${String(message)}` });
    const socket = socketOn(server, FIXED);
    const messages = collect(socket, 'message');
    await until(socket, 'open', time);
    socket.send('a');
    await vi.advanceTimersByTimeAsync(MOCK_DELAY);
    expect(messages).toEqual(['a', 're: a']);
  });
});

describe('failing on command', () => {
  it('drop(): the client sees close 1006 (not clean) and reconnects', async () => {
    const server = flakyServer();
    const socket = socketOn(server, FIXED);
    const reconnecting = collect(socket, 'reconnecting');
    await until(socket, 'open', time);

    server.drop();
    expect(await until(socket, 'close', time)).toEqual({
      code: 1006,
      reason: '',
      wasClean: false,
      willReconnect: true,
    });
    expect(server.openConnections).toBe(0);
    // Emitted in the same turn as `close`: too late for an until() started now, so it is collected.
    expect(reconnecting).toEqual([{ attempt: 2, delay: 100 }]);
    expect(await until(socket, 'open', time)).toEqual({ attempt: 2, reconnected: true });
    expect(server.attempts).toBe(2);
    expect(server.connections).toBe(2);
    expect(server.openConnections).toBe(1);
  });

  it('close(4000, "x"): the code and reason reach the client, which reconnects', async () => {
    const server = flakyServer();
    const socket = socketOn(server, FIXED);
    await until(socket, 'open', time);

    server.close(4000, 'x');
    expect(await until(socket, 'close', time)).toMatchObject({ code: 4000, reason: 'x', willReconnect: true });
    await until(socket, 'open', time);
    expect(server.attempts).toBe(2);
    expect(server.connections).toBe(2);
  });

  it('close() defaults to 1000 with no reason', async () => {
    const server = flakyServer();
    const socket = socketOn(server, FIXED);
    await until(socket, 'open', time);
    server.close();
    expect(await until(socket, 'close', time)).toMatchObject({ code: 1000, reason: '', willReconnect: true });
  });

  it('down(): attempts are refused (counted in attempts, not connections) until up()', async () => {
    const server = flakyServer();
    const socket = socketOn(server, FIXED);
    await until(socket, 'open', time);

    server.down();
    expect(server.mode).toBe('refuse');
    expect(await until(socket, 'close', time)).toMatchObject({ code: 1006, willReconnect: true });
    for (let refused = 1; refused <= 3; refused++) {
      const error = await until(socket, 'error', time);
      expect(error.code).toBe(ErrorCodes.CONNECTION_FAILED);
      expect(server.attempts).toBe(1 + refused);
      expect(server.connections).toBe(1);
    }
    expect(server.openConnections).toBe(0);
    expect(socket.state).toBe('reconnecting');

    server.up();
    expect(server.mode).toBe('accept');
    expect(await until(socket, 'open', time)).toEqual({ attempt: 5, reconnected: true });
    expect(server.attempts).toBe(5);
    expect(server.connections).toBe(2);
    expect(server.openConnections).toBe(1);
  });

  it('silence(): no replies; an app-level heartbeat declares the link dead and reconnects; speak() restores', async () => {
    // Pings are answered with a pong, everything else is echoed.
    const server = flakyServer({ reply: (m) => (m === 'ping' ? 'pong' : m) });
    const socket = socketOn(server, {
      ...FIXED,
      stableAfter: 60_000,
      heartbeat: { interval: 1_000, timeout: 500, message: 'ping', isPong: (d) => d === 'pong' },
    });
    const messages = collect(socket, 'message');
    const errors = collect(socket, 'error');
    const closes = collect(socket, 'close');
    await until(socket, 'open', time);

    // Pings at 1 s, 2 s and 3 s after the open, each answered (the pongs are swallowed).
    await vi.advanceTimersByTimeAsync(3_500);
    expect(socket.state).toBe('open');
    expect(server.received).toEqual(['ping', 'ping', 'ping']);
    expect(messages).toEqual([]);
    expect(errors).toEqual([]);

    server.silence();
    expect(server.mode).toBe('silent');
    socket.send('anyone?');
    const silencedAt = Date.now();
    const dead = await until(socket, 'error', { ...time, where: (e) => e.code === ErrorCodes.DEAD_LINK });
    expect(dead.code).toBe(ErrorCodes.DEAD_LINK);
    // The ping after the silence goes unanswered: dead within interval + timeout.
    expect(Date.now() - silencedAt).toBeLessThanOrEqual(1_500);
    expect(server.received).toContain('anyone?'); // received, but neither echoed nor answered
    expect(messages).toEqual([]);
    expect(closes.at(-1)).toEqual({ code: 1006, reason: 'heartbeat timeout', wasClean: false, willReconnect: true });

    // New connections are accepted, silent too.
    expect(await until(socket, 'open', time)).toEqual({ attempt: 2, reconnected: true });
    expect(server.connections).toBe(2);
    socket.send('still nobody?');
    await vi.advanceTimersByTimeAsync(MOCK_DELAY);
    expect(messages).toEqual([]);

    server.speak();
    expect(server.mode).toBe('accept');
    socket.send('back');
    expect(await until(socket, 'message', time)).toBe('back');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(socket.state).toBe('open');
    expect(errors.map((e) => e.code)).toEqual([ErrorCodes.DEAD_LINK]);
    expect(server.connections).toBe(2);
  });
});

describe('script', () => {
  it("['refuse', 'refuse', { close: 1013 }, 'accept'] is applied attempt by attempt", async () => {
    const server = flakyServer({ script: ['refuse', 'refuse', { close: 1013, reason: 'later' }, 'accept'] });
    const socket = socketOn(server, FIXED);
    const errors = collect(socket, 'error');
    const opens = collect(socket, 'open');
    const closes = collect(socket, 'close');

    await until(socket, 'open', { ...time, where: (info) => info.attempt === 4 });
    expect(errors.map((e) => e.code)).toEqual([ErrorCodes.CONNECTION_FAILED, ErrorCodes.CONNECTION_FAILED]);
    // The third attempt opens, then the server closes it with 1013 at once.
    expect(opens).toEqual([
      { attempt: 3, reconnected: false },
      { attempt: 4, reconnected: true },
    ]);
    expect(closes).toHaveLength(3);
    expect(closes[2]).toMatchObject({ code: 1013, reason: 'later', willReconnect: true });
    expect(server.attempts).toBe(4);
    expect(server.connections).toBe(2);
    expect(server.openConnections).toBe(1);
    expect(server.script).toEqual([]);

    // Once used up, attempts get the mode.
    server.drop();
    await until(socket, 'open', time);
    expect(server.attempts).toBe(5);
    expect(server.connections).toBe(3);
  });

  it("a 'silent' entry accepts a connection that never answers; the next one answers", async () => {
    const server = flakyServer({ echo: true, script: ['silent'] });
    const socket = socketOn(server, FIXED);
    const messages = collect(socket, 'message');
    await until(socket, 'open', time);
    socket.send('a');
    await vi.advanceTimersByTimeAsync(MOCK_DELAY);
    expect(messages).toEqual([]);

    server.drop();
    await until(socket, 'open', time);
    socket.send('b');
    expect(await until(socket, 'message', time)).toBe('b');
    expect(server.received).toEqual(['a', 'b']);
    expect(server.connections).toBe(2);
  });

  it('the script is a live array: entries pushed later apply to the next attempts', async () => {
    const server = flakyServer();
    const socket = socketOn(server, FIXED);
    await until(socket, 'open', time);
    server.script.push('refuse');
    server.drop();
    expect((await until(socket, 'error', time)).code).toBe(ErrorCodes.CONNECTION_FAILED);
    await until(socket, 'open', time);
    expect(server.attempts).toBe(3);
    expect(server.connections).toBe(2);
  });
});

describe('stop() and URLs', () => {
  it('stop() drops the connections, frees the URL for a new server, and is idempotent', async () => {
    const server = flakyServer({ echo: true });
    const socket = socketOn(server, FIXED);
    await until(socket, 'open', time);
    expect(() => new FlakyServer({ url: server.url })).toThrow(); // one live server per URL

    server.stop();
    expect(() => server.stop()).not.toThrow();
    expect(await until(socket, 'close', time)).toMatchObject({ code: 1006, willReconnect: true });

    const again = flakyServer({ url: server.url, echo: true });
    expect(await until(socket, 'open', time)).toEqual({ attempt: 2, reconnected: true });
    socket.send('x');
    expect(await until(socket, 'message', time)).toBe('x');
    expect(again.received).toEqual(['x']);
    expect(again.attempts).toBe(1);
    expect(again.connections).toBe(1);
    expect(server.received).toEqual([]);
    expect(server.attempts).toBe(1);
    expect(server.connections).toBe(1);
  });

  it('two servers on default URLs do not collide', async () => {
    const a = flakyServer({ echo: true });
    const b = flakyServer({ echo: true });
    expect(a.url).not.toBe(b.url);
    const toA = socketOn(a, FIXED);
    const toB = socketOn(b, FIXED);
    // Both open in the same fake millisecond: wait for both before time moves.
    const openB = until(toB, 'open');
    await until(toA, 'open', time);
    await openB;
    toA.send('for a');
    toB.send('for b');
    await vi.advanceTimersByTimeAsync(MOCK_DELAY);
    expect(a.received).toEqual(['for a']);
    expect(b.received).toEqual(['for b']);

    a.drop();
    await until(toA, 'close', time);
    await vi.advanceTimersByTimeAsync(50);
    expect(toB.state).toBe('open');
    expect(b.connections).toBe(1);
    expect(b.openConnections).toBe(1);
  });
});

describe('send() and received', () => {
  it('send() reaches open, non-silent connections only', async () => {
    const server = flakyServer({ script: ['silent'] });
    expect(() => server.send('nobody yet')).not.toThrow();
    const quiet = socketOn(server, FIXED);
    await until(quiet, 'open', time);
    const loud = socketOn(server, FIXED);
    await until(loud, 'open', time);
    const toQuiet = collect(quiet, 'message');
    const toLoud = collect(loud, 'message');

    server.send('news');
    await vi.advanceTimersByTimeAsync(MOCK_DELAY);
    expect(toQuiet).toEqual([]);
    expect(toLoud).toEqual(['news']);

    loud.close();
    await until(loud, 'closed', time);
    await vi.advanceTimersByTimeAsync(MOCK_DELAY);
    expect(server.openConnections).toBe(1);
    server.send('more');
    await vi.advanceTimersByTimeAsync(MOCK_DELAY);
    expect(toLoud).toEqual(['news']);
    expect(toQuiet).toEqual([]);
  });

  it('received holds every message from every client, in the order sent', async () => {
    const server = flakyServer();
    const one = socketOn(server, FIXED);
    const two = socketOn(server, FIXED);
    // Both open in the same fake millisecond: wait for both before time moves.
    const openTwo = until(two, 'open');
    await until(one, 'open', time);
    await openTwo;
    one.send('1a');
    two.send('2a');
    one.send('1b');
    two.send('2b');
    await vi.advanceTimersByTimeAsync(MOCK_DELAY);
    expect(server.received).toEqual(['1a', '2a', '1b', '2b']);
  });

  it('messages queued while the server is down arrive after up(), in order', async () => {
    const server = flakyServer();
    const socket = socketOn(server, FIXED);
    await until(socket, 'open', time);
    server.down();
    await until(socket, 'close', time);
    expect(['m1', 'm2', 'm3'].map((m) => socket.send(m))).toEqual(['buffered', 'buffered', 'buffered']);
    await vi.advanceTimersByTimeAsync(300);
    expect(server.received).toEqual([]);
    server.up();
    await until(socket, 'open', time);
    await vi.advanceTimersByTimeAsync(MOCK_DELAY);
    expect(server.received).toEqual(['m1', 'm2', 'm3']);
  });
});

describe('formerly known gaps (regression tests)', () => {
  // Was a bug: a refused attempt reaches the client as close code 1000 with wasClean: true (mock-socket's
  // verifyClient path dispatches CLOSE_NORMAL), where a refused TCP connection, or a server that is
  // down, gives 1006 / wasClean: false in browsers and in ws. An app whose shouldReconnect stops on
  // 1000 ("the server said goodbye") gives up under FlakyServer but keeps retrying in production.
  // Same after stop(): attempts to a URL with no server also close with 1000.
  it('a refused attempt closes like a refused TCP connection: 1006, not clean', async () => {
    const server = flakyServer({ script: ['refuse'] });
    const socket = socketOn(server, FIXED);
    const close = await until(socket, 'close', time);
    expect(close).toMatchObject({ code: 1006, wasClean: false });
  });

  // Was a bug: close(code, reason) and a `{ close: code }` script entry claim "a close frame", but
  // mock-socket's server-side close() ignores `wasClean`: for any code other than 1000/1005 the
  // client sees wasClean: false, as if the connection had been cut.
  it('close(4000) is a clean close (a close frame was exchanged)', async () => {
    const server = flakyServer();
    const socket = socketOn(server, FIXED);
    await until(socket, 'open', time);
    server.close(4000, 'x');
    expect(await until(socket, 'close', time)).toMatchObject({ code: 4000, wasClean: true });
  });

  // Was a bug: drop() (and close(), down(), stop()) only *schedules* the close (mock-socket delivers it
  // 4 ms later), and the connection stays in the live set until then: openConnections still
  // counts it, and send() right after drop() still delivers to it, so a "crashed" server talks to
  // its clients. The live set should forget the connection at once.
  it('after drop(), nothing more reaches the dropped connection', async () => {
    const server = flakyServer();
    const socket = socketOn(server, FIXED);
    const messages = collect(socket, 'message');
    await until(socket, 'open', time);
    server.drop();
    expect(server.openConnections).toBe(0);
    server.send('after the crash');
    await vi.advanceTimersByTimeAsync(MOCK_DELAY);
    expect(messages).toEqual([]);
  });
});

describe("the server's WebSocket class on a URL no FlakyServer answers", () => {
  /** A socket with a FlakyServer's WebSocket class on `url`, and the messages of its errors. */
  function strayed(server: FlakyServer, url: string) {
    const socket = track(new ResilientSocket(url, { ...FIXED, WebSocket: server.WebSocket }));
    const errors: string[] = [];
    socket.on('error', (error) => errors.push(error.message));
    return { socket, errors };
  }

  it("a real server's URL: each failed attempt says no FlakyServer answers there, and the fix", async () => {
    const server = flakyServer();
    const { socket, errors } = strayed(server, 'ws://127.0.0.1:9/feed?token=T0K3N');
    const failure = await until(socket, 'open', { ...time, within: 250 }).catch((thrown: Error) => thrown);
    expect(errors.length).toBeGreaterThanOrEqual(2);
    for (const message of errors) {
      expect(message).toMatch(/^Connection attempt \d+ failed \(close code 1006\): no FlakyServer answers at /);
      expect(message).toContain('ws://127.0.0.1:9/feed?token=***');
      expect(message).toContain('new ResilientSocket(server.url, { WebSocket: server.WebSocket })');
      expect(message).not.toContain('T0K3N');
    }
    // until() gives the latest reason, so its timeout names the fix as well.
    expect((failure as Error).message).toContain('no FlakyServer answers at');
    expect(server.attempts).toBe(0);
  });

  it('a server that was stopped: the attempts after stop() say so', async () => {
    const server = flakyServer();
    const { socket, errors } = strayed(server, server.url);
    await until(socket, 'open', time);
    server.stop();
    await until(socket, 'error', time);
    expect(errors).toEqual([expect.stringContaining(`no FlakyServer answers at ${server.url}`)]);
  });

  it("no such words when the server is merely refusing, nor for the server's URL with a query", async () => {
    const server = flakyServer({ script: ['refuse'] });
    const { socket, errors } = strayed(server, `${server.url}?token=1`);
    await until(socket, 'open', time);
    expect(errors).toEqual(['Connection attempt 1 failed (close code 1006)']);
  });
});
