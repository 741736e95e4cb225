import { afterEach, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  createMessageConnection,
  ErrorCodes,
  type MessageConnection,
  NotificationType,
  RequestType,
  RequestType0,
  ResponseError,
} from 'vscode-jsonrpc';
import { type IWebSocket, toSocket, WebSocketMessageReader, WebSocketMessageWriter } from 'vscode-ws-jsonrpc';
import type { WebSocket as WsSocket } from 'ws';
import { RestartableWsServer } from '../../examples/lib/restartable-ws.js';
import { ResilientWebSocket } from '../../src/node.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

// vscode-ws-jsonrpc (the transport of monaco-languageclient) over a ResilientWebSocket, against a
// JSON-RPC server on a real `ws` server on 127.0.0.1 that crashes and comes back on the same port.
// `toSocket()` takes the WebSocket's `on…` attributes, and a MessageConnection ends for good when its
// socket closes, so the client makes one MessageConnection per underlying connection (on `open`),
// and stops that connection's writes at its `close` (the facade would queue them for the next one).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const add = new RequestType<{ a: number; b: number }, number, void>('add');
const echo = new RequestType<string, string, void>('echo');
const fail = new RequestType<string, never, void>('fail');
/** A request the server never answers. */
const hold = new RequestType0<never, void>('hold');
const ping = new NotificationType<{ n: number }>('client/ping');
const pong = new NotificationType<{ n: number; connection: number }>('server/pong');
const welcome = new NotificationType<{ connection: number }>('server/welcome');
/** A server → client request, sent on connect when the server is started with `ask`. */
const ask = new RequestType<{ connection: number }, string, void>('client/ask');

/** What the server saw of one connection. */
interface ServerSide {
  readonly number: number;
  readonly pings: number[];
  /** The answers to this connection's `client/ask`. */
  readonly answers: string[];
  closed?: { code: number; reason: string };
}

/** A JSON-RPC server, one MessageConnection per ws connection (vscode-ws-jsonrpc's `toSocket` over ws's socket). */
async function startServer(options: { ask?: boolean } = {}) {
  const seen: ServerSide[] = [];
  const server = new RestartableWsServer((ws: WsSocket) => {
    const side: ServerSide = { number: seen.length + 1, pings: [], answers: [] };
    seen.push(side);
    ws.on('close', (code, reason) => {
      side.closed = { code, reason: reason.toString() };
    });
    // ws's socket has the on… attributes, `send` and `close` toSocket uses (text frames arrive as
    // strings); its types lack `dispatchEvent`, hence the cast. The client needs none.
    const socket = toSocket(ws as unknown as WebSocket);
    const rpc = createMessageConnection(new WebSocketMessageReader(socket), new WebSocketMessageWriter(socket));
    rpc.onRequest(add, ({ a, b }) => a + b);
    rpc.onRequest(echo, async (text) => {
      await sleep(Math.random() * 20); // answers out of order
      return text;
    });
    rpc.onRequest(fail, (why) => {
      throw new ResponseError(4711, `refused: ${why}`, { why });
    });
    rpc.onRequest(hold, () => new Promise<never>(() => {}));
    rpc.onNotification(ping, ({ n }) => {
      side.pings.push(n);
      void rpc.sendNotification(pong, { n, connection: side.number });
    });
    rpc.onClose(() => rpc.dispose());
    rpc.listen();
    void rpc.sendNotification(welcome, { connection: side.number });
    if (options.ask) {
      rpc.sendRequest(ask, { connection: side.number }).then(
        (answer) => side.answers.push(answer),
        () => {}, // the connection ended first
      );
    }
  });
  cleanup.add(server, (s) => s.crash());
  await server.start();
  return { server, seen };
}

/**
 * `toSocket(ws)` for one underlying connection of `ws`: its `send` does nothing once that connection
 * has closed, so a late write of its MessageConnection (a reply to a server request, which
 * vscode-jsonrpc writes even after `dispose()`) is not queued and sent on the next connection.
 * (No reader or writer calls `dispose()`; it is a no-op so that nothing closes `ws` for good.)
 */
function connectionSocket(ws: ResilientWebSocket): IWebSocket {
  const socket = toSocket(ws);
  let open = true;
  ws.addEventListener('close', () => (open = false), { once: true });
  return {
    ...socket,
    send: (content) => {
      if (open) ws.send(content);
    },
    dispose: () => {}, // toSocket's would call ws.close(): final
  };
}

/**
 * The pattern under test: on every `open` of the ResilientWebSocket, a new MessageConnection over
 * `toSocket(ws)` (which re-points the on… attributes at it); when that connection closes (its
 * reader sees the socket's `close`), it is disposed, which rejects its pending requests.
 * `guard: false` uses `toSocket(ws)` as is (its writes after `close` are queued by the facade).
 */
