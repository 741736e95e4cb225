// @vitest-environment jsdom
/**
 * Server rendering then hydration, in jsdom (whose global `WebSocket` really connects) against a
 * real ws server on 127.0.0.1: `renderToString` makes no connection and constructs no WebSocket
 * even where one exists, and `hydrateRoot` of its HTML hydrates without a mismatch (the first
 * client render is `'idle'`, as on the server) and then connects exactly once, also under
 * StrictMode with several components sharing the URL. Every wait runs inside `act`.
 */
import { once } from 'node:events';
import { act, createElement, type ReactNode, StrictMode } from 'react';
import { hydrateRoot, type Root } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { heartbeat } from '../../../src/modular.js';
import { useResilientSocket } from '../../../src/react.js';
import { sleep } from '../../helpers/wait.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const AFTER_GRACE = 400;

let wss: WebSocketServer;
let url: string;
let connections: number;
let closes: number;
/** WebSockets constructed (jsdom's global, wrapped). */
let constructed: number;
let errors: unknown[][];
const roots: Root[] = [];
const restores: (() => void)[] = [];

beforeEach(async () => {
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(wss, 'listening');
  url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}/`;
  connections = 0;
  closes = 0;
  wss.on('connection', (ws) => {
    connections++;
    ws.on('close', () => closes++);
  });
  constructed = 0;
  const Native = globalThis.WebSocket;
  globalThis.WebSocket = class CountedWebSocket extends Native {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      constructed++;
    }
  };
  errors = [];
  const error = console.error;
  console.error = (...args: unknown[]) => errors.push(args);
  restores.push(() => {
    globalThis.WebSocket = Native;
    console.error = error;
  });
});

afterEach(async () => {
  await act(async () => {
    for (const root of roots.splice(0)) root.unmount();
  });
  await act(() => sleep(AFTER_GRACE));
  for (const restore of restores.splice(0).reverse()) restore();
  for (const client of wss.clients) client.terminate();
  await new Promise((resolve) => wss.close(resolve));
  document.body.replaceChildren();
});

async function until(predicate: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms: ${what}`);
    await act(() => sleep(5));
  }
}

/** The states each render showed, per component. */
const shown: Record<string, string[]> = {};

function Status(props: { name: string; target: string | null }): ReactNode {
  const { state, lastMessage } = useResilientSocket(props.target, {
    maxDelay: 100,
    features: [heartbeat({ interval: 5_000 })],
    shouldReconnect: ({ code }) => code !== 4001,
  });
  shown[props.name] = [...(shown[props.name] ?? []), state];
  return createElement('p', { id: props.name }, `${props.name}: ${state} ${String(lastMessage?.data ?? '-')}`);
}

const page = (target: string | null, names: string[]): ReactNode =>
  createElement(
    'main',
    null,
    names.map((name) => createElement(Status, { key: name, name, target })),
  );

/** Renders `node` to HTML (as a server would), puts it in a container, and hydrates it. */
async function serveThenHydrate(node: ReactNode): Promise<{ container: HTMLElement; recoverable: unknown[] }> {
  const html = renderToString(node);
  const container = document.body.appendChild(document.createElement('div'));
  container.innerHTML = html;
  await act(() => sleep(300));
  expect(connections).toBe(0); // rendering on the server connected nowhere
  expect(constructed).toBe(0);
  const recoverable: unknown[] = [];
  for (const key of Object.keys(shown)) delete shown[key];
  await act(async () => {
    roots.push(hydrateRoot(container, node, { onRecoverableError: (error) => recoverable.push(error) }));
  });
  return { container, recoverable };
}

describe('renderToString, then hydrateRoot', () => {
  it('renders idle on the server without connecting, then hydrates and connects once', async () => {
    const html = renderToString(page(url, ['a']));
    expect(html).toBe('<main><p id="a">a: idle -</p></main>');
    const { container, recoverable } = await serveThenHydrate(page(url, ['a']));
    expect(shown.a?.[0]).toBe('idle'); // the hydration render matches the server's HTML
    await until(() => container.textContent === 'a: open -', 'the hydrated page shows open');
    await act(() => sleep(AFTER_GRACE));
    expect(connections).toBe(1);
    expect(constructed).toBe(1);
    expect(closes).toBe(0);
    expect(recoverable).toEqual([]);
    expect(errors).toEqual([]);
    for (const client of wss.clients) client.send('hi');
    await until(() => container.textContent === 'a: open hi', 'the hydrated page shows the message');
  });

  it('hydrates under StrictMode with three components sharing the URL: one connection', async () => {
    const names = ['a', 'b', 'c'];
    const { container, recoverable } = await serveThenHydrate(createElement(StrictMode, null, page(url, names)));
    await until(() => container.textContent === 'a: open -b: open -c: open -', 'all three show open');
    await act(() => sleep(AFTER_GRACE));
    expect(connections).toBe(1);
    expect(constructed).toBe(1);
    expect(closes).toBe(0);
    expect(recoverable).toEqual([]);
    expect(errors).toEqual([]);
    for (const name of names) expect(shown[name]?.[0]).toBe('idle');
  });

  it('hydrates a null URL as idle and connects nowhere', async () => {
    const { container, recoverable } = await serveThenHydrate(page(null, ['a']));
    await act(() => sleep(AFTER_GRACE));
    expect(container.textContent).toBe('a: idle -');
    expect(connections).toBe(0);
    expect(constructed).toBe(0);
    expect(recoverable).toEqual([]);
  });

  it('closes the hydrated socket after the last component unmounts', async () => {
    const { container } = await serveThenHydrate(page(url, ['a', 'b']));
    await until(() => container.textContent === 'a: open -b: open -', 'open');
    await act(async () => roots.pop()?.unmount());
    await until(() => closes === 1, 'the server sees the close');
    expect(connections).toBe(1);
    expect(wss.clients.size).toBe(0);
  });
});
