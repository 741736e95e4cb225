// @vitest-environment jsdom
/**
 * vueuse's `useWebSocket` tests (packages/core/useWebSocket, `index.test.ts` and
 * `index.browser.test.ts`), each asked of `useResilientSocket` from `resilient-socket/vue`: the
 * behaviour they check, written afresh against real ws servers on 127.0.0.1 (theirs stub the
 * WebSocket constructor and drive its handlers by hand; these run real connections in real time,
 * every wait bounded). Where they differ, the test checks what this composable does instead.
 *
 * vueuse test → the test here (by the start of its name), and what differs:
 * - "should be defined", "should initialise web socket" → "starts connecting on mount": refs
 *   `state`, `lastMessage`, `lastJsonMessage`, `socket`, and `send`, `sendJson`; no `open`/`close`.
 * - "should reconnect if URL changes" → "moves to the new URL": the old socket closes (1000)
 *   `closeDelay` after it was left, not at once.
 * - "should not reconnect on URL change if immediate and autoConnect are false", "should remain
 *   closed if immediate is false" → "connects nowhere while enabled is false": `enabled: false`
 *   (state `'idle'`, no socket); no `autoConnect` switch: an enabled composable follows its URL.
 * - open › "should reconnect if called while still open" → "reconnects the same socket":
 *   `socket.value.reconnect()`; "should open socket" → "opens once enabled turns true".
 * - close › "should close socket", "should sync status to CLOSED after close()" → "closes with
 *   socket.close()": `socket.value.close()`, every user sees `closing`, then `closed`.
 * - autoClose › "should close on unload if true", "should not close on unload if false": not
 *   ported: no `beforeunload` listener and no switch; the browser ends a page's sockets, and a
 *   socket closes `closeDelay` after its last user's scope is disposed ("closes when the last user
 *   is unmounted"); "should close when scope disposed" (skipped there) → "closes when a bare effect
 *   scope is stopped".
 * - "should set data on message" → "sets lastMessage and lastJsonMessage": `{ data, timeStamp }`.
 * - "should not set data on message from a superseded socket" → "ignores messages of the socket it left".
 * - "should call onMessage on message" → "hands every message to onMessage": `({ data, timeStamp })`,
 *   not `(ws, event)`; the component's `lastMessage` then stays `null`.
 * - "should call onError on error" → "reports errors on the socket": no `onError`; `socket.value.on('error')`.
 * - "should call onConnected on open", "should call onDisconnected on close", "should be OPEN on
 *   open" → "tells of opens and closes through socket events": no `onConnected`/`onDisconnected`.
 * - "should be CLOSED on close" → "reconnects after the server cuts it": `'reconnecting'`, not closed.
 * - send › "should buffer data until connect if buffer=true", "should send data" → "queues a send
 *   until open, bounded": `send` returns `'buffered'`/`'sent'`/`'dropped'`, not a boolean, and the
 *   queue is bounded (`buffer`), the oldest dropped and reported (`onDrop`); `send(data, false)` →
 *   "send while not open": `socket.value.send(data, { buffer: false })`. A send from `setup()` is
 *   kept too (a component takes its socket when it is mounted, so server rendering makes none) and
 *   sent, first, once it has it: "queues a send from setup()"; with no URL it is reported then.
 * - heartbeat › "should send a heartbeat if heartbeat=true", "… if heartbeat=false" → "pings with the
 *   heartbeat feature": `features: [heartbeat({ interval, timeout, message, isPong })]`; answers are
 *   consumed, never a message. "should call close on pongTimeout" → "closes a link whose pongs
 *   stop, and reconnects it" (vueuse closes it; here it also comes back). "should not call close on
 *   pongTimeout if connection already closed" → "stops pinging once closed". "should not send a
 *   heartbeat if the connection is closed" → "queues no ping during an outage".
 * - autoReconnect › "should reconnect if autoReconnect is true" → "reconnects after the server
 *   cuts it": on by default, randomized backoff instead of a fixed 1 s; "should not reconnect if
 *   autoReconnect is false" → "does not reconnect when shouldReconnect says no"; "should call
 *   onFailed", "retries is number" → "gives up after maxRetries": the `giveup` event, state
 *   `'closed'`; "retries is function": not ported, no count predicate (`shouldReconnect` decides
 *   per close, `maxRetries` counts); "should not update status from stale websocket on open / on
 *   close" → "follows only the current connection"; "should support delay as a number / as a
 *   function" → "waits the backoff policy delay": `backoff: constant({ delay })` or a policy of
 *   your own (`{ next, reset }`).
 * - the `protocols` option (no test there) → "asks for the given subprotocols".
 */
