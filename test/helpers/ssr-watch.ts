/**
 * What the bindings' server-rendering tests share (React's `renderToString`, Vue's
 * `vue/server-renderer`): replacing a global for one test, watching the globals a server render
 * must not touch (the `WebSocket` constructor, timers, `window`) with the stack of every use, so
 * that what the package does is told apart from what the framework does; and what a hydration
 * test watches (a real server, the WebSockets the page constructs, the console). Every replacement
 * is undone, and the server closed, by `endTest()` of ./binding-server.ts, which each suite runs
 * after each test.
 */
import { resolve } from 'node:path';
import { afterThisTest, captureConsole, startServer, type TestServer } from './binding-server.js';

/** The package's sources: a use whose stack passes through them is the package's. */
const SRC = `${resolve(import.meta.dirname, '../../src')}/`;

/** Replaces `globalThis[name]` for this test. */
export function replaceGlobal(name: string, descriptor: PropertyDescriptor): void {
  const g = globalThis as Record<string, unknown>;
  const had = Object.getOwnPropertyDescriptor(g, name);
  Object.defineProperty(g, name, { configurable: true, ...descriptor });
  afterThisTest(() => {
    if (had) Object.defineProperty(g, name, had);
    else delete g[name];
  });
}

/** One use of a watched global, with the stack it was made from. */
export interface Use {
  what: string;
  stack: string;
}

/** Watches the globals a binding must not touch on a server; every use is kept with its stack. */
export function watchGlobals(): { uses: Use[]; fromPackage: () => string[] } {
  const uses: Use[] = [];
  const record = (what: string) => uses.push({ what, stack: new Error().stack ?? '' });
  replaceGlobal('WebSocket', {
    writable: true,
    value: class WatchedWebSocket {
      constructor() {
        record('new WebSocket');
      }
    },
  });
  for (const name of ['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask'] as const) {
    const original = globalThis[name] as (...args: unknown[]) => unknown;
    replaceGlobal(name, {
      writable: true,
      value: (...args: unknown[]) => {
        record(name);
        return original(...args);
      },
    });
  }
  replaceGlobal('window', {
    get: () => {
      record('window');
      return undefined;
    },
  });
  return { uses, fromPackage: () => uses.filter((use) => use.stack.includes(SRC)).map((use) => use.what) };
}

/** Counts the WebSockets constructed from now on in this test (the global one, jsdom's, wrapped). */
export function countWebSockets(): { readonly count: number } {
  const counter = { count: 0 };
  const Native = globalThis.WebSocket;
  replaceGlobal('WebSocket', {
    writable: true,
    value: class CountedWebSocket extends Native {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        counter.count++;
      }
    },
  });
  return counter;
}

/** What a hydration test watches. */
export interface Hydration {
  readonly server: TestServer;
  /** WebSockets constructed (jsdom's global, wrapped). */
  readonly constructed: { readonly count: number };
  /** What the console methods given to {@link watchHydration} were called with, in order. */
  readonly said: unknown[][];
}

/** Starts a server, counts the WebSockets constructed and captures the console methods `names`, for this test. */
export async function watchHydration(...names: ('warn' | 'error')[]): Promise<Hydration> {
  return { server: await startServer(), constructed: countWebSockets(), said: captureConsole(...names) };
}
