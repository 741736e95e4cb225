// @vitest-environment jsdom
/**
 * The hook's helpers with real React 19 (jsdom) against real ws servers on 127.0.0.1:
 * `lastJsonMessage` (parsed once per message for every component of a socket, `undefined` for text
 * that is not JSON and for binary data, never a throw), `sendJson` (a round trip; a TypeError for
 * what JSON cannot write, and JSON's own for a cycle or a BigInt), `filter` (a refused message
 * neither updates `lastMessage` nor re-renders, `onMessage` still gets it, a throwing filter is
 * reported and refuses) and `share: false` (a socket of its own, never shared, StrictMode-safe, and
 * its queued messages still follow a new token), a send before the socket is taken (it waits for it)
 * and after unmount (to the socket it used while that lives, then dropped and reported). Every wait
 * runs inside `act` and is bounded.
 */
import { createElement, type ReactNode, StrictMode, useEffect, useLayoutEffect } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DropInfo } from '../../../src/core/events.js';
import { type ResilientSocketHook, type UseResilientSocketOptions, useResilientSocket } from '../../../src/react.js';
import { errorMessage, PRODUCTION, shortMessage } from '../../helpers/mode.js';
import {
  AFTER_GRACE,
  afterThisTest,
  captureWarnings,
  mount,
  pass,
  render,
  startServer,
  type TestServer,
  until,
} from './harness.js';

interface Seen {
  renders: number;
  hook: ResilientSocketHook | null;
  /** Every render's `lastJsonMessage`. */
  json: unknown[];
  /** Every distinct `lastMessage` it rendered. */
  messages: unknown[];
  sockets: Set<unknown>;
  sendJsons: Set<unknown>;
}
const seen = (): Seen => ({ renders: 0, hook: null, json: [], messages: [], sockets: new Set(), sendJsons: new Set() });

function Probe(props: { url: string; options?: UseResilientSocketOptions | undefined; seen: Seen }): ReactNode {
  const hook = useResilientSocket(props.url, props.options);
  const { seen } = props;
  seen.renders++;
  seen.hook = hook;
  seen.json.push(hook.lastJsonMessage);
  if (hook.lastMessage && hook.lastMessage !== seen.messages.at(-1)) seen.messages.push(hook.lastMessage);
  seen.sendJsons.add(hook.sendJson);
  if (hook.socket) seen.sockets.add(hook.socket);
  return createElement('p', null, hook.state);
}
const probe = (url: string, s: Seen, options?: UseResilientSocketOptions, key?: string): ReactNode =>
  createElement(Probe, { url, seen: s, options, key });

const open = (all: Seen[]) => () => all.every((s) => s.hook?.state === 'open');

/** The server sends back every text message it receives. */
const echo = (server: TestServer): void =>
  void server.wss.on('connection', (ws) => ws.on('message', (data) => ws.send(String(data))));

