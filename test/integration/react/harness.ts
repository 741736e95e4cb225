/**
 * What the React hook's jsdom tests share: a ws server on 127.0.0.1 that counts what it sees and
 * can go down, bounded waits inside `act` scopes, mounting roots, capturing console warnings, and
 * the cleanup after each test (roots unmounted, the grace period passed, servers closed).
 */
import { once } from 'node:events';
import { act, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach } from 'vitest';
import { WebSocketServer } from 'ws';
import { sleep } from '../../helpers/wait.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** A little more than the hook's default grace period (250 ms). */
export const AFTER_GRACE = 400;

/** A ws server that can refuse new connections (`down`: the upgrade is answered 503, clients retry). */
export interface TestServer {
  readonly url: string;
  readonly wss: WebSocketServer;
  connections: number;
  closes: number;
  received: string[];
  down: boolean;
  broadcast(data: string): void;
  /** Goes down: refuses new connections and cuts the current ones. */
  crash(): void;
}

const servers: TestServer[] = [];
const roots: Root[] = [];
const restores: (() => void)[] = [];

export async function startServer(): Promise<TestServer> {
  const server = { connections: 0, closes: 0, received: [] as string[], down: false } as TestServer;
  const verifyClient = (_info: unknown, done: (ok: boolean, code: number) => void) => done(!server.down, 503);
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
    ws.on('message', (data) => server.received.push(String(data)));
    ws.on('close', () => server.closes++);
  });
  servers.push(server);
  return server;
}

/** Polls `predicate` inside `act` scopes (so React's updates from socket events are flushed) until it holds. */
export async function until(predicate: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms: ${what}`);
    await act(() => sleep(5));
  }
}

/** Lets `ms` of real time pass inside an `act` scope. */
export const pass = (ms: number): Promise<void> => act(() => sleep(ms));

/** Renders `node` into a new root (unmounted after the test). */
export async function mount(node: ReactNode): Promise<Root> {
  const root = createRoot(document.body.appendChild(document.createElement('div')));
  roots.push(root);
  await act(async () => root.render(node));
  return root;
}

/** Renders `node` again into `root`. */
export const render = (root: Root, node: ReactNode): Promise<void> => act(async () => root.render(node));

/** Replaces console.warn for this test; what it was called with is returned. */
export function captureWarnings(): unknown[][] {
  const [calls, original] = [[] as unknown[][], console.warn];
  console.warn = (...args: unknown[]) => calls.push(args);
  restores.push(() => {
    console.warn = original;
  });
  return calls;
}

/** Runs `restore` after this test (before the servers close). */
export function afterThisTest(restore: () => void): void {
  restores.push(restore);
}

afterEach(async () => {
  await act(async () => {
    for (const root of roots.splice(0)) root.unmount();
  });
  await pass(AFTER_GRACE);
  for (const restore of restores.splice(0)) restore();
  for (const server of servers.splice(0)) {
    for (const client of server.wss.clients) client.terminate();
    await new Promise((resolve) => server.wss.close(resolve));
  }
  document.body.replaceChildren();
});
