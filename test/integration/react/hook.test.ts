// @vitest-environment jsdom
/**
 * `useResilientSocket` with real React 19 (react-dom/client, jsdom) against a real ws server on
 * 127.0.0.1: StrictMode makes one connection, components with the same URL share it and all see
 * every message, unmounting the last one closes it after the grace period (the server sees the
 * close, no timer of the package is left), `null` connects nowhere, and a URL change closes the old
 * socket and opens the new one. Then what a component's own effects and callbacks see: `send()`
 * from a mount effect or a `[url]` effect, the renders after `enabled: false`, and the functions a
 * shared socket calls once one of its users left. Every wait runs inside `act` (socket events then
 * land in act scopes) and is bounded.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { act, Component, createElement, type ReactNode, StrictMode, useEffect, useState } from 'react';
import { describe, expect, it } from 'vitest';
import type { DropInfo } from '../../../src/core/events.js';
import type { BaseSocket } from '../../../src/core/socket.js';
import { type ResilientSocketHook, type UseResilientSocketOptions, useResilientSocket } from '../../../src/react.js';
import { expectInputError, rethrow } from '../../helpers/mode.js';
import { AFTER_GRACE, afterThisTest, captureWarnings, mount, pass, startServer, until } from './harness.js';

/** The package's sources: a timer whose stack passes through them is the package's. */
const SRC = `${resolve(dirname(fileURLToPath(import.meta.url)), '../../../src')}/`;

/** What a probe component saw: every render's result and the message data it saw, in order. */
interface Seen {
  renders: number;
  hook: ResilientSocketHook | null;
  data: unknown[];
  states: string[];
  /** Each render's state, and whether it had a socket. */
  shown: string[];
}
const seen = (): Seen => ({ renders: 0, hook: null, data: [], states: [], shown: [] });

function Probe(props: { url: string | null; options?: UseResilientSocketOptions; seen: Seen }): ReactNode {
  const hook = useResilientSocket(props.url, props.options);
  const { seen } = props;
  seen.renders++;
  seen.hook = hook;
  const data = hook.lastMessage?.data ?? null;
  if (data !== null && data !== seen.data.at(-1)) seen.data.push(data);
  if (hook.state !== seen.states.at(-1)) seen.states.push(hook.state);
  seen.shown.push(`${hook.state}, ${hook.socket ? 'a' : 'no'} socket`);
  return createElement('p', null, hook.state);
}

const probe = (url: string | null, s: Seen, options?: UseResilientSocketOptions): ReactNode =>
  createElement(Probe, { url, seen: s, ...(options ? { options } : {}) });

/** Records the timers armed by the package (its stack passes through src/) that have neither fired nor been cleared. */
function trackTimers(): { pending: Map<unknown, string>; restore: () => void } {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const pending = new Map<unknown, string>();
  const fake = (callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): unknown => {
    const stack = new Error().stack ?? '';
    const handle: unknown = realSet(
      (...a: unknown[]) => {
        pending.delete(handle);
        callback(...a);
      },
      ms,
      ...args,
    );
    if (stack.includes(SRC)) pending.set(handle, stack);
    return handle;
  };
  globalThis.setTimeout = fake as unknown as typeof setTimeout;
  globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
    pending.delete(handle);
    realClear(handle);
  }) as typeof clearTimeout;
  return {
    pending,
    restore: () => {
      globalThis.setTimeout = realSet;
      globalThis.clearTimeout = realClear;
    },
  };
}