/** What the package reports (`reportError` where there is one, else a process warning) during this test. */
function captureReports(): unknown[] {
  const reported: unknown[] = [];
  const g = globalThis as { reportError?: (e: unknown) => void };
  const [emitWarning, reportError] = [process.emitWarning, g.reportError];
  process.emitWarning = ((warning: unknown) => void reported.push(warning)) as typeof process.emitWarning;
  if (reportError) g.reportError = (error) => reported.push(error);
  afterThisTest(() => {
    process.emitWarning = emitWarning;
    if (reportError) g.reportError = reportError;
  });
  return reported;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('lastJsonMessage', () => {
  it('is parsed once per message for every component of the socket: one object, one JSON.parse', async () => {
    const server = await startServer();
    const all = [seen(), seen(), seen()];
    await mount(all.map((s, i) => probe(server.url, s, {}, String(i))));
    await until(open(all), 'all open');
    for (const s of all) expect(s.hook?.lastJsonMessage).toBeUndefined();
    const parse = vi.spyOn(JSON, 'parse');
    const text = JSON.stringify({ price: 42, tags: ['a'] });
    server.broadcast(text);
    await until(() => all.every((s) => s.hook?.lastMessage?.data === text), 'all see it');
    const parsed = all[0]?.hook?.lastJsonMessage;
    expect(parsed).toEqual({ price: 42, tags: ['a'] });
    for (const s of all) expect(s.hook?.lastJsonMessage).toBe(parsed);
    expect(parse.mock.calls.filter(([arg]) => arg === text)).toHaveLength(1);
  });

  it('keeps its object across re-renders that are not messages', async () => {
    const server = await startServer();
    const s = seen();
    const root = await mount(probe(server.url, s, { maxDelay: 100 }));
    await until(open([s]), 'open');
    const parse = vi.spyOn(JSON, 'parse');
    server.broadcast('{"n":1}');
    await until(() => s.hook?.lastMessage?.data === '{"n":1}', 'the message');
    const parsed = s.hook?.lastJsonMessage;
    const before = s.renders;
    for (let i = 0; i < 3; i++) await render(root, probe(server.url, s, { maxDelay: 100, closeDelay: 300 + i }));
    expect(s.renders).toBeGreaterThan(before);
    expect(s.hook?.lastJsonMessage).toBe(parsed);
    expect(parse.mock.calls.filter(([arg]) => arg === '{"n":1}')).toHaveLength(1);
  });

  it('is undefined for text that is not JSON and for binary data, follows the latest message, and never throws', async () => {
    const server = await startServer();
    const [blob, buffer] = [seen(), seen()];
    await mount([probe(server.url, blob, {}, 'b'), probe(server.url, buffer, { binaryType: 'arraybuffer' }, 'a')]);
    await until(open([blob, buffer]), 'open');
    const cases: [string | Buffer, unknown][] = [
      ['{"a":1}', { a: 1 }],
      ['not json', undefined],
      ['42', 42],
      ['{"half":', undefined],
      ['"text"', 'text'],
      ['', undefined],
      [Buffer.from('{"a":1}'), undefined],
      ['[1,2]', [1, 2]],
      [Buffer.from([0xff, 0x00]), undefined],
      ['null', null],
    ];
    for (const [i, [message, expected]] of cases.entries()) {
      for (const client of server.wss.clients) client.send(message);
      await until(() => [blob, buffer].every((s) => s.messages.length === i + 1), `case ${i} arrives`);
      for (const s of [blob, buffer]) expect(s.hook?.lastJsonMessage, `case ${i}`).toEqual(expected);
    }
    expect(blob.hook?.lastMessage?.data).not.toBeInstanceOf(ArrayBuffer);
  });
});

describe('sendJson', () => {
  it('sends the value as JSON (a round trip through an echo server), is queued before open, and is the same function on every render', async () => {
    const server = await startServer();
    echo(server);
    server.down = true;
    const s = seen();
    const root = await mount(probe(server.url, s, { maxDelay: 50 }));
    const value = { user: 'Bob', at: [1, 2], nested: { ok: true, none: null } };
    expect(s.hook?.sendJson(value)).toBe('buffered');
    server.down = false;
    await until(() => s.hook?.lastMessage !== null, 'the echo');
    expect(server.received).toEqual([JSON.stringify(value)]);
    expect(s.hook?.lastJsonMessage).toEqual(value);
    expect(s.hook?.sendJson([1, 'two'])).toBe('sent');
    await until(() => Array.isArray(s.hook?.lastJsonMessage), 'the second echo');
    expect(s.hook?.lastJsonMessage).toEqual([1, 'two']);
    await render(root, probe(server.url, s, { maxDelay: 50, closeDelay: 100 }));
    expect(s.sendJsons.size).toBe(1);
  });

  it('refuses what JSON cannot write with a TypeError that names it, and sends nothing', async () => {
    const server = await startServer();
    const s = seen();
    await mount(probe(server.url, s));
    await until(open([s]), 'open');
    const refused: [string, unknown][] = [
      ['undefined', undefined],
      ['a function', () => 1],
      ['a symbol', Symbol('s')],
    ];
    for (const [what, value] of refused) {
      let thrown: unknown;
      try {
        s.hook?.sendJson(value);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, what).toBeInstanceOf(TypeError);
      expect((thrown as Error).constructor, what).toBe(TypeError);
      expect((thrown as { code?: unknown }).code, what).toBe('ERR_RS_INVALID_TYPE');
      // Development builds name the call and the value; production ones the argument and the code.
      if (PRODUCTION) expect((thrown as Error).message, what).toBe(shortMessage('value', 'ERR_RS_INVALID_TYPE'));
      else
        expect((thrown as Error).message, what).toMatch(
          /^Expected `value` of sendJson to be something JSON can write, got (undefined|function|symbol Symbol\(s\))/,
        );
    }
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => s.hook?.sendJson(cycle)).toThrow(TypeError);
    expect(() => s.hook?.sendJson({ big: 1n })).toThrow(/BigInt/);
    await pass(100);
    expect(server.received).toEqual([]);
  });
});

