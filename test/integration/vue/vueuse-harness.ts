/**
 * What the vueuse-derived tests of the Vue composable share: a ws server on 127.0.0.1 (port 0)
 * that records what it sees (connections, upgrade attempts, messages, close codes, subprotocols),
 * can go down and can answer pings; Vue 3 apps mounted into jsdom; bounded real-time waits; and the
 * cleanup after each test (apps unmounted, scopes stopped, the grace period passed, servers closed).
 */
import { once } from 'node:events';
import { afterEach } from 'vitest';
import { createApp, defineComponent, type EffectScope, effectScope, h, watch } from 'vue';
import { WebSocketServer } from 'ws';
import { useResilientSocket } from '../../../src/vue.js';
import { sleep } from '../../helpers/wait.js';

/** A little more than the composable's default grace period (`closeDelay`, 250 ms). */
export const AFTER_GRACE = 400;

export interface PortServer {
  readonly url: string;
  readonly wss: WebSocketServer;
  /** Upgrade requests, refused ones included. */
  attempts: number;
  /** Connections accepted. */
  connections: number;
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

const servers: PortServer[] = [];
const unmounts: (() => void)[] = [];

export async function startServer(): Promise<PortServer> {
  const server = {
    attempts: 0,
    connections: 0,
    received: [] as string[],
    codes: [] as number[],
    protocols: [] as string[],
    down: false,
    answerPings: false,
  } as PortServer;
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
    ws.on('close', (code) => server.codes.push(code));
  });
  servers.push(server);
  return server;
}

/** Polls `predicate` every 5 ms until it holds; fails after `ms` with `what`. */
export async function until(predicate: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms: ${what}`);
    await sleep(5);
  }
}

/** Mounts a component whose `setup` is `setup` (rendering nothing) into jsdom; unmounted after the test. */
export function mount<T>(setup: () => T): { result: T; unmount: () => void } {
  let result: T | undefined;
  const app = createApp(
    defineComponent({
      setup() {
        result = setup();
        return () => h('div');
      },
    }),
  );
  app.mount(document.body.appendChild(document.createElement('div')));
  let mounted = true;
  const unmount = () => {
    if (mounted) app.unmount();
    mounted = false;
  };
  unmounts.push(unmount);
  return { result: result as T, unmount };
}

/** Runs `setup` in a detached effect scope (no component); stopped after the test. */
export function inScope<T>(setup: () => T): { result: T; scope: EffectScope } {
  const scope = effectScope(true);
  const result = scope.run(setup) as T;
  unmounts.push(() => scope.stop());
  return { result, scope };
}

type Composable = ReturnType<typeof useResilientSocket>;

/** `useResilientSocket(url, options)` in a mounted component. */
export const use = (...args: Parameters<typeof useResilientSocket>): Composable =>
  mount(() => useResilientSocket(...args)).result;

/** Waits until the composable's state is `'open'`. */
export const open = (hook: Composable, what = 'open'): Promise<void> => until(() => hook.state.value === 'open', what);

/** Every state the composable's `state` ref takes from now on, in order (a `flush: 'sync'` watcher sees each one). */
export function statesOf(hook: Composable): string[] {
  const states: string[] = [hook.state.value];
  watch(hook.state, (state) => states.push(state), { flush: 'sync' });
  return states;
}

afterEach(async () => {
  for (const unmount of unmounts.splice(0)) unmount();
  await sleep(AFTER_GRACE);
  for (const server of servers.splice(0)) {
    for (const client of server.wss.clients) client.terminate();
    await new Promise((resolve) => server.wss.close(resolve));
  }
  document.body.replaceChildren();
});
