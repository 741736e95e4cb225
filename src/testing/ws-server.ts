/**
 * A controllable, real `ws` WebSocket server on 127.0.0.1, for integration tests (ours and yours).
 * `ws` is loaded on the first `start()`, so the rest of the test kit works without it (as it works
 * without `mock-socket`, which only `FlakyServer` loads).
 *
 * - `start()` listens on an ephemeral port the first time and on the same port after `stop()`,
 *   so a client can be shown a server restart.
 * - `stop()` cuts every client abruptly (no close frame), destroys half-open upgrades and closes
 *   the listener; it resolves once all of that is done.
 * - What happens to each upgrade request is decided by `behaviour` (a value, or a function of the
 *   upgrade so a test can script "refuse, then accept"): accept (echo or not, answering pings or
 *   not), accept then close at once with a code, or refuse with an HTTP status and Retry-After.
 * - Live controls: `closeAll(code, reason)` closes every client with a close frame, `flood(n, size)`
 *   sends a burst to every client, `stall` holds upgrades unanswered.
 * - Everything the server saw is recorded: upgrades (URL, headers, time), accepted connections,
 *   messages received in order, pings, and client disconnects.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { WebSocket, WebSocketServer } from 'ws';
import { loadWs } from '../transports/ws/load-ws.js';
import { assertKnownKeys, describeReceived, describeValue } from '../validation.js';
import { listen, withTimeout } from './listen.js';

/** One accepted connection, server side: a `ws` WebSocket. */
export interface ServerConnection {
  /** The ws `readyState` (1 open, 2 closing, 3 closed). */
  readonly readyState: number;
  /** Sends a message to this client. */
  send(data: string | ArrayBufferView | ArrayBuffer): void;
  /** Closes it with a close frame. */
  close(code?: number, reason?: string): void;
  /** Cuts it abruptly: the TCP connection is destroyed, no close frame. */
  terminate(): void;
}

/** What the server does with one upgrade request. */
export type Behaviour =
  | {
      /** Complete the upgrade and keep the connection. */
      readonly kind: 'accept';
      /** Send every received message back. @default false */
      readonly echo?: boolean;
      /** Answer protocol pings (ws `autoPong`). `false` makes the link look dead. @default true */
      readonly answerPings?: boolean;
    }
  | {
      /** Complete the upgrade, then close at once with `code`. */
      readonly kind: 'accept-then-close';
      /** The close code. */
      readonly code: number;
      /** The close reason. @default '' */
      readonly reason?: string;
    }
  | {
      /** Read the upgrade request and never answer it (a stalled handshake); the socket stays open. */
      readonly kind: 'stall';
    }
  | {
      /** Answer the upgrade with a plain HTTP response and drop the TCP connection. */
      readonly kind: 'refuse';
      /** The HTTP status, e.g. 401, 429 or 503. */
      readonly status: number;
      /** Value of a `Retry-After` header (seconds or an HTTP-date), if any. */
      readonly retryAfter?: string | number;
    };

/** One upgrade request the server saw (accepted or not). */
export interface UpgradeRecord {
  /** 0-based, over the server's whole life (across restarts). */
  readonly index: number;
  /** The request target, e.g. `/?token=3`. */
  readonly url: string;
  /** The request headers (lower-case names). */
  readonly headers: IncomingHttpHeaders;
  /** `performance.now()` when the request arrived. */
  readonly at: number;
  /** What the server did with it. */
  readonly kind: Behaviour['kind'];
}

/** One accepted connection that ended. */
export interface DisconnectRecord {
  /** The close code the server saw (1006 when the client vanished). */
  readonly code: number;
  /** The close reason. */
  readonly reason: string;
  /** `performance.now()` when it ended. */
  readonly at: number;
}

/** The server's behaviour: one for every upgrade, or a function deciding per upgrade. */
export type BehaviourSetting = Behaviour | ((upgrade: Omit<UpgradeRecord, 'kind'>) => Behaviour);