function jsonRpcClient(ws: ResilientWebSocket, { guard = true, answerAfter = 0 } = {}) {
  const made: MessageConnection[] = [];
  const welcomes: number[] = [];
  const asked: number[] = [];
  const pongs: { n: number; connection: number }[] = [];
  let current: MessageConnection | undefined;
  ws.addEventListener('open', () => {
    const socket = guard ? connectionSocket(ws) : toSocket(ws);
    const rpc = createMessageConnection(new WebSocketMessageReader(socket), new WebSocketMessageWriter(socket));
    rpc.onNotification(welcome, ({ connection }) => welcomes.push(connection));
    rpc.onNotification(pong, (payload) => pongs.push(payload));
    rpc.onRequest(ask, async ({ connection }) => {
      asked.push(connection);
      await sleep(answerAfter);
      return `answer to connection ${connection}`;
    });
    rpc.onClose(() => {
      rpc.dispose();
      if (current === rpc) current = undefined;
    });
    rpc.listen();
    made.push(rpc);
    current = rpc;
  });
  return {
    made,
    welcomes,
    asked,
    pongs,
    /** The live connection (throws if there is none: the test expected one). */
    get rpc(): MessageConnection {
      if (!current) throw new Error('no open JSON-RPC connection');
      return current;
    },
    get live(): boolean {
      return current !== undefined;
    },
  };
}

function connect(url: string, options: Parameters<typeof jsonRpcClient>[1] = {}) {
  const ws = cleanup.add(new ResilientWebSocket(url, undefined, { maxDelay: 400, ceiling: 3 }), (s) => s.close());
  const events: string[] = [];
  for (const type of ['open', 'close', 'reconnecting']) ws.addEventListener(type, () => events.push(type));
  return { ws, events, client: jsonRpcClient(ws, options) };
}

/**
 * The server asks the client something on connect; the client answers 150 ms later, but the server
 * crashes in between and comes back. Returns what each server connection got as its answer.
 */
async function lateAnswerAcrossRestart(guard: boolean) {
  const { server, seen } = await startServer({ ask: true });
  const { ws, client } = connect(server.url, { guard, answerAfter: 150 });
  await waitFor(() => client.asked.length === 1, 3_000, 'the server to ask the first connection');
  await server.crash();
  await waitFor(() => !client.live, 2_000, 'the first connection to close');
  await sleep(200); // the old connection's handler answers meanwhile
  const queuedWhileDown = ws.bufferedAmount;
  await server.start();
  await waitFor(() => client.asked.length === 2 && client.live, 4_000, 'the server to ask the second connection');
  await waitFor(() => seen[1]?.answers.length === 1, 2_000, 'the second connection to get an answer');
  await sleep(250); // the genuine answer, if the stale one took its place
  return { answers: seen.map((side) => side.answers), queuedWhileDown };
}

