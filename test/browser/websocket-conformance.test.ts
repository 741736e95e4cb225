import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { type Case, CLOSE_CASES, CONSTRUCTOR_CASES, expectedOurs, type Outcome } from '../websocket/cases.js';
import { EchoServer } from '../websocket/echo-server.js';
import { useTestPages, WEBSOCKET_FAILED } from './harness.js';

// ResilientWebSocket (dist/dev/websocket.js, the browser build's development flavour: messages
// are compared text for text) side by side with Chromium's own WebSocket in one page
// (test/browser/pages/websocket/): the same code runs on both classes and
// what each did (what it threw, every event described as JSON) is compared here. The argument
// table (test/websocket/cases.ts) is checked against the native WebSocket, so its Chromium column
// is Chromium's, and the Node runners' expectations with it. Real ws server on 127.0.0.1.

const { cleanup, browser, openTestPage } = useTestPages(join(import.meta.dirname, 'pages', 'websocket'), 'wsTest');

/** An event as the page describes it (see `describeEvent` in pages/websocket/page.js). */
interface Described {
  readonly type: string;
  readonly isTrusted: boolean;
  readonly readyState: number;
  readonly [key: string]: unknown;
}

/** `window.wsTest` of pages/websocket/page.js. */
interface WsTest {
  readonly ResilientWebSocket: typeof WebSocket;
  /** `new WS(...args)`, closed after the test. */
  make(WS: typeof WebSocket, ...args: unknown[]): WebSocket;
  outcome(call: () => unknown): Outcome;
  /** Records the events of `types` (open, message, error, close by default), described. */
  record(ws: WebSocket, types?: string[]): Described[];
  /** The log with every Blob's bytes read. */
  settle(log: Described[]): Promise<Described[]>;
  next(ws: WebSocket, type: string, ms?: number): Promise<Event>;
}

/** Everything but `isTrusted`: Chromium's events are trusted, ours, made by script, never are. */
const untrusted = (log: Described[]) => log.map(({ isTrusted: _, ...rest }) => rest);

async function setup(): Promise<{ page: Page; base: string; server: EchoServer }> {
  const server = cleanup.add(await new EchoServer({ deflate: true }).start(), (s) => s.stop());
  // Chromium logs a failed or aborted connection (close() while CONNECTING) as a console error.
  browser.allowConsoleErrors(WEBSOCKET_FAILED);
  const { page } = await openTestPage();
  return { page, base: server.base, server };
}

/**
 * Runs `fn(wsTest, WS, arg)` in the page for `WebSocket` and for `ResilientWebSocket`. `fn` is
 * sent as source text: it may use only its parameters and the page's globals.
 */
function both<R, A>(
  page: Page,
  fn: (t: WsTest, WS: typeof WebSocket, arg: A) => R | Promise<R>,
  arg: A,
): Promise<{ native: R; ours: R }> {
  return page.evaluate(`window.wsTest.both(${fn.toString()}, ${JSON.stringify(arg)})`) as Promise<{
    native: R;
    ours: R;
  }>;
}

/** Runs each case's arguments through `call` in the page on both classes; returns what each did, with what is expected. */
async function runTable(page: Page, base: string, cases: readonly Case[], call: string) {
  const list = `[${cases.map((c) => c.args.toString()).join(',\n')}]`;
  const results = (await page.evaluate(`(${call})(window.wsTest, ${list}, ${JSON.stringify(base)})`)) as {
    native: Outcome;
    ours: Outcome;
  }[];
  const comparable = (actual: Outcome, expected: Outcome) =>
    actual.ok && expected.ok && expected.url === undefined ? { ok: true } : actual;
  return cases.map((c, i) => {
    const expected = { native: c.chromium(base), ours: expectedOurs(c, base, 'browser') };
    const { native, ours } = results[i] as { native: Outcome; ours: Outcome };
    return {
      actual: { title: c.title, native: comparable(native, expected.native), ours: comparable(ours, expected.ours) },
      expected: { title: c.title, ...expected },
    };
  });
}

