/**
 * `keyOf`: what makes two `useResilientSocket(url, options)` calls the same connection. Plain
 * objects and arrays by value (key order and `undefined` entries do not count), functions by their
 * source text, features and backoff policies by name and the options they were made with, URLs by
 * `href`, other objects by identity, an object seen before by the key it had then, and the hook's
 * own options left out.
 */
import { describe, expect, it } from 'vitest';
import {
  constant,
  decorrelatedJitter,
  equalJitter,
  exponential,
  fullJitter,
  phasedBinaryExponential,
  truncatedBinaryExponential,
} from '../../src/backoff/index.js';
import { BINDING_OPTIONS, keyOf } from '../../src/bindings/key.js';
import { bufferPolicy, heartbeat, resume, stats } from '../../src/modular.js';
import { TestClock } from '../../src/testing/test-clock.js';

const same = (a: unknown, b: unknown, skip?: readonly string[]) => expect(keyOf(a, skip)).toBe(keyOf(b, skip));
const differ = (a: unknown, b: unknown, skip?: readonly string[]) => expect(keyOf(a, skip)).not.toBe(keyOf(b, skip));

describe('keyOf: primitives', () => {
  it('tells apart values of different types that print alike', () => {
    differ('1', 1);
    differ('true', true);
    differ('null', null);
    differ('undefined', undefined);
    differ(null, undefined);
    differ('', null);
    same('ws://a/', 'ws://a/');
    differ('ws://a/', 'ws://a');
  });

  it('does not let a string forge the structure around it', () => {
    differ({ a: 'x","b":"y' }, { a: 'x', b: 'y' });
    differ({ 'a":"x': 'y' }, { a: 'x":"y' });
    differ(['a,b'], ['a', 'b']);
    differ({ a: '}' }, { a: '' });
  });
});

describe('keyOf: plain objects and arrays', () => {
  it('ignores key order, also in nested objects', () => {
    same({ a: 1, b: 2 }, { b: 2, a: 1 });
    same(
      { buffer: { maxMessages: 1, maxBytes: 2 }, maxDelay: 3 },
      { maxDelay: 3, buffer: { maxBytes: 2, maxMessages: 1 } },
    );
  });

  it('ignores undefined values (top level and nested) but not null', () => {
    same({ a: 1, b: undefined }, { a: 1 });
    same({ wsOptions: { headers: { x: '1', y: undefined } } }, { wsOptions: { headers: { x: '1' } } });
    differ({ a: null }, {});
    differ({ a: 0 }, {});
  });

  it('compares nested values', () => {
    same({ wsOptions: { headers: { Authorization: 'a' } } }, { wsOptions: { headers: { Authorization: 'a' } } });
    differ({ wsOptions: { headers: { Authorization: 'a' } } }, { wsOptions: { headers: { Authorization: 'b' } } });
    differ({ buffer: { maxMessages: 1 } }, { buffer: { maxMessages: 2 } });
    differ({ buffer: {} }, {});
  });

  it('treats an object without prototype as a plain object', () => {
    same(Object.assign(Object.create(null), { a: 1 }), { a: 1 });
  });

  it('compares arrays item by item, in order', () => {
    same(['v1', 'v2'], ['v1', 'v2']);
    differ(['v1', 'v2'], ['v2', 'v1']);
    differ(['v1'], ['v1', 'v1']);
    differ([undefined], []);
    differ([1], { 0: 1 });
    same([{ a: 1, b: 2 }], [{ b: 2, a: 1 }]);
  });
});

describe('keyOf: functions', () => {
  it('compares functions by source text: an inline arrow re-created on every render is the same', () => {
    const make = () => (close: { code: number }) => close.code !== 4001;
    const [first, second] = [make(), make()];
    expect(first).not.toBe(second);
    same(first, second);
    same({ shouldReconnect: first }, { shouldReconnect: second });
    differ({ shouldReconnect: first }, { shouldReconnect: (close: { code: number }) => close.code !== 4002 });
  });

  it('cannot tell apart functions that differ only in what they close over (documented)', () => {
    const provider = (room: string) => () => `wss://example.test/${room}`;
    same(provider('a'), provider('b'));
  });

  it('compares classes (the WebSocket option) by source', () => {
    class A {
      a = 1;
    }
    class B {
      b = 1;
    }
    same({ WebSocket: A }, { WebSocket: A });
    differ({ WebSocket: A }, { WebSocket: B });
  });

  it('tells apart bound functions of different functions (their source text is all "[native code]")', () => {
    const decide = (close: { code: number }) => close.code !== 4001;
    const never = () => false;
    differ({ shouldReconnect: decide.bind(null) }, { shouldReconnect: never.bind(null) });
  });
});