describe('useResilientSocket: one connection per URL', () => {
  it('makes exactly one connection under StrictMode, and keeps it', async () => {
    const server = await startServer();
    const s = seen();
    await mount(createElement(StrictMode, null, probe(server.url, s)));
    await until(() => s.hook?.state === 'open', 'the StrictMode component sees open');
    await pass(AFTER_GRACE); // StrictMode's unmount + remount must not have started a close
    expect(server.connections).toBe(1);
    expect(server.closes).toBe(0);
    expect(server.wss.clients.size).toBe(1);
    expect(s.hook?.socket?.state).toBe('open');
    expect(s.states).toEqual(['idle', 'connecting', 'open']);
  });

  it('shares one socket between three components with the same URL, and each sees every message', async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    await mount(
      createElement(
        StrictMode,
        null,
        all.map((s, i) => createElement(Probe, { key: i, url: server.url, seen: s })),
      ),
    );
    await until(() => all.every((s) => s.hook?.state === 'open'), 'the three components see open');
    expect(server.connections).toBe(1);
    const socket = all[0]?.hook?.socket;
    expect(socket).toBeTruthy();
    for (const s of all) expect(s.hook?.socket).toBe(socket);
    for (const message of ['one', 'two', 'three']) {
      server.broadcast(message);
      await until(() => all.every((s) => s.hook?.lastMessage?.data === message), `all see ${message}`);
    }
    for (const s of all) expect(s.data).toEqual(['one', 'two', 'three']);
    expect(server.connections).toBe(1);
  });

  it('keeps the connection when the last user unmounts and another mounts within the grace period', async () => {
    const server = await startServer();
    const first = seen();
    const root = await mount(probe(server.url, first));
    await until(() => first.hook?.state === 'open', 'open');
    await act(async () => root.render(null));
    await pass(100);
    const second = seen();
    await act(async () => root.render(probe(server.url, second)));
    await until(() => second.hook?.state === 'open', 'the second component sees open');
    expect(second.hook?.socket).toBe(first.hook?.socket);
    await pass(AFTER_GRACE);
    expect(server.connections).toBe(1);
    expect(server.closes).toBe(0);
  });
});

describe('useResilientSocket: closing', () => {
  it('closes the shared socket once the last of its users unmounted (the server sees it) and leaves no timer', async () => {
    const timers = trackTimers();
    try {
      const server = await startServer();
      const a = seen();
      const b = seen();
      const left = await mount(probe(server.url, a));
      const right = await mount(probe(server.url, b));
      await until(() => a.hook?.state === 'open' && b.hook?.state === 'open', 'both see open');
      const socket = a.hook?.socket as BaseSocket;
      expect(b.hook?.socket).toBe(socket);

      await act(async () => left.unmount());
      await pass(AFTER_GRACE);
      expect(server.closes).toBe(0); // one user is left
      expect(socket.state).toBe('open');

      await act(async () => right.unmount());
      await pass(100);
      expect(server.closes).toBe(0); // the grace period is still running
      expect(timers.pending.size).toBeGreaterThan(0);
      await until(() => server.closes === 1, 'the server sees the close');
      expect(server.wss.clients.size).toBe(0);
      expect(socket.state).toBe('closed');
      await pass(50);
      expect([...timers.pending.values()]).toEqual([]);
      expect(server.connections).toBe(1);
    } finally {
      timers.restore();
    }
  });

  it('connects nowhere with a null URL: state idle, no socket, and send() drops', async () => {
    const server = await startServer();
    const s = seen();
    const warned = captureWarnings();
    await mount(createElement(StrictMode, null, probe(null, s)));
    await pass(AFTER_GRACE);
    expect(server.connections).toBe(0);
    expect(s.hook?.state).toBe('idle');
    expect(s.hook?.socket).toBeNull();
    expect(s.states).toEqual(['idle']);
    expect(s.hook?.send('nowhere')).toBe('dropped');
    expect(warned).toHaveLength(1);
    const drops: DropInfo[] = [];
    const told = seen();
    await mount(probe(null, told, { onDrop: (info) => drops.push(info) }));
    expect(told.hook?.send('nowhere')).toBe('dropped'); // with onDrop: told there instead
    expect(drops).toEqual([{ reason: 'not-connected', messages: ['nowhere'] }]);
    expect(warned).toHaveLength(1);
  });

  it('closes the old socket and opens a new one when the URL changes', async () => {
    const a = await startServer();
    const b = await startServer();
    const s = seen();
    const root = await mount(createElement(StrictMode, null, probe(a.url, s)));
    await until(() => s.hook?.state === 'open', 'open on A');
    const old = s.hook?.socket as BaseSocket;
    await act(async () => root.render(createElement(StrictMode, null, probe(b.url, s))));
    await until(() => s.hook?.socket !== old && s.hook?.state === 'open', 'open on B');
    expect(b.connections).toBe(1);
    await until(() => a.closes === 1, 'A sees the close');
    expect(old.state).toBe('closed');
    expect(a.connections).toBe(1);
    expect(a.wss.clients.size).toBe(0);
    await pass(AFTER_GRACE);
    expect(b.connections).toBe(1);
    expect(b.closes).toBe(0);
  });

  it('closes when a component switches from a URL to null, and reconnects once when it switches back', async () => {
    const server = await startServer();
    const s = seen();
    const root = await mount(probe(server.url, s));
    await until(() => s.hook?.state === 'open', 'open');
    await act(async () => root.render(probe(null, s)));
    await until(() => server.closes === 1, 'the server sees the close');
    expect(s.hook?.state).toBe('idle');
    expect(s.hook?.socket).toBeNull();
    await act(async () => root.render(probe(server.url, s)));
    await until(() => s.hook?.state === 'open', 'open again');
    await pass(AFTER_GRACE);
    expect(server.connections).toBe(2);
    expect(server.wss.clients.size).toBe(1);
  });
});

