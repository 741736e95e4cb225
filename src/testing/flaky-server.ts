/**
 * A scripted flaky WebSocket server for deterministic reconnect tests, built on mock-socket: no
 * network, no ports, and every event on mock-socket's own 4 ms timers, so fake timers drive it.
 *
 * mock-socket is an optional peer dependency, loaded when the first FlakyServer is created (not
 * when `resilient-socket/testing` is imported), so the rest of the kit works without it. Only its
 * types are imported here (`server` and `clients` are mock-socket's own `Server` and `Client`).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { Client, Server } from 'mock-socket';
import type { Data } from '../data.js';
import type { WebSocketConstructorLike } from '../transports/websocket-like.js';
import { assertKnownKeys, assertOptionsObject } from '../validation.js';
import {
  flakyServerAnswers,
  noServerHint,
  noteFlakySocket,
  registerFlakyServer,
  unregisterFlakyServer,
} from './flaky-registry.js';

/**
 * What the server does with one connection attempt:
 * - `'accept'`: open the connection;
 * - `'refuse'`: fail it (the client sees `error` then `close`, as for a refused TCP connection);
 * - `'silent'`: open it, then never answer: no replies, no echo (a dead link as the client sees it);
 * - `{ close, reason }`: open it, then close it at once with that code (e.g. 1013 "try again later").
 */
export type AttemptOutcome =
  | 'accept'
  | 'refuse'
  | 'silent'
  | {
      /** The close code to close the fresh connection with. */
      readonly close: number;
      /** The close reason. @default '' */
      readonly reason?: string;
    };

/** Options of {@link FlakyServer}. */
export interface FlakyServerOptions {
  /**
   * The URL the server answers on. mock-socket keeps one server per URL in a module-wide registry,
   * so two live servers need two URLs.
   * @default a fresh `ws://flaky-<n>.test/`
   * @example
   * ```ts
   * new FlakyServer({ url: 'ws://chat.test/room/1' })
   * ```
   */
  url?: string;
  /**
   * Send every message back to the connection it came from.
   * @default false
   * @example
   * ```ts
   * new FlakyServer({ echo: true })
   * ```
   */
  echo?: boolean;
  /**
   * Answers a message: return what to send back to that connection, or `undefined` for nothing.
   * Runs after `echo`. Use it for app-level pings: `reply: (m) => (m === 'ping' ? 'pong' : undefined)`.
   * @default undefined
   * @example
   * ```ts
   * new FlakyServer({ reply: (message) => (message === 'ping' ? 'pong' : undefined) })
   * ```
   */
  reply?: (message: Data, connection: number) => Data | undefined;
  /**
   * Outcomes of the next connection attempts, in order; once used up, attempts get {@link FlakyServer.mode}.
   * @default []
   * @example
   * ```ts
   * new FlakyServer({ script: ['refuse', 'refuse', { close: 1013, reason: 'try later' }, 'accept'] })
   * ```
   */
  script?: readonly AttemptOutcome[];
}

/** What the kit takes from mock-socket, built once by the first `new FlakyServer()`. */
interface MockSocketKit {
  readonly Server: typeof Server;
  readonly WebSocket: WebSocketConstructorLike;
}

/** Every option of `FlakyServer`: any other key is refused (a misspelling would otherwise be ignored). */
const FLAKY_SERVER_OPTIONS: readonly (keyof FlakyServerOptions)[] = ['url', 'echo', 'reply', 'script'];

const INSTALL_HINT = 'FlakyServer needs the `mock-socket` package, which is not installed: run `npm i -D mock-socket`';

let kit: MockSocketKit | undefined;
let nextId = 0;

/** Marks a mock socket that opened (a symbol, not a #field: mock-socket hands out Proxies of its sockets). */
const OPENED = /* @__PURE__ */ Symbol('opened');

/**
 * Loads mock-socket: beside this file first (where a peer dependency is installed), then from the
 * working directory (an app whose test files were bundled away from its node_modules), as for `ws`.
 * @throws Error saying to install it when it is in neither place.
 */
