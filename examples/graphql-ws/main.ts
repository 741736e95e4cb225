/**
 * `npm run example:graphql-ws`: a graphql-ws client that reconnects with resilient-socket's
 * backoff. graphql-ws reconnects by itself and leaves a socket behind after its close event
 * without closing it, so it gets a plain WebSocket (`ws` in Node) and the package's part is the
 * wait between attempts: `retryWait: toRetryWait(truncatedBinaryExponential(...))`.
 *
 * Everything runs in this process on 127.0.0.1: a graphql-ws server with a `ticks` subscription,
 * a client that queries and subscribes, an outage (every connection cut, the port closed) and the
 * server back on the same port. It prints a timeline, including each wait drawn from the policy,
 * and the server's connection count at the end (1: one client, one connection), then exits.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { GraphQLInt, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { createClient } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { toRetryWait, truncatedBinaryExponential, truncatedWindow } from 'resilient-socket/backoff';
import { WebSocket, WebSocketServer } from 'ws';

export interface GraphqlExampleOptions {
  /** Where the timeline goes, one line at a time. @default nowhere */
  log?: (line: string) => void;
  /** How long the server is down, in ms. @default 1500 */
  outageMs?: number;
  /** The server publishes a tick this often, in ms. @default 150 */
  tickMs?: number;
  /** The policy's random source (pin it to get the same waits every run). @default Math.random */
  random?: () => number;
}

export interface GraphqlExampleResult {
  /** The `{ hello }` query's data, before the outage and after it. */
  queries: unknown[];
  /** The ticks the subscription delivered before the outage and after it. */
  ticksBefore: number[];
  ticksAfter: number[];
  /** Each wait drawn from the policy (ms), and the window it was drawn from. */
  waits: { delay: number; window: number }[];
  /** How often the policy started over (once per outage). */
  resets: number;
  /** The connections the server holds at the end, and those it accepted over the whole run. */
  connectionsAtEnd: number;
  acceptedTotal: number;
  /** Whether the server came back on the port it had before the outage. */
  samePort: boolean;
}

/** T = 1 s, N = 4: waits drawn from [0, 125), [0, 250), [0, 500), then [0, 1000) ms. */
const BACKOFF = { maxDelay: 1_000, ceiling: 4 } as const;

/** A `ticks` subscriber: what the server pushes to it, as an async iterator that `return()` ends at once. */
function subscriber(subscribers: Set<(tick: number) => void>): AsyncIterableIterator<number> {
  const queue: number[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const push = (tick: number) => {
    queue.push(tick);
    wake?.();
  };
  subscribers.add(push);
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      while (!done && queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return done ? { done: true, value: undefined } : { done: false, value: queue.shift() as number };
    },
    async return() {
      done = true;
      subscribers.delete(push);
      wake?.();
      return { done: true, value: undefined };
    },
  };
}