/** Sends a greeting from its own effect whenever its URL changes (the usual "subscribe on mount" pattern). */
function Greeter(props: { url: string; results: string[] }): ReactNode {
  const { send } = useResilientSocket(props.url);
  const { url, results } = props;
  useEffect(() => {
    results.push(send(`hello ${url}`));
  }, [url, send, results]);
  return null;
}

/** Uses `url` until `control.leave()`; its `shouldReconnect` (same source for every instance) logs its tag. */
function Reconnector(props: { url: string; tag: string; log: string[]; control: { leave?: () => void } }): ReactNode {
  const [on, setOn] = useState(true);
  props.control.leave = () => setOn(false);
  useResilientSocket(on ? props.url : null, {
    shouldReconnect: () => {
      props.log.push(props.tag);
      return true;
    },
  });
  return null;
}

describe('useResilientSocket: a shared socket closed by hand', () => {
  it('stays closed for the components that share it; a component that comes later gets a new socket', async () => {
    const server = await startServer();
    const a = seen();
    const b = seen();
    await mount(createElement('div', null, probe(server.url, a), probe(server.url, b)));
    await until(() => a.hook?.state === 'open' && b.hook?.state === 'open', 'both open');
    expect(a.hook?.socket).toBe(b.hook?.socket);
    await act(async () => a.hook?.socket?.close());
    await until(
      () => server.closes === 1 && a.hook?.state === 'closed' && b.hook?.state === 'closed',
      'closed for both',
    );
    const c = seen();
    await mount(probe(server.url, c));
    await until(() => c.hook?.state === 'open', 'the latecomer open');
    expect(c.hook?.socket).not.toBe(a.hook?.socket);
    expect(server.connections).toBe(2);
    expect(a.hook?.state).toBe('closed');
  });
});

describe('useResilientSocket: a shared socket that gave up', () => {
  it('stays closed for its components; a component that comes later gets a new socket', async () => {
    const server = await startServer();
    const a = seen();
    const options = { maxRetries: 0 };
    await mount(probe(server.url, a, options));
    await until(() => a.hook?.state === 'open', 'open');
    // As an app would (and without a listener the socket warns that nobody hears it give up).
    const gaveUp: string[] = [];
    a.hook?.socket?.on('giveup', ({ error }) => gaveUp.push(error.code));
    for (const client of server.wss.clients) client.close(4000, 'go away');
    await until(() => a.hook?.state === 'closed', 'gave up');
    expect(gaveUp).toEqual(['ERR_RS_RETRIES_EXHAUSTED']);
    const c = seen();
    await mount(probe(server.url, c, options));
    await until(() => c.hook?.state === 'open', 'the latecomer open');
    expect(c.hook?.socket).not.toBe(a.hook?.socket);
    expect(server.connections).toBe(2);
    expect(a.hook?.state).toBe('closed');
  });
});

