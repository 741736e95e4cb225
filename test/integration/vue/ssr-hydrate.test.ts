// @vitest-environment jsdom
/**
 * Server rendering then hydration with `resilient-socket/vue`, in jsdom (whose global `WebSocket`
 * really connects) against a real ws server on 127.0.0.1: `renderToString` makes no connection
 * and constructs no WebSocket even where one exists, and `createSSRApp(…).mount()` on its HTML
 * hydrates without a mismatch (the first client render is `'idle'`, as on the server) and then
 * connects exactly once, also with three components sharing the URL.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type App, type Component, createSSRApp, defineComponent, h, type PropType } from 'vue';
import { renderToString } from 'vue/server-renderer';
import { heartbeat } from '../../../src/modular.js';
import { useResilientSocket } from '../../../src/vue.js';
import { AFTER_GRACE, endTest, until } from '../../helpers/binding-server.js';
import { type Hydration, watchHydration } from '../../helpers/ssr-watch.js';
import { sleep } from '../../helpers/wait.js';

let server: Hydration['server'];
let url: string;
let constructed: Hydration['constructed'];
/** What Vue and the page said on the console (a hydration mismatch is a warning or an error). */
let said: unknown[][];
const apps: App[] = [];

beforeEach(async () => {
  ({ server, constructed, said } = await watchHydration('error', 'warn'));
  url = server.url;
});

afterEach(async () => {
  for (const app of apps.splice(0)) app.unmount();
  await sleep(AFTER_GRACE);
  await endTest();
});

/** The states each render showed, per component. */
const shown: Record<string, string[]> = {};

const Status = defineComponent({
  props: { name: { type: String, required: true }, target: { type: String as PropType<string | null>, default: null } },
  setup(props) {
    const { state, lastMessage } = useResilientSocket(() => props.target, {
      maxDelay: 100,
      features: [heartbeat({ interval: 5_000 })],
      shouldReconnect: ({ code }) => code !== 4001,
    });
    return () => {
      shown[props.name] = [...(shown[props.name] ?? []), state.value];
      return h('p', { id: props.name }, `${props.name}: ${state.value} ${String(lastMessage.value?.data ?? '-')}`);
    };
  },
});

const page = (target: string | null, names: string[]): Component =>
  defineComponent(
    () => () =>
      h(
        'main',
        names.map((name) => h(Status, { key: name, name, target })),
      ),
  );

/** Renders `component` to HTML (as a server would), puts it in a container, and hydrates it. */
async function serveThenHydrate(component: Component): Promise<HTMLElement> {
  const html = await renderToString(createSSRApp(component));
  const container = document.body.appendChild(document.createElement('div'));
  container.innerHTML = html;
  await sleep(300);
  expect(server.connections).toBe(0); // rendering on the server connected nowhere
  expect(constructed.count).toBe(0);
  for (const key of Object.keys(shown)) delete shown[key];
  const app = createSSRApp(component);
  apps.push(app);
  app.mount(container);
  return container;
}

describe('renderToString, then createSSRApp(…).mount()', () => {
  it('renders idle on the server without connecting, then hydrates and connects once', async () => {
    expect(await renderToString(createSSRApp(page(url, ['a'])))).toBe('<main><p id="a">a: idle -</p></main>');
    const container = await serveThenHydrate(page(url, ['a']));
    expect(shown.a?.[0]).toBe('idle'); // the hydration render matches the server's HTML
    await until(() => container.textContent === 'a: open -', 'the hydrated page shows open');
    await sleep(AFTER_GRACE);
    expect(server.connections).toBe(1);
    expect(constructed.count).toBe(1);
    expect(server.closes).toBe(0);
    expect(said).toEqual([]);
    server.broadcast('hi');
    await until(() => container.textContent === 'a: open hi', 'the hydrated page shows the message');
  });

  it('hydrates three components sharing the URL: one connection', async () => {
    const names = ['a', 'b', 'c'];
    const container = await serveThenHydrate(page(url, names));
    await until(() => container.textContent === 'a: open -b: open -c: open -', 'all three show open');
    await sleep(AFTER_GRACE);
    expect(server.connections).toBe(1);
    expect(constructed.count).toBe(1);
    expect(server.closes).toBe(0);
    expect(said).toEqual([]);
    for (const name of names) expect(shown[name]?.[0]).toBe('idle');
  });

  it('hydrates a null URL as idle and connects nowhere', async () => {
    const container = await serveThenHydrate(page(null, ['a']));
    await sleep(AFTER_GRACE);
    expect(container.textContent).toBe('a: idle -');
    expect(server.connections).toBe(0);
    expect(constructed.count).toBe(0);
    expect(said).toEqual([]);
  });

  it('closes the hydrated socket after the last component unmounts', async () => {
    const container = await serveThenHydrate(page(url, ['a', 'b']));
    await until(() => container.textContent === 'a: open -b: open -', 'open');
    apps.pop()?.unmount();
    await until(() => server.closes === 1, 'the server sees the close');
    expect(server.connections).toBe(1);
    expect(server.wss.clients.size).toBe(0);
  });
});
