// @vitest-environment jsdom
/**
 * `useResilientSocket`'s options with real React 19 (jsdom) against a real ws server on 127.0.0.1:
 * options compared by value (an inline literal with features and an arrow function neither
 * reconnects nor splits the sharing; different options make separate sockets), `enabled`,
 * `onMessage` (no re-render), `send` (stable, queued before open), the hand-over of queued
 * messages on an options change with the same URL versus `onDrop` with another URL, callbacks of
 * the latest committed render, and a throwing `onMessage`. Every wait runs inside `act`.
 */
import { createElement, type ReactNode, StrictMode } from 'react';
import { describe, expect, it } from 'vitest';
import type { DropInfo } from '../../../src/core/events.js';
import { heartbeat } from '../../../src/modular.js';
import { type ResilientSocketHook, type UseResilientSocketOptions, useResilientSocket } from '../../../src/react.js';
import { errorMessage } from '../../helpers/mode.js';
import { AFTER_GRACE, afterThisTest, captureWarnings, mount, pass, render, startServer, until } from './harness.js';

interface Seen {
  renders: number;
  hook: ResilientSocketHook | null;
  data: unknown[];
  sends: Set<unknown>;
  sockets: Set<unknown>;
}
const seen = (): Seen => ({ renders: 0, hook: null, data: [], sends: new Set(), sockets: new Set() });

function note(s: Seen, hook: ResilientSocketHook): void {
  s.renders++;
  s.hook = hook;
  s.sends.add(hook.send);
  if (hook.socket) s.sockets.add(hook.socket);
  const data = hook.lastMessage?.data ?? null;
  if (data !== null && data !== s.data.at(-1)) s.data.push(data);
}

function Probe(props: { url: string | null; options?: UseResilientSocketOptions; seen: Seen }): ReactNode {
  note(props.seen, useResilientSocket(props.url, props.options));
  return null;
}
const probe = (url: string | null, s: Seen, options?: UseResilientSocketOptions): ReactNode =>
  createElement(Probe, { url, seen: s, ...(options ? { options } : {}) });

/** Its options are an inline literal: a new object, feature and arrow function on every render. */
function Inline(props: { url: string; seen: Seen; tick: number; log: number[] }): ReactNode {
  const hook = useResilientSocket(props.url, {
    maxDelay: 100,
    buffer: { maxMessages: 50, maxBytes: 65_536 },
    features: [heartbeat({ interval: 5_000 })],
    shouldReconnect: ({ code }) => {
      props.log.push(props.tick);
      return code !== 4001;
    },
  });
  note(props.seen, hook);
  return createElement('p', null, `${props.tick} ${hook.state}`);
}

describe('options compared by value', () => {
  it('an inline literal (features, an arrow function) neither reconnects nor splits the sharing across re-renders', async () => {
    const server = await startServer();
    const [a, b, log] = [seen(), seen(), [] as number[]];
    const two = (tick: number) => [
      createElement(Inline, { key: 'a', url: server.url, seen: a, tick, log }),
      createElement(Inline, { key: 'b', url: server.url, seen: b, tick, log }),
    ];
    const root = await mount(two(0));
    await until(() => a.hook?.state === 'open' && b.hook?.state === 'open', 'both open');
    for (let tick = 1; tick <= 5; tick++) {
      await render(root, two(tick));
      await pass(30);
    }
    await pass(AFTER_GRACE);
    expect(server.connections).toBe(1);
    expect(server.closes).toBe(0);
    expect(a.sockets.size).toBe(1);
    expect([...b.sockets]).toEqual([...a.sockets]);
    expect(a.hook?.state).toBe('open');
    // The socket calls the latest committed render's function: a server close asks tick 5's arrow.
    for (const client of server.wss.clients) client.close(4000, 'bye');
    await until(() => log.length > 0 && a.hook?.state === 'open' && server.connections === 2, 'reconnected');
    expect(log).toEqual([5]);
  });

  it('different options (or features with different options) make separate sockets, also under StrictMode; equal ones share', async () => {
    const server = await startServer();
    const Native = globalThis.WebSocket;
    let made = 0;
    globalThis.WebSocket = class extends Native {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        made++;
      }
    };
    afterThisTest(() => (globalThis.WebSocket = Native));
    const all = [seen(), seen(), seen(), seen(), seen()];
    const options: UseResilientSocketOptions[] = [
      { maxDelay: 100 },
      { maxDelay: 200 },
      { maxDelay: 100, closeDelay: 300, onDrop: () => {} }, // hook-only options do not count
      { features: [heartbeat({ interval: 1_000 })] },
      { features: [heartbeat({ interval: 2_000 })] },
    ];
    const probes = options.map((o, i) =>
      createElement(Probe, { key: i, url: server.url, seen: all[i] as Seen, options: o }),
    );
    await mount(createElement(StrictMode, null, probes)); // its effect re-run makes no extra socket
    await until(() => all.every((s) => s.hook?.state === 'open'), 'all open');
    await pass(100);
    expect(server.connections).toBe(4);
    expect(made).toBe(4);
    const sockets = all.map((s) => s.hook?.socket);
    expect(new Set(sockets).size).toBe(4);
    expect(sockets[2]).toBe(sockets[0]);
  });
});