describe('vscode-ws-jsonrpc over ResilientWebSocket', () => {
  it('round-trips concurrent requests, notifications both ways and error responses', async () => {
    const { server, seen } = await startServer();
    const { client } = connect(server.url);
    await waitFor(() => client.live && client.welcomes.length === 1, 3_000, 'the connection and the welcome');
    expect(client.welcomes).toEqual([1]); // sent by the server the moment it accepted: not lost

    const sums = await Promise.all(Array.from({ length: 20 }, (_, i) => client.rpc.sendRequest(add, { a: i, b: 100 })));
    expect(sums).toEqual(Array.from({ length: 20 }, (_, i) => i + 100));
    const texts = ['α', 'two words', '{"json":"inside"}', ''];
    expect(await Promise.all(texts.map((text) => client.rpc.sendRequest(echo, text)))).toEqual(texts);

    for (const n of [1, 2, 3]) await client.rpc.sendNotification(ping, { n });
    await waitFor(() => client.pongs.length === 3, 2_000, 'three server → client notifications');
    expect(seen[0]?.pings).toEqual([1, 2, 3]);
    expect(client.pongs).toEqual([1, 2, 3].map((n) => ({ n, connection: 1 })));

    const refused = client.rpc.sendRequest(fail, 'no reason');
    await expect(refused).rejects.toBeInstanceOf(ResponseError);
    await expect(refused).rejects.toMatchObject({
      code: 4711,
      message: 'refused: no reason',
      data: { why: 'no reason' },
    });
    // The error response ended that request only: the connection still answers.
    expect(await client.rpc.sendRequest(add, { a: 2, b: 3 })).toBe(5);
    expect(client.made).toHaveLength(1);
    expect(server.clients.size).toBe(1);
  });

  it('after a server restart on the same port, a new MessageConnection carries requests again', async () => {
    const { server, seen } = await startServer();
    const { ws, events, client } = connect(server.url);
    await waitFor(() => client.live, 3_000, 'the first JSON-RPC connection');
    const first = client.rpc;
    expect(await first.sendRequest(add, { a: 1, b: 1 })).toBe(2);
    const inFlight = first.sendRequest(hold);
    const inFlightOutcome = inFlight.then(
      () => 'resolved',
      (error: unknown) => error,
    );

    await server.crash();
    await waitFor(() => !client.live, 2_000, 'the first connection to close');
    // The request in flight when the link dropped is rejected (the connection was disposed), not left hanging.
    const outcome = await inFlightOutcome;
    expect(outcome).toBeInstanceOf(ResponseError);
    expect(outcome).toMatchObject({ code: ErrorCodes.PendingResponseRejected });
    // A MessageConnection made once does not survive the drop: this is why the client makes a new one per `open`.
    expect(() => first.sendRequest(add, { a: 0, b: 0 })).toThrow(ConnectionError);
    expect(ws.readyState).toBe(ResilientWebSocket.CONNECTING);
    await sleep(300); // a few refused attempts against the closed port
    expect(client.live).toBe(false);

    await server.start();
    await waitFor(() => client.live && client.welcomes.length === 2, 4_000, 'a new JSON-RPC connection', {
      describe: () => ({ state: ws.state, retryCount: ws.retryCount, events }),
    });
    expect(client.made).toHaveLength(2);
    expect(client.rpc).not.toBe(first);
    expect(client.welcomes).toEqual([1, 2]);
    const sums = await Promise.all([1, 2, 3, 4, 5].map((a) => client.rpc.sendRequest(add, { a, b: a })));
    expect(sums).toEqual([2, 4, 6, 8, 10]);
    await client.rpc.sendNotification(ping, { n: 7 });
    await waitFor(() => client.pongs.length === 1, 2_000, 'a notification round trip after recovery');
    expect(client.pongs).toEqual([{ n: 7, connection: 2 }]);

    // Exactly one connection on the server, and nothing from the old connection leaked into the new one.
    await sleep(100);
    expect(server.clients.size).toBe(1);
    expect(seen.map((side) => side.number)).toEqual([1, 2]);
    expect(seen[0]?.closed?.code).toBe(1006);
    expect(seen[1]?.closed).toBeUndefined();
    expect(seen[1]?.pings).toEqual([7]);
    // One `open` per connection; a `close` for the lost one and for every refused attempt (as a browser's WebSocket fires it).
    expect(events.filter((type) => type === 'open')).toHaveLength(2);
    expect(events.slice(0, 3)).toEqual(['open', 'close', 'reconnecting']);
    expect(events.at(-1)).toBe('open');
  });

  it('follows reconnect(): the old MessageConnection closes, a new one opens', async () => {
    const { server, seen } = await startServer();
    const { ws, client } = connect(server.url);
    await waitFor(() => client.live, 3_000, 'the first JSON-RPC connection');
    ws.reconnect(4000, 'new workspace');
    await waitFor(() => client.made.length === 2 && client.live, 3_000, 'the second JSON-RPC connection');
    expect(await client.rpc.sendRequest(echo, 'again')).toBe('again');
    await waitFor(() => seen[0]?.closed !== undefined, 2_000, 'the server to see the first connection close');
    expect(seen[0]?.closed).toEqual({ code: 4000, reason: 'new workspace' });
    expect(server.clients.size).toBe(1);
  });

  it('a late reply of the old connection never reaches the new one (the guarded send)', async () => {
    const { answers, queuedWhileDown } = await lateAnswerAcrossRestart(true);
    expect(queuedWhileDown).toBe(0);
    expect(answers).toEqual([[], ['answer to connection 2']]);
  });

  it('without the guard, that late reply is queued and answers the new connection’s request (why the guard)', async () => {
    // vscode-jsonrpc writes a reply after dispose(); the facade's send() queues it while
    // reconnecting and flushes it into the next connection, where request ids start again at 0.
    const { answers, queuedWhileDown } = await lateAnswerAcrossRestart(false);
    expect(queuedWhileDown).toBeGreaterThan(0);
    expect(answers).toEqual([[], ['answer to connection 1']]);
  });

  it('close() ends the JSON-RPC connection, the server sees the close, and nothing reconnects', async () => {
    const { server, seen } = await startServer();
    const { ws, events, client } = connect(server.url);
    await waitFor(() => client.live, 3_000, 'the JSON-RPC connection');
    const pending = client.rpc.sendRequest(hold);
    const pendingOutcome = pending.then(
      () => 'resolved',
      (error: unknown) => error,
    );

    ws.close(1000, 'editor closed');
    expect(await pendingOutcome).toMatchObject({ code: ErrorCodes.PendingResponseRejected });
    await waitFor(() => seen[0]?.closed !== undefined, 2_000, 'the server to see the close');
    expect(seen[0]?.closed).toEqual({ code: 1000, reason: 'editor closed' });
    expect(client.live).toBe(false);

    await sleep(900); // longer than two of the widest retry windows (maxDelay 400)
    expect(seen).toHaveLength(1);
    expect(server.clients.size).toBe(0);
    expect(client.made).toHaveLength(1);
    expect(ws.readyState).toBe(ResilientWebSocket.CLOSED);
    expect(events).toEqual(['open', 'close']);
  });
});