import { describe, expect, it } from 'vitest';
import { nextTick, onMounted, ref, shallowRef, watch } from 'vue';
import { constant } from '../../../src/backoff/index.js';
import type { CloseInfo } from '../../../src/core/close-codes.js';
import type { DropInfo, GiveUpInfo } from '../../../src/core/events.js';
import type { BaseSocket } from '../../../src/core/socket.js';
import { heartbeat } from '../../../src/features/heartbeat/heartbeat.js';
import { useResilientSocket } from '../../../src/vue.js';
import { sleep } from '../../helpers/wait.js';
import { AFTER_GRACE, inScope, mount, open, startServer, statesOf, until, use } from './vueuse-harness.js';

describe('vueuse useWebSocket, ported: connecting', () => {
  it('starts connecting on mount', async () => {
    const server = await startServer();
    const hook = use(server.url);
    expect(hook.state.value).toBe('connecting');
    expect(hook.lastMessage.value).toBeNull();
    expect(hook.lastJsonMessage.value).toBeUndefined();
    expect(hook.socket.value?.url).toBe(server.url);
    expect(typeof hook.send).toBe('function');
    expect(typeof hook.sendJson).toBe('function');
    await open(hook);
    expect(server.connections).toBe(1);
    expect(server.protocols).toEqual(['']); // no subprotocol asked for
  });

  it('moves to the new URL, and closes the old socket with 1000 after closeDelay', async () => {
    const [a, b] = [await startServer(), await startServer()];
    const url = shallowRef(a.url);
    const hook = use(url, { closeDelay: 1_000 });
    await open(hook, 'open on A');
    const old = hook.socket.value as BaseSocket;
    url.value = b.url;
    await nextTick();
    expect(hook.socket.value).not.toBe(old);
    expect(hook.socket.value?.url).toBe(b.url);
    expect(hook.state.value).toBe('connecting');
    expect(old.state).toBe('open'); // until its grace period is over
    await open(hook, 'open on B');
    await until(() => a.codes.length === 1, 'A sees the close');
    expect(a.codes).toEqual([1000]);
    expect(old.state).toBe('closed');
    expect([a.connections, b.connections]).toEqual([1, 1]);
  });

  it('connects nowhere while enabled is false, whatever the URL', async () => {
    const [a, b] = [await startServer(), await startServer()];
    const url = shallowRef(a.url);
    const hook = use(url, { enabled: false });
    url.value = b.url;
    await nextTick();
    await sleep(AFTER_GRACE);
    expect(hook.state.value).toBe('idle');
    expect(hook.socket.value).toBeNull();
    expect(a.attempts + b.attempts).toBe(0);
  });

  it('opens once enabled turns true', async () => {
    const server = await startServer();
    const enabled = ref(false);
    const hook = use(server.url, () => ({ enabled: enabled.value }));
    await sleep(100);
    expect(hook.state.value).toBe('idle');
    expect(server.attempts).toBe(0);
    enabled.value = true;
    await open(hook);
    expect(server.connections).toBe(1);
  });

  it('asks for the given subprotocols', async () => {
    const server = await startServer();
    const hook = use(server.url, { protocols: ['chat.v2', 'chat.v1'] });
    await open(hook);
    expect(server.protocols).toEqual(['chat.v2']); // ws picks the first one offered
    expect(hook.socket.value?.protocol).toBe('chat.v2');
  });
});