/** The keys each kind of {@link Behaviour} may have: any other key is refused (a misspelling would otherwise be ignored). */
const BEHAVIOUR_KEYS: Readonly<Record<Behaviour['kind'], readonly string[]>> = {
  accept: ['kind', 'echo', 'answerPings'],
  'accept-then-close': ['kind', 'code', 'reason'],
  stall: ['kind'],
  refuse: ['kind', 'status', 'retryAfter'],
};

/**
 * Checks a behaviour: an object with a known `kind` and only that kind's keys.
 * @throws TypeError (not an object, `kind` not a string, an unknown key), RangeError (an unknown kind)
 */
function checkBehaviour(value: unknown, name: string): Behaviour {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`Expected \`${name}\` to be a behaviour object, got ${describeReceived(value)}`);
  }
  const { kind } = value as { kind?: unknown };
  if (typeof kind !== 'string') {
    throw new TypeError(`Expected \`${name}.kind\` to be a string, got ${describeReceived(kind)}`);
  }
  const known = Object.hasOwn(BEHAVIOUR_KEYS, kind) ? BEHAVIOUR_KEYS[kind as Behaviour['kind']] : undefined;
  if (known === undefined) {
    const kinds = Object.keys(BEHAVIOUR_KEYS).join(', ');
    throw new RangeError(`Expected \`${name}.kind\` to be one of ${kinds}, got ${describeValue(kind)}`);
  }
  assertKnownKeys(name, value, known, `a '${kind}' behaviour`);
  return value as Behaviour;
}

/** Checks a behaviour setting: a function (its results are checked per upgrade) or a behaviour. */
function checkBehaviourSetting(value: unknown): BehaviourSetting {
  return typeof value === 'function' ? (value as BehaviourSetting) : checkBehaviour(value, 'behaviour');
}

/** Accept every upgrade, answer pings, echo nothing. */
export const ACCEPT: Behaviour = /* @__PURE__ */ Object.freeze({ kind: 'accept' });
/** Accept every upgrade and echo every message back. */
export const ECHO: Behaviour = /* @__PURE__ */ Object.freeze({ kind: 'accept', echo: true });

/**
 * A real ws server for integration tests:
 *
 * ```ts
 * const server = await TestWsServer.start(ECHO);
 * const socket = new ResilientSocket(server.url); // ws://127.0.0.1:<port>/
 * await server.stop();   // the client sees the connection drop…
 * await server.start();  // …and comes back on the same port
 * ```
 */
export class TestWsServer {
  /** Creates a server with `behaviour` and starts it (a bad behaviour rejects, see the constructor). */
  static async start(behaviour: BehaviourSetting = ACCEPT): Promise<TestWsServer> {
    const server = new TestWsServer(behaviour);
    await server.start();
    return server;
  }

  /** Text of every message received, in arrival order, across restarts. */
  readonly received: string[] = [];
  /** Every upgrade request, across restarts. */
  readonly upgrades: UpgradeRecord[] = [];
  /** Every accepted connection that ended (the server saw the client go away, or cut it). */
  readonly disconnects: DisconnectRecord[] = [];
  /** Protocol pings received (answered or not). */
  pings = 0;
  /** Connections accepted (upgrade completed), across restarts. */
  connections = 0;

  #port: number | undefined;
  #http: Server | undefined;
  /** Two upgrade engines, so "answer pings" can be chosen per connection (`autoPong` is per server). */
  #wss: WebSocketServer | undefined;
  #wssNoPong: WebSocketServer | undefined;
  readonly #clients = new Set<WebSocket>();
  readonly #sockets = new Set<Socket>();
  readonly #clientClosed = new Map<WebSocket, Promise<void>>();
  #behaviour: BehaviourSetting;

  /**
   * @param behaviour what to do with each upgrade: a behaviour, or a function of the upgrade
   *   returning one (checked on every upgrade; a bad result cuts that connection and throws from
   *   the server's upgrade handler, an uncaught exception the test runner reports).
   * @throws TypeError for a behaviour that is not an object, whose `kind` is not a string, or with
   *   a key its kind does not have (``Unknown option `behaviour.answerPing`: did you mean
   *   `behaviour.answerPings`?``); RangeError for an unknown `kind`.
   */
  constructor(behaviour: BehaviourSetting = ACCEPT) {
    this.#behaviour = checkBehaviourSetting(behaviour);
  }

