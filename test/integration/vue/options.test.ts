// @vitest-environment jsdom
/**
 * The composable's own options and functions with real Vue 3 (jsdom) against real ws servers on
 * 127.0.0.1: `filter` (refused messages leave this component's refs and renders alone, the others
 * and `onMessage` still see them), `onMessage` (no update on messages), `send` and `sendJson`
 * (queued before the socket opens; without a socket `'dropped'`, told to `onDrop` or warned), user
 * callbacks that throw (reported, never fatal), and bad input (typed errors naming the option).
 */
import { describe, expect, it } from 'vitest';
import { defineComponent, effectScope, h, nextTick, ref } from 'vue';
import type { DropInfo } from '../../../src/core/events.js';
import type { Data } from '../../../src/data.js';
import { useResilientSocket } from '../../../src/vue.js';
import { errorMessage, expectInputError, rethrow } from '../../helpers/mode.js';
import {
  AFTER_GRACE,
  captureReported,
  captureWarnings,
  mount,
  pass,
  probe,
  seen,
  startServer,
  unmount,
  until,
} from './harness.js';

const isPrice = (data: Data): boolean => typeof data === 'string' && data.startsWith('price');

describe('filter and onMessage', () => {
  it('a refused message changes nothing in the component; the others and onMessage still see it', async () => {
    const server = await startServer();
    const got: unknown[] = [];
    const [prices, all, quiet] = [seen(), seen(), seen()];
    mount(
      defineComponent(() => () => [
        h(probe(prices, server.url, { filter: isPrice, onDrop: () => {} })),
        h(probe(all, server.url)),
        h(probe(quiet, server.url, { onMessage: (message) => got.push(message.data) })),
      ]),
    );
    await until(() => [prices, all, quiet].every((s) => s.refs?.state.value === 'open'), 'open');
    expect(server.connections).toBe(1);
    const [pricesRenders, quietRenders] = [prices.renders, quiet.renders];
    server.broadcast('price 1');
    await until(() => prices.refs?.lastMessage.value?.data === 'price 1', 'the price arrives');
    server.broadcast('{"chat":"hi"}');
    await until(() => all.refs?.lastMessage.value?.data === '{"chat":"hi"}', 'the chat arrives');
    await pass(50);
    expect(prices.refs?.lastMessage.value?.data).toBe('price 1');
    expect(prices.refs?.lastJsonMessage.value).toBeUndefined();
    expect(prices.data).toEqual(['price 1']);
    expect(prices.renders).toBe(pricesRenders + 1);
    expect(all.data).toEqual(['price 1', '{"chat":"hi"}']);
    expect(all.refs?.lastJsonMessage.value).toEqual({ chat: 'hi' });
    expect(got).toEqual(['price 1', '{"chat":"hi"}']);
    expect(quiet.refs?.lastMessage.value).toBeNull();
    expect(quiet.renders).toBe(quietRenders);
  });

  it('what onMessage, filter and onDrop throw is reported; the socket and the other components go on', async () => {
    const server = await startServer();
    const reported = captureReported();
    const [thrower, filtered, plain] = [seen(), seen(), seen()];
    const boom = (what: string) => () => {
      throw new Error(`${what} boom`);
    };
    mount(
      defineComponent(() => () => [
        h(probe(thrower, server.url, { onMessage: boom('onMessage') })),
        h(probe(filtered, server.url, { filter: boom('filter') as () => boolean })),
        h(probe(plain, server.url)),
      ]),
    );
    await until(() => plain.refs?.state.value === 'open', 'open');
    server.broadcast('a');
    await until(() => plain.refs?.lastMessage.value?.data === 'a', 'the plain component sees it');
    expect(filtered.refs?.lastMessage.value).toBeNull(); // a throwing filter refuses
    expect(reported).toHaveLength(2);
    expect(reported[0]).toMatchObject({
      code: 'ERR_RS_LISTENER_THREW',
      message: errorMessage('ERR_RS_LISTENER_THREW', expect.stringContaining('onMessage boom')),
    });
    expect(reported[1]).toMatchObject({
      code: 'ERR_RS_LISTENER_THREW',
      message: errorMessage('ERR_RS_LISTENER_THREW', expect.stringContaining('filter boom')),
    });
    expect(thrower.refs?.state.value).toBe('open');
    const none = seen();
    mount(probe(none, null, { onDrop: boom('onDrop') }));
    expect(none.refs?.send('x')).toBe('dropped');
    expect(reported).toHaveLength(3);
    expect(reported[2]).toMatchObject({
      code: 'ERR_RS_LISTENER_THREW',
      message: errorMessage('ERR_RS_LISTENER_THREW', expect.stringContaining('onDrop boom')),
    });
    expect(server.connections).toBe(1);
  });
});