describe('filter', () => {
  it('a refused message neither updates lastMessage (nor lastJsonMessage) nor re-renders; onMessage still gets it', async () => {
    const server = await startServer();
    const asked: unknown[] = [];
    const got: unknown[] = [];
    const filter = (data: unknown) => {
      asked.push(data);
      return String(data).includes('keep');
    };
    const [picky, plain, listener] = [seen(), seen(), seen()];
    await mount([
      probe(server.url, picky, { filter }, 'f'),
      probe(server.url, plain, {}, 'p'),
      probe(server.url, listener, { filter: () => false, onMessage: (m) => got.push(m.data) }, 'l'),
    ]);
    await until(open([picky, plain, listener]), 'open');
    expect(server.connections).toBe(1); // the filter is not part of the key
    server.broadcast('{"keep":1}');
    await until(() => picky.hook?.lastMessage?.data === '{"keep":1}', 'the first one is kept');
    const renders = picky.renders;
    for (const message of ['{"drop":2}', 'drop 3', '{"drop":4}']) {
      server.broadcast(message);
      await until(() => plain.hook?.lastMessage?.data === message, `${message} arrives`);
    }
    await pass(50);
    expect(picky.renders).toBe(renders);
    expect(picky.hook?.lastMessage?.data).toBe('{"keep":1}');
    expect(picky.hook?.lastJsonMessage).toEqual({ keep: 1 });
    expect(asked).toContain('drop 3');
    expect(got).toEqual(['{"keep":1}', '{"drop":2}', 'drop 3', '{"drop":4}']);
    server.broadcast('{"keep":5}');
    await until(() => picky.hook?.lastJsonMessage !== undefined && picky.renders > renders, 'kept again');
    expect(picky.hook?.lastMessage?.data).toBe('{"keep":5}');
    expect(picky.hook?.lastJsonMessage).toEqual({ keep: 5 });
  });

  it('is the latest render’s filter', async () => {
    const server = await startServer();
    const s = seen();
    const withWord = (word: string) => probe(server.url, s, { filter: (data) => String(data) === word });
    const root = await mount(withWord('a'));
    await until(open([s]), 'open');
    server.broadcast('a');
    await until(() => s.hook?.lastMessage?.data === 'a', 'a');
    await render(root, withWord('b'));
    server.broadcast('a2');
    server.broadcast('b');
    await until(() => s.hook?.lastMessage?.data === 'b', 'b');
    expect(server.connections).toBe(1);
  });

  it('a filter that throws is reported (ERR_RS_LISTENER_THREW) and refuses; the others are not disturbed', async () => {
    const server = await startServer();
    const reported = captureReports();
    const [thrower, plain] = [seen(), seen()];
    const filter = (data: unknown) => {
      if (data === 'bad') throw new Error('boom');
      return true;
    };
    await mount([probe(server.url, thrower, { filter }, 't'), probe(server.url, plain, {}, 'p')]);
    await until(open([thrower, plain]), 'open');
    server.broadcast('good');
    await until(() => thrower.hook?.lastMessage?.data === 'good', 'good');
    const renders = thrower.renders;
    server.broadcast('bad');
    await until(() => plain.hook?.lastMessage?.data === 'bad', 'the sibling sees it');
    await pass(50);
    expect(thrower.hook?.lastMessage?.data).toBe('good');
    expect(thrower.renders).toBe(renders);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({
      code: 'ERR_RS_LISTENER_THREW',
      message: errorMessage('ERR_RS_LISTENER_THREW', expect.stringMatching(/filter.*boom/)),
    });
    expect(thrower.hook?.state).toBe('open');
    server.broadcast('after');
    await until(() => thrower.hook?.lastMessage?.data === 'after', 'later messages still come');
  });
});

