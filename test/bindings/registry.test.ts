/**
 * The bindings' shared sockets' callbacks: what a user's `onMessage`, `filter` or `onDrop` throws
 * is reported (`ERR_RS_LISTENER_THREW`, naming it in development builds) and never reaches the
 * socket or the other users; dropped messages nobody takes are a console warning in every build,
 * naming the binding. Each user's view follows its own `filter`; JSON is parsed once per message.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  checkBindingOptions,
  jsonOf,
  type LastMessage,
  registryFor,
  toJson,
  type User,
} from '../../src/bindings/registry.js';
import type { BaseSocket } from '../../src/core/socket.js';
import { inMode } from '../helpers/mode.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A socket as the registry sees it: its listeners, by event. */
function fakeSocket() {
  const listeners = new Map<string, (payload: unknown) => void>();
  const socket = {
    state: 'idle',
    on: (event: string, listener: (payload: unknown) => void) => listeners.set(event, listener),
    close: () => undefined,
    send: () => 'buffered',
  };
  return {
    socket: socket as unknown as BaseSocket,
    fire: (event: string, payload: unknown) => listeners.get(event)?.(payload),
  };
}

/** A socket class whose every instance is `socket`. */
const FakeSocket = (socket: BaseSocket) =>
  function Fake() {
    return socket;
  } as unknown as typeof BaseSocket;

/** The errors surfaced (as Node shows them: process warnings). */
function surfaced(): Error[] {
  const warnings: Error[] = [];
  vi.spyOn(process, 'emitWarning').mockImplementation(((warning: Error) => {
    warnings.push(warning);
  }) as typeof process.emitWarning);
  return warnings;
}

describe('the callbacks of the components', () => {
  it('an onMessage that throws is reported, naming it; the other components still get the message', () => {
    const warnings = surfaced();
    const { socket, fire } = fakeSocket();
    const registry = registryFor(FakeSocket(socket), 'resilient-socket/react');
    const entry = registry.use_(
      {
        onMessage: () => {
          throw new Error('boom');
        },
      },
      'k',
      'wss://example.test/',
      {},
    );
    const got: unknown[] = [];
    registry.use_({ onMessage: (message: LastMessage) => got.push(message.data) }, 'k', 'wss://example.test/', {});
    expect(entry.users_.size).toBe(2);
    expect(() => fire('message', 'hello')).not.toThrow();
    expect(got).toEqual(['hello']);
    expect(warnings.map((w) => [(w as { code?: string }).code, w.message])).toEqual([
      ['ERR_RS_LISTENER_THREW', inMode('`onMessage` threw: boom', 'ERR_RS_LISTENER_THREW')],
    ]);
    expect(warnings[0]?.cause).toEqual(new Error('boom'));
  });

  it('an onDrop that throws is reported the same way', () => {
    const warnings = surfaced();
    const user: User = {
      onDrop: () => {
        throw new Error('no');
      },
    };
    registryFor(FakeSocket(fakeSocket().socket), 'resilient-socket/react').tellDropped_([user], {
      reason: 'closed',
      messages: ['x'],
    });
    expect(warnings.map((w) => w.message)).toEqual([inMode('`onDrop` threw: no', 'ERR_RS_LISTENER_THREW')]);
  });

  it('messages dropped with no onDrop to tell: a console warning, in every build', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    registryFor(FakeSocket(fakeSocket().socket), 'resilient-socket/react').tellDropped_([{}], {
      reason: 'not-connected',
      messages: ['a', 'b'],
    });
    registryFor(FakeSocket(fakeSocket().socket), 'resilient-socket/vue').tellDropped_([{}], {
      reason: 'closed',
      messages: ['c'],
    });
    expect(warn.mock.calls).toEqual([
      ['resilient-socket/react: 2 message(s) not sent (not-connected)'],
      ['resilient-socket/vue: 1 message(s) not sent (closed)'],
    ]);
  });
});

