import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
// One copy of graphql for us and graphql-ws: vitest.config.ts aliases it to its CommonJS build, as Node resolves it.
import { GraphQLInt, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { type Client, type ClientOptions, createClient, type FormattedExecutionResult } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { toRetryWait, truncatedBinaryExponential } from '../../src/backoff/index.js';
import { ResilientWebSocket } from '../../src/node.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

// graphql-ws reconnects by itself: it takes a plain WebSocket class and our backoff as its
// `retryWait`. A real graphql-ws server (ws, 127.0.0.1) goes down and comes back on the same port.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** What the server pushes to every `ticks` subscriber; `return()` (client gone) ends it at once. */
class Feed {
  readonly #subscribers = new Set<(value: number) => void>();

  get subscribers(): number {
    return this.#subscribers.size;
  }

  publish(value: number): void {
    for (const push of this.#subscribers) push(value);
  }

  subscribe(): AsyncIterableIterator<number> {
    const queue: number[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    const push = (value: number) => {
      queue.push(value);
      wake?.();
    };
    this.#subscribers.add(push);
    const end = async (): Promise<IteratorResult<number>> => {
      done = true;
      this.#subscribers.delete(push);
      wake?.();
      return { done: true, value: undefined };
    };
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      async next() {
        while (!done && queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        return done ? { done: true, value: undefined } : { done: false, value: queue.shift() as number };
      },
      return: end,
    };
  }
}

/** A graphql-ws server whose outage cuts every client (no close frame) and closes the port; `start()` reopens it. */
class GraphqlServer {
  readonly feed = new Feed();
  readonly schema = new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: { hello: { type: GraphQLString, resolve: () => 'world' } },
    }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: { ticks: { type: GraphQLInt, subscribe: () => this.feed.subscribe(), resolve: (value) => value } },
    }),
  });
  port = 0;
  /** Connections accepted since the last `start()`. */
  accepted = 0;
  #http: Server | undefined;
  #wss: WebSocketServer | undefined;

  get url(): string {
    return `ws://127.0.0.1:${this.port}/graphql`;
  }

  /** The WebSocket connections the server holds now. */
  get connections(): number {
    return this.#wss?.clients.size ?? 0;
  }

  async start(): Promise<void> {
    const http = createServer();
    const wss = new WebSocketServer({ server: http });
    wss.on('connection', () => {
      this.accepted += 1;
    });
    useServer({ schema: this.schema }, wss);
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(this.port, '127.0.0.1', () => resolve());
    });
    [this.#http, this.#wss, this.accepted] = [http, wss, 0];
    this.port = (http.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const [http, wss] = [this.#http, this.#wss];
    [this.#http, this.#wss] = [undefined, undefined];
    if (!http || !wss) return;
    for (const client of wss.clients) client.terminate();
    await new Promise((resolve) => wss.close(resolve));
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  }
}

async function startServer(): Promise<GraphqlServer> {
  const server = cleanup.add(new GraphqlServer(), (s) => s.stop());
  await server.start();
  return server;
}

/** A graphql-ws client that keeps its connection (lazy: false) and retries every loss, disposed after the test. */
function client(server: GraphqlServer, options: Partial<ClientOptions> = {}): Client {
  const made = createClient({
    url: server.url,
    webSocketImpl: WebSocket,
    retryWait: toRetryWait(truncatedBinaryExponential({ maxDelay: 400, ceiling: 3 })),
    shouldRetry: () => true,
    retryAttempts: 1_000,
    lazy: false,
    onNonLazyError: (error) => {
      throw new Error(`graphql-ws gave up: ${String(error)}`);
    },
    ...options,
  });
  // dispose() waits for a connection in progress (and rejects if it fails): bounded, never fatal.
  return cleanup.add(made, (c) =>
    Promise.race([
      Promise.resolve()
        .then(() => c.dispose())
        .catch(() => undefined),
      sleep(1_000),
    ]),
  );
}

type Result = FormattedExecutionResult<Record<string, unknown>, unknown>;

/** The single result of a query, within 2 s. */
function query(c: Client, source: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    let result: Result | undefined;
    const timer = setTimeout(() => reject(new Error(`no result for ${source} within 2 s`)), 2_000);
    c.subscribe(
      { query: source },
      {
        next: (value) => {
          result = value;
        },
        error: (error) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
        },
        complete: () => {
          clearTimeout(timer);
          resolve(result as Result);
        },
      },
    );
  });
}

/** Subscribes to `ticks` and records what arrives; unsubscribed after the test. */
function subscribeTicks(c: Client) {
  const seen = { values: [] as unknown[], errors: [] as unknown[], completed: false };
  const unsubscribe = c.subscribe(
    { query: 'subscription { ticks }' },
    {
      next: (result) => seen.values.push(result.data?.ticks),
      error: (error) => seen.errors.push(error),
      complete: () => {
        seen.completed = true;
      },
    },
  );
  cleanup.add(unsubscribe, (u) => u());
  return seen;
}

/** An outage of `ms`: clients cut, port closed, then the server listens again on the same port. */
async function outage(server: GraphqlServer, ms: number): Promise<void> {
  const port = server.port;
  await server.stop();
  await sleep(ms);
  await server.start();
  expect(server.port).toBe(port);
}