describe('vueuse useWebSocket, ported: open() and close()', () => {
  it('reconnects the same socket with socket.reconnect()', async () => {
    const server = await startServer();
    const hook = use(server.url);
    await open(hook);
    const socket = hook.socket.value as BaseSocket;
    const states = statesOf(hook);
    socket.reconnect();
    await until(() => server.connections === 2 && hook.state.value === 'open', 'a second connection, open');
    expect(hook.socket.value).toBe(socket); // the same socket, a new connection
    expect(states).toContain('connecting');
    expect(server.codes).toEqual([1000]);
    expect(server.wss.clients.size).toBe(1);
  });

  it('closes with socket.close(): 1000 at the server, state closing then closed for every user', async () => {
    const server = await startServer();
    const [first, second] = [use(server.url), use(server.url)];
    await until(() => first.state.value === 'open' && second.state.value === 'open', 'both open');
    expect(second.socket.value).toBe(first.socket.value);
    const states = statesOf(first);
    first.socket.value?.close();
    await until(() => second.state.value === 'closed', 'the second user sees closed');
    expect(first.state.value).toBe('closed');
    expect(states.slice(-2)).toEqual(['closing', 'closed']);
    await until(() => server.codes.length === 1, 'the server sees the close');
    expect(server.codes).toEqual([1000]);
    await sleep(AFTER_GRACE);
    expect(server.connections).toBe(1); // closed stays closed
  });

  it('closes when the last user is unmounted, closeDelay later', async () => {
    const server = await startServer();
    const a = mount(() => useResilientSocket(server.url, { closeDelay: 1_000 }));
    const b = mount(() => useResilientSocket(server.url, { closeDelay: 1_000 }));
    await until(() => a.result.state.value === 'open' && b.result.state.value === 'open', 'both open');
    a.unmount();
    await sleep(1_100);
    expect(server.codes).toEqual([]); // one user left
    b.unmount();
    await sleep(100);
    expect(server.codes).toEqual([]); // the grace period is running
    await until(() => server.codes.length === 1, 'the server sees the close');
    expect(server.codes).toEqual([1000]);
    expect(server.connections).toBe(1);
  });

  it('closes when a bare effect scope is stopped (and connects at once inside it)', async () => {
    const server = await startServer();
    const { result: hook, scope } = inScope(() => useResilientSocket(server.url, { closeDelay: 50 }));
    expect(hook.state.value).toBe('connecting');
    await open(hook);
    scope.stop();
    await until(() => server.codes.length === 1, 'the server sees the close');
    expect(server.codes).toEqual([1000]);
  });
});

describe('vueuse useWebSocket, ported: messages', () => {
  it('sets lastMessage and lastJsonMessage', async () => {
    const server = await startServer();
    const hook = use(server.url);
    await open(hook);
    server.broadcast('{"n":1}');
    await until(() => hook.lastMessage.value?.data === '{"n":1}', 'the JSON message');
    expect(hook.lastJsonMessage.value).toEqual({ n: 1 });
    expect(typeof hook.lastMessage.value?.timeStamp).toBe('number');
    server.broadcast('bleep bloop');
    await until(() => hook.lastMessage.value?.data === 'bleep bloop', 'the text message');
    expect(hook.lastJsonMessage.value).toBeUndefined(); // not JSON: undefined, never a throw
  });

  it('ignores messages of the socket it left', async () => {
    const [a, b] = [await startServer(), await startServer()];
    const url = shallowRef(a.url);
    const hook = use(url, { closeDelay: 2_000 });
    await open(hook, 'open on A');
    const old = hook.socket.value as BaseSocket;
    const oldSaw: unknown[] = [];
    old.on('message', (data) => oldSaw.push(data));
    url.value = b.url;
    await nextTick();
    await open(hook, 'open on B');
    expect(a.wss.clients.size).toBe(1); // A's socket is still open (closeDelay)
    a.broadcast('from A');
    await until(() => oldSaw.length === 1, 'the old socket receives it');
    await sleep(50);
    expect(hook.lastMessage.value).toBeNull();
    b.broadcast('from B');
    await until(() => hook.lastMessage.value?.data === 'from B', 'the message from B');
    await until(() => a.codes.length === 1, 'A sees the close once the grace period is over');
  });

  it('hands every message to onMessage', async () => {
    const server = await startServer();
    const got: unknown[] = [];
    const hook = use(server.url, { onMessage: (message) => got.push(message) });
    await open(hook);
    for (const text of ['one', 'two', 'three']) server.broadcast(text);
    await until(() => got.length === 3, 'three messages');
    expect(got.map((m) => (m as { data: unknown }).data)).toEqual(['one', 'two', 'three']);
    expect(got.every((m) => typeof (m as { timeStamp: unknown }).timeStamp === 'number')).toBe(true);
  });
});