describe('enabled', () => {
  it('connects only while enabled: false → true → false', async () => {
    const server = await startServer();
    const s = seen();
    const root = await mount(probe(server.url, s, { enabled: false }));
    await pass(AFTER_GRACE);
    expect(server.connections).toBe(0);
    expect(s.hook?.state).toBe('idle');
    expect(s.hook?.socket).toBeNull();

    await render(root, probe(server.url, s, { enabled: true }));
    await until(() => s.hook?.state === 'open', 'open once enabled');
    expect(server.connections).toBe(1);
    const socket = s.hook?.socket;

    await render(root, probe(server.url, s, { enabled: false }));
    await until(() => server.closes === 1, 'the server sees the close once disabled');
    expect(s.hook?.state).toBe('idle');
    expect(s.hook?.socket).toBeNull();
    expect(socket?.state).toBe('closed');
    expect(server.connections).toBe(1);
  });
});

describe('onMessage', () => {
  it('takes the messages without re-rendering its component, while a sibling without it re-renders', async () => {
    const server = await startServer();
    const [quiet, loud, got] = [seen(), seen(), [] as unknown[]];
    await mount([
      createElement(Probe, { key: 'q', url: server.url, seen: quiet, options: { onMessage: (m) => got.push(m.data) } }),
      createElement(Probe, { key: 'l', url: server.url, seen: loud }),
    ]);
    await until(() => quiet.hook?.state === 'open' && loud.hook?.state === 'open', 'both open');
    expect(server.connections).toBe(1);
    const [quietRenders, loudRenders] = [quiet.renders, loud.renders];
    const messages = ['m1', 'm2', 'm3', 'm4', 'm5'];
    for (const message of messages) {
      server.broadcast(message);
      await until(() => loud.hook?.lastMessage?.data === message, `the sibling sees ${message}`);
    }
    expect(got).toEqual(messages);
    expect(loud.data).toEqual(messages);
    expect(loud.renders - loudRenders).toBeGreaterThanOrEqual(messages.length);
    expect(quiet.renders).toBe(quietRenders);
    expect(quiet.hook?.lastMessage).toBeNull();
    // A burst: onMessage gets each one; lastMessage (one render per batch) ends at the latest.
    const burst = Array.from({ length: 20 }, (_, i) => `b${i + 1}`);
    for (const message of burst) server.broadcast(message);
    await until(() => got.length === 25 && loud.hook?.lastMessage?.data === 'b20', 'the burst arrives');
    expect(got).toEqual([...messages, ...burst]);
    expect(quiet.renders).toBe(quietRenders);
    expect(loud.data.slice(messages.length).every((data) => burst.includes(String(data)))).toBe(true);
  });

  it('a throwing onMessage is reported and does not break the other components', async () => {
    const server = await startServer();
    const reported: unknown[] = [];
    const g = globalThis as { reportError?: (e: unknown) => void };
    const [emitWarning, reportError] = [process.emitWarning, g.reportError];
    process.emitWarning = ((warning: unknown) => void reported.push(warning)) as typeof process.emitWarning;
    if (reportError) g.reportError = (error) => reported.push(error);
    afterThisTest(() => {
      process.emitWarning = emitWarning;
      if (reportError) g.reportError = reportError;
    });
    const [thrower, listener, plain] = [seen(), seen(), seen()];
    const got: unknown[] = [];
    const boom = (): void => {
      throw new Error('boom');
    };
    await mount([
      createElement(Probe, { key: 't', url: server.url, seen: thrower, options: { onMessage: boom } }),
      createElement(Probe, {
        key: 'l',
        url: server.url,
        seen: listener,
        options: { onMessage: (m) => got.push(m.data) },
      }),
      createElement(Probe, { key: 'p', url: server.url, seen: plain }),
    ]);
    await until(() => plain.hook?.state === 'open', 'open');
    for (const message of ['a', 'b']) {
      server.broadcast(message);
      await until(() => plain.hook?.lastMessage?.data === message, `the plain component sees ${message}`);
    }
    expect(got).toEqual(['a', 'b']);
    expect(plain.data).toEqual(['a', 'b']);
    expect(reported).toHaveLength(2);
    expect(reported[0]).toMatchObject({
      code: 'ERR_RS_LISTENER_THREW',
      message: errorMessage('ERR_RS_LISTENER_THREW', expect.stringContaining('boom')),
    });
    expect(thrower.hook?.state).toBe('open');
    expect(server.connections).toBe(1);
  });
});