describe('send and sendJson', () => {
  it('queue before the socket opens and deliver; sendJson writes JSON', async () => {
    const server = await startServer();
    server.down = true; // the socket cannot open yet
    const s = seen();
    mount(probe(s, server.url, { maxDelay: 100 }));
    expect(s.refs?.send('early')).toBe('buffered');
    expect(s.refs?.sendJson({ type: 'hello', n: [1, 2] })).toBe('buffered');
    server.down = false;
    await until(() => server.received.length === 2, 'the queued messages arrive');
    expect(s.refs?.sendJson('late')).toBe('sent');
    await until(() => server.received.length === 3, 'the later one arrives');
    expect(server.received).toEqual(['early', '{"type":"hello","n":[1,2]}', '"late"']);
  });

  it('sendJson refuses what JSON cannot write, with a TypeError', async () => {
    const server = await startServer();
    const s = seen();
    mount(probe(s, server.url));
    expectInputError(() => s.refs?.sendJson(undefined), TypeError, 'ERR_RS_INVALID_TYPE', 'value', /undefined/);
    expectInputError(() => s.refs?.sendJson(() => 1), TypeError, 'ERR_RS_INVALID_TYPE', 'value', /=> 1|function/);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => s.refs?.sendJson(cycle)).toThrow(TypeError);
    await until(() => s.refs?.state.value === 'open', 'open');
    await pass(50);
    expect(server.received).toEqual([]);
  });

  it('without a socket: dropped, told to onDrop, else a console warning', async () => {
    const warned = captureWarnings();
    const drops: DropInfo[] = [];
    const [told, untold] = [seen(), seen()];
    mount(probe(told, null, { onDrop: (info) => drops.push(info) }));
    mount(probe(untold, null));
    expect(told.refs?.send('nowhere')).toBe('dropped');
    expect(drops).toEqual([{ reason: 'not-connected', messages: ['nowhere'] }]);
    expect(warned).toEqual([]);
    expect(untold.refs?.sendJson({ a: 1 })).toBe('dropped');
    expect(warned).toEqual([
      [expect.stringMatching(/^resilient-socket\/vue: 1 message\(s\) not sent \(not-connected\)/)],
    ]);
  });

  it('after the component unmounted: dropped', async () => {
    const server = await startServer();
    const drops: DropInfo[] = [];
    const s = seen();
    const mounted = mount(probe(s, server.url, { onDrop: (info) => drops.push(info) }));
    await until(() => s.refs?.state.value === 'open', 'open');
    unmount(mounted);
    expect(s.refs?.send('late')).toBe('dropped');
    expect(drops).toEqual([{ reason: 'not-connected', messages: ['late'] }]);
    await pass(AFTER_GRACE);
    expect(server.received).toEqual([]);
  });
});

describe('bad input', () => {
  it('a url of a wrong type is a TypeError naming url, from the call', async () => {
    const scope = effectScope();
    for (const url of [42, {}, true]) {
      expectInputError(
        () => scope.run(() => useResilientSocket(url as never)),
        TypeError,
        'ERR_RS_INVALID_TYPE',
        'url',
        /^Expected `url` to be a string, a URL or a function, got /,
      );
    }
    scope.stop();
    await pass(50);
  });

  it("a url ref that turns to a wrong type: Vue's error handler gets the TypeError; the socket is kept", async () => {
    const server = await startServer();
    const url = ref<unknown>(server.url);
    const s = seen();
    const { errors } = mount(probe(s, () => url.value as string));
    await until(() => s.refs?.state.value === 'open', 'open');
    url.value = 7;
    await nextTick();
    expect(errors).toHaveLength(1);
    expectInputError(rethrow(errors[0]), TypeError, 'ERR_RS_INVALID_TYPE', 'url', /, got number 7$/);
    await pass(AFTER_GRACE);
    expect(s.refs?.state.value).toBe('open');
    expect(server.closes).toBe(0);
  });

  it('a url that is no WebSocket URL is a RangeError naming url', () => {
    const scope = effectScope();
    expectInputError(
      () => scope.run(() => useResilientSocket('/relative')),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'url',
      /^Expected `url` to be an absolute ws:, wss:, http: or https: URL, got "\/relative"$/,
    );
    scope.stop();
  });

  it("options of a wrong type, or a binding option's: typed errors naming them", () => {
    const scope = effectScope();
    const cases: [unknown, TypeErrorConstructor | RangeErrorConstructor, string, string][] = [
      ['fast', TypeError, 'ERR_RS_INVALID_TYPE', 'options'],
      [{ closeDelay: -1 }, RangeError, 'ERR_RS_INVALID_VALUE', 'closeDelay'],
      [{ filter: 'price' }, TypeError, 'ERR_RS_INVALID_TYPE', 'filter'],
      [{ share: 'no' }, TypeError, 'ERR_RS_INVALID_TYPE', 'share'],
    ];
    for (const [options, Kind, code, name] of cases) {
      expectInputError(() => scope.run(() => useResilientSocket(null, options as never)), Kind, code, name);
    }
    scope.stop();
  });

  it("a socket option the socket refuses: Vue's error handler gets the RangeError at mount, nothing connects", async () => {
    const server = await startServer();
    const s = seen();
    const { errors } = mount(probe(s, server.url, { maxDelay: 10_000, ceiling: 30_000 }));
    expect(errors).toHaveLength(1);
    expectInputError(
      rethrow(errors[0]),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'ceiling',
      /^Expected `ceiling` to be at most 14 with `maxDelay` 10000 .*, got 30000$/,
    );
    await pass(50);
    expect(server.connections).toBe(0);
    expect(s.refs?.state.value).toBe('idle');
  });

  it('a URL provider without providers() is a TypeError naming url, and connects nowhere', async () => {
    const server = await startServer();
    const s = seen();
    const { errors } = mount(probe(s, () => () => server.url));
    expect(errors).toHaveLength(1);
    expectInputError(rethrow(errors[0]), TypeError, 'ERR_RS_NEEDS_FEATURE', 'url', /add providers\(…\) to `features`/);
    await pass(50);
    expect(server.connections).toBe(0);
  });
});