describe('share: false', () => {
  it('gives a component a socket of its own, even beside one with equal options, shared or not', async () => {
    const server = await startServer();
    const [shared, own, other] = [seen(), seen(), seen()];
    const options = { maxDelay: 100 };
    await mount([
      probe(server.url, shared, options, 's'),
      probe(server.url, own, { ...options, share: false }, 'o'),
      probe(server.url, other, { ...options, share: false }, 'x'),
    ]);
    await until(open([shared, own, other]), 'all open');
    const later = seen();
    await mount(probe(server.url, later, options)); // joins the shared one, not a private one
    await until(open([later]), 'the latecomer open');
    await pass(100);
    expect(server.connections).toBe(3);
    expect(new Set([shared, own, other].map((s) => s.hook?.socket)).size).toBe(3);
    expect(later.hook?.socket).toBe(shared.hook?.socket);
    server.broadcast('all');
    await until(() => [shared, own, other, later].every((s) => s.hook?.lastMessage?.data === 'all'), 'all see it');
  });

  it('makes one connection under StrictMode, and closes it after its component unmounts', async () => {
    const server = await startServer();
    const s = seen();
    const root = await mount(createElement(StrictMode, null, probe(server.url, s, { share: false })));
    await until(open([s]), 'open');
    await pass(AFTER_GRACE);
    expect(server.connections).toBe(1);
    expect(server.closes).toBe(0);
    expect(s.sockets.size).toBe(1);
    await render(root, null);
    await until(() => server.closes === 1, 'closed');
  });

  it('hands its queued messages over when only the token in the URL changes', async () => {
    const server = await startServer();
    const urls: [string, string][] = [];
    server.wss.on('connection', (ws, request) =>
      ws.on('message', (data) => urls.push([request.url ?? '', String(data)])),
    );
    const warned = captureWarnings();
    const drops: DropInfo[] = [];
    const [s, bystander] = [seen(), seen()];
    const options = { share: false, maxDelay: 50, onDrop: (info: DropInfo) => drops.push(info) };
    const both = (token: string) => [
      probe(`${server.url}feed?room=1&token=${token}`, s, options, 's'),
      probe(`${server.url}feed?room=1&token=t2`, bystander, { share: false, maxDelay: 50 }, 'b'),
    ];
    const root = await mount(both('t1'));
    await until(open([s, bystander]), 'open');
    server.crash();
    await until(() => s.hook?.state !== 'open', 'the loss');
    expect(s.hook?.send('queued')).toBe('buffered');
    await render(root, both('t2'));
    await until(() => s.sockets.size === 2, 'a socket for the new token');
    expect(s.hook?.socket).not.toBe(bystander.hook?.socket);
    server.down = false;
    await until(() => urls.length > 0, 'the queued message arrives');
    await pass(AFTER_GRACE);
    expect(urls).toEqual([['/feed?room=1&token=t2', 'queued']]);
    expect(drops).toEqual([]);
    expect(warned).toEqual([]);
  });
});

