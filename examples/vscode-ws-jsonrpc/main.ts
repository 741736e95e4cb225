/**
 * `npm run example:jsonrpc`: JSON-RPC (vscode-jsonrpc, through vscode-ws-jsonrpc's `toSocket`, the
 * transport of monaco-languageclient) over a `ResilientWebSocket`, against a server that restarts.
 * It starts a JSON-RPC server on 127.0.0.1 (PORT, default a free port), sends requests and
 * notifications both ways, crashes the server, brings it back on the same port, sends requests
 * again, prints a timeline and exits.
 *
 * **The reconnect pattern.** The ResilientWebSocket survives the outage; a JSON-RPC connection does
 * not, and should not: request ids, pending requests and the server's session all belong to one
 * underlying connection. So:
 *
 * 1. On every `open` (it fires once per underlying connection), make a new MessageConnection over
 *    `toSocket(ws)`. `toSocket` sets the socket's `onmessage`/`onerror`/`onclose` attributes, so the
 *    newest connection takes them over; listen with `addEventListener` for anything of your own.
 * 2. When it closes (its reader sees the socket's `close`), `dispose()` it: that rejects its pending
 *    requests (`ErrorCodes.PendingResponseRejected`) instead of leaving them hanging, and makes
 *    further `sendRequest`/`sendNotification` on it throw.
 * 3. Stop that connection's writes at its `close`. vscode-jsonrpc still writes the reply of a
 *    request it was handling when the link dropped, and `ResilientWebSocket.send()` queues while
 *    reconnecting: the stale reply would go out on the next connection, where ids start from 0
 *    again, and answer the wrong request there. {@link connectionSocket} drops such writes.
 * 4. Never call the `IWebSocket`'s `dispose()` per connection: it calls `ws.close()`, which is final.
 *
 * In monaco-languageclient, step 1 is where you create and `start()` the language client (with the
 * reader and writer) and step 2 is `reader.onClose(() => client.stop())`.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ResilientWebSocket } from 'resilient-socket';
import {
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
import { portFrom } from '../lib/cli.js';
import { RestartableWsServer } from '../lib/restartable-ws.js';

// ─── the protocol ────────────────────────────────────────────────────────────────────────────

export const add = new RequestType<{ a: number; b: number }, number, void>('add');
export const echo = new RequestType<string, string, void>('echo');
/** Fails with a ResponseError (code 4711) when `b` is 0. */
export const divide = new RequestType<{ a: number; b: number }, number, void>('divide');
/** A request the server never answers (a long-running one, cut by the crash). */
export const longRunning = new RequestType0<never, void>('longRunning');
export const log = new NotificationType<{ text: string }>('client/log');
export const hello = new NotificationType<{ session: number }>('server/hello');

// ─── the server ──────────────────────────────────────────────────────────────────────────────

/** What the server saw. */
export interface ServerRecord {
  /** Connections accepted so far (the session numbers). */
  sessions: number;
  /** `client/log` notifications received, as `#session text`. */
  readonly logs: string[];
  /** How each connection ended, by session number. */
  readonly closes: Map<number, { code: number; reason: string }>;
}

/** A JSON-RPC server on a `ws` server that can crash and restart on the same port. */
export async function startJsonRpcServer(port = 0): Promise<{ server: RestartableWsServer; record: ServerRecord }> {
  const record: ServerRecord = { sessions: 0, logs: [], closes: new Map() };
  const server = new RestartableWsServer((ws: WsSocket) => {
    const session = ++record.sessions;
    ws.on('close', (code, reason) => record.closes.set(session, { code, reason: reason.toString() }));
    // ws's socket has what toSocket uses (on… attributes, send, close); its types lack dispatchEvent.
    const socket = toSocket(ws as unknown as WebSocket);
    const rpc = createMessageConnection(new WebSocketMessageReader(socket), new WebSocketMessageWriter(socket));
    rpc.onRequest(add, ({ a, b }) => a + b);
    rpc.onRequest(echo, (text) => text);
    rpc.onRequest(divide, ({ a, b }) => {
      if (b === 0) throw new ResponseError(4711, 'division by zero', { a });
      return a / b;
    });
    rpc.onRequest(longRunning, () => new Promise<never>(() => {}));
    rpc.onNotification(log, ({ text }) => record.logs.push(`#${session} ${text}`));
    rpc.onClose(() => rpc.dispose());
    rpc.listen();
    void rpc.sendNotification(hello, { session });
  }, port);
  await server.start();
  return { server, record };
}

// ─── the client: the reconnect pattern ───────────────────────────────────────────────────────

