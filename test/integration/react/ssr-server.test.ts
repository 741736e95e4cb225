/**
 * `useResilientSocket` under `renderToString` (react-dom/server) in Node (the default `node`
 * environment: no DOM, no `window`): nothing is connected and nothing throws, the state is
 * `'idle'`, and the render touches no `WebSocket` constructor, arms no timer and reads no
 * `window` (each watched while rendering, with the stack of every call kept so that what the
 * package does is told apart from what React does). Both entries are rendered: the browser one
 * (`src/react.ts`) and the Node one (`src/react-node.ts`, ws transport), the latter against a real
 * ws server that must see no connection and with no timer left behind.
 */
import { createElement, type ReactNode, StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { heartbeat, providers } from '../../../src/modular.js';
import { useResilientSocket as browserHook } from '../../../src/react.js';
import { useResilientSocket as nodeHook } from '../../../src/react-node.js';
import { captureWarnings, endTest, startServer } from '../../helpers/binding-server.js';
import { watchGlobals } from '../../helpers/ssr-watch.js';
import { activeTimeouts, timerBaseline } from '../../helpers/timers.js';
import { sleep } from '../../helpers/wait.js';

type Hook = typeof browserHook;

afterEach(endTest);

/** Every way of calling the hook that a page might render on the server. */
function Page(props: { hook: Hook; url: string }): ReactNode {
  const { hook, url } = props;
  const plain = hook(url);
  const full = hook(new URL(url), {
    maxDelay: 1_000,
    buffer: { maxMessages: 10 },
    features: [heartbeat({ interval: 5_000 }), providers()],
    shouldReconnect: ({ code }) => code !== 4001,
    onMessage: () => {},
    onDrop: () => {},
    closeDelay: 0,
  });
  const provided = hook(() => url, { features: [providers()] });
  const none = hook(null);
  const disabled = hook(url, { enabled: false });
  const states = [plain, full, provided, none, disabled].map((h) => `${h.state}:${h.socket === null}:${h.lastMessage}`);
  return createElement('p', null, states.join(' '));
}

/** Calls send() while rendering. */
function Sender(props: { results: string[] }): ReactNode {
  const { send } = nodeHook('ws://127.0.0.1:9/feed');
  props.results.push(send('during render'));
  return null;
}

const IDLE_TEXT = Array(5).fill('idle:true:null').join(' ');

describe('renderToString in Node', () => {
  it('the browser entry renders idle and touches no WebSocket, timer or window', () => {
    const watched = watchGlobals();
    const html = renderToString(
      createElement(StrictMode, null, createElement(Page, { hook: browserHook, url: 'ws://127.0.0.1:9/feed' })),
    );
    expect(html).toBe(`<p>${IDLE_TEXT}</p>`);
    expect(watched.fromPackage()).toEqual([]);
    expect(watched.uses.filter((use) => use.what === 'new WebSocket')).toEqual([]);
  });

  it('the Node entry renders idle and touches no WebSocket, timer or window', () => {
    const watched = watchGlobals();
    const html = renderToString(createElement(Page, { hook: nodeHook, url: 'ws://127.0.0.1:9/feed' }));
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
      expect(renderToString(createElement(Page, { hook: nodeHook, url }))).toBe(`<p>${IDLE_TEXT}</p>`);
    }
    expect(activeTimeouts()).toBe(baseline);
    await sleep(300);
    expect(server.connections).toBe(0);
    expect(wss.clients.size).toBe(0);
  });

  it('send() during a server render drops (no socket) without throwing', () => {
    const results: string[] = [];
    const warned = captureWarnings();
    expect(renderToString(createElement(Sender, { results }))).toBe('');
    expect(results).toEqual(['dropped']);
    expect(warned).toHaveLength(1);
  });
});