describe('vueuse useWebSocket, ported: events', () => {
  it('reports errors on the socket', async () => {
    const server = await startServer();
    server.down = true;
    const hook = use(server.url, { backoff: constant({ delay: 50 }) });
    const errors: unknown[] = [];
    hook.socket.value?.on('error', (error) => errors.push(error));
    await until(() => errors.length > 0, 'an error for the refused attempt');
    expect(errors[0]).toBeInstanceOf(Error);
    expect(hook.state.value).toBe('reconnecting');
  });

  it('tells of opens and closes through socket events', async () => {
    const server = await startServer();
    const hook = use(server.url, { backoff: constant({ delay: 50 }) });
    const seen: string[] = [];
    hook.socket.value?.on('open', () => seen.push('open'));
    hook.socket.value?.on('close', (info: CloseInfo & { willReconnect?: boolean }) =>
      seen.push(`close ${info.willReconnect}`),
    );
    await open(hook);
    expect(seen).toEqual(['open']);
    server.crash();
    await until(() => seen.length === 2, 'the close');
    expect(seen[1]).toBe('close true');
  });

  it('reconnects after the server cuts it', async () => {
    const server = await startServer();
    const hook = use(server.url, { maxDelay: 200 });
    await open(hook);
    const states = statesOf(hook);
    for (const client of server.wss.clients) client.terminate();
    await until(() => server.connections === 2 && hook.state.value === 'open', 'reconnected');
    expect(states).toContain('reconnecting');
    expect(states).not.toContain('closed');
  });

  it('does not reconnect when shouldReconnect says no', async () => {
    const server = await startServer();
    const hook = use(server.url, { shouldReconnect: () => false });
    await open(hook);
    const gaveUp: GiveUpInfo[] = [];
    hook.socket.value?.on('giveup', (info) => gaveUp.push(info));
    for (const client of server.wss.clients) client.close(4000, 'bye');
    await until(() => hook.state.value === 'closed', 'closed');
    expect(gaveUp.map((info) => info.error.code)).toEqual(['ERR_RS_FATAL_CLOSE']);
    await sleep(AFTER_GRACE);
    expect(server.attempts).toBe(1);
  });

  it('gives up after maxRetries: a giveup event, state closed', async () => {
    const server = await startServer();
    const hook = use(server.url, { maxRetries: 2, backoff: constant({ delay: 20 }) });
    await open(hook);
    const gaveUp: GiveUpInfo[] = [];
    hook.socket.value?.on('giveup', (info) => gaveUp.push(info));
    server.crash();
    await until(() => gaveUp.length === 1, 'the give-up');
    expect(gaveUp[0]?.failures).toBe(3); // the lost connection and two failed retries
    expect(gaveUp[0]?.error.code).toBe('ERR_RS_RETRIES_EXHAUSTED');
    expect(hook.state.value).toBe('closed');
    expect(server.attempts).toBe(3); // the first connection, then two retries
    await sleep(100);
    expect(server.attempts).toBe(3);
  });

  it('follows only the current connection through repeated reconnect()', async () => {
    const server = await startServer();
    const hook = use(server.url);
    await open(hook);
    const socket = hook.socket.value as BaseSocket;
    socket.reconnect();
    socket.reconnect(); // while the previous reconnect's attempt is still connecting
    await open(hook, 'open again');
    await sleep(200); // a late open or close of a superseded attempt would show now
    expect(hook.state.value).toBe('open');
    expect(socket.state).toBe('open');
    expect(server.wss.clients.size).toBe(1);
  });

  it('waits the backoff policy delay', async () => {
    const server = await startServer();
    const hook = use(server.url, { backoff: constant({ delay: 300 }) });
    await open(hook);
    let lost = 0;
    let back = 0;
    watch(
      hook.state,
      (state) => {
        if (state === 'reconnecting') lost ||= performance.now();
      },
      { flush: 'sync' },
    );
    server.wss.on('connection', () => {
      back ||= performance.now();
    });
    for (const client of server.wss.clients) client.terminate();
    await until(() => back > 0, 'the second connection');
    expect(back - lost).toBeGreaterThanOrEqual(299); // the delay starts as the state turns reconnecting
  });
});