function loadMockSocket(): typeof import('mock-socket') {
  let missing: unknown;
  for (const base of [import.meta.url, `${pathToFileURL(process.cwd()).href}/`]) {
    try {
      return createRequire(base)('mock-socket') as typeof import('mock-socket');
    } catch (error) {
      // Only "mock-socket itself is not there" falls through; a broken install is reported as it is.
      if (!isMissing(error, 'mock-socket')) throw error;
      missing = error;
    }
  }
  throw new Error(INSTALL_HINT, { cause: missing });
}

function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${name}'`);
}

/**
 * mock-socket's classes, the WebSocket one with real-world close events: a connection that never
 * opened (refused, or no server) closes with 1006 and `wasClean: false`, as a browser reports a
 * failed TCP connection (mock-socket says 1000, clean), and an opened one is clean exactly when
 * its code is not 1006 (mock-socket calls every server-chosen code unclean).
 */
function mockSocket(): MockSocketKit {
  if (kit) return kit;
  const { Server, WebSocket: MockWebSocket } = loadMockSocket();
  class FlakyWebSocket extends MockWebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      noteFlakySocket(url);
    }

    override dispatchEvent(event: Event, ...rest: unknown[]): boolean {
      const self = this as unknown as Record<symbol, boolean | undefined>;
      if (event.type === 'open') self[OPENED] = true;
      else if (event.type === 'error' && self[OPENED] !== true && !flakyServerAnswers(this.url)) {
        // mock-socket found no server at this URL: say why, as the error a socket reports.
        (event as unknown as { error?: unknown }).error = new Error(noServerHint(this.url));
      } else if (event.type === 'close') {
        const close = event as unknown as { code: number; wasClean: boolean };
        if (self[OPENED] !== true) close.code = 1006;
        close.wasClean = close.code !== 1006;
      }
      return (MockWebSocket.prototype.dispatchEvent as (this: unknown, ...args: unknown[]) => boolean).call(
        this,
        event,
        ...rest,
      );
    }
  }
  kit = { Server, WebSocket: FlakyWebSocket as unknown as WebSocketConstructorLike };
  return kit;
}

/**
 * A mock WebSocket server that fails on command. Pass {@link FlakyServer.WebSocket} as the
 * socket's `WebSocket` option:
 *
 * ```ts
 * const server = new FlakyServer({ echo: true });
 * const socket = new ResilientSocket(server.url, { WebSocket: server.WebSocket });
 * await until(socket, 'open', { advance: vi.advanceTimersByTimeAsync });
 * server.drop();            // every connection lost, no close frame (1006)
 * server.down();            // and new attempts are refused, until…
 * server.up();
 * ```
 *
 * Everything it does is recorded: `attempts`, `connections`, `received`.
 */
export class FlakyServer {
  /** The URL to connect to. */
  readonly url: string;
  /** The mock-socket WebSocket class that talks to this server; pass it as the `WebSocket` option. */
  readonly WebSocket: WebSocketConstructorLike;
  /** The underlying mock-socket server, for anything this class does not cover. */
  readonly server: Server;
  /**
   * What unscripted attempts get: `'accept'` while up, `'refuse'` after {@link FlakyServer.down},
   * `'silent'` after {@link FlakyServer.silence}; the latest of `up`, `down` and `silence` wins.
   * Scripted outcomes ({@link FlakyServer.script}) come first. May be set directly.
   */
  mode: 'accept' | 'refuse' | 'silent' = 'accept';
  /** Outcomes of the next attempts, consumed from the front (see {@link FlakyServerOptions.script}). */
  readonly script: AttemptOutcome[];
  /** Every message received from any client, in order. */
  readonly received: Data[] = [];
  /** Connection attempts seen (accepted or not). */
  attempts = 0;
  /** Connections accepted. */
  connections = 0;

  readonly #echo: boolean;
  readonly #reply: FlakyServerOptions['reply'];
  readonly #live = new Map<Client, { id: number; silent: boolean }>();
  #pending: AttemptOutcome = 'accept';
  #stopped = false;
  /** This server's entry in the registry `until` and `waitFor` consult (see flaky-registry.ts). */
  readonly #registration: object;

