/**
 * What the React hook's jsdom tests share: the bindings' ws server and console capture
 * (test/helpers/binding-server.ts), bounded waits inside `act` scopes, mounting roots, and the
 * cleanup after each test (roots unmounted, the grace period passed, then the shared end of a test:
 * what the test replaced restored, servers closed).
 */
import { act, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach } from 'vitest';
import { AFTER_GRACE, endTest, until as poll } from '../../helpers/binding-server.js';
import { sleep } from '../../helpers/wait.js';

// All of the shared module but its `until`, which this module gives again (inside `act`).
export * from '../../helpers/binding-server.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const roots: Root[] = [];

/** Polls `predicate` inside `act` scopes (so React's updates from socket events are flushed) until it holds. */
export const until = (predicate: () => boolean, what: string, ms?: number): Promise<void> =>
  poll(predicate, what, ms, () => act(() => sleep(5)));

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

afterEach(async () => {
  await act(async () => {
    for (const root of roots.splice(0)) root.unmount();
  });
  await pass(AFTER_GRACE);
  await endTest();
});