describe('vueuse useWebSocket, ported: send and heartbeat', () => {
  it('queues a send until open, bounded', async () => {
    const server = await startServer();
    server.down = true;
    const drops: DropInfo[] = [];
    const hook = use(server.url, {
      buffer: { maxMessages: 2 },
      backoff: constant({ delay: 50 }),
      onDrop: (info) => drops.push(info),
    });
    expect(hook.send('a')).toBe('buffered');
    expect(hook.sendJson({ b: 2 })).toBe('buffered');
    expect(hook.send('c')).toBe('buffered'); // the oldest makes room
    expect(drops).toEqual([{ reason: 'overflow', messages: ['a'] }]);
    server.down = false;
    await open(hook);
    await until(() => server.received.length === 2, 'the queued messages');
    expect(server.received).toEqual(['{"b":2}', 'c']);
    expect(hook.send('d')).toBe('sent');
    await until(() => server.received.length === 3, 'the direct send');
    expect(server.received).toEqual(['{"b":2}', 'c', 'd']);
  });

  it('queues a send from setup() (not mounted yet) until the socket is taken, before one from onMounted', async () => {
    const server = await startServer();
    server.down = true;
    const drops: DropInfo[] = [];
    const results: string[] = [];
    mount(() => {
      const hook = useResilientSocket(server.url, { onDrop: (info) => drops.push(info) });
      results.push(hook.send('from setup'), hook.sendJson({ n: 1 }));
      onMounted(() => results.push(hook.send('from onMounted')));
      return hook;
    });
    expect(results).toEqual(['buffered', 'buffered', 'buffered']);
    server.down = false;
    await until(() => server.received.length === 3, 'the queued messages');
    expect(server.received).toEqual(['from setup', '{"n":1}', 'from onMounted']);
    expect(drops).toEqual([]);
  });

  it('a send from setup() with no URL is reported as dropped once the component is mounted', async () => {
    const drops: DropInfo[] = [];
    const results: string[] = [];
    mount(() => {
      const hook = useResilientSocket(null, { onDrop: (info) => drops.push(info) });
      results.push(hook.send('nowhere'));
      return hook;
    });
    expect(results).toEqual(['buffered']);
    expect(drops).toEqual([{ reason: 'not-connected', messages: ['nowhere'] }]);
  });

  it('send while not open: without buffering through the socket, and dropped once closed', async () => {
    const server = await startServer();
    server.down = true;
    const drops: DropInfo[] = [];
    const hook = use(server.url, { onDrop: (info) => drops.push(info) });
    expect(hook.socket.value?.send('now or never', { buffer: false })).toBe('dropped');
    expect(drops).toEqual([{ reason: 'not-connected', messages: ['now or never'] }]);
    hook.socket.value?.close();
    await until(() => hook.state.value === 'closed', 'closed');
    expect(hook.send('late')).toBe('dropped');
    expect(drops.at(-1)).toEqual({ reason: 'closed', messages: ['late'] });
    expect(server.received).toEqual([]);
  });

  const beat = () => heartbeat({ interval: 100, timeout: 150, message: 'ping', isPong: (data) => data === 'pong' });

  it('pings with the heartbeat feature, and pongs are not messages; no feature, no ping', async () => {
    const server = await startServer();
    server.answerPings = true;
    const watched = use(server.url, { features: [beat()] });
    await open(watched);
    await until(() => server.received.filter((m) => m === 'ping').length >= 2, 'two pings');
    expect(watched.lastMessage.value).toBeNull(); // the pongs were consumed
    expect(server.connections).toBe(1); // answered: the link stays up

    const plain = await startServer();
    const bare = use(plain.url);
    await open(bare);
    await sleep(300);
    expect(plain.received).toEqual([]);
  });

  it('closes a link whose pongs stop, and reconnects it', async () => {
    const server = await startServer();
    server.answerPings = true;
    const hook = use(server.url, { features: [beat()], backoff: constant({ delay: 50 }) });
    await open(hook);
    await until(() => server.received.includes('ping'), 'a ping');
    server.answerPings = false;
    const states = statesOf(hook);
    await until(() => server.connections === 2, 'a new connection after the timeout', 3_000);
    expect(server.codes).toHaveLength(1);
    expect(states).toContain('reconnecting');
    server.answerPings = true;
    await open(hook, 'open again');
  });

  it('stops pinging once closed', async () => {
    const server = await startServer();
    server.answerPings = true;
    const hook = use(server.url, { features: [beat()] });
    await open(hook);
    hook.socket.value?.close();
    await until(() => hook.state.value === 'closed', 'closed');
    const pings = server.received.length;
    await sleep(400);
    expect(server.received.length).toBe(pings);
    expect(server.connections).toBe(1);
  });

  it('queues no ping during an outage', async () => {
    const server = await startServer();
    server.answerPings = true;
    const hook = use(server.url, { features: [beat()], backoff: constant({ delay: 400 }) });
    await open(hook);
    server.crash();
    await until(() => hook.state.value === 'reconnecting', 'reconnecting');
    await sleep(300); // three intervals without a connection
    expect(hook.socket.value?.bufferedCount).toBe(0);
    server.down = false;
    server.received.length = 0;
    await open(hook, 'open again');
    await sleep(50);
    // No burst of stale pings on the new connection (one may be due by now on a slow machine).
    expect(server.received.length).toBeLessThanOrEqual(1);
  });
});
