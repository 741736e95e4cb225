// @vitest-environment jsdom
/**
 * react-use-websocket's own tests asked of `useResilientSocket` (./react-use-websocket-harness.ts
 * says which of their tests each one is, and how the two hooks differ): the hook itself: connecting
 * (`enabled`, URL providers, retries and giving up), lastMessage and lastJsonMessage, send and
 * sendJson, the socket it returns, and unmounting.
 */
import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import type { BaseSocket } from '../../../src/core/socket.js';
import { providers } from '../../../src/modular.js';
import { AFTER_GRACE, mount, pass, render, startServer, until } from './harness.js';
import { codeOf, heard, probe, seen } from './react-use-websocket-harness.js';

describe('use-websocket.test.ts: the hook', () => {
  it('connects with a URL alone; idle while disabled, then connecting, open, and closed when the server closes', async () => {
    const server = await startServer();
    const s = seen();
    const options = { shouldReconnect: () => false };
    const root = await mount(probe(server.url, s, { ...options, enabled: false }));
    await pass(50);
    expect(s.hook?.state).toBe('idle');
    expect(server.connections).toBe(0);
    await render(root, probe(server.url, s, options));
    await until(() => s.hook?.state === 'open', 'open');
    for (const client of server.wss.clients) client.close(1000, 'done');
    await until(() => s.hook?.state === 'closed', 'closed');
    expect(s.states).toEqual(['idle', 'connecting', 'open', 'closed']);
    // As theirs: from open straight to closed (no closing) when the server ends it.
    const changes = heard(s, 'state').map((change) => (change as { current: string }).current);
    expect(changes).toEqual(['open', 'closed']);
    expect(server.connections).toBe(1);
  });

  it('an async URL provider connects as the string does', async () => {
    const server = await startServer();
    const s = seen();
    const url = () => new Promise<string>((resolve) => setTimeout(() => resolve(server.url), 50));
    await mount(probe(url, s, { features: [providers()] }));
    await until(() => s.hook?.state === 'open', 'open');
    expect(s.states).toEqual(['idle', 'connecting', 'open']);
    expect(server.connections).toBe(1);
  });

  it('a provider that rejects is retried with backoff until it resolves', async () => {
    const server = await startServer();
    const s = seen();
    let calls = 0;
    const url = () =>
      new Promise<string>((resolve, reject) =>
        setTimeout(() => (++calls <= 2 ? reject(new Error('no url yet')) : resolve(server.url)), 20),
      );
    await mount(probe(url, s, { features: [providers()], maxRetries: 3, maxDelay: 50 }));
    await until(() => s.hook?.state === 'open', 'open');
    expect(calls).toBe(3);
    expect(heard(s, 'giveup')).toEqual([]);
    expect(heard(s, 'error').map(codeOf)).toEqual(['ERR_RS_PROVIDER_FAILED', 'ERR_RS_PROVIDER_FAILED']);
  });

  it('a provider that keeps rejecting: the socket gives up after maxRetries (the giveup event), closed', async () => {
    const s = seen();
    let calls = 0;
    const url = () => new Promise<string>((_, reject) => setTimeout(() => reject(new Error(`no url ${++calls}`)), 20));
    await mount(probe(url, s, { features: [providers()], maxRetries: 2, maxDelay: 50 }));
    await until(() => s.hook?.state === 'closed', 'gave up');
    expect(calls).toBe(3);
    expect(heard(s, 'giveup')).toHaveLength(1);
    expect(heard(s, 'giveup')[0]).toMatchObject({ attempts: 3, failures: 3 });
  });

  it('maxRetries: 0 gives up at the first failure', async () => {
    const s = seen();
    let calls = 0;
    const url = () => new Promise<string>((_, reject) => setTimeout(() => reject(new Error(`no url ${++calls}`)), 20));
    await mount(probe(url, s, { features: [providers()], maxRetries: 0 }));
    await until(() => s.hook?.state === 'closed', 'gave up');
    await pass(100);
    expect(calls).toBe(1);
    expect(heard(s, 'giveup')[0]).toMatchObject({ attempts: 1, failures: 1 });
  });

  it('lastMessage is null, then the latest message', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s));
    await until(() => s.hook?.state === 'open', 'open');
    expect(s.hook?.lastMessage).toBeNull();
    server.broadcast('Hello');
    await until(() => s.hook?.lastMessage?.data === 'Hello', 'Hello');
    server.broadcast('There');
    server.broadcast('Friend');
    await until(() => s.hook?.lastMessage?.data === 'Friend', 'Friend');
    expect(typeof s.hook?.lastMessage?.timeStamp).toBe('number');
  });

  it('lastJsonMessage is the parsed message (JSON.parse called with its text)', async () => {
    const server = await startServer();
    const parse = vi.spyOn(JSON, 'parse');
    const s = seen();
    await mount(probe(server.url, s));
    await until(() => s.hook?.state === 'open', 'open');
    expect(s.hook?.lastJsonMessage).toBeUndefined();
    const text = JSON.stringify({ name: 'Bob' });
    server.broadcast(text);
    await until(() => s.hook?.lastMessage?.data === text, 'the message');
    expect(s.hook?.lastJsonMessage).toEqual({ name: 'Bob' });
    expect(parse).toHaveBeenCalledWith(text);
  });

  it('send delivers once open', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s));
    await until(() => s.hook?.state === 'open', 'open');
    expect(s.hook?.send('Hello')).toBe('sent');
    await until(() => server.received.includes('Hello'), 'the server receives it');
  });

  it('send before the socket opens is queued and sent when it opens', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s));
    expect(s.hook?.state).not.toBe('open');
    expect(s.hook?.send('Hello')).toBe('buffered');
    await until(() => server.received.includes('Hello'), 'the server receives it');
    expect(server.received).toEqual(['Hello']);
  });

  it('sendJson sends the value as JSON', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s));
    await until(() => s.hook?.state === 'open', 'open');
    s.hook?.sendJson({ name: 'Bob' });
    await until(() => server.received.length > 0, 'the server receives it');
    expect(server.received).toEqual([JSON.stringify({ name: 'Bob' })]);
  });

  it('with share: false, socket is its own socket, and closing it closes it for the component', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s, { share: false }));
    await until(() => s.hook?.state === 'open', 'open');
    const socket = s.hook?.socket as BaseSocket;
    expect(socket.url).toBe(server.url);
    await act(async () => socket.close()); // it sets the component's state: inside act, as any update
    await until(() => s.hook?.state === 'closed' && server.closes === 1, 'closed');
    await pass(AFTER_GRACE);
    expect(server.connections).toBe(1);
  });

  it('a shared socket is not protected: socket.close() closes it for every component sharing it, not for one with share: false', async () => {
    const server = await startServer();
    const [a, b, own] = [seen(), seen(), seen()];
    await mount([
      probe(server.url, a, {}, 'a'),
      probe(server.url, b, {}, 'b'),
      probe(server.url, own, { share: false }, 'o'),
    ]);
    await until(() => [a, b, own].every((s) => s.hook?.state === 'open'), 'all open');
    expect(server.connections).toBe(2);
    await act(async () => a.hook?.socket?.close());
    await until(() => a.hook?.state === 'closed' && b.hook?.state === 'closed', 'closed for both sharers');
    await pass(100);
    expect(own.hook?.state).toBe('open');
    expect(server.closes).toBe(1);
  });

  it('unmounting closes the socket once closeDelay has passed', async () => {
    const server = await startServer();
    const s = seen();
    const root = await mount(probe(server.url, s, { closeDelay: 100 }));
    await until(() => s.hook?.state === 'open', 'open');
    const socket = s.hook?.socket as BaseSocket;
    await render(root, null);
    expect(socket.state).toBe('open'); // the grace period (StrictMode, route changes)
    await until(() => socket.state === 'closed' && server.closes === 1, 'closed after the grace period');
  });
});