describe('send', () => {
  it('is the same function on every render, queues before the socket opens, and delivers', async () => {
    const server = await startServer();
    server.down = true; // the socket cannot open yet
    const s = seen();
    const root = await mount(probe(server.url, s, { maxDelay: 100 }));
    expect(s.hook?.send('early')).toBe('buffered');
    await pass(100);
    expect(s.hook?.state).not.toBe('open');
    server.down = false;
    await until(() => server.received.includes('early'), 'the server receives the queued message');
    await render(root, probe(server.url, s, { maxDelay: 100, closeDelay: 100 }));
    expect(s.hook?.send('late')).toBe('sent');
    await until(() => server.received.includes('late'), 'the server receives the later one');
    expect(server.received).toEqual(['early', 'late']);
    expect(s.renders).toBeGreaterThan(2);
    expect(s.sends.size).toBe(1);
  });
});

describe('queued messages when the options or the URL change', () => {
  it('hands them over to the new socket when the URL is the same', async () => {
    const server = await startServer();
    const warned = captureWarnings();
    const drops: DropInfo[] = [];
    const onDrop = (info: DropInfo) => drops.push(info);
    const s = seen();
    const root = await mount(probe(server.url, s, { maxDelay: 50, onDrop }));
    await until(() => s.hook?.state === 'open', 'open');
    const old = s.hook?.socket;
    server.crash();
    await until(() => s.hook?.state !== 'open', 'the socket sees the loss');
    expect(s.hook?.send('queued')).toBe('buffered');
    await render(root, probe(server.url, s, { maxDelay: 60, onDrop }));
    await until(() => !!s.hook?.socket && s.hook.socket !== old, 'a new socket');
    expect(old?.state).toBe('closed');
    await pass(AFTER_GRACE);
    server.down = false;
    await until(() => server.received.includes('queued'), 'the message arrives on the new socket');
    await pass(100);
    expect(server.received).toEqual(['queued']);
    expect(server.connections).toBe(2);
    expect(drops).toEqual([]);
    expect(warned).toEqual([]);
  });

  it('hands them over also when another component already uses the new options', async () => {
    const server = await startServer();
    const drops: DropInfo[] = [];
    const onDrop = (info: DropInfo) => drops.push(info);
    const [mover, stayer] = [seen(), seen()];
    const both = (moverDelay: number) => [
      createElement(Probe, { key: 'm', url: server.url, seen: mover, options: { maxDelay: moverDelay, onDrop } }),
      createElement(Probe, { key: 's', url: server.url, seen: stayer, options: { maxDelay: 60 } }),
    ];
    const root = await mount(both(50));
    await until(() => mover.hook?.state === 'open' && stayer.hook?.state === 'open', 'both open');
    server.crash();
    await until(() => mover.hook?.state !== 'open', 'the loss');
    expect(mover.hook?.send('queued')).toBe('buffered');
    await render(root, both(60));
    await pass(AFTER_GRACE); // the old socket's grace period ends while the server is still down
    server.down = false;
    await until(() => stayer.hook?.state === 'open', 'the shared socket reconnects');
    await pass(100);
    expect(drops).toEqual([]);
    expect(server.received).toEqual(['queued']);
  });

  it('drops them and tells onDrop (reason closed) when the URL differs', async () => {
    const [a, b] = [await startServer(), await startServer()];
    const drops: DropInfo[] = [];
    const s = seen();
    const root = await mount(probe(a.url, s, { maxDelay: 50, onDrop: (info) => drops.push(info) }));
    await until(() => s.hook?.state === 'open', 'open on A');
    a.crash();
    await until(() => s.hook?.state !== 'open', 'the loss');
    expect(s.hook?.send('queued')).toBe('buffered');
    await render(root, probe(b.url, s, { maxDelay: 50, onDrop: (info) => drops.push(info) }));
    await until(() => drops.length > 0, 'onDrop is told');
    expect(drops).toEqual([{ reason: 'closed', messages: ['queued'] }]);
    await until(() => s.hook?.state === 'open', 'open on B');
    a.down = false;
    await pass(AFTER_GRACE);
    expect(b.received).toEqual([]);
    expect(a.received).toEqual([]);
  });

  it('without onDrop, drops them with a console warning when the URL differs', async () => {
    const [a, b] = [await startServer(), await startServer()];
    const warned = captureWarnings();
    const s = seen();
    const root = await mount(probe(a.url, s, { maxDelay: 50 }));
    await until(() => s.hook?.state === 'open', 'open on A');
    a.crash();
    await until(() => s.hook?.state !== 'open', 'the loss');
    s.hook?.send('queued');
    await render(root, probe(b.url, s, { maxDelay: 50 }));
    await until(() => warned.length > 0, 'a warning');
    expect(String(warned[0]?.[0])).toMatch(/1 message.*not sent.*closed/);
  });
});
