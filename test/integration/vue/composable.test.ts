// @vitest-environment jsdom
/**
 * `useResilientSocket` from `resilient-socket/vue` with real Vue 3 (jsdom) against real ws servers
 * on 127.0.0.1: components with the same URL share one connection and each sees every message
 * (`state`, `lastMessage`, `lastJsonMessage`); the last one to unmount closes it after the grace
 * period (not before; a remount within it keeps it); a null URL or `enabled: false` connects
 * nowhere; `share: false` gives a socket of its own; an effect scope of its own connects at once
 * and closes when stopped; `<KeepAlive>` deactivation keeps the connection. Every wait is bounded.
 */
import { describe, expect, it } from 'vitest';
import { defineComponent, effectScope, h, KeepAlive, nextTick, ref, shallowRef } from 'vue';
import type { BaseSocket } from '../../../src/core/socket.js';
import { useResilientSocket } from '../../../src/vue.js';
import { PRODUCTION } from '../../helpers/mode.js';
import {
  AFTER_GRACE,
  afterThisTest,
  captureWarnings,
  mount,
  pass,
  probe,
  type Seen,
  seen,
  startServer,
  unmount,
  until,
} from './harness.js';

describe('one connection per URL', () => {
  it('shares one socket between three components; each sees every message, its JSON too', async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    const { el } = mount(defineComponent(() => () => all.map((s) => h(probe(s, server.url)))));
    await until(() => all.every((s) => s.refs?.state.value === 'open'), 'the three components see open');
    expect(server.connections).toBe(1);
    const socket = all[0]?.refs?.socket.value;
    expect(socket).toBeTruthy();
    for (const s of all) expect(s.refs?.socket.value).toBe(socket);
    for (const message of ['one', '{"n":2}', 'three']) {
      server.broadcast(message);
      await until(() => all.every((s) => s.refs?.lastMessage.value?.data === message), `all see ${message}`);
      await nextTick();
      expect(el.textContent).toBe(`open ${message}`.repeat(3));
    }
    for (const s of all) {
      expect(s.data).toEqual(['one', '{"n":2}', 'three']);
      expect(s.states).toEqual(['idle', 'connecting', 'open']);
      expect(s.refs?.lastJsonMessage.value).toBeUndefined(); // 'three' is not JSON
    }
    server.broadcast('{"n":4}');
    await until(() => all.every((s) => s.refs?.lastMessage.value?.data === '{"n":4}'), 'all see the JSON');
    const parsed = all.map((s) => s.refs?.lastJsonMessage.value);
    expect(parsed[0]).toEqual({ n: 4 });
    for (const value of parsed) expect(value).toBe(parsed[0]); // parsed once, for every component
    expect(server.connections).toBe(1);
  });

  it('gives read-only refs', async () => {
    const s = seen();
    mount(probe(s, null));
    const refs = s.refs as NonNullable<Seen['refs']>;
    const warned = captureWarnings(); // Vue's own: a computed value is read-only
    for (const name of ['state', 'lastMessage', 'lastJsonMessage', 'socket'] as const) {
      (refs[name] as unknown as { value: unknown }).value = 'changed';
    }
    expect(warned).toHaveLength(4);
    expect(refs.state.value).toBe('idle');
    expect(refs.lastMessage.value).toBeNull();
    expect(refs.lastJsonMessage.value).toBeUndefined();
    expect(refs.socket.value).toBeNull();
  });

  it('share: false gives a component a socket of its own', async () => {
    const server = await startServer();
    const [a, b, c] = [seen(), seen(), seen()];
    mount(
      defineComponent(() => () => [
        h(probe(a, server.url)),
        h(probe(b, server.url)),
        h(probe(c, server.url, { share: false })),
      ]),
    );
    await until(() => [a, b, c].every((s) => s.refs?.state.value === 'open'), 'all three see open');
    expect(server.connections).toBe(2);
    expect(a.refs?.socket.value).toBe(b.refs?.socket.value);
    expect(c.refs?.socket.value).not.toBe(a.refs?.socket.value);
  });
});

