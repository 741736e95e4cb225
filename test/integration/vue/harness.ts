/**
 * What the Vue composable's jsdom tests share: the bindings' ws server, bounded waits and console
 * capture (test/helpers/binding-server.ts), a probe component that records what the composable
 * gave it, mounting apps, capturing reported errors, and the cleanup after each test (apps
 * unmounted, the grace period passed, then the shared end of a test: what the test replaced
 * restored, servers closed).
 */
import { afterEach } from 'vitest';
import { type App, type Component, createApp, defineComponent, h, type MaybeRefOrGetter } from 'vue';
import type { UrlProvider } from '../../../src/core/options.js';
import type { ResilientSocketRefs, UseResilientSocketOptions } from '../../../src/vue.js';
import { useResilientSocket } from '../../../src/vue.js';
import { AFTER_GRACE, afterThisTest, endTest, type TestServer } from '../../helpers/binding-server.js';
import { sleep } from '../../helpers/wait.js';

export * from '../../helpers/binding-server.js';

const apps: App[] = [];

/** Each message `server` receives, with the URL (path and query) of the connection it came on. */
export function messagesOf(server: TestServer): [url: string, data: string][] {
  const log: [string, string][] = [];
  server.wss.on('connection', (ws, request) => ws.on('message', (data) => log.push([request.url ?? '', String(data)])));
  return log;
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

/** The errors the package reports (`reportError`, where jsdom's window sends them), for this test. */
export function captureReported(): unknown[] {
  const reported: unknown[] = [];
  const original = globalThis.reportError;
  globalThis.reportError = (error: unknown) => reported.push(error);
  afterThisTest(() => {
    globalThis.reportError = original;
  });
  return reported;
}

afterEach(async () => {
  for (const app of apps.splice(0)) app.unmount();
  await pass(AFTER_GRACE);
  await endTest();
});
