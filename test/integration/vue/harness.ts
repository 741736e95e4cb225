/**
 * What the Vue composable's jsdom tests share: a ws server on 127.0.0.1 that counts what it sees
 * and can go down, a probe component that records what the composable gave it, mounting apps,
 * bounded waits, capturing console warnings and reported errors, and the cleanup after each test
 * (apps unmounted, the grace period passed, servers closed).
 */
import { once } from 'node:events';
import { afterEach } from 'vitest';
import { type App, type Component, createApp, defineComponent, h, type MaybeRefOrGetter } from 'vue';
import { WebSocketServer } from 'ws';
import type { UrlProvider } from '../../../src/core/options.js';
import type { ResilientSocketRefs, UseResilientSocketOptions } from '../../../src/vue.js';
import { useResilientSocket } from '../../../src/vue.js';
import { sleep } from '../../helpers/wait.js';

/** A little more than the composable's default grace period (250 ms). */
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
const apps: App[] = [];
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

/** Each message `server` receives, with the URL (path and query) of the connection it came on. */
export function messagesOf(server: TestServer): [url: string, data: string][] {
  const log: [string, string][] = [];
  server.wss.on('connection', (ws, request) => ws.on('message', (data) => log.push([request.url ?? '', String(data)])));
  return log;
}

/** Polls `predicate` every 5 ms (real time) until it holds. */
export async function until(predicate: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms: ${what}`);
    await sleep(5);
  }
}

/** Lets `ms` of real time pass. */
export const pass = (ms: number): Promise<void> => sleep(ms);

/** What a probe component saw: the composable's refs, and each rendered text and message in order. */
export interface Seen {
  refs: ResilientSocketRefs | null;
  /** `state` as each render showed it (repeats left out). */
  states: string[];
  /** Each message's data the render saw (repeats left out). */
  data: unknown[];
  renders: number;
}

export const seen = (): Seen => ({ refs: null, states: [], data: [], renders: 0 });

/** A component that calls the composable with `url` and `options` and records what it renders. */
export function probe(
  s: Seen,
  url: MaybeRefOrGetter<string | URL | UrlProvider | null | undefined>,
  options?: MaybeRefOrGetter<UseResilientSocketOptions | undefined>,
): Component {
  return defineComponent({
    setup() {
      const refs = useResilientSocket(url, options);
      s.refs = refs;
      return () => {
        s.renders++;
        const state = refs.state.value;
        const data = refs.lastMessage.value?.data ?? null;
        if (state !== s.states.at(-1)) s.states.push(state);
        if (data !== null && data !== s.data.at(-1)) s.data.push(data);
        return h('p', `${state} ${String(data ?? '-')}`);
      };
    },
  });
}

/** Errors the app's `errorHandler` was given. */
export interface Mounted {
  readonly app: App;
  readonly el: HTMLElement;
  readonly errors: unknown[];
}

/** Mounts `component` in a new app (unmounted after the test, if the test has not). */
export function mount(component: Component): Mounted {
  const app = createApp(component);
  const errors: unknown[] = [];
  app.config.errorHandler = (error) => {
    errors.push(error);
  };
  app.config.warnHandler = () => undefined;
  const el = document.body.appendChild(document.createElement('div'));
  app.mount(el);
  apps.push(app);
  return { app, el, errors };
}

/** Unmounts an app mounted by {@link mount}. */
export function unmount(mounted: Mounted): void {
  const at = apps.indexOf(mounted.app);
  if (at >= 0) apps.splice(at, 1);
  mounted.app.unmount();
}

/** Replaces console.warn for this test; what it was called with is returned. */
export function captureWarnings(): unknown[][] {
  const [calls, original] = [[] as unknown[][], console.warn];
  console.warn = (...args: unknown[]) => calls.push(args);
  restores.push(() => {
    console.warn = original;
  });
  return calls;
}

/** The errors the package reports (`reportError`, where jsdom's window sends them), for this test. */
export function captureReported(): unknown[] {
  const reported: unknown[] = [];
  const original = globalThis.reportError;
  globalThis.reportError = (error: unknown) => reported.push(error);
  restores.push(() => {
    globalThis.reportError = original;
  });
  return reported;
}

/** Runs `restore` after this test (before the servers close). */
export function afterThisTest(restore: () => void): void {
  restores.push(restore);
}

afterEach(async () => {
  for (const app of apps.splice(0)) app.unmount();
  await pass(AFTER_GRACE);
  for (const restore of restores.splice(0).reverse()) restore();
  for (const server of servers.splice(0)) {
    for (const client of server.wss.clients) client.terminate();
    await new Promise((resolve) => server.wss.close(resolve));
  }
  document.body.replaceChildren();
});