describe('graphql-ws with toRetryWait(truncatedBinaryExponential())', () => {
  it('answers queries, and after an outage the subscription delivers again over one connection', async () => {
    const server = await startServer();
    const c = client(server);

    expect(await query(c, '{ hello }')).toEqual({ data: { hello: 'world' } });
    const ticks = subscribeTicks(c);
    await waitFor(() => server.feed.subscribers === 1, 2_000, 'the subscription to reach the server');
    server.feed.publish(1);
    await waitFor(() => ticks.values.length === 1, 2_000, 'the first tick');
    expect(server.connections).toBe(1);

    await outage(server, 800);
    await waitFor(() => server.feed.subscribers === 1, 3_000, 'the subscription to be made again', {
      describe: () => ({ connections: server.connections, accepted: server.accepted, ticks }),
    });
    server.feed.publish(2);
    await waitFor(() => ticks.values.length === 2, 2_000, 'a tick after the outage');
    expect(await query(c, '{ hello }')).toEqual({ data: { hello: 'world' } });

    expect(ticks).toEqual({ values: [1, 2], errors: [], completed: false });
    expect([server.connections, server.accepted]).toEqual([1, 1]);
    // A socket left reconnecting would show up within a few waits (each at most 400 ms).
    await sleep(1_200);
    expect([server.connections, server.accepted, server.feed.subscribers]).toEqual([1, 1, 1]);
  });

  it('waits exactly the policy’s delays, and starts the policy over for each new outage', async () => {
    const server = await startServer();
    // random 0.5 pins every delay to the middle of its window: 100, 200, 400, 400 … ms → 50, 100, 200, 200 …
    const tbeb = truncatedBinaryExponential({ maxDelay: 400, ceiling: 3, random: () => 0.5 });
    const drawn: number[] = [];
    let resets = 0;
    const policy = {
      next: () => {
        const delay = tbeb.next();
        drawn.push(delay);
        return delay;
      },
      reset: () => {
        resets += 1;
        tbeb.reset();
      },
    };
    const wait = toRetryWait(policy);
    const waits: { retries: number; took: number }[] = [];
    const c = client(server, {
      retryWait: async (retries) => {
        const started = performance.now();
        await wait(retries);
        waits.push({ retries, took: performance.now() - started });
      },
    });
    const ticks = subscribeTicks(c);
    await waitFor(() => server.feed.subscribers === 1, 2_000, 'the subscription to reach the server');
    expect([drawn, resets]).toEqual([[], 0]);

    const expected = (count: number) => [50, 100, 200, 200, 200, 200, 200, 200].slice(0, count);
    for (const round of [1, 2]) {
      const before = waits.length;
      await outage(server, 500);
      await waitFor(() => server.feed.subscribers === 1, 3_000, `the subscription back after outage ${round}`);
      const run = waits.slice(before);
      // 50 + 100 + 200 ms of waits fit in a 500 ms outage; the attempt after the fourth wait can connect.
      expect(run.length).toBeGreaterThanOrEqual(3);
      expect(run.map((w) => w.retries)).toEqual(run.map((_, i) => i));
      expect(drawn.slice(before)).toEqual(expected(run.length));
      for (const [i, w] of run.entries()) {
        expect(w.took).toBeGreaterThanOrEqual((expected(run.length)[i] as number) - 2);
        expect(w.took).toBeLessThan((expected(run.length)[i] as number) + 300);
      }
      expect(resets).toBe(round);
    }
    server.feed.publish(7);
    await waitFor(() => ticks.values.length === 1, 2_000, 'a tick after two outages');
    expect([server.connections, ticks.errors]).toEqual([1, []]);
  });
});

describe('graphql-ws with webSocketImpl: ResilientWebSocket (what not to do)', () => {
  it('leaves the sockets graphql-ws abandoned reconnecting: one client, several server connections', async () => {
    const server = await startServer();
    const made: ResilientWebSocket[] = [];
    let closing = false;
    // graphql-ws calls `new webSocketImpl(url, protocol)`; a fast backoff keeps the test short.
    class TrackedWebSocket extends ResilientWebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { maxDelay: 200, ceiling: 2 });
        made.push(this);
        if (closing) this.close();
      }
    }
    // Closes every socket after the client is disposed (cleanups run newest first).
    cleanup.add(made, (sockets) => {
      closing = true;
      for (const socket of sockets) socket.close();
    });
    const c = client(server, { webSocketImpl: TrackedWebSocket });
    subscribeTicks(c);
    await waitFor(() => server.feed.subscribers === 1, 2_000, 'the subscription to reach the server');
    expect([server.connections, made.length]).toEqual([1, 1]);

    await outage(server, 800);
    await sleep(1_500);
    // graphql-ws made a new socket per retry and closed none of the old ones; each of those went on
    // reconnecting by itself (and its failed attempts' close events made graphql-ws retry again).
    // Every socket it ever made is now connected: one client, several server connections.
    expect(made.length).toBeGreaterThan(2);
    expect(made[0]?.readyState).toBe(WebSocket.OPEN);
    expect(made.filter((socket) => socket.readyState === WebSocket.OPEN)).toHaveLength(made.length);
    expect(server.connections).toBe(made.length);

    // dispose() closes graphql-ws's current socket only: the abandoned ones stay connected.
    await c.dispose();
    await sleep(300);
    expect(server.connections).toBe(made.length - 1);
    expect(made.filter((socket) => socket.readyState === WebSocket.OPEN)).toHaveLength(made.length - 1);
  });
});