/** Polls `predicate` every 10 ms; rejects after `ms` with `what`. */
async function until(predicate: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export async function runGraphqlExample(options: GraphqlExampleOptions = {}): Promise<GraphqlExampleResult> {
  const { log = () => undefined, outageMs = 1_500, tickMs = 150, random } = options;
  const started = performance.now();
  const say = (who: string, text: string) =>
    log(`${((performance.now() - started) / 1000).toFixed(3).padStart(7)} s  ${who.padEnd(8)}${text}`);

  // ─── the server: `hello` and `ticks`, on a port that closes during the outage ──────────────
  const subscribers = new Set<(tick: number) => void>();
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { hello: { type: GraphQLString, resolve: () => 'world' } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: { ticks: { type: GraphQLInt, subscribe: () => subscriber(subscribers), resolve: (tick) => tick } },
    }),
  });
  let tick = 0;
  const ticker = setInterval(() => {
    tick += 1;
    for (const push of subscribers) push(tick);
  }, tickMs);
  let port = 0;
  let acceptedTotal = 0;
  let server: { http: Server; wss: WebSocketServer } | undefined;
  const start = async () => {
    const http = createServer();
    const wss = new WebSocketServer({ server: http });
    wss.on('connection', () => {
      acceptedTotal += 1;
    });
    useServer({ schema }, wss);
    await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
    port = (http.address() as AddressInfo).port;
    server = { http, wss };
  };
  const stop = async (cut: boolean) => {
    const current = server;
    server = undefined;
    if (!current) return;
    for (const socket of current.wss.clients) cut ? socket.terminate() : socket.close(1001, 'Going away');
    await new Promise((resolve) => current.wss.close(resolve));
    current.http.closeAllConnections();
    await new Promise((resolve) => current.http.close(resolve));
  };
  await start();
  const url = `ws://127.0.0.1:${port}/graphql`;
  say('server', `listening on ${url}`);

  // ─── the client: a plain WebSocket, and the policy as graphql-ws's retryWait ───────────────
  const policy = truncatedBinaryExponential({ ...BACKOFF, ...(random ? { random } : {}) });
  const waits: GraphqlExampleResult['waits'] = [];
  let resets = 0;
  // The policy as toRetryWait sees it, with each draw printed (in an app, pass `policy` itself).
  const shown = {
    next: () => {
      const window = truncatedWindow(BACKOFF.maxDelay, BACKOFF.ceiling, policy.attempt + 1);
      const delay = policy.next();
      waits.push({ delay, window });
      say('backoff', `wait ${Math.round(delay)} ms (drawn from [0, ${window}) ms)`);
      return delay;
    },
    reset: () => {
      resets += 1;
      policy.reset();
    },
  };
  let connected = false;
  const client = createClient({
    url,
    webSocketImpl: WebSocket,
    retryWait: toRetryWait(shown, { unref: true }),
    shouldRetry: () => true, // also retry a refused connection (an error event, not a close)
    retryAttempts: Number.POSITIVE_INFINITY,
    on: {
      connected: (_socket, _payload, wasRetry) => {
        connected = true;
        say('client', wasRetry ? 'reconnected' : 'connected');
      },
      closed: (event) => {
        const code = (event as { code?: number }).code;
        say('client', connected ? `connection closed (${code})` : 'attempt failed');
        connected = false;
      },
    },
  });
  const ask = async () => {
    const { value } = await client.iterate({ query: '{ hello }' }).next();
    say('query', `{ hello } → ${JSON.stringify(value?.data)}`);
    return value?.data;
  };
  const ticks: number[] = [];
  const unsubscribe = client.subscribe<{ ticks: number }>(
    { query: 'subscription { ticks }' },
    {
      next: ({ data }) => {
        if (data) ticks.push(data.ticks);
        say('tick', String(data?.ticks));
      },
      error: (error) => say('client', `subscription error: ${JSON.stringify(error)}`),
      complete: () => undefined,
    },
  );

  try {
    const queries = [await ask()];
    await until(() => ticks.length >= 3, 5_000, 'three ticks');
    const ticksBefore = ticks.splice(0);

    say('server', `outage: connections cut, port ${port} closed for ${outageMs} ms`);
    const before = port;
    await stop(true);
    await new Promise((resolve) => setTimeout(resolve, outageMs));
    await start();
    say('server', `back on port ${port}`);

    await until(() => ticks.length >= 3, 5_000 + BACKOFF.maxDelay, 'three ticks after the outage');
    const ticksAfter = ticks.splice(0);
    queries.push(await ask());
    const connectionsAtEnd = server?.wss.clients.size ?? 0;
    const missed = (ticksAfter[0] as number) - (ticksBefore.at(-1) as number) - 1;
    say('summary', `${missed} ticks were published while the client was away; ${waits.length} waits drawn`);
    say(
      'summary',
      `the server holds ${connectionsAtEnd} connection(s) for 1 client (${acceptedTotal} accepted in all)`,
    );
    return {
      queries,
      ticksBefore,
      ticksAfter,
      waits,
      resets,
      connectionsAtEnd,
      acceptedTotal,
      samePort: port === before,
    };
  } finally {
    unsubscribe();
    await Promise.resolve()
      .then(() => client.dispose())
      .catch(() => undefined); // it rejects when a connection attempt in progress fails
    await until(() => !connected, 1_000, 'the client to close').catch(() => undefined);
    clearInterval(ticker);
    await stop(false);
  }
}

const script = process.argv[1];
if (script !== undefined && import.meta.url === pathToFileURL(script).href) {
  runGraphqlExample({ log: (line) => console.log(line) }).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
