/**
 * The test kit's real-server fixture (`resilient-socket/testing`'s TestWsServer): real ws on
 * 127.0.0.1, real time. Every wait is bounded by until()'s `within`. The clients run on whatever
 * WebSocket the runtime gives, except in the two tests that need ws's client, pinned with the
 * `WebSocket` option: it echoes the server's close reason, and reports a refused upgrade's status.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { constant } from '../../src/backoff/constant.js';
import { ErrorCodes, type ResilientSocketError } from '../../src/errors.js';
import { ResilientSocket, type ResilientSocketOptions } from '../../src/node.js';
import { FlakyServer } from '../../src/testing/flaky-server.js';
import { until } from '../../src/testing/until.js';
import { ACCEPT, ECHO, TestWsServer } from '../../src/testing/ws-server.js';

const servers = new Set<TestWsServer>();
const sockets = new Set<ResilientSocket>();
afterEach(async () => {
  for (const socket of sockets) socket.close();
  sockets.clear();
  await Promise.all([...servers].map((server) => server.stop()));
  servers.clear();
});

async function startServer(...args: Parameters<typeof TestWsServer.start>): Promise<TestWsServer> {
  const server = await TestWsServer.start(...args);
  servers.add(server);
  return server;
}

/** A socket on `server`, on the WebSocket `transport` names if it does. */
function connect(
  server: TestWsServer,
  transport: Pick<ResilientSocketOptions, 'WebSocket'> = {},
): { socket: ResilientSocket; errors: ResilientSocketError[] } {
  const socket = new ResilientSocket(server.url, {
    ...transport,
    backoff: constant({ delay: 50 }),
    stableAfter: 60_000,
  });
  const errors: ResilientSocketError[] = [];
  socket.on('error', (error) => errors.push(error));
  sockets.add(socket);
  return { socket, errors };
}

const within = { within: 5_000 };

