// @vitest-environment jsdom
/**
 * A reactive URL and reactive options with `resilient-socket/vue` (real Vue 3, jsdom, real ws
 * servers on 127.0.0.1): a ref or a getter moves the connection when what it reads changes (the
 * old socket closes after the grace period, and what it still receives no longer reaches the
 * component); `null` and back; options by value (an equal new object changes nothing, another
 * value moves). A new token in the query is the same destination (the queued messages follow to
 * the new socket), another room is not (they are dropped and reported); a URL provider held in a
 * ref (with `providers()`) keeps its socket and reads the latest token at the next attempt.
 */
import { describe, expect, it } from 'vitest';
import { nextTick, reactive, ref, shallowRef } from 'vue';
import type { DropInfo } from '../../../src/core/events.js';
import type { UrlProvider } from '../../../src/core/options.js';
import type { BaseSocket } from '../../../src/core/socket.js';
import { providers } from '../../../src/modular.js';
import type { UseResilientSocketOptions } from '../../../src/vue.js';
import { AFTER_GRACE, captureWarnings, messagesOf, mount, pass, probe, seen, startServer, until } from './harness.js';

describe('a reactive URL', () => {
  it('a ref: moves to the new server; the old socket closes and what it still gets reaches no one', async () => {
    const [a, b] = [await startServer(), await startServer()];
    const url = ref<string | null>(a.url);
    const s = seen();
    mount(probe(s, url, { closeDelay: 300 }));
    await until(() => s.refs?.state.value === 'open', 'open on A');
    const old = s.refs?.socket.value as BaseSocket;
    url.value = b.url;
    await nextTick();
    await until(() => s.refs?.socket.value !== old && s.refs?.state.value === 'open', 'open on B');
    a.broadcast('from the old server'); // within the grace period: A's socket is still open
    await pass(100);
    expect(s.refs?.lastMessage.value).toBeNull();
    expect(s.data).toEqual([]);
    await until(() => a.closes === 1, 'A sees the close');
    expect(old.state).toBe('closed');
    b.broadcast('from B');
    await until(() => s.refs?.lastMessage.value?.data === 'from B', 'the message from B');
    url.value = null;
    await nextTick();
    expect(s.refs?.state.value).toBe('idle');
    expect(s.refs?.socket.value).toBeNull();
    await until(() => b.closes === 1, 'B sees the close');
    expect([a.connections, b.connections]).toEqual([1, 1]);
  });

  it('a getter: follows the refs it reads', async () => {
    const server = await startServer();
    const urls: string[] = [];
    server.wss.on('connection', (_ws, request) => urls.push(request.url ?? ''));
    const room = ref('lobby');
    const s = seen();
    mount(probe(s, () => `${server.url}rooms/${room.value}`));
    await until(() => s.refs?.state.value === 'open', 'open in the lobby');
    room.value = 'kitchen';
    await until(() => urls.length === 2 && s.refs?.state.value === 'open', 'open in the kitchen');
    await until(() => server.closes === 1, 'the lobby closes');
    expect(urls).toEqual(['/rooms/lobby', '/rooms/kitchen']);
  });

  it('starts from null and connects once the ref has a URL', async () => {
    const server = await startServer();
    const url = ref<string | null>(null);
    const s = seen();
    mount(probe(s, url));
    await pass(100);
    expect(server.connections).toBe(0);
    url.value = server.url;
    await until(() => s.refs?.state.value === 'open', 'open');
    expect(s.states).toEqual(['idle', 'connecting', 'open']);
    expect(server.connections).toBe(1);
  });
});