/**
 * `toSocket(ws)` for the current underlying connection of `ws`: once that connection has closed,
 * its `send` does nothing (instead of queueing for the next connection), and its `dispose` does
 * not close `ws` for good.
 */
export function connectionSocket(ws: ResilientWebSocket): IWebSocket {
  const socket = toSocket(ws);
  let open = true;
  ws.addEventListener('close', () => (open = false), { once: true });
  return {
    ...socket,
    send: (content) => {
      if (open) ws.send(content);
    },
    dispose: () => {},
  };
}

/** What {@link bindJsonRpc} returns. */
export interface JsonRpcBinding {
  /** The MessageConnection of the open connection, if any. */
  readonly current: MessageConnection | undefined;
  /** MessageConnections made so far (one per underlying connection). */
  readonly made: number;
  /** The current MessageConnection, or the next one; rejects if `ws` closes for good first. */
  ready(): Promise<MessageConnection>;
}

/**
 * One MessageConnection per underlying connection of `ws`: made (with `setup` run on it, then
 * `listen()`) on every `open`, disposed when it closes.
 */
export function bindJsonRpc(ws: ResilientWebSocket, setup: (rpc: MessageConnection) => void): JsonRpcBinding {
  let current: MessageConnection | undefined;
  let made = 0;
  let waiters: { resolve: (rpc: MessageConnection) => void; reject: (error: Error) => void }[] = [];
  ws.addEventListener('open', () => {
    const socket = connectionSocket(ws);
    const rpc = createMessageConnection(new WebSocketMessageReader(socket), new WebSocketMessageWriter(socket));
    setup(rpc);
    rpc.onClose(() => {
      rpc.dispose(); // rejects its pending requests
      if (current === rpc) current = undefined;
    });
    rpc.listen();
    current = rpc;
    made++;
    for (const waiter of waiters.splice(0)) waiter.resolve(rpc);
  });
  ws.addEventListener('close', () => {
    if (ws.readyState !== ResilientWebSocket.CLOSED) return; // it reconnects
    for (const waiter of waiters.splice(0)) waiter.reject(new Error('the WebSocket was closed'));
  });
  return {
    get current() {
      return current;
    },
    get made() {
      return made;
    },
    ready() {
      if (current) return Promise.resolve(current);
      if (ws.readyState === ResilientWebSocket.CLOSED) return Promise.reject(new Error('the WebSocket was closed'));
      return new Promise((resolve, reject) => {
        waiters = [...waiters, { resolve, reject }];
      });
    },
  };
}

// ─── the scenario ────────────────────────────────────────────────────────────────────────────

/** Options of {@link runJsonRpcExample}. */
export interface JsonRpcExampleOptions {
  /** Where the timeline goes, line by line. @default no output */
  readonly log?: (line: string) => void;
  /** The server's port. @default 0 (a free port) */
  readonly port?: number;
  /** How long the server stays down, in ms. @default 600 */
  readonly outage?: number;
}

