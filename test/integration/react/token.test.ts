// @vitest-environment jsdom
/**
 * A token refresh with `useResilientSocket`, with real React 19 (jsdom) against a real ws server on
 * 127.0.0.1. A new token in the URL's query is the same destination: the messages queued on the
 * old socket are sent on the new one, with the new token. Another room in the query is another
 * destination: they are dropped and reported, never sent there. A URL provider (with
 * `providers()`) keeps its socket across renders and reads the latest token at the next attempt;
 * without `providers()` it is refused with an error that names it.
 */
import { act, createElement, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import type { DropInfo } from '../../../src/core/events.js';
import { providers } from '../../../src/modular.js';
import { type ResilientSocketHook, type UseResilientSocketOptions, useResilientSocket } from '../../../src/react.js';
import { expectInputError, rethrow } from '../../helpers/mode.js';
import { AFTER_GRACE, captureWarnings, mount, pass, render, startServer, type TestServer, until } from './harness.js';

interface Seen {
  hook: ResilientSocketHook | null;
  sockets: Set<unknown>;
}
const seen = (): Seen => ({ hook: null, sockets: new Set() });

function Probe(props: { url: string | (() => string); options: UseResilientSocketOptions; seen: Seen }): ReactNode {
  const hook = useResilientSocket(props.url, props.options);
  props.seen.hook = hook;
  if (hook.socket) props.seen.sockets.add(hook.socket);
  return createElement('p', null, hook.state);
}

/** Each message the server receives, with the URL (path and query) of the connection it came on. */
function messagesOf(server: TestServer): [url: string, data: string][] {
  const log: [string, string][] = [];
  server.wss.on('connection', (ws, request) => ws.on('message', (data) => log.push([request.url ?? '', String(data)])));
  return log;
}

describe('a new token in the query of a string URL', () => {
  it('sends the queued messages on the new socket, with the new token, and drops nothing', async () => {
    const server = await startServer();
    const log = messagesOf(server);
    const warned = captureWarnings();
    const drops: DropInfo[] = [];
    const s = seen();
    const probe = (token: string) =>
      createElement(Probe, {
        url: `${server.url}feed?room=lobby&access_token=${token}`,
        options: { maxDelay: 50, onDrop: (info) => drops.push(info) },
        seen: s,
      });
    const root = await mount(probe('t1'));
    await until(() => s.hook?.state === 'open', 'open');
    server.crash();
    await until(() => s.hook?.state !== 'open', 'the loss');
    expect(s.hook?.send('queued')).toBe('buffered');
    await render(root, probe('t2'));
    await until(() => s.sockets.size === 2, 'a socket for the new URL');
    server.down = false;
    await until(() => log.length > 0, 'the queued message arrives');
    await pass(100);
    expect(log).toEqual([['/feed?room=lobby&access_token=t2', 'queued']]);
    expect(drops).toEqual([]);
    expect(warned).toEqual([]);
  });
});

describe('another room in the query', () => {
  it('drops the queued messages and reports them: they never reach the other room', async () => {
    const server = await startServer();
    const log = messagesOf(server);
    const drops: DropInfo[] = [];
    const s = seen();
    const probe = (room: string) =>
      createElement(Probe, {
        url: `${server.url}feed?room=${room}&access_token=t1`,
        options: { maxDelay: 50, onDrop: (info) => drops.push(info) },
        seen: s,
      });
    const root = await mount(probe('lobby'));
    await until(() => s.hook?.state === 'open', 'open');
    server.crash();
    await until(() => s.hook?.state !== 'open', 'the loss');
    s.hook?.send('for the lobby');
    await render(root, probe('kitchen'));
    await until(() => drops.length > 0, 'onDrop is told');
    expect(drops).toEqual([{ reason: 'closed', messages: ['for the lobby'] }]);
    server.down = false;
    await until(() => s.hook?.state === 'open', 'open in the kitchen');
    await pass(AFTER_GRACE);
    expect(log).toEqual([]);
  });
});

describe('a URL provider with providers()', () => {
  it('keeps its socket when the token changes, and the next attempt carries the latest token', async () => {
    const server = await startServer();
    const log = messagesOf(server);
    const urls: string[] = [];
    server.wss.on('connection', (_ws, request) => urls.push(request.url ?? ''));
    const drops: DropInfo[] = [];
    const s = seen();
    const probe = (token: string) =>
      createElement(Probe, {
        url: () => `${server.url}feed?token=${token}`,
        options: { maxDelay: 50, features: [providers()], onDrop: (info) => drops.push(info) },
        seen: s,
      });
    const root = await mount(probe('t1'));
    await until(() => s.hook?.state === 'open', 'open');
    await render(root, probe('t2'));
    await pass(100);
    // The open connection is kept: a new token alone does not reconnect.
    expect(urls).toEqual(['/feed?token=t1']);
    server.crash();
    await until(() => s.hook?.state !== 'open', 'the loss');
    expect(s.hook?.send('queued')).toBe('buffered');
    await render(root, probe('t3'));
    server.down = false;
    await until(() => log.length > 0, 'the queued message arrives');
    expect(urls).toEqual(['/feed?token=t1', '/feed?token=t3']);
    expect(log).toEqual([['/feed?token=t3', 'queued']]);
    expect(s.sockets.size).toBe(1);
    expect(drops).toEqual([]);
  });

  it('is refused without providers(), with a TypeError that names it, and connects nowhere', async () => {
    const server = await startServer();
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    const s = seen();
    // The socket is made in the effect: the error is thrown there (and `act` hands it on).
    let thrown: unknown;
    try {
      await act(async () => root.render(createElement(Probe, { url: () => server.url, options: {}, seen: s })));
    } catch (error) {
      thrown = error;
    }
    await pass(100);
    await act(async () => root.unmount());
    expectInputError(rethrow(thrown), TypeError, 'ERR_RS_NEEDS_FEATURE', 'url', /add providers\(…\) to `features`/);
    expect(server.connections).toBe(0);
  });
});