describe('TestWsServer', () => {
  it('start(ECHO): a URL on 127.0.0.1 and a free port; echoes and records what it receives', async () => {
    const server = await startServer(ECHO);
    expect(server.listening).toBe(true);
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`ws://127.0.0.1:${server.port}/`);
    expect(server.urlFor('/feed?token=1')).toBe(`ws://127.0.0.1:${server.port}/feed?token=1`);

    const { socket } = connect(server);
    expect(await until(socket, 'open', within)).toEqual({ attempt: 1, reconnected: false });
    socket.send('hello');
    expect(String(await until(socket, 'message', within))).toBe('hello');
    socket.send('again');
    expect(String(await until(socket, 'message', within))).toBe('again');
    expect(server.received).toEqual(['hello', 'again']);
    expect(server.connections).toBe(1);
    expect(server.openClients).toBe(1);
    expect(server.upgrades).toHaveLength(1);
    expect(server.upgrades[0]).toMatchObject({ index: 0, url: '/', kind: 'accept' });
  });

  it('ACCEPT does not echo; clients[] pushes to a client', async () => {
    const server = await startServer(ACCEPT);
    const { socket } = connect(server);
    await until(socket, 'open', within);
    const messages: string[] = [];
    socket.on('message', (data) => messages.push(String(data)));
    socket.send('no echo please');
    const [client] = server.clients;
    client?.send('pushed');
    expect(String(await until(socket, 'message', within))).toBe('pushed');
    expect(messages).toEqual(['pushed']);
  });

  it('stop() cuts the clients (1006); start() listens on the same port again and the client comes back', async () => {
    const server = await startServer(ECHO);
    const port = server.port;
    const { socket } = connect(server);
    await until(socket, 'open', within);

    const closed = until(socket, 'close', within);
    await server.stop();
    expect(server.listening).toBe(false);
    expect(await closed).toMatchObject({ code: 1006, wasClean: false, willReconnect: true });
    await expect(server.stop()).resolves.toBeUndefined(); // idempotent

    expect(await server.start()).toBe(port);
    expect(await until(socket, 'open', within)).toMatchObject({ reconnected: true });
    expect(server.port).toBe(port);
    expect(server.connections).toBe(2);
    socket.send('after restart');
    expect(String(await until(socket, 'message', within))).toBe('after restart');
    expect(server.received).toEqual(['after restart']);
  });

  it('start() while started throws; url before the first start throws', async () => {
    const server = new TestWsServer(ECHO);
    servers.add(server);
    expect(() => server.url).toThrow(/start\(\) it first/);
    expect(() => server.urlFor('/feed')).toThrow(/start\(\) it first/);
    await server.start();
    await expect(server.start()).rejects.toThrow(/already started/);
  });

  it('closeAll(code, reason): a close frame the client sees, recorded in disconnects', async () => {
    const server = await startServer(ECHO);
    const { socket } = connect(server, { WebSocket: WsWebSocket });
    await until(socket, 'open', within);
    const closed = until(socket, 'close', within);
    await server.closeAll(4001, 'bye');
    expect(await closed).toEqual({ code: 4001, reason: 'bye', wasClean: true, willReconnect: true });
    expect(server.openClients).toBe(0);
    expect(server.disconnects).toHaveLength(1);
    expect(server.disconnects[0]).toMatchObject({ code: 4001, reason: 'bye' });
    await until(socket, 'open', within);
    expect(server.connections).toBe(2);
  });

  it('a behaviour function scripts upgrades: refuse with 503, then accept', async () => {
    const server = await startServer(({ index }) =>
      index === 0 ? { kind: 'refuse', status: 503, retryAfter: 0 } : { kind: 'accept', echo: true },
    );
    const { socket, errors } = connect(server, { WebSocket: WsWebSocket });
    expect(await until(socket, 'open', within)).toEqual({ attempt: 2, reconnected: false });
    expect(server.upgrades.map((u) => u.kind)).toEqual(['refuse', 'accept']);
    expect(errors.map((e) => e.code)).toEqual([ErrorCodes.UPGRADE_REJECTED]);
    expect(errors[0]?.status).toBe(503);
    expect(server.connections).toBe(1);
  });
});

describe('TestWsServer.url: a string, as FlakyServer.url is', () => {
  it('server.url is a string ready for a socket: new ResilientSocket(server.url) connects', async () => {
    const server = await startServer(ECHO);
    const flaky = new FlakyServer();
    flaky.stop();
    expect(typeof server.url).toBe(typeof flaky.url);
    expect(typeof server.url).toBe('string');
    const { socket, errors } = connect(server);
    await until(socket, 'open', within);
    expect(errors).toEqual([]);
    expect(server.upgrades.map((upgrade) => upgrade.url)).toEqual(['/']);
  });

  it('urlFor(path) gives the URL of a path or a query; it is bound to its server', async () => {
    const server = await startServer(ECHO);
    const root = `ws://127.0.0.1:${server.port}`;
    expect(['/feed', '/a/b?x=1', '?token=2'].map(server.urlFor)).toEqual([
      `${root}/feed`,
      `${root}/a/b?x=1`,
      `${root}/?token=2`,
    ]);
    const { urlFor } = server;
    const socket = new ResilientSocket(() => urlFor('/feed?token=3'), { backoff: constant({ delay: 50 }) });
    sockets.add(socket);
    await until(socket, 'open', within);
    expect(server.upgrades.map((upgrade) => upgrade.url)).toEqual(['/feed?token=3']);
  });

  it('urlFor handed to a socket as its URL provider (plain JavaScript): the error says what to pass', async () => {
    const server = await startServer(ECHO);
    const socket = new ResilientSocket(server.urlFor as unknown as () => string, { backoff: constant({ delay: 50 }) });
    sockets.add(socket);
    const error = await until(socket, 'error', within);
    expect(error.message).toContain('Expected `path` of TestWsServer.urlFor(path) to be a string such as "/feed"');
    expect(error.message).toContain('got undefined');
    expect(error.message).toContain('For the root, use `server.url`');
    expect(error.message).toContain('as a URL provider, pass `() => server.urlFor("/feed")`');
    expect(server.upgrades).toEqual([]);
  });

  it('urlFor refuses a path that would make another URL (a TypeError, a RangeError with the fix)', async () => {
    const server = await startServer(ECHO);
    expect(() => server.urlFor('feed')).toThrow(
      new RangeError(
        'Expected `path` of TestWsServer.urlFor(path) to start with "/" or "?", got "feed" (did you mean "/feed"?)',
      ),
    );
    expect(() => server.urlFor(8080 as never)).toThrow(TypeError);
    expect(() => server.urlFor(8080 as never)).toThrow(/got number 8080/);
  });

  it('code written for the method url() fails at the call, at once (it is a string now)', async () => {
    const server = await startServer(ECHO);
    expect(() => (server as unknown as { url: () => string }).url()).toThrow(TypeError);
  });
});