/** What {@link runJsonRpcExample} saw. */
export interface JsonRpcExampleResult {
  readonly url: string;
  /** Answers before the restart: add(2, 3), echo('hello'). */
  readonly before: { readonly sum: number; readonly echo: string };
  /** divide(1, 0): the server's ResponseError, as the client got it. */
  readonly error: { readonly code: number; readonly message: string };
  /** The error the request in flight during the crash was rejected with (its code). */
  readonly inFlight: number | undefined;
  /** Answers after the restart: add(40, 2), echo('back'). */
  readonly after: { readonly sum: number; readonly echo: string };
  /** `server/hello` sessions the client got (server → client notifications). */
  readonly hellos: readonly number[];
  /** `client/log` notifications the server got (client → server), as `#session text`. */
  readonly logs: readonly string[];
  /** MessageConnections the client made; `open` events of the socket. */
  readonly connections: number;
  /** From the crash to the new MessageConnection, in ms. */
  readonly recoveryMs: number;
  /** Connections the server held after recovery. */
  readonly serverConnectionsAfterRecovery: number;
  /** How the server saw the last connection end (the client's `close()`). */
  readonly finalClose: { readonly code: number; readonly reason: string } | undefined;
  /** The timeline, as logged. */
  readonly timeline: readonly string[];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs the whole scenario and shuts everything down. */
export async function runJsonRpcExample(options: JsonRpcExampleOptions = {}): Promise<JsonRpcExampleResult> {
  const started = performance.now();
  const timeline: string[] = [];
  const say = (who: string, line: string) => {
    const entry = `${String(Math.round(performance.now() - started)).padStart(5)} ms  ${who.padEnd(6)}  ${line}`;
    timeline.push(entry);
    options.log?.(entry);
  };

  const { server, record } = await startJsonRpcServer(options.port ?? 0);
  say('server', `JSON-RPC server on ${server.url}`);
  const ws = new ResilientWebSocket(server.url, undefined, { maxDelay: 400, ceiling: 3 });
  try {
    const hellos: number[] = [];
    let connected = false;
    ws.addEventListener('open', () => (connected = true));
    ws.addEventListener('close', ({ code }) => {
      if (ws.readyState === ResilientWebSocket.CLOSED) return;
      // A `close` for the lost connection, and one for every refused attempt (as a browser's WebSocket fires them).
      say(
        'client',
        connected ? `connection lost (${code}): its JSON-RPC connection disposed` : `attempt refused (${code})`,
      );
      connected = false;
    });
    ws.addEventListener('reconnecting', (event) => {
      const { attempt, delay } = event.detail;
      say('client', `reconnecting: attempt ${attempt} in ${Math.round(delay)} ms`);
    });
    const rpc = bindJsonRpc(ws, (connection) => {
      connection.onNotification(hello, ({ session }) => {
        hellos.push(session);
        say('client', `← server/hello (session ${session})`);
      });
    });

    const first = await rpc.ready();
    say('client', `open: JSON-RPC connection ${rpc.made}`);
    const [sum, echoed] = await Promise.all([first.sendRequest(add, { a: 2, b: 3 }), first.sendRequest(echo, 'hello')]);
    say('client', `add(2, 3) = ${sum}, echo('hello') = '${echoed}'`);
    const error = await first.sendRequest(divide, { a: 1, b: 0 }).then(
      () => ({ code: 0, message: 'no error' }),
      (thrown: ResponseError<unknown>) => ({ code: thrown.code, message: thrown.message }),
    );
    say('client', `divide(1, 0) rejected: ${error.code} ${error.message}`);
    await first.sendNotification(log, { text: 'before the restart' });

    const inFlight = first.sendRequest(longRunning).then(
      () => undefined,
      (thrown: ResponseError<unknown>) => thrown.code,
    );
    await sleep(50);
    const crashedAt = performance.now();
    say('server', 'crash: clients cut, port closed');
    await server.crash();
    const inFlightCode = await inFlight;
    say(
      'client',
      `longRunning in flight rejected: ${inFlightCode === ErrorCodes.PendingResponseRejected ? 'PendingResponseRejected' : inFlightCode}`,
    );
    await sleep(options.outage ?? 600);
    await server.start();
    say('server', `back on the same port (${server.port})`);

    const second = await rpc.ready();
    const recoveryMs = Math.round(performance.now() - crashedAt);
    say('client', `open: JSON-RPC connection ${rpc.made}, ${recoveryMs} ms after the crash`);
    const [sumAfter, echoAfter] = await Promise.all([
      second.sendRequest(add, { a: 40, b: 2 }),
      second.sendRequest(echo, 'back'),
    ]);
    say('client', `add(40, 2) = ${sumAfter}, echo('back') = '${echoAfter}'`);
    await second.sendNotification(log, { text: 'after the restart' });
    await second.sendRequest(echo, 'sync'); // the notification was read before this answer
    const serverConnectionsAfterRecovery = server.clients.size;
    say('server', `holds ${serverConnectionsAfterRecovery} connection(s); logs: ${record.logs.join(', ')}`);

    ws.close(1000, 'example done');
    const session = record.sessions;
    for (let waited = 0; !record.closes.has(session) && waited < 2_000; waited += 10) await sleep(10);
    const finalClose = record.closes.get(session);
    say('server', `session ${session} closed: ${finalClose?.code} ${finalClose?.reason}`);

    return {
      url: server.url,
      before: { sum, echo: echoed },
      error,
      inFlight: inFlightCode,
      after: { sum: sumAfter, echo: echoAfter },
      hellos,
      logs: [...record.logs],
      connections: rpc.made,
      recoveryMs,
      serverConnectionsAfterRecovery,
      finalClose,
      timeline,
    };
  } finally {
    ws.close();
    await server.crash();
  }
}

/** Whether this module is the script being run (not imported by a test). */
function isMain(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  const result = await runJsonRpcExample({ port: portFrom('PORT', 0), log: (line) => console.log(line) });
  console.log(
    `\n${result.connections} JSON-RPC connections over one ResilientWebSocket; recovered ${result.recoveryMs} ms after the crash.`,
  );
}