  /** Decides each upgrade; may be changed at any time (it applies to the next upgrade), and is checked as in the constructor. */
  get behaviour(): BehaviourSetting {
    return this.#behaviour;
  }

  /** Replaces the behaviour (for the next upgrades), checked as in the constructor. */
  set behaviour(value: BehaviourSetting) {
    this.#behaviour = checkBehaviourSetting(value);
  }

  /** The port (known after the first `start()`). */
  get port(): number {
    if (this.#port !== undefined) return this.#port;
    throw new Error('TestWsServer: start() it first (`await server.start()`, or `await TestWsServer.start()`)');
  }

  /**
   * The URL to connect to, `ws://127.0.0.1:<port>/`: a string, as `FlakyServer.url` is, ready for
   * a socket (`new ResilientSocket(server.url)`); the same across restarts. Other paths: {@link TestWsServer.urlFor}.
   */
  get url(): string {
    return this.urlFor('/');
  }

  /**
   * The URL of `path` (a path, or a query on `/`): `server.urlFor('/feed?x=1')` is
   * `ws://127.0.0.1:<port>/feed?x=1`. Bound to its server (`paths.map(server.urlFor)` works); as a
   * URL provider, wrap it: `() => server.urlFor('/feed?token=' + token)`.
   * @throws TypeError for a `path` that is not a string, RangeError for one that starts with neither `/` nor `?`.
   */
  readonly urlFor = (path: string): string => {
    const name = '`path` of TestWsServer.urlFor(path)';
    if (typeof path !== 'string') {
      const fix = 'For the root, use `server.url`; as a URL provider, pass `() => server.urlFor("/feed")`';
      throw new TypeError(`Expected ${name} to be a string such as "/feed", got ${describeReceived(path)}. ${fix}`);
    }
    if (!/^[/?]/.test(path)) {
      const got = `got ${describeValue(path)} (did you mean ${describeValue(`/${path}`)}?)`;
      throw new RangeError(`Expected ${name} to start with "/" or "?", ${got}`);
    }
    return `ws://127.0.0.1:${this.port}${path.startsWith('?') ? '/' : ''}${path}`;
  };

  /** Whether the server is listening now (between `start()` and `stop()`). */
  get listening(): boolean {
    return this.#http?.listening === true;
  }

  /** Accepted connections still open, as the server sees them. */
  get openClients(): number {
    return this.#clients.size;
  }

  /** The live server-side sockets (to send to clients, close them, …). */
  get clients(): readonly ServerConnection[] {
    return [...this.#clients];
  }

  /**
   * Listens on 127.0.0.1: an ephemeral port the first time, the same port afterwards.
   * @returns the port.
   */
  async start(): Promise<number> {
    if (this.#http) throw new Error('TestWsServer: already started');
    const http = createServer((_request, response) => {
      response.writeHead(426, { 'content-type': 'text/plain', connection: 'close' }).end('WebSocket only');
    });
    http.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => this.#sockets.delete(socket));
    });
    http.on('upgrade', (request, socket, head) => this.#onUpgrade(request, socket as Socket, head));
    const Engine = wsServerClass();
    this.#wss = new Engine({ noServer: true, clientTracking: false });
    this.#wssNoPong = new Engine({ noServer: true, clientTracking: false, autoPong: false });
    this.#http = http;
    try {
      this.#port = await listen(http, this.#port ?? 0);
    } catch (error) {
      this.#http = undefined;
      throw error;
    }
    return this.#port;
  }

  /** Cuts every client abruptly (TCP destroyed, no close frame) and closes the listener. Idempotent. */
  async stop(): Promise<void> {
    const http = this.#http;
    if (!http) return;
    this.#http = undefined;
    const closed = [...this.#clientClosed.values()];
    for (const client of this.#clients) client.terminate();
    for (const socket of this.#sockets) socket.destroy();
    await Promise.all([
      new Promise<void>((resolve) => http.close(() => resolve())),
      withTimeout(Promise.all(closed), 2_000, 'server-side clients did not report close'),
    ]);
    this.#wss?.close();
    this.#wssNoPong?.close();
    this.#wss = undefined;
    this.#wssNoPong = undefined;
  }

  /** Closes every accepted client with a close frame (`code`, `reason`) and waits until they are gone. */
  async closeAll(code: number, reason = ''): Promise<void> {
    const closed = [...this.#clientClosed.values()];
    for (const client of this.#clients) client.close(code, reason);
    await withTimeout(Promise.all(closed), 2_000, 'clients did not finish closing');
  }

  /** Sends `count` text messages of `size` bytes (`flood:<i>:` then padding) to every client. */
  flood(count: number, size = 64): void {
    for (const client of this.#clients) {
      for (let i = 0; i < count; i++) {
        const head = `flood:${i}:`;
        client.send(head + 'x'.repeat(Math.max(0, size - head.length)));
      }
    }
  }

  #onUpgrade(request: IncomingMessage, socket: Socket, head: Buffer): void {
    const base = {
      index: this.upgrades.length,
      url: request.url ?? '',
      headers: request.headers,
      at: performance.now(),
    };
    const setting = this.#behaviour;
    let behaviour: Behaviour;
    try {
      behaviour = typeof setting === 'function' ? checkBehaviour(setting(base), 'behaviour(upgrade)') : setting;
    } catch (error) {
      // A behaviour function that throws or returns a bad behaviour: the connection is cut, and the
      // error surfaces from this upgrade handler (uncaught), as a test runner reports it.
      socket.destroy();
      throw error;
    }
    this.upgrades.push({ ...base, kind: behaviour.kind });

    if (behaviour.kind === 'stall') {
      // Keep the TCP connection and never answer; stop() destroys it with the others.
      return;
    }

    if (behaviour.kind === 'refuse') {
      const lines = [
        `HTTP/1.1 ${behaviour.status} ${STATUS_CODES[behaviour.status] ?? 'Unknown'}`,
        'Connection: close',
        'Content-Type: text/plain',
        'Content-Length: 0',
      ];
      if (behaviour.retryAfter !== undefined) lines.push(`Retry-After: ${behaviour.retryAfter}`);
      // Destroy once the response is flushed (what ws's own abortHandshake does).
      socket.once('finish', () => socket.destroy());
      socket.end(`${lines.join('\r\n')}\r\n\r\n`);
      return;
    }

    const engine = behaviour.kind === 'accept' && behaviour.answerPings === false ? this.#wssNoPong : this.#wss;
    if (!engine) {
      socket.destroy();
      return;
    }
    engine.handleUpgrade(request, socket, head, (ws) => this.#onConnection(ws, behaviour));
  }

  #onConnection(ws: WebSocket, behaviour: Behaviour): void {
    this.connections++;
    this.#clients.add(ws);
    this.#clientClosed.set(
      ws,
      new Promise<void>((resolve) => {
        ws.once('close', (code, reason) => {
          this.#clients.delete(ws);
          this.#clientClosed.delete(ws);
          this.disconnects.push({ code, reason: reason.toString(), at: performance.now() });
          resolve();
        });
      }),
    );
    ws.on('error', () => undefined);
    ws.on('ping', () => {
      this.pings++;
    });
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? `<binary ${Buffer.from(data as Buffer).length} bytes>` : data.toString();
      this.received.push(text);
      if (behaviour.kind === 'accept' && behaviour.echo) ws.send(data, { binary: isBinary });
    });
    if (behaviour.kind === 'accept-then-close') ws.close(behaviour.code, behaviour.reason ?? '');
  }
}

/**
 * ws's server class, found where the package finds ws for its clients (`loadWs`: ws's WebSocket
 * class carries `WebSocketServer`), with a clear error when ws is missing.
 */
function wsServerClass(): typeof WebSocketServer {
  const Engine = (loadWs() as { WebSocketServer?: typeof WebSocketServer } | undefined)?.WebSocketServer;
  if (!Engine) throw new Error('TestWsServer needs the `ws` package: npm install --save-dev ws');
  return Engine;
}