  /**
   * @throws TypeError when `options` is not an object or has an unknown key; Error when
   *   mock-socket is not installed (the message says how to install it).
   */
  constructor(options: FlakyServerOptions = {}) {
    assertOptionsObject('options', options);
    assertKnownKeys('', options, FLAKY_SERVER_OPTIONS, 'FlakyServer');
    const { Server, WebSocket } = mockSocket();
    this.WebSocket = WebSocket;
    nextId += 1;
    this.url = options.url ?? `ws://flaky-${nextId}.test/`;
    this.#echo = options.echo ?? false;
    this.#reply = options.reply;
    this.script = [...(options.script ?? [])];
    // mock-socket asks verifyClient right before it opens a connection, and dispatches
    // `connection` right after: the outcome decided here is the one #onConnection applies.
    this.server = new Server(this.url, {
      mock: false,
      verifyClient: () => {
        this.attempts += 1;
        this.#pending = this.script.shift() ?? this.mode;
        return this.#pending !== 'refuse';
      },
    });
    this.server.on('connection', (client) => this.#onConnection(client));
    this.#registration = registerFlakyServer(this.url, () => this.attempts);
  }

  /** Server-side ends of the open connections, oldest first. */
  get clients(): Client[] {
    return [...this.#live.keys()];
  }

  /** How many connections are open. */
  get openConnections(): number {
    return this.#live.size;
  }

  /** Sends `data` to every open connection that is not silenced. */
  send(data: Data): void {
    for (const [client, state] of this.#live) if (!state.silent) client.send(data as string);
  }

  /**
   * Loses every open connection abruptly: close code 1006, no close frame (a crash, a cable
   * pulled). They leave {@link FlakyServer.clients} at once; the clients hear of it 4 ms later.
   */
  drop(): void {
    this.close(1006);
  }

  /** Closes every open connection with a close frame carrying `code` and `reason` (they leave `clients` at once). */
  close(code = 1000, reason = ''): void {
    const clients = this.clients;
    this.#live.clear();
    for (const client of clients) client.close({ code, reason, wasClean: code !== 1006 });
  }

  /** Goes down: drops every connection and refuses new attempts until {@link FlakyServer.up}. */
  down(): void {
    this.mode = 'refuse';
    this.drop();
  }

  /** Back to normal: accepts new attempts and answers open connections again (ends `down` and `silence`). */
  up(): void {
    this.mode = 'accept';
    for (const state of this.#live.values()) state.silent = false;
  }

  /**
   * Goes silent: open connections stay open but get nothing more (no replies, no echo, no
   * {@link FlakyServer.send}), and new ones are accepted silent too, until {@link FlakyServer.up}
   * or {@link FlakyServer.speak}.
   */
  silence(): void {
    this.mode = 'silent';
    for (const state of this.#live.values()) state.silent = true;
  }

  /** The same as {@link FlakyServer.up}; reads better after {@link FlakyServer.silence}. */
  speak(): void {
    this.up();
  }

  /** Removes the server for good: connections are dropped and the URL is free again. Idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.mode = 'refuse';
    this.drop();
    this.server.stop();
    unregisterFlakyServer(this.#registration);
  }

  #onConnection(client: Client): void {
    const outcome = this.#pending;
    this.#pending = this.mode === 'refuse' ? 'accept' : this.mode;
    this.connections += 1;
    const state = { id: this.connections, silent: outcome === 'silent' };
    this.#live.set(client, state);
    client.on('close', () => {
      this.#live.delete(client);
    });
    client.on('message', (message) => {
      this.received.push(message);
      if (state.silent) return;
      if (this.#echo) client.send(message);
      const answer = this.#reply?.(message, state.id);
      if (answer !== undefined) client.send(answer as string);
    });
    if (typeof outcome === 'object')
      client.close({ code: outcome.close, reason: outcome.reason ?? '', wasClean: true });
  }
}