describe('TestWsServer checks its behaviours (a misspelt key is refused, not ignored)', () => {
  it('the constructor and start() refuse an unknown key, suggesting the one meant', async () => {
    expect(() => new TestWsServer({ kind: 'accept', answerPing: false } as never)).toThrow(
      new TypeError('Unknown option `behaviour.answerPing`: did you mean `behaviour.answerPings`?'),
    );
    await expect(TestWsServer.start({ kind: 'refuse', status: 503, retry_after: 5 } as never)).rejects.toThrow(
      new TypeError('Unknown option `behaviour.retry_after`: did you mean `behaviour.retryAfter`?'),
    );
    expect(() => new TestWsServer({ kind: 'stall', echo: true } as never)).toThrow(
      new TypeError("Unknown option `behaviour.echo`: the options of a 'stall' behaviour are `kind`"),
    );
  });

  it('a kind that is not a string is a TypeError, an unknown kind a RangeError', () => {
    expect(() => new TestWsServer({ echo: true } as never)).toThrow(
      new TypeError('Expected `behaviour.kind` to be a string, got undefined'),
    );
    expect(() => new TestWsServer({ kind: 'acept' } as never)).toThrow(
      new RangeError('Expected `behaviour.kind` to be one of accept, accept-then-close, stall, refuse, got "acept"'),
    );
    expect(() => new TestWsServer(null as never)).toThrow(
      new TypeError('Expected `behaviour` to be a behaviour object, got null'),
    );
  });

  it('setting behaviour checks it the same way and keeps the old one on error', async () => {
    const server = await startServer(ECHO);
    expect(() => {
      server.behaviour = { kind: 'accept-then-close', code: 4000, reasn: 'x' } as never;
    }).toThrow(new TypeError('Unknown option `behaviour.reasn`: did you mean `behaviour.reason`?'));
    expect(server.behaviour).toBe(ECHO);
    const closeAtOnce = { kind: 'accept-then-close', code: 4000, reason: 'x' } as const;
    server.behaviour = closeAtOnce;
    expect(server.behaviour).toBe(closeAtOnce);
  });

  it("a behaviour function's bad result cuts that connection and throws from the upgrade handler", async () => {
    // In a child process: the throw is an uncaught exception, which ends it with the message.
    const script = `
      import { WebSocket } from 'ws';
      import { TestWsServer } from './src/testing/ws-server.ts';
      const server = await TestWsServer.start(() => ({ kind: 'accept', echoo: true }));
      const client = new WebSocket(server.url);
      client.on('error', () => undefined);
      client.on('close', (code) => console.log('client closed ' + code));
      setTimeout(() => process.exit(3), 5000).unref();
    `;
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: fileURLToPath(new URL('../../', import.meta.url)), timeout: 15_000 },
        (error, _stdout, stderr) => resolve({ code: error ? (error.code as number | null) : 0, stderr }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'TypeError: Unknown option `behaviour(upgrade).echoo`: did you mean `behaviour(upgrade).echo`?',
    );
  });
});