describe('ResilientWebSocket next to the native WebSocket in Chromium', () => {
  it('constructor arguments: the same errors (class, name, message) and URLs, except where cases.ts says why', async () => {
    const { page, base } = await setup();
    const rows = await runTable(
      page,
      base,
      CONSTRUCTOR_CASES,
      `(t, cases, base) => cases.map((args) => ({
        native: t.outcome(() => new WebSocket(...args(base))),
        ours: t.outcome(() => new t.ResilientWebSocket(...args(base))),
      }))`,
    );
    expect(rows.map((r) => r.actual)).toEqual(rows.map((r) => r.expected));
  });

  it('close() arguments on an open socket: the same errors, except where cases.ts says why', async () => {
    const { page, base } = await setup();
    const rows = await runTable(
      page,
      base,
      CLOSE_CASES,
      // One open socket per class, reused while close() refuses its arguments (the socket must then
      // still be OPEN), replaced when it accepts them. Sequential: Chromium throttles parallel handshakes.
      `async (t, cases, base) => {
        const open = async (WS) => { const ws = t.make(WS, base); await t.next(ws, 'open'); return ws; };
        const classes = { native: WebSocket, ours: t.ResilientWebSocket };
        const current = { native: await open(WebSocket), ours: await open(t.ResilientWebSocket) };
        const rows = [];
        for (const args of cases) {
          const row = {};
          for (const key of ['native', 'ours']) {
            const outcome = t.outcome(() => current[key].close(...args(base)));
            if (outcome.ok) current[key] = await open(classes[key]);
            row[key] = outcome.ok || current[key].readyState === 1 ? outcome : { ...outcome, readyState: current[key].readyState };
          }
          rows.push(row);
        }
        return rows;
      }`,
    );
    expect(rows.map((r) => r.actual)).toEqual(rows.map((r) => r.expected));
  });

  it('constants, attributes before open, send() without an argument and an invalid binaryType: the same', async () => {
    const { page, base } = await setup();
    const { native, ours } = await both(
      page,
      (t, WS, url) => {
        const ws = t.make(WS, `${url}/x?y=1`, ['chat']);
        const constants = (o: Pick<WebSocket, 'CONNECTING' | 'OPEN' | 'CLOSING' | 'CLOSED'>) => [
          o.CONNECTING,
          o.OPEN,
          o.CLOSING,
          o.CLOSED,
        ];
        ws.binaryType = 'nonsense' as never;
        return {
          constants: [constants(WS), constants(WS.prototype), constants(ws)],
          onX: [ws.onopen, ws.onmessage, ws.onclose, ws.onerror],
          attributes: [ws.url, ws.readyState, ws.protocol, ws.extensions, ws.binaryType, ws.bufferedAmount],
          isEventTarget: ws instanceof EventTarget,
          sendNothing: t.outcome(() => (ws.send as () => void)()),
        };
      },
      base,
    );
    expect(native.constants).toEqual([
      [0, 1, 2, 3],
      [0, 1, 2, 3],
      [0, 1, 2, 3],
    ]);
    expect(native.attributes).toEqual([`${base}/x?y=1`, 0, '', '', 'blob', 0]);
    expect(native.sendNothing).toMatchObject({ ok: false, type: 'TypeError' });
    expect(ours).toEqual(native);
  });

  it('events: classes, payloads (text, Blob and ArrayBuffer data, origin), targets, readyState, protocol and extensions', async () => {
    const { page, base } = await setup();
    const { native, ours } = await both(
      page,
      async (t, WS, url) => {
        const ws = t.make(WS, `${url}/feed`, ['chat', 'json']);
        const log = t.record(ws);
        const self: boolean[] = [];
        ws.onopen = function (this: unknown) {
          self.push(this === ws);
        };
        await t.next(ws, 'open');
        const negotiated = [ws.protocol, ws.extensions];
        for (const [binaryType, data] of [
          ['blob', 'héllo'],
          ['blob', new Uint8Array([1, 2, 3])],
          ['arraybuffer', new Uint8Array([4, 5]).buffer],
        ] as const) {
          ws.binaryType = binaryType;
          ws.send(data);
          await t.next(ws, 'message');
        }
        ws.close(4000, 'done');
        const closing = ws.readyState;
        await t.next(ws, 'close');
        return { log: await t.settle(log), self, negotiated, closing, url: ws.url };
      },
      base,
    );
    expect(native.negotiated).toEqual(['chat', 'permessage-deflate']);
    expect(native.log.map((e: Described) => [e.type, e.class, e.readyState])).toEqual([
      ['open', 'Event', 1],
      ['message', 'MessageEvent', 1],
      ['message', 'MessageEvent', 1],
      ['message', 'MessageEvent', 1],
      ['close', 'CloseEvent', 3],
    ]);
    expect(native.log[1]).toMatchObject({ data: { kind: 'string', text: 'héllo' }, origin: base, lastEventId: '' });
    expect(native.log[2]).toMatchObject({ data: { kind: 'blob', size: 3, bytes: [1, 2, 3] } });
    expect(native.log[3]).toMatchObject({ data: { kind: 'arraybuffer', bytes: [4, 5] } });
    expect(native.log[4]).toMatchObject({ code: 4000, reason: 'done', wasClean: true, isCloseEvent: true });
    expect(native.log.every((e: Described) => e.isTrusted)).toBe(true);
    expect(ours.log.every((e: Described) => !e.isTrusted)).toBe(true);
    expect({ ...ours, log: untrusted(ours.log) }).toEqual({ ...native, log: untrusted(native.log) });
  });

  it('a connection that fails: error (an Event), then close (1006); ours is CONNECTING in it (it reconnects), native CLOSED', async () => {
    const { page } = await setup();
    const gone = await new EchoServer().start();
    await gone.stop(); // a port nobody listens on
    const { native, ours } = await both(
      page,
      async (t, WS, url) => {
        const ws = t.make(WS, url);
        const log = t.record(ws);
        await t.next(ws, 'close');
        ws.close();
        return log.slice(0, 2);
      },
      gone.base,
    );
    expect(native.map((e: Described) => [e.type, e.class, e.readyState])).toEqual([
      ['error', 'Event', 3],
      ['close', 'CloseEvent', 3],
    ]);
    expect(native[1]).toMatchObject({ code: 1006, reason: '', wasClean: false });
    expect(ours.map((e: Described) => e.readyState)).toEqual([0, 0]);
    const withoutState = (log: Described[]) => untrusted(log).map(({ readyState: _, ...rest }) => rest);
    expect(withoutState(ours)).toEqual(withoutState(native));
  });

  it('close() without a code on an open socket: an empty close frame, then close 1005, wasClean, at once: the same', async () => {
    const { page, base, server } = await setup();
    const { native, ours } = await both(
      page,
      async (t, WS, url) => {
        const ws = t.make(WS, url);
        await t.next(ws, 'open');
        const log = t.record(ws, ['error', 'close']);
        const started = performance.now();
        const outcome = t.outcome(() => ws.close());
        const closing = ws.readyState;
        await t.next(ws, 'close');
        // The closing handshake with a local server takes milliseconds; a cut would take CLOSE_TIMEOUT (3 s).
        const prompt = performance.now() - started < 1_000;
        return { outcome, closing, prompt, log: log.map((e: Described) => [e.type, e.code, e.reason, e.wasClean]) };
      },
      base,
    );
    expect(native).toEqual({ outcome: { ok: true }, closing: 2, prompt: true, log: [['close', 1005, '', true]] });
    expect(ours).toEqual(native);
    // The server received a close frame without a body from both.
    await waitFor(() => server.closes.length === 2, 2_000, 'both connections to close on the server');
    expect(server.closes).toEqual([
      { code: 1005, reason: '' },
      { code: 1005, reason: '' },
    ]);
  });

  it('close(undefined, reason) and reconnect() without a code: no code is sent (the reason only goes with one)', async () => {
    const { page, base, server } = await setup();
    const seen = (await page.evaluate(`(async (t, url) => {
      const a = t.make(t.ResilientWebSocket, url);
      await t.next(a, 'open');
      const started = performance.now();
      a.close(undefined, 'bye');
      const event = await t.next(a, 'close');
      const b = t.make(t.ResilientWebSocket, url);
      await t.next(b, 'open');
      b.reconnect();
      await t.next(b, 'open');
      return { close: [event.code, event.reason, event.wasClean], prompt: performance.now() - started < 1000 };
    })(window.wsTest, ${JSON.stringify(base)})`)) as { close: unknown[]; prompt: boolean };
    expect(seen).toEqual({ close: [1005, '', true], prompt: true });
    await waitFor(() => server.closes.length === 2, 2_000, 'both connections to close on the server');
    expect(server.closes).toEqual([
      { code: 1005, reason: '' },
      { code: 1005, reason: '' },
    ]);
  });

  it('close() right after the constructor: CLOSING at once, then error and close (1006, CLOSED in both), the same', async () => {
    const { page, base } = await setup();
    const { native, ours } = await both(
      page,
      async (t, WS, arg) => {
        const ws = t.make(WS, arg.url);
        ws.close(arg.code, arg.reason);
        const after = ws.readyState;
        // Listeners added after close() still hear its events.
        const log = t.record(ws);
        await t.next(ws, 'close');
        await new Promise((resolve) => setTimeout(resolve, 300)); // nothing more (ours does not reconnect)
        return { after, log: log.map((e: Described) => [e.type, e.class, e.readyState, e.code, e.wasClean]) };
      },
      { url: base, code: 4000, reason: 'bye' },
    );
    expect(native).toEqual({
      after: 2,
      log: [
        ['error', 'Event', 3, undefined, undefined],
        ['close', 'CloseEvent', 3, 1006, false],
      ],
    });
    expect(ours).toEqual(native);
  });

  it('on… attributes and listeners: order, null/non-functions, this, handleEvent, once, signal, capture, stopImmediatePropagation, dispatchEvent', async () => {
    const { page, base } = await setup();
    const { native, ours } = await both(
      page,
      (t, WS, url) => {
        const ws = t.make(WS, url);
        const calls: unknown[] = [];
        const fire = (event: Event) => ws.dispatchEvent(event);
        ws.addEventListener('message', () => calls.push('listener1'));
        ws.onmessage = () => calls.push('handler');
        ws.addEventListener('message', () => calls.push('listener2'));
        ws.onmessage = function (this: unknown, event: MessageEvent) {
          calls.push(['handler2', this === ws, event.data, event.target === ws]);
        };
        fire(new MessageEvent('message', { data: 'mine' }));
        ws.onmessage = null;
        ws.onmessage = () => calls.push('handler3');
        fire(new MessageEvent('message'));
        ws.onclose = 5 as never;
        calls.push(['non-function', ws.onclose]);
        const twice = () => calls.push('twice');
        const aborted = new AbortController();
        aborted.abort();
        const later = new AbortController();
        const object = {
          handleEvent(this: unknown) {
            calls.push(['handleEvent', this === object]);
          },
        };
        ws.addEventListener('ping', () => calls.push('once'), { once: true });
        ws.addEventListener('ping', () => calls.push('aborted before'), { signal: aborted.signal });
        ws.addEventListener('ping', () => calls.push('aborted later'), { signal: later.signal });
        ws.addEventListener('ping', twice);
        ws.addEventListener('ping', twice);
        ws.addEventListener('ping', twice, true);
        ws.addEventListener('ping', object);
        ws.addEventListener('ping', (event) => {
          calls.push('stops');
          ws.addEventListener('ping', () => calls.push('added during dispatch'));
          if ((event as CustomEvent).detail === 'stop') event.stopImmediatePropagation();
          event.preventDefault();
        });
        ws.addEventListener('ping', () => calls.push('after the stop'));
        calls.push(['returned', fire(new CustomEvent('ping', { cancelable: true }))]);
        later.abort();
        ws.removeEventListener('ping', twice);
        ws.removeEventListener('ping', object, true); // wrong capture flag: stays
        calls.push(['returned', fire(new CustomEvent('ping', { detail: 'stop' }))]);
        return calls;
      },
      base,
    );
    expect(native).toContain('after the stop');
    expect(ours).toEqual(native);
  });

  it('a listener that throws: reported (window error event), the next one still runs; ours reports it wrapped', async () => {
    const { page, base } = await setup();
    const { native, ours } = await both(
      page,
      (t, WS, url) => {
        const reported: unknown[] = [];
        const onError = (event: ErrorEvent) => {
          reported.push([event.error?.message, event.error?.code, event.error?.cause?.message]);
          event.preventDefault(); // handled: no "Uncaught" in the console
        };
        addEventListener('error', onError);
        const ws = t.make(WS, url);
        const calls: string[] = [];
        ws.addEventListener('ping', () => {
          throw new Error('boom');
        });
        ws.addEventListener('ping', () => calls.push('next'));
        ws.dispatchEvent(new Event('ping'));
        removeEventListener('error', onError);
        return { reported, calls };
      },
      base,
    );
    expect(native).toEqual({ reported: [['boom', undefined, undefined]], calls: ['next'] });
    expect(ours).toEqual({
      reported: [['A `ping` listener threw: boom', 'ERR_RS_LISTENER_THREW', 'boom']],
      calls: ['next'],
    });
  });

  it('no message after close(): one that arrives while CLOSING is dropped by both', async () => {
    const { page, base, server } = await setup();
    const { native, ours } = await both(
      page,
      async (t, WS, url) => {
        const ws = t.make(WS, url);
        const log = t.record(ws);
        await t.next(ws, 'open');
        ws.send('reply-then-close'); // the server answers before it reads the close frame
        ws.close(1000);
        await t.next(ws, 'close');
        return log.map((e: Described) => [e.type, e.readyState]);
      },
      base,
    );
    expect(server.received).toEqual(['reply-then-close', 'reply-then-close']);
    expect(native).toEqual([
      ['open', 1],
      ['close', 3],
    ]);
    expect(ours).toEqual(native);
  });

  it('where we differ on purpose: send() while CONNECTING queues (bufferedAmount counts it) instead of throwing InvalidStateError', async () => {
    const { page, base, server } = await setup();
    const { native, ours } = await both(
      page,
      async (t, WS, url) => {
        const ws = t.make(WS, url);
        const sent = t.outcome(() => ws.send('héllo'));
        const buffered = ws.bufferedAmount;
        await t.next(ws, 'open');
        // Written once open: bufferedAmount drops to 0 once the bytes are on the wire (at most 2 s).
        for (let i = 0; i < 200 && ws.bufferedAmount > 0; i++) await new Promise((r) => setTimeout(r, 10));
        return { sent, buffered, after: ws.bufferedAmount };
      },
      base,
    );
    expect(native).toEqual({
      sent: {
        ok: false,
        type: 'DOMException',
        name: 'InvalidStateError',
        message: "Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.",
      },
      buffered: 0,
      after: 0,
    });
    expect(ours).toEqual({ sent: { ok: true }, buffered: 6, after: 0 });
    await waitFor(() => server.received.length > 0, 2_000, 'the queued message to reach the server');
    expect(server.received).toEqual(['héllo']);
  });
});
