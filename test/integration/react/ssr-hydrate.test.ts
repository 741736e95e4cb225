// @vitest-environment jsdom
/**
 * Server rendering then hydration, in jsdom (whose global `WebSocket` really connects) against a
 * real ws server on 127.0.0.1: `renderToString` makes no connection and constructs no WebSocket
 * even where one exists, and `hydrateRoot` of its HTML hydrates without a mismatch (the first
 * client render is `'idle'`, as on the server) and then connects exactly once, also under
 * StrictMode with several components sharing the URL. Every wait runs inside `act`.
 */
import { act, createElement, type ReactNode, StrictMode } from 'react';
import { hydrateRoot, type Root } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { heartbeat } from '../../../src/modular.js';
import { useResilientSocket } from '../../../src/react.js';
import { AFTER_GRACE, endTest, until as poll } from '../../helpers/binding-server.js';
import { type Hydration, watchHydration } from '../../helpers/ssr-watch.js';
import { sleep } from '../../helpers/wait.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let server: Hydration['server'];
let url: string;
let constructed: Hydration['constructed'];
/** What React said with console.error (a hydration mismatch among others). */
let errors: unknown[][];
const roots: Root[] = [];

beforeEach(async () => {
  ({ server, constructed, said: errors } = await watchHydration('error'));
  url = server.url;
});

afterEach(async () => {
  await act(async () => {
    for (const root of roots.splice(0)) root.unmount();
  });
  await act(() => sleep(AFTER_GRACE));
  await endTest();
});

const until = (predicate: () => boolean, what: string): Promise<void> =>
  poll(predicate, what, 5_000, () => act(() => sleep(5)));

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
  expect(server.connections).toBe(0); // rendering on the server connected nowhere
  expect(constructed.count).toBe(0);
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
    expect(server.connections).toBe(1);
    expect(constructed.count).toBe(1);
    expect(server.closes).toBe(0);
    expect(recoverable).toEqual([]);
    expect(errors).toEqual([]);
    server.broadcast('hi');
    await until(() => container.textContent === 'a: open hi', 'the hydrated page shows the message');
  });

  it('hydrates under StrictMode with three components sharing the URL: one connection', async () => {
    const names = ['a', 'b', 'c'];
    const { container, recoverable } = await serveThenHydrate(createElement(StrictMode, null, page(url, names)));
    await until(() => container.textContent === 'a: open -b: open -c: open -', 'all three show open');
    await act(() => sleep(AFTER_GRACE));
    expect(server.connections).toBe(1);
    expect(constructed.count).toBe(1);
    expect(server.closes).toBe(0);
    expect(recoverable).toEqual([]);
    expect(errors).toEqual([]);
    for (const name of names) expect(shown[name]?.[0]).toBe('idle');
  });

  it('hydrates a null URL as idle and connects nowhere', async () => {
    const { container, recoverable } = await serveThenHydrate(page(null, ['a']));
    await act(() => sleep(AFTER_GRACE));
    expect(container.textContent).toBe('a: idle -');
    expect(server.connections).toBe(0);
    expect(constructed.count).toBe(0);
    expect(recoverable).toEqual([]);
  });

  it('closes the hydrated socket after the last component unmounts', async () => {
    const { container } = await serveThenHydrate(page(url, ['a', 'b']));
    await until(() => container.textContent === 'a: open -b: open -', 'open');
    await act(async () => roots.pop()?.unmount());
    await until(() => server.closes === 1, 'the server sees the close');
    expect(server.connections).toBe(1);
    expect(server.wss.clients.size).toBe(0);
  });
});
