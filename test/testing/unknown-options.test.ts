import { afterEach, describe, expect, it } from 'vitest';
import { FlakyServer } from '../../src/testing/flaky-server.js';
import { until } from '../../src/testing/until.js';
import { waitFor } from '../../src/testing/wait-for.js';
import { cleanup, flakyServer, socketOn } from './fixture.js';

// The kit's option objects refuse keys they do not know, so a misspelt option fails at once
// instead of being ignored (a `withn: 100` that silently waits the default 10 s). TestWsServer's
// behaviours are checked in test/integration/test-kit-ws-server.test.ts.

afterEach(cleanup);

/** What `fn` threw (it must throw). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('until()', () => {
  it('a misspelt option throws a TypeError that suggests the right one, before waiting at all', () => {
    const socket = socketOn(flakyServer(), { autoConnect: false });
    const error = thrown(() => until(socket, 'idle', { withn: 100 } as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('Unknown option `withn`: did you mean `within`?');
    expect(() => until(socket, 'idle', { Advance: () => undefined } as never)).toThrow(
      new TypeError('Unknown option `Advance`: did you mean `advance`?'),
    );
  });

  it('an unknown option with no near match lists the options of until()', () => {
    const socket = socketOn(flakyServer(), { autoConnect: false });
    expect(() => until(socket, 'idle', { what: 'the socket' } as never)).toThrow(
      new TypeError('Unknown option `what`: the options of until() are `where`, `within`, `advance`, `step`'),
    );
  });

  it('every documented option is accepted', async () => {
    const socket = socketOn(flakyServer(), { autoConnect: false });
    await expect(
      until(socket, 'idle', { where: () => true, within: 0, advance: async () => undefined, step: 1 }),
    ).resolves.toEqual({ state: 'idle' });
  });
});

describe('waitFor()', () => {
  it('a misspelt option throws a TypeError that suggests the right one', () => {
    const error = thrown(() => waitFor(() => true, { stpe: 5 } as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('Unknown option `stpe`: did you mean `step`?');
  });

  it('an unknown option with no near match lists the options of waitFor()', () => {
    expect(() => waitFor(() => true, { where: () => true } as never)).toThrow(
      new TypeError('Unknown option `where`: the options of waitFor() are `within`, `advance`, `step`, `what`'),
    );
  });

  it('every documented option is accepted', async () => {
    await expect(
      waitFor(() => true, { within: 0, advance: async () => undefined, step: 1, what: 'x' }),
    ).resolves.toBeUndefined();
  });
});

describe('FlakyServer', () => {
  it('a misspelt option throws a TypeError that suggests the right one', () => {
    const error = thrown(() => new FlakyServer({ echos: true } as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('Unknown option `echos`: did you mean `echo`?');
    expect(() => new FlakyServer({ scirpt: ['refuse'] } as never)).toThrow(
      new TypeError('Unknown option `scirpt`: did you mean `script`?'),
    );
  });

  it('an unknown option with no near match lists the options of FlakyServer', () => {
    expect(() => new FlakyServer({ port: 8080 } as never)).toThrow(
      new TypeError('Unknown option `port`: the options of FlakyServer are `url`, `echo`, `reply`, `script`'),
    );
  });

  it('options that are not an object throw a TypeError', () => {
    expect(() => new FlakyServer(null as never)).toThrow(new TypeError('Expected `options` to be an object, got null'));
    expect(() => new FlakyServer('ws://a.test' as never)).toThrow(TypeError);
  });

  it('a refused construction claims no URL: the same URL works right after', () => {
    expect(() => new FlakyServer({ url: 'ws://refused.test/', echoo: true } as never)).toThrow(TypeError);
    const server = flakyServer({ url: 'ws://refused.test/', echo: true, reply: () => undefined, script: [] });
    expect(server.url).toBe('ws://refused.test/');
  });
});