/** A parent that takes the socket and a child that sends through it from its own effects (which run first). */
function Parent(props: { url: string | null; options?: UseResilientSocketOptions; sent: string[] }): ReactNode {
  const hook = useResilientSocket(props.url, props.options);
  return createElement(Child, { send: hook.send, sendJson: hook.sendJson, sent: props.sent });
}
function Child(props: {
  send: ResilientSocketHook['send'];
  sendJson: ResilientSocketHook['sendJson'];
  sent: string[];
}): ReactNode {
  const { send, sendJson, sent } = props;
  useLayoutEffect(() => {
    sent.push(send('from a layout effect'));
  }, [send, sent]);
  useEffect(() => {
    sent.push(send('from an effect'), sendJson({ n: 1 }));
  }, [send, sendJson, sent]);
  return null;
}

describe('a send before the socket is taken', () => {
  it('from a child’s effects (before the hook’s own) waits for the socket and is sent, in order, once', async () => {
    const server = await startServer();
    const warned = captureWarnings();
    const sent: string[] = [];
    await mount(createElement(StrictMode, null, createElement(Parent, { url: server.url, sent })));
    await until(() => server.received.length >= 3, 'the messages');
    await pass(100);
    // StrictMode runs the child's effects twice: each send is its own message, none lost, none repeated.
    expect(sent.every((result) => result === 'buffered' || result === 'sent')).toBe(true);
    expect(server.received).toEqual(
      sent.length === 6
        ? ['from a layout effect', 'from an effect', '{"n":1}', 'from a layout effect', 'from an effect', '{"n":1}']
        : ['from a layout effect', 'from an effect', '{"n":1}'],
    );
    expect(warned).toEqual([]);
  });

  it('with no URL it is dropped and reported to onDrop, which is set before any child’s effect runs', async () => {
    const drops: DropInfo[] = [];
    const sent: string[] = [];
    await mount(createElement(Parent, { url: null, options: { onDrop: (info) => drops.push(info) }, sent }));
    expect(sent).toEqual(['dropped', 'dropped', 'dropped']);
    expect(drops.map((d) => d.messages)).toEqual([['from a layout effect'], ['from an effect'], ['{"n":1}']]);
  });
});

describe('a send after the component unmounted', () => {
  it('goes to the socket it used while that socket lives (the grace period, or another component still on it); after it closed, is dropped and reported', async () => {
    const server = await startServer();
    const drops: DropInfo[] = [];
    const [alone, stays, leaves] = [seen(), seen(), seen()];
    const options: UseResilientSocketOptions = { onDrop: (info) => drops.push(info) };

    // Alone on its socket: sent during the grace period, on the same connection.
    const root = await mount(probe(server.url, alone, options));
    await until(open([alone]), 'open');
    const send = alone.hook?.send as (data: string) => string;
    await render(root, null);
    expect(send('after unmount, in the grace period')).toBe('sent');
    await until(() => server.received.length === 1, 'the message');
    expect(server.received).toEqual(['after unmount, in the grace period']);
    expect(server.connections).toBe(1);

    // After the grace period the socket is closed: the send is dropped and reported, never sent.
    await until(() => server.closes === 1, 'the close after the grace period');
    await pass(50);
    expect(send('after the close')).toBe('dropped');
    expect(drops.map((d) => d.messages)).toEqual([['after the close']]);

    // Shared: one component leaves, the other stays; the leaver's send goes to the shared socket.
    const both = await mount([
      probe(server.url, stays, options, 'stays'),
      probe(server.url, leaves, options, 'leaves'),
    ]);
    await until(open([stays, leaves]), 'open again');
    const leaverSend = leaves.hook?.send as (data: string) => string;
    await render(both, probe(server.url, stays, options, 'stays'));
    await pass(AFTER_GRACE);
    expect(leaverSend('from the one that left')).toBe('sent');
    await until(() => server.received.length === 2, 'the leaver’s message');
    expect(server.received[1]).toBe('from the one that left');
    expect(server.connections).toBe(2);
    expect(stays.hook?.state).toBe('open');
  });
});