describe('useResilientSocket: what effects and callbacks see', () => {
  it("send() from the component's own mount effect is queued and delivered", async () => {
    const server = await startServer();
    const results: string[] = [];
    const warned = captureWarnings();
    await mount(createElement(Greeter, { url: server.url, results }));
    await pass(200);
    expect(warned).toEqual([]);
    expect(results).toEqual(['buffered']);
    expect(server.received).toEqual([`hello ${server.url}`]);
  });

  it('send() from an effect that runs because the URL changed goes to the new URL', async () => {
    const [a, b] = [await startServer(), await startServer()];
    const results: string[] = [];
    captureWarnings(); // the mount effect's send() is dropped with a warning (the test above)
    const root = await mount(createElement(Greeter, { url: a.url, results }));
    await until(() => a.wss.clients.size === 1, 'connected to A');
    await act(async () => root.render(createElement(Greeter, { url: b.url, results })));
    await until(() => b.wss.clients.size === 1, 'connected to B');
    await pass(AFTER_GRACE);
    expect(a.received).not.toContain(`hello ${b.url}`);
    expect(b.received).toEqual([`hello ${b.url}`]);
  });

  it('every render with enabled: false (or a null URL) reports idle and no socket, not the socket it leaves', async () => {
    const server = await startServer();
    const s = seen();
    const root = await mount(probe(server.url, s));
    await until(() => s.hook?.state === 'open', 'open');
    const before = s.shown.length;
    await act(async () => root.render(probe(server.url, s, { enabled: false })));
    await pass(50);
    expect(s.shown.length).toBeGreaterThan(before);
    expect(s.shown.slice(before)).toEqual(s.shown.slice(before).map(() => 'idle, no socket'));
  });

  it('a component that leaves a shared socket no longer supplies its functions to it', async () => {
    const server = await startServer();
    const log: string[] = [];
    const [a, b] = [{} as { leave?: () => void }, {}];
    await mount([
      createElement(Reconnector, { key: 'a', url: server.url, tag: 'A', log, control: a }),
      createElement(Reconnector, { key: 'b', url: server.url, tag: 'B', log, control: b }),
    ]);
    await until(() => server.wss.clients.size === 1, 'connected');
    await act(async () => a.leave?.()); // only A re-renders: it leaves, B still uses the socket
    await pass(50);
    for (const client of server.wss.clients) client.close(4000, 'bye');
    await until(() => log.length > 0, 'shouldReconnect is asked');
    expect(log).toEqual(['B']);
  });
});

/** An error boundary that keeps what it caught. */
class Catch extends Component<{ caught: unknown[]; children?: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }
  override componentDidCatch(error: unknown): void {
    this.props.caught.push(error);
  }
  override render(): ReactNode {
    return this.state.failed ? null : this.props.children;
  }
}

describe('options the socket refuses', () => {
  it('a ceiling whose first retry window is under 1 ms is a RangeError from render, and nothing connects', async () => {
    const server = await startServer();
    const original = console.error; // React reports what a boundary caught there
    console.error = () => undefined;
    afterThisTest(() => {
      console.error = original;
    });
    const caught: unknown[] = [];
    const options = { maxDelay: 10_000, ceiling: 30_000 };
    await mount(createElement(Catch, { caught }, probe(server.url, seen(), options)));
    expect(caught).toHaveLength(1);
    expectInputError(
      rethrow(caught[0]),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'ceiling',
      /^Expected `ceiling` to be at most 14 with `maxDelay` 10000 .*, got 30000$/,
    );
    await pass(50);
    expect(server.connections).toBe(0);
  });
});
