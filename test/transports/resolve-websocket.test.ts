/**
 * Which WebSocket a socket uses (src/transports/resolve-websocket.ts): the `WebSocket` option, else
 * the one its transport prefers (on server runtimes the Node entry's ws, whose sockets can ping),
 * else the runtime's global one; with none, `ERR_RS_NO_WEBSOCKET` saying what to install. The
 * global is replaced per test (Node 20 has none, Node ≥ 22 has undici's).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket as Ws } from 'ws';
import { resolveOptions } from '../../src/core/resolve.js';
import { ErrorCodes, isResilientSocketError } from '../../src/errors.js';
import { browserTransport } from '../../src/transports/browser.js';
import { resolveWebSocket } from '../../src/transports/resolve-websocket.js';
import { wsTransport } from '../../src/transports/ws/index.js';
import { errorMessage } from '../helpers/mode.js';

class Global {}
class Chosen {}
class Preferred {}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('resolveWebSocket', () => {
  it('takes the option over everything else', () => {
    vi.stubGlobal('WebSocket', Global);
    expect(resolveWebSocket(Chosen, () => Preferred as never)).toBe(Chosen);
  });

  it("takes the transport's preferred WebSocket over the runtime's global one", () => {
    vi.stubGlobal('WebSocket', Global);
    expect(resolveWebSocket(undefined, () => Preferred as never)).toBe(Preferred);
  });

  it('takes the global one when the transport prefers none (the browser build; a server runtime without ws)', () => {
    vi.stubGlobal('WebSocket', Global);
    expect(resolveWebSocket(undefined, () => undefined)).toBe(Global);
    expect(resolveWebSocket(undefined, browserTransport.preferred_)).toBe(Global);
  });

  it('refuses an option that is not a constructor (TypeError naming `WebSocket`)', () => {
    expect(() => resolveWebSocket({}, () => Preferred as never)).toThrow(TypeError);
    expect(() =>
      resolveWebSocket(
        () => undefined,
        () => Preferred as never,
      ),
    ).toThrow(/`WebSocket`/);
  });

  it('with none at all, ERR_RS_NO_WEBSOCKET says to install ws or pass one', () => {
    vi.stubGlobal('WebSocket', undefined);
    let thrown: unknown;
    try {
      resolveWebSocket(undefined, () => undefined);
    } catch (error) {
      thrown = error;
    }
    expect(isResilientSocketError(thrown) && thrown.code).toBe(ErrorCodes.NO_WEBSOCKET);
    expect((thrown as Error).message).toMatch(
      errorMessage('ERR_RS_NO_WEBSOCKET', /install the `ws` package \(npm install ws\), or pass one/),
    );
  });
});

describe('the Node entry (the ws transport)', () => {
  it('prefers ws, which can ping, to a global WebSocket (Node ≥ 22, Bun, Deno have one)', () => {
    vi.stubGlobal('WebSocket', Global);
    expect(wsTransport.preferred_()).toBe(Ws);
    expect(resolveOptions('ws://127.0.0.1:1/', {}, wsTransport).config.WebSocket).toBe(Ws);
    expect(resolveOptions('ws://127.0.0.1:1/', { WebSocket: Chosen }, wsTransport).config.WebSocket).toBe(Chosen);
    // The browser build's transport has nothing to prefer.
    expect(resolveOptions('ws://127.0.0.1:1/', {}, browserTransport).config.WebSocket).toBe(Global);
  });
});