describe('the views of the users', () => {
  it('a filter decides what reaches its user; onMessage users keep lastMessage null; a throwing filter refuses', () => {
    const warnings = surfaced();
    const { socket, fire } = fakeSocket();
    const registry = registryFor(FakeSocket(socket), 'resilient-socket/react');
    const counts = { all: 0, prices: 0, quiet: 0, broken: 0 };
    const all: User = { changed_: () => counts.all++ };
    const prices: User = { filter: (data) => String(data).startsWith('price'), changed_: () => counts.prices++ };
    const quiet: User = { onMessage: () => undefined, changed_: () => counts.quiet++ };
    const broken: User = {
      filter: () => {
        throw new Error('bad filter');
      },
      changed_: () => counts.broken++,
    };
    for (const user of [all, prices, quiet, broken]) registry.use_(user, 'k', 'wss://example.test/', {});
    fire('message', 'price 1');
    fire('message', 'news');
    expect(all.view_?.lastMessage?.data).toBe('news');
    expect(prices.view_?.lastMessage?.data).toBe('price 1');
    expect(quiet.view_?.lastMessage).toBeNull();
    expect(broken.view_?.lastMessage).toBeNull();
    expect(counts).toEqual({ all: 2, prices: 1, quiet: 0, broken: 0 });
    expect(warnings.map((w) => w.message)).toEqual([
      inMode('`filter` threw: bad filter', 'ERR_RS_LISTENER_THREW'),
      inMode('`filter` threw: bad filter', 'ERR_RS_LISTENER_THREW'),
    ]);
    // A user that comes later starts from the latest message it takes.
    const late: User = { filter: (data) => String(data).startsWith('price') };
    registry.use_(late, 'k', 'wss://example.test/', {});
    expect(late.view_?.lastMessage).toBeNull();
    const later: User = {};
    registry.use_(later, 'k', 'wss://example.test/', {});
    expect(later.view_?.lastMessage?.data).toBe('news');
  });

  it('a state change reaches every user, keeping the message each one took', () => {
    const { socket, fire } = fakeSocket();
    const registry = registryFor(FakeSocket(socket), 'resilient-socket/react');
    const a: User = { filter: (data) => data === 'a' };
    const b: User = {};
    registry.use_(a, 'k', 'wss://example.test/', {});
    registry.use_(b, 'k', 'wss://example.test/', {});
    fire('message', 'a');
    fire('message', 'b');
    fire('state', { current: 'reconnecting' });
    expect([a.view_?.state, a.view_?.lastMessage?.data]).toEqual(['reconnecting', 'a']);
    expect([b.view_?.state, b.view_?.lastMessage?.data]).toEqual(['reconnecting', 'b']);
  });
});

describe('JSON', () => {
  it('jsonOf parses each message once, whoever reads it; undefined for binary, non-JSON and none; never throws', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const message: LastMessage = { data: '{"n":1}', timeStamp: 0 };
    const first = jsonOf(message);
    expect(first).toEqual({ n: 1 });
    expect(jsonOf(message)).toBe(first);
    expect(parse).toHaveBeenCalledTimes(1);
    expect(jsonOf({ data: 'not json', timeStamp: 0 })).toBeUndefined();
    expect(jsonOf({ data: new ArrayBuffer(2), timeStamp: 0 })).toBeUndefined();
    expect(jsonOf(null)).toBeUndefined();
    expect(jsonOf({ data: 'null', timeStamp: 0 })).toBeNull();
  });

  it('toJson writes JSON, and refuses what JSON cannot write with a TypeError', () => {
    expect(toJson({ a: [1, 'x'] })).toBe('{"a":[1,"x"]}');
    expect(() => toJson(undefined)).toThrow(TypeError);
    expect(() => toJson(() => 1)).toThrow(TypeError);
    expect(() => toJson(10n)).toThrow(TypeError);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => toJson(cycle)).toThrow(TypeError);
    expect(() => toJson(undefined)).toThrow(
      expect.objectContaining({
        code: 'ERR_RS_INVALID_TYPE',
        message: inMode(
          'Expected `value` of sendJson to be something JSON can write, got undefined',
          '`value`: ERR_RS_INVALID_TYPE (development builds say more)',
        ),
      }),
    );
  });
});

describe('the bindings’ own options', () => {
  it('a wrong type is a TypeError and a bad value a RangeError, naming the option', () => {
    expect(() => checkBindingOptions({})).not.toThrow();
    expect(() =>
      checkBindingOptions({ enabled: true, share: false, closeDelay: 0, filter: () => true, onMessage: () => 1 }),
    ).not.toThrow();
    const cases: [Record<string, unknown>, ErrorConstructor, string][] = [
      [{ filter: 'yes' }, TypeError, 'filter'],
      [{ onMessage: {} }, TypeError, 'onMessage'],
      [{ onDrop: 1 }, TypeError, 'onDrop'],
      [{ share: 'no' }, TypeError, 'share'],
      [{ enabled: 0 }, TypeError, 'enabled'],
      [{ closeDelay: '250' }, TypeError, 'closeDelay'],
      [{ closeDelay: -1 }, RangeError, 'closeDelay'],
      [{ closeDelay: Number.NaN }, RangeError, 'closeDelay'],
    ];
    for (const [options, Kind, name] of cases) {
      let thrown: unknown;
      try {
        checkBindingOptions(options);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, name).toBeInstanceOf(Kind);
      expect((thrown as Error).message).toContain(`\`${name}\``);
    }
  });
});
