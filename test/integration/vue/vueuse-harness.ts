/**
 * What the vueuse-derived tests of the Vue composable share: the bindings' ws server (it records
 * connections, upgrade attempts, messages, close codes and subprotocols, can go down and can
 * answer pings) and bounded real-time waits (test/helpers/binding-server.ts); Vue 3 apps mounted
 * into jsdom; and the cleanup after each test (apps unmounted, scopes stopped, the grace period
 * passed, servers closed).
 */
import { afterEach } from 'vitest';
import { createApp, defineComponent, type EffectScope, effectScope, h, watch } from 'vue';
import { useResilientSocket } from '../../../src/vue.js';
import { AFTER_GRACE, endTest, until } from '../../helpers/binding-server.js';
import { sleep } from '../../helpers/wait.js';

export { AFTER_GRACE, startServer, until } from '../../helpers/binding-server.js';

const unmounts: (() => void)[] = [];

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
  await endTest();
});