describe('keyOf: features', () => {
  it('compares a feature by its name and the options it was made with', () => {
    differ(heartbeat({ interval: 1 }), heartbeat({ interval: 2 }));
    differ({ features: [heartbeat({ interval: 1 })] }, { features: [heartbeat({ interval: 2 })] });
    differ(heartbeat({ interval: 1 }), heartbeat({ interval: 1, timeout: 7 }));
    differ(bufferPolicy({ ttl: 1_000 }), bufferPolicy({ ttl: 2_000 }));
    // ResilientSocket's flat `bufferPolicy` option (what the bindings pass through) holds the feature.
    differ({ bufferPolicy: bufferPolicy({ ttl: 1_000 }) }, { bufferPolicy: bufferPolicy({ ttl: 2_000 }) });
    same({ bufferPolicy: bufferPolicy({ overflow: 'error' }) }, { bufferPolicy: bufferPolicy({ overflow: 'error' }) });
    differ({ bufferPolicy: bufferPolicy() }, {});
    differ(stats(), resume());
  });

  it('gives the same key to features made twice with the same options, also when they are distinct objects', () => {
    const first = heartbeat({ interval: 1 });
    heartbeat({ interval: 2 }); // the factory now remembers another one: the next is a new object
    const second = heartbeat({ interval: 1 });
    expect(second).not.toBe(first);
    same(first, second);
    same({ features: [first, resume()] }, { features: [second, resume()] });
    same(stats(), stats());
  });

  it('compares the function options of a feature by source', () => {
    const make = () => heartbeat({ interval: 1, message: 'ping', isPong: (data) => data === 'pong' });
    same(make(), make());
    differ(make(), heartbeat({ interval: 1, message: 'ping', isPong: (data) => data === 'PONG' }));
  });

  it('does not take a plain options object with a string name and a numeric rank for a feature', () => {
    differ(
      { wsOptions: { name: 'client', rank: 1, headers: { room: 'a' } } },
      { wsOptions: { name: 'client', rank: 1, headers: { room: 'b' } } },
    );
  });
});

describe('keyOf: backoff policies', () => {
  const factories = {
    truncatedBinaryExponential: () => truncatedBinaryExponential({ maxDelay: 5_000, ceiling: 4 }),
    phasedBinaryExponential: () => phasedBinaryExponential({ maxDelay: 5_000, ceiling: 4 }),
    fullJitter: () => fullJitter({ base: 50 }),
    equalJitter: () => equalJitter({ base: 50 }),
    decorrelatedJitter: () => decorrelatedJitter({ base: 500, cap: 20_000 }),
    exponential: () => exponential({ base: 50 }),
    constant: () => constant({ delay: 500 }),
  };

  it.each(Object.entries(factories))(
    '%s: two made with the same options are the same, alone and inside options',
    (_name, make) => {
      const [first, second] = [make(), make()];
      expect(first).not.toBe(second);
      same(first, second);
      same({ backoff: first, maxRetries: 3 }, { maxRetries: 3, backoff: second });
    },
  );

  it('tells apart the factories, also those with the same options', () => {
    const keys = Object.values(factories).map((make) => keyOf(make()));
    expect(new Set(keys).size).toBe(keys.length);
    differ(fullJitter(), equalJitter());
    differ(truncatedBinaryExponential(), phasedBinaryExponential());
  });

  it('tells apart other options, and not the defaults written out', () => {
    differ(constant({ delay: 500 }), constant({ delay: 501 }));
    differ(decorrelatedJitter({ base: 500 }), decorrelatedJitter({ base: 500, cap: 20_000 }));
    differ(truncatedBinaryExponential({ ceiling: 4 }), truncatedBinaryExponential({ ceiling: 5 }));
    differ(phasedBinaryExponential({ maxDelay: 1_000 }), phasedBinaryExponential({ maxDelay: 2_000 }));
    same(constant(), constant({ delay: 1_000 }));
    same(fullJitter(), fullJitter({ base: 100, cap: 10_000, random: Math.random }));
    same(truncatedBinaryExponential(), truncatedBinaryExponential({ maxDelay: 10_000, ceiling: 10 }));
    same(phasedBinaryExponential(), phasedBinaryExponential({ maxDelay: 10_000, ceiling: 10 }));
  });

  it('compares the random source as any function (by source text), and not where it is never called', () => {
    const make = () => fullJitter({ random: () => 0.5 });
    same(make(), make());
    differ(fullJitter({ random: () => 0.5 }), fullJitter({ random: () => 0.25 }));
    differ(fullJitter({ random: () => 0.5 }), fullJitter());
    differ(phasedBinaryExponential({ random: () => 0.5 }), phasedBinaryExponential());
    // constant and exponential draw nothing: their `random` is checked, never called.
    same(constant({ random: () => 0.5 }), constant());
    same(exponential({ random: () => 0.5 }), exponential());
  });

  it('does not count the state of a policy (its attempt count, its previous delay, its phase)', () => {
    for (const make of Object.values(factories)) {
      const [used, fresh] = [make(), make()];
      used.next();
      used.next();
      same(used, fresh);
    }
  });

  it('is not taken in by a plain object that looks like the description of one', () => {
    differ({ name: 'constant', delay: 500, next: () => 500, reset: () => {} }, constant({ delay: 500 }));
  });
});