describe('reactive options', () => {
  it('compares them by value: an equal new object keeps the socket, another value moves it', async () => {
    const server = await startServer();
    const options = shallowRef<UseResilientSocketOptions>({ maxDelay: 1_000, buffer: { maxMessages: 5 } });
    const s = seen();
    mount(probe(s, server.url, options));
    await until(() => s.refs?.state.value === 'open', 'open');
    const first = s.refs?.socket.value;
    options.value = { buffer: { maxMessages: 5 }, maxDelay: 1_000, onDrop: () => {} };
    await nextTick();
    await pass(AFTER_GRACE);
    expect(s.refs?.socket.value).toBe(first);
    expect(server.connections).toBe(1);
    options.value = { maxDelay: 2_000, buffer: { maxMessages: 5 } };
    await until(() => s.refs?.socket.value !== first && s.refs?.state.value === 'open', 'a new socket');
    await until(() => server.closes === 1, 'the first one closes');
    expect(server.connections).toBe(2);
  });

  it('a reactive object: a change of one of its fields moves the socket', async () => {
    const server = await startServer();
    const options = reactive<UseResilientSocketOptions>({ maxDelay: 1_000, enabled: true });
    const s = seen();
    mount(probe(s, server.url, options));
    await until(() => s.refs?.state.value === 'open', 'open');
    options.enabled = false;
    await nextTick();
    expect(s.refs?.state.value).toBe('idle');
    await until(() => server.closes === 1, 'closed while disabled');
    options.enabled = true;
    await until(() => s.refs?.state.value === 'open', 'open again');
    expect(server.connections).toBe(2);
  });
});

describe('a token refresh', () => {
  it('a new token in the query: the queued messages go on the new socket, with the new token', async () => {
    const server = await startServer();
    const log = messagesOf(server);
    const warned = captureWarnings();
    const drops: DropInfo[] = [];
    const token = ref('t1');
    const s = seen();
    mount(
      probe(s, () => `${server.url}feed?room=lobby&access_token=${token.value}`, {
        maxDelay: 50,
        onDrop: (info) => drops.push(info),
      }),
    );
    await until(() => s.refs?.state.value === 'open', 'open');
    const old = s.refs?.socket.value;
    server.crash();
    await until(() => s.refs?.state.value !== 'open', 'the loss');
    expect(s.refs?.send('queued')).toBe('buffered');
    token.value = 't2';
    await until(() => !!s.refs?.socket.value && s.refs.socket.value !== old, 'a socket for the new URL');
    server.down = false;
    await until(() => log.length > 0, 'the queued message arrives');
    await pass(100);
    expect(log).toEqual([['/feed?room=lobby&access_token=t2', 'queued']]);
    expect(drops).toEqual([]);
    expect(warned).toEqual([]);
  });

  it('another room: the queued messages are dropped and reported, never sent to it', async () => {
    const server = await startServer();
    const log = messagesOf(server);
    const drops: DropInfo[] = [];
    const room = ref('lobby');
    const s = seen();
    mount(
      probe(s, () => `${server.url}feed?room=${room.value}&access_token=t1`, {
        maxDelay: 50,
        onDrop: (info) => drops.push(info),
      }),
    );
    await until(() => s.refs?.state.value === 'open', 'open');
    server.crash();
    await until(() => s.refs?.state.value !== 'open', 'the loss');
    s.refs?.send('for the lobby');
    room.value = 'kitchen';
    await until(() => drops.length > 0, 'onDrop is told');
    expect(drops).toEqual([{ reason: 'closed', messages: ['for the lobby'] }]);
    server.down = false;
    await until(() => s.refs?.state.value === 'open', 'open in the kitchen');
    await pass(AFTER_GRACE);
    expect(log).toEqual([]);
  });

  it('a URL provider in a ref (providers()): the socket stays, the next attempt reads the latest token', async () => {
    const server = await startServer();
    const log = messagesOf(server);
    const urls: string[] = [];
    server.wss.on('connection', (_ws, request) => urls.push(request.url ?? ''));
    const provider =
      (token: string): UrlProvider =>
      () =>
        `${server.url}feed?token=${token}`;
    const url = shallowRef(provider('t1'));
    const s = seen();
    mount(probe(s, url, { maxDelay: 50, features: [providers()] }));
    await until(() => s.refs?.state.value === 'open', 'open');
    const socket = s.refs?.socket.value;
    url.value = provider('t2');
    await nextTick();
    await pass(100);
    expect(urls).toEqual(['/feed?token=t1']); // the open connection is kept
    // A newer token before the loss: every attempt after it reads this one.
    url.value = provider('t3');
    await nextTick();
    server.crash();
    await until(() => s.refs?.state.value !== 'open', 'the loss');
    expect(s.refs?.send('queued')).toBe('buffered');
    server.down = false;
    await until(() => log.length > 0, 'the queued message arrives');
    expect(urls).toEqual(['/feed?token=t1', '/feed?token=t3']);
    expect(log).toEqual([['/feed?token=t3', 'queued']]);
    expect(s.refs?.socket.value).toBe(socket);
  });
});
