import { describe, expect, it, vi } from 'vitest';

// `resilient-socket/testing` in a project without mock-socket: importing the kit, and using all
// of it but FlakyServer, must work; `new FlakyServer()` must say how to install it. Both ways the
// kit could reach mock-socket are cut here: a static import (vi.mock) and require (node:module).
// scripts/check-package.mjs checks the same from the packed tarball, with mock-socket really absent.

vi.mock('mock-socket', () => {
  throw new Error('mock-socket must not be imported by resilient-socket/testing');
});

/** What `require('mock-socket')` throws here; a test may swap it for another failure. */
const missing = vi.hoisted(() => {
  const notFound = (id: string) =>
    Object.assign(new Error(`Cannot find module '${id}'\nRequire stack:\n- /somewhere/index.js`), {
      code: 'MODULE_NOT_FOUND',
    });
  return { notFound, error: (): Error => notFound('mock-socket') };
});

vi.mock('node:module', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:module')>();
  const createRequire = (base: string | URL) => {
    const require = original.createRequire(base);
    return Object.assign((id: string) => {
      if (id === 'mock-socket') throw missing.error();
      return require(id);
    }, require);
  };
  return { ...original, createRequire, default: { ...original, createRequire } };
});

describe('without mock-socket', () => {
  it('the kit imports, and TestClock, until and waitFor work', async () => {
    const kit = await import('../../src/testing/index.js');
    const { ResilientSocket } = await import('../../src/node.js');

    const clock = new kit.TestClock();
    let fired = 0;
    clock.setTimeout(() => fired++, 10);
    await clock.advance(10);
    expect(fired).toBe(1);

    let ready = false;
    clock.setTimeout(() => {
      ready = true;
    }, 50);
    await kit.waitFor(() => ready, { advance: (ms) => clock.advance(ms), within: 100 });

    const socket = new ResilientSocket('ws://unused.test/', {
      autoConnect: false,
      clock,
      WebSocket: class {} as never,
    });
    await expect(kit.until(socket, 'idle', { within: 0 })).resolves.toEqual({ state: 'idle' });
  });

  it('new FlakyServer() throws an Error that says to run `npm i -D mock-socket`, every time', async () => {
    const { FlakyServer } = await import('../../src/testing/index.js');
    for (let i = 0; i < 2; i++) {
      let thrown: unknown;
      try {
        new FlakyServer();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Error);
      expect((thrown as Error).message).toContain('FlakyServer needs the `mock-socket` package');
      expect((thrown as Error).message).toContain('npm i -D mock-socket');
      expect(((thrown as Error).cause as { code?: string }).code).toBe('MODULE_NOT_FOUND');
    }
  });

  it('a mock-socket that is there but broken is reported as it is, not as missing', async () => {
    // Resolution succeeds, loading fails: a module mock-socket itself needs is missing.
    const { FlakyServer } = await import('../../src/testing/flaky-server.js');
    missing.error = () => missing.notFound('./helpers/delay');
    expect(() => new FlakyServer()).toThrow("Cannot find module './helpers/delay'");
  });
});