describe('keyOf: objects seen before', () => {
  it('keep the key they had: the socket changing a { next, reset } object it holds is the same option', () => {
    const policy = {
      failures: 0,
      next() {
        this.failures++;
        return 100;
      },
      reset() {
        this.failures = 0;
      },
    };
    const before = keyOf({ backoff: policy });
    policy.next();
    expect(keyOf({ backoff: policy })).toBe(before);
    // A new object with those fields is described afresh.
    differ({ backoff: policy }, { backoff: { ...policy } });
  });

  it('except a URL object, read afresh (the url of the hook: its href is its value)', () => {
    const url = new URL('wss://example.test/feed?token=a');
    const before = keyOf([url]);
    url.searchParams.set('token', 'b');
    expect(keyOf([url])).not.toBe(before);
    expect(keyOf(url)).toBe(keyOf('wss://example.test/feed?token=b'));
  });

  it('describe the top level (the options object, with the hook options left out) afresh every time', () => {
    const options: Record<string, unknown> = { maxDelay: 1 };
    const before = keyOf(options, BINDING_OPTIONS);
    options.maxDelay = 2;
    expect(keyOf(options, BINDING_OPTIONS)).not.toBe(before);
  });
});

describe('keyOf: other objects', () => {
  it('compares class instances by identity', () => {
    class Clock {
      now = () => 0;
    }
    const clock = new Clock();
    same({ clock }, { clock });
    differ({ clock }, { clock: new Clock() });
    differ(new Clock(), new Clock());
    const controller = new AbortController();
    same({ signal: controller.signal }, { signal: controller.signal });
    differ({ signal: controller.signal }, { signal: new AbortController().signal });
    const date = new Date(0);
    differ(date, new Date(0));
  });

  it('compares a TestClock by identity: two clocks are two timelines, even when they read the same time', () => {
    const clock = new TestClock();
    same({ clock }, { clock });
    differ({ clock }, { clock: new TestClock() });
  });

  it('compares URL objects by href (and as the same string)', () => {
    same(new URL('wss://example.test/feed?x=1'), new URL('wss://example.test/feed?x=1'));
    same(new URL('wss://example.test/feed'), 'wss://example.test/feed');
    differ(new URL('wss://example.test/feed?x=1'), new URL('wss://example.test/feed?x=2'));
    same([new URL('wss://example.test/'), {}], ['wss://example.test/', {}]);
  });
});

describe('keyOf: the hook options', () => {
  it('are the six options of the bindings', () => {
    expect([...BINDING_OPTIONS].sort()).toEqual(['closeDelay', 'enabled', 'filter', 'onDrop', 'onMessage', 'share']);
  });

  it('are left out of the key, at the top level only', () => {
    same(
      { maxDelay: 1, enabled: true, onMessage: () => 1, onDrop: () => 2, closeDelay: 5 },
      { maxDelay: 1, enabled: false, onMessage: () => 3, closeDelay: 9 },
      BINDING_OPTIONS,
    );
    same({ enabled: false }, {}, BINDING_OPTIONS);
    differ({ maxDelay: 1, enabled: true }, { maxDelay: 2, enabled: true }, BINDING_OPTIONS);
    differ({ wsOptions: { enabled: 1 } }, { wsOptions: {} }, BINDING_OPTIONS);
    differ({ enabled: true }, {}); // without the list, they count
  });

  it('give an inline literal the same key on every render (the key the hook computes)', () => {
    const render = (tick: number) => {
      const options = {
        maxDelay: 100,
        buffer: { maxMessages: 50 },
        features: [heartbeat({ interval: 5_000 })],
        shouldReconnect: ({ code }: { code: number }) => code !== 4001,
        onMessage: () => tick,
        closeDelay: tick,
      };
      return keyOf(['wss://example.test/feed', keyOf(options, BINDING_OPTIONS)]);
    };
    expect(render(1)).toBe(render(2));
  });
});

describe('keyOf: feature lists and cycles', () => {
  it('does not count the order of the features (they run in a fixed order anyway)', () => {
    same(
      { features: [heartbeat({ interval: 1_000 }), resume()] },
      { features: [resume(), heartbeat({ interval: 1_000 })] },
    );
    differ(
      { features: [heartbeat({ interval: 1_000 }), resume()] },
      { features: [resume(), heartbeat({ interval: 2_000 })] },
    );
    // A plain array keeps its order.
    differ({ list: [1, 2] }, { list: [2, 1] });
  });

  it('compares an object met again inside itself by identity instead of recursing for ever', () => {
    const a: Record<string, unknown> = { maxDelay: 1 };
    a.self = a;
    const b: Record<string, unknown> = { maxDelay: 1 };
    b.self = b;
    expect(() => keyOf(a)).not.toThrow();
    expect(keyOf(a)).toBe(keyOf(a));
    differ(a, b);
  });
});