describe('closing', () => {
  it('closes after the grace period once the last component unmounted, and not before', async () => {
    const server = await startServer();
    const [a, b] = [seen(), seen()];
    const left = mount(probe(a, server.url));
    const right = mount(probe(b, server.url, { closeDelay: 300 }));
    await until(() => a.refs?.state.value === 'open' && b.refs?.state.value === 'open', 'both open');
    const socket = a.refs?.socket.value as BaseSocket;
    unmount(left);
    await pass(AFTER_GRACE);
    expect(server.closes).toBe(0); // one user is left
    expect(socket.state).toBe('open');
    unmount(right);
    expect(b.refs?.state.value).toBe('idle'); // it let go: no socket for it any more
    expect(b.refs?.socket.value).toBeNull();
    await pass(150);
    expect(server.closes).toBe(0); // within closeDelay
    expect(socket.state).toBe('open');
    await until(() => server.closes === 1, 'the server sees the close');
    expect(socket.state).toBe('closed');
    expect(server.connections).toBe(1);
  });

  it('keeps the connection when another component mounts within the grace period', async () => {
    const server = await startServer();
    const [first, second] = [seen(), seen()];
    const shown = ref(true);
    const { el } = mount(
      defineComponent(() => () => (shown.value ? h(probe(first, server.url)) : h(probe(second, server.url)))),
    );
    await until(() => first.refs?.state.value === 'open', 'open');
    const socket = first.refs?.socket.value;
    shown.value = false;
    await nextTick();
    await pass(100);
    expect(second.refs?.socket.value).toBe(socket);
    expect(second.refs?.state.value).toBe('open');
    await pass(AFTER_GRACE);
    expect(el.textContent).toBe('open -');
    expect(server.connections).toBe(1);
    expect(server.closes).toBe(0);
  });

  it('keeps the connection through a hot reload of the component (a new instance, a new setup)', async () => {
    const server = await startServer();
    const [before, after] = [seen(), seen()];
    const hmr = (globalThis as { __VUE_HMR_RUNTIME__?: { reload(id: string, def: object): void } }).__VUE_HMR_RUNTIME__;
    expect(hmr).toBeDefined(); // Vue's development build, as under a dev server
    const Feed = { ...probe(before, server.url), __hmrId: 'vue-feed' };
    const { el } = mount(defineComponent(() => () => h('main', [h(Feed)])));
    await until(() => before.refs?.state.value === 'open', 'open');
    const socket = before.refs?.socket.value;
    hmr?.reload('vue-feed', { ...probe(after, server.url), __hmrId: 'vue-feed' });
    await until(() => after.refs?.state.value === 'open', 'the reloaded component sees open');
    expect(before.refs?.socket.value).toBeNull(); // the old instance let go
    expect(after.refs?.socket.value).toBe(socket);
    await pass(AFTER_GRACE);
    expect(el.textContent).toBe('open -');
    expect(server.connections).toBe(1);
    expect(server.closes).toBe(0);
  });

  it('connects nowhere with a null URL or enabled: false: state idle, no socket', async () => {
    const server = await startServer();
    const [none, disabled] = [seen(), seen()];
    mount(defineComponent(() => () => [h(probe(none, null)), h(probe(disabled, server.url, { enabled: false }))]));
    await pass(AFTER_GRACE);
    expect(server.connections).toBe(0);
    for (const s of [none, disabled]) {
      expect(s.refs?.state.value).toBe('idle');
      expect(s.refs?.socket.value).toBeNull();
      expect(s.states).toEqual(['idle']);
    }
  });

  it('in an effect scope of its own: connects at once, and stop() closes after the grace period', async () => {
    const server = await startServer();
    const scope = effectScope();
    const refs = scope.run(() => useResilientSocket(server.url, { closeDelay: 100 }));
    afterThisTest(() => scope.stop());
    expect(refs?.state.value).toBe('connecting');
    await until(() => refs?.state.value === 'open', 'open');
    const socket = refs?.socket.value as BaseSocket;
    scope.stop();
    expect(refs?.state.value).toBe('idle');
    await until(() => server.closes === 1, 'the server sees the close');
    expect(socket.state).toBe('closed');
    expect(server.connections).toBe(1);
  });

  it('outside any effect scope: connects, and warns once that nothing will let go of it', async () => {
    const server = await startServer();
    const warned = captureWarnings();
    const refs = useResilientSocket(server.url);
    const again = useResilientSocket(server.url);
    afterThisTest(() => refs.socket.value?.close());
    await until(() => refs.state.value === 'open' && again.state.value === 'open', 'open');
    expect(again.socket.value).toBe(refs.socket.value);
    // Once (the only such call of this file), in development builds; production builds say nothing.
    expect(warned).toEqual(
      PRODUCTION ? [] : [[expect.stringMatching(/^resilient-socket\/vue: .* outside a component and an effect scope/)]],
    );
  });

  it('keeps the connection while a <KeepAlive> component is deactivated, and closes when it is unmounted', async () => {
    const server = await startServer();
    const s = seen();
    const Feed = probe(s, server.url);
    const Other = defineComponent(() => () => h('i', 'other'));
    const current = shallowRef(Feed);
    const mounted = mount(defineComponent(() => () => h(KeepAlive, null, [h(current.value)])));
    await until(() => s.refs?.state.value === 'open', 'open');
    current.value = Other;
    await nextTick();
    expect(mounted.el.textContent).toBe('other');
    await pass(AFTER_GRACE);
    expect(server.closes).toBe(0);
    server.broadcast('while away');
    await until(() => s.refs?.lastMessage.value?.data === 'while away', 'the kept component still hears');
    current.value = Feed;
    await nextTick();
    expect(mounted.el.textContent).toBe('open while away');
    unmount(mounted);
    await until(() => server.closes === 1, 'the server sees the close');
    expect(server.connections).toBe(1);
  });
});
