/**
 * `useResilientSocket` from `resilient-socket/vue` under `renderToString` (vue/server-renderer) in
 * Node (the default `node` environment: no DOM, no `window`): nothing is connected and nothing
 * throws, the state is `'idle'`, and the render touches no `WebSocket` constructor, arms no timer
 * and reads no `window` (each watched while rendering, with the stack of every call kept so that
 * what the package does is told apart from what Vue does). Both entries are rendered: the browser
 * one (`src/vue.ts`) and the Node one (`src/vue-node.ts`, ws transport), the latter against a real
 * ws server that must see no connection, with no timer left behind.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSSRApp, defineComponent, h, ref } from 'vue';
import { renderToString } from 'vue/server-renderer';
import { systemClock } from '../../../src/clock.js';
import type { DropInfo } from '../../../src/core/events.js';
import type { UrlProvider } from '../../../src/core/options.js';
import { heartbeat, providers } from '../../../src/modular.js';
import { useResilientSocket as browserComposable } from '../../../src/vue.js';
import { useResilientSocket as nodeComposable } from '../../../src/vue-node.js';
import { captureWarnings, endTest, startServer } from '../../helpers/binding-server.js';
import { watchGlobals } from '../../helpers/ssr-watch.js';
import { activeTimeouts, timerBaseline } from '../../helpers/timers.js';
import { sleep } from '../../helpers/wait.js';

type Composable = typeof browserComposable;

afterEach(endTest);

/** Every way of calling the composable that a page might render on the server. */
const page = (use: Composable, url: string) =>
  defineComponent({
    setup() {
      const room = ref('lobby');
      const calls = [
        use(url),
        use(new URL(url), {
          maxDelay: 1_000,
          buffer: { maxMessages: 10 },
          features: [heartbeat({ interval: 5_000 }), providers()],
          shouldReconnect: ({ code }) => code !== 4001,
          onMessage: () => {},
          onDrop: () => {},
          filter: () => true,
          closeDelay: 0,
          share: false,
        }),
        use(() => `${url}?room=${room.value}`),
        use(
          ref<UrlProvider>(() => url),
          () => ({ features: [providers()] }),
        ),
        use(null),
        use(url, { enabled: false }),
      ];
      return () =>
        h(
          'p',
          calls
            .map((c) => `${c.state.value}:${c.socket.value === null}:${c.lastMessage.value}:${c.lastJsonMessage.value}`)
            .join(' '),
        );
    },
  });

/** Calls send() while rendering on the server. */
const sender = (results: string[]) =>
  defineComponent({
    setup() {
      const { send } = nodeComposable('ws://127.0.0.1:9/feed');
      results.push(send('during setup'));
      return () => null;
    },
  });

/** What a component with `onDrop` saw when it sent from setup() on the server. */
interface Reported {
  /** What send() and sendJson() returned, with how many drops `onDrop` had been given when each returned. */
  results: [result: string, reportedSoFar: number][];
  drops: DropInfo[];
}

/** Sends (text and JSON) from setup() with an `onDrop`, and renders its state and whether it has a socket. */
const reporter = (use: Composable, url: string, seen: Reported) =>
  defineComponent({
    setup() {
      const { send, sendJson, socket, state } = use(url, { onDrop: (info) => seen.drops.push(info) });
      seen.results.push([send('during setup'), seen.drops.length]);
      seen.results.push([sendJson({ n: 1 }), seen.drops.length]);
      return () => h('p', `${state.value}:${socket.value === null}`);
    },
  });

const IDLE_TEXT = Array(6).fill('idle:true:null:undefined').join(' ');

describe('renderToString in Node', () => {
  it('the browser entry renders idle and touches no WebSocket, timer or window', async () => {
    const watched = watchGlobals();
    const html = await renderToString(createSSRApp(page(browserComposable, 'ws://127.0.0.1:9/feed')));
    expect(html).toBe(`<p>${IDLE_TEXT}</p>`);
    expect(watched.fromPackage()).toEqual([]);
    expect(watched.uses.filter((use) => use.what === 'new WebSocket')).toEqual([]);
  });

  it('the Node entry renders idle and touches no WebSocket, timer or window', async () => {
    const watched = watchGlobals();
    const html = await renderToString(createSSRApp(page(nodeComposable, 'ws://127.0.0.1:9/feed')));
    expect(html).toBe(`<p>${IDLE_TEXT}</p>`);
    expect(watched.fromPackage()).toEqual([]);
    expect(watched.uses.filter((use) => use.what === 'new WebSocket')).toEqual([]);
  });

  it('(the watch itself sees what the package does, told apart from what the test does)', () => {
    const watched = watchGlobals();
    setTimeout(() => {}, 0);
    systemClock.clearTimeout(systemClock.setTimeout(() => {}, 0));
    expect(watched.uses.map((use) => use.what)).toEqual(['setTimeout', 'setTimeout']);
    expect(watched.fromPackage()).toEqual(['setTimeout']);
  });

  it('the Node entry (ws transport) makes no connection to a real server and leaves no timer', async () => {
    const server = await startServer();
    const { url, wss } = server;
    const baseline = await timerBaseline();
    for (let i = 0; i < 3; i++) {
      expect(await renderToString(createSSRApp(page(nodeComposable, url)))).toBe(`<p>${IDLE_TEXT}</p>`);
    }
    expect(activeTimeouts()).toBe(baseline);
    await sleep(300);
    expect(server.connections).toBe(0);
    expect(wss.clients.size).toBe(0);
  });

  it('send() during a server render drops (no socket) without throwing', async () => {
    const results: string[] = [];
    const warned = captureWarnings();
    expect(await renderToString(createSSRApp(sender(results)))).toBe('<!---->');
    expect(results).toEqual(['dropped']);
    expect(warned).toHaveLength(1);
  });

  it('send() in setup() during a server render is reported to onDrop at once, and creates nothing', async () => {
    const server = await startServer();
    const warned = captureWarnings();
    const watched = watchGlobals();
    for (const use of [browserComposable, nodeComposable]) {
      const seen: Reported = { results: [], drops: [] };
      expect(await renderToString(createSSRApp(reporter(use, server.url, seen)))).toBe('<p>idle:true</p>');
      expect(seen.results).toEqual([
        ['dropped', 1],
        ['dropped', 2],
      ]);
      expect(seen.drops).toEqual([
        { reason: 'not-connected', messages: ['during setup'] },
        { reason: 'not-connected', messages: ['{"n":1}'] },
      ]);
    }
    expect(warned).toEqual([]); // onDrop had them: no console warning
    expect(watched.fromPackage()).toEqual([]);
    expect(watched.uses.filter((use) => use.what === 'new WebSocket')).toEqual([]);
    await sleep(300);
    expect(server.connections).toBe(0);
    expect(server.attempts).toBe(0);
  });
});
