/**
 * What the framework bindings' tests (the React hook, the Vue composable) share whatever the
 * framework: a ws server on 127.0.0.1 (port 0) that records what it sees, can go down and can
 * answer pings; bounded real-time polling; console output captured for one test; and the end of a
 * test ({@link endTest}: what a test replaced restored, the servers closed, the page emptied), which
 * each harness calls from its own `afterEach` once its framework has unmounted and the grace
 * period has passed.
 */
import { once } from 'node:events';
import { WebSocketServer } from 'ws';
import { sleep } from './wait.js';

/** A little more than the bindings' default grace period (`closeDelay`, 250 ms). */
export const AFTER_GRACE = 400;

/** A ws server that can refuse new connections (`down`: the upgrade is answered 503, clients retry). */
export interface TestServer {
  readonly url: string;
  readonly wss: WebSocketServer;
  /** Upgrade requests, refused ones included. */
  attempts: number;
  /** Connections accepted. */
  connections: number;
  /** Connections that ended. */
  closes: number;
  /** Every text message received, in order. */
  received: string[];
  /** Close codes of the connections that ended, in order. */
  codes: number[];
  /** The subprotocol of each accepted connection ('' for none). */
  protocols: string[];
  /** Refuse upgrades with 503 (clients retry). */
  down: boolean;
  /** Answer the text message 'ping' with 'pong'. */
  answerPings: boolean;
  broadcast(data: string): void;
  /** Goes down: refuses new connections and cuts the current ones without a close frame. */
  crash(): void;
}

const servers: TestServer[] = [];
const restores: (() => void)[] = [];

/** Starts a {@link TestServer} (closed by {@link endTest}). */
export async function startServer(): Promise<TestServer> {
  const server = {
    attempts: 0,
    connections: 0,
    closes: 0,
    received: [] as string[],
    codes: [] as number[],
    protocols: [] as string[],
    down: false,
    answerPings: false,
  } as TestServer;
  const verifyClient = (_info: unknown, done: (ok: boolean, code: number) => void) => {
    server.attempts++;
    done(!server.down, 503);
  };
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, verifyClient });
  await once(wss, 'listening');
  Object.assign(server, {
    url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}/`,
    wss,
    broadcast: (data: string) => {
      for (const client of wss.clients) client.send(data);
    },
    crash: () => {
      server.down = true;
      for (const client of wss.clients) client.terminate();
    },
  });
  wss.on('connection', (ws) => {
    server.connections++;
    server.protocols.push(ws.protocol);
    ws.on('message', (data) => {
      const text = String(data);
      server.received.push(text);
      if (text === 'ping' && server.answerPings) ws.send('pong');
    });
    ws.on('close', (code) => {
      server.closes++;
      server.codes.push(code);
    });
  });
  servers.push(server);
  return server;
}

/**
 * Polls `predicate` until it holds, waiting with `tick` between two reads (5 ms of real time
 * unless given: React's tests wait inside `act`); fails after `ms` naming `what`.
 */
export async function until(
  predicate: () => boolean,
  what: string,
  ms = 5_000,
  tick: () => Promise<void> = () => sleep(5),
): Promise<void> {
  const deadline = performance.now() + ms;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms: ${what}`);
    await tick();
  }
}

/** Runs `restore` at the end of this test (newest first, before the servers close). */
export function afterThisTest(restore: () => void): void {
  restores.push(restore);
}

/** Replaces the `console` methods `names` for this test; what they were called with is returned, in order. */
export function captureConsole(...names: ('warn' | 'error')[]): unknown[][] {
  const calls: unknown[][] = [];
  for (const name of names) {
    const original = console[name];
    console[name] = (...args: unknown[]) => calls.push(args);
    afterThisTest(() => {
      console[name] = original;
    });
  }
  return calls;
}

/** Replaces console.warn for this test; what it was called with is returned. */
export const captureWarnings = (): unknown[][] => captureConsole('warn');

/** The end of a test: what it replaced is restored (newest first), its servers are closed, the page is emptied. */
export async function endTest(): Promise<void> {
  for (const restore of restores.splice(0).reverse()) restore();
  for (const server of servers.splice(0)) {
    for (const client of server.wss.clients) client.terminate();
    await new Promise((resolve) => server.wss.close(resolve));
  }
  if (typeof document !== 'undefined') document.body.replaceChildren();
}
