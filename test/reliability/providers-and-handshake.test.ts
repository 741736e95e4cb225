import { afterEach, describe, expect, it } from 'vitest';
import { constant } from '../../src/backoff/index.js';
import type { ConnectingInfo } from '../../src/core/events.js';
import { type HandshakeConnection, handshake } from '../../src/node.js';
import { ECHO } from '../faults/index.js';
import { errorMessage } from '../helpers/mode.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';
import { closeAndCheckLeftovers, createRig, named, watchUnhandled } from './leftovers.js';

// Case 8: a URL provider that throws, rejects, returns garbage or hangs. Case 9: a handshake hook
// that fails or times out, and a server that never answers the upgrade. Every failure is reported
// with its code, retried, never surfaces as an unhandled rejection, and the socket opens once the
// provider / hook / server recovers. Every test ends with close() and checks what is left behind.
// The messages say what failed in development; in production a message is its code alone.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const RETRY_DELAY = 30;

function urls(rec: { events(name: 'connecting'): { payload: unknown }[] }): string[] {
  return rec.events('connecting').map((e) => (e.payload as ConnectingInfo).url);
}

describe('URL provider failures (case 8)', () => {
  it.each(
    named([
      {
        name: 'throws synchronously',
        fail: (call: number): never => {
          throw new Error(`token service down (${call})`);
        },
        detail: 'token service down (1)',
      },
      {
        name: 'rejects',
        fail: (call: number) => Promise.reject(new Error(`token service down (${call})`)),
        detail: 'token service down (1)',
      },
      {
        name: 'returns something that is not a ws URL',
        fail: (_call: number) => 'ftp://127.0.0.1/feed',
        detail: 'ftp://127.0.0.1/feed',
      },
    ]),
  )('a provider that %s → ERR_RS_PROVIDER_FAILED, retried, opens once it recovers', async (_name, { fail, detail }) => {
    const unhandled = watchUnhandled(cleanup);
    const rig = await createRig(cleanup);
    let calls = 0;
    const provider = () => {
      calls++;
      return calls <= 2 ? fail(calls) : rig.server.urlFor(`/?call=${calls}`);
    };
    const { socket, rec } = rig.socket(provider, { backoff: constant({ delay: RETRY_DELAY }), connectTimeout: 300 });
    expect(socket.send('queued while the provider fails')).toBe('buffered');

    await waitFor(() => socket.state === 'open', 2_000, 'open once the provider recovers', {
      describe: () => rec.summary(),
    });

    expect(calls).toBe(3);
    expect(rec.errors.map((e) => e.code)).toEqual(['ERR_RS_PROVIDER_FAILED', 'ERR_RS_PROVIDER_FAILED']);
    expect(rec.errors[0]?.message).toEqual(errorMessage('ERR_RS_PROVIDER_FAILED', expect.stringContaining(detail)));
    expect(rec.errors[0]?.cause).toBeInstanceOf(Error);
    // No socket was created for the failed attempts: no `connecting`, no `close`, no upgrade.
    // The event shows the URL with its query values redacted; the server got the real one.
    expect(urls(rec)).toEqual([rig.server.urlFor('/?call=***')]);
    expect(rec.closes).toEqual([]);
    expect(rig.instances).toHaveLength(1);
    expect(rig.server.upgrades.map((u) => u.url)).toEqual(['/?call=3']);
    expect(rec.reconnecting).toEqual([
      { attempt: 2, delay: RETRY_DELAY },
      { attempt: 3, delay: RETRY_DELAY },
    ]);
    expect(rec.states).toEqual(['reconnecting', 'connecting', 'reconnecting', 'connecting', 'open']);
    expect(rec.opens).toEqual([{ attempt: 3, reconnected: false }]);
    await waitFor(() => rig.server.received.length === 1, 1_000, 'the queued message');
    expect(rig.server.received).toEqual(['queued while the provider fails']);

    await closeAndCheckLeftovers(rig, socket, rec);
    expect(unhandled.errors).toEqual([]);
  });

  it.each(
    named([
      { name: 'never settles', settle: undefined },
      { name: 'resolves after the timeout', settle: 'resolve' as const },
      { name: 'rejects after the timeout', settle: 'reject' as const },
    ]),
  )(
    'a provider that hangs and %s → ERR_RS_CONNECT_TIMEOUT at connectTimeout, the late answer is ignored',
    async (_name, { settle }) => {
      const unhandled = watchUnhandled(cleanup);
      const rig = await createRig(cleanup);
      let calls = 0;
      let lateSettled = false;
      const provider = (): string | Promise<string> => {
        calls++;
        if (calls > 1) return rig.server.urlFor(`/?call=${calls}`);
        return new Promise<string>((resolve, reject) => {
          if (settle === undefined) return;
          setTimeout(() => {
            lateSettled = true;
            if (settle === 'resolve') resolve(rig.server.urlFor('/?call=1-late'));
            else reject(new Error('late failure'));
          }, 450);
        });
      };
      const started = performance.now();
      const { socket, rec } = rig.socket(provider, { backoff: constant({ delay: RETRY_DELAY }), connectTimeout: 300 });

      await waitFor(() => socket.state === 'open', 2_000, 'open on the second attempt', {
        describe: () => rec.summary(),
      });
      const timedOutAt = (rec.events('error')[0]?.at ?? 0) - started;
      expect(timedOutAt).toBeGreaterThanOrEqual(290);
      expect(timedOutAt).toBeLessThan(600);
      if (settle !== undefined) await waitFor(() => lateSettled, 1_000, 'the late answer of the first call');
      await sleep(50);

      expect(rec.errors).toHaveLength(1);
      expect(rec.errors[0]).toMatchObject({ code: 'ERR_RS_CONNECT_TIMEOUT' });
      expect(rec.errors[0]?.message).toEqual(errorMessage('ERR_RS_CONNECT_TIMEOUT', expect.stringContaining('300 ms')));
      expect(rec.closes).toEqual([]);
      // The late URL of the abandoned attempt never reached the server.
      expect(calls).toBe(2);
      expect(rig.server.upgrades.map((u) => u.url)).toEqual(['/?call=2']);
      expect(rig.instances).toHaveLength(1);
      expect(rec.opens).toEqual([{ attempt: 2, reconnected: false }]);
      expect(socket.state).toBe('open');

      await closeAndCheckLeftovers(rig, socket, rec);
      expect(unhandled.errors).toEqual([]);
    },
  );
});

describe('handshake hook failures (case 9)', () => {
  it.each(
    named([
      {
        name: 'throws synchronously after sending auth',
        failing: (c: HandshakeConnection): void => {
          c.send(`auth:${c.attempt}`);
          throw new Error('auth rejected');
        },
      },
      {
        name: 'rejects after sending auth',
        failing: async (c: HandshakeConnection): Promise<void> => {
          c.send(`auth:${c.attempt}`);
          await Promise.resolve();
          throw new Error('auth rejected');
        },
      },
    ]),
  )(
    'a hook that %s → ERR_RS_HANDSHAKE_FAILED, the server sees that connection closed; recovers',
    async (_name, { failing }) => {
      const unhandled = watchUnhandled(cleanup);
      const rig = await createRig(cleanup, ECHO);
      const signals: AbortSignal[] = [];
      const { socket, rec } = rig.socket(undefined, {
        backoff: constant({ delay: RETRY_DELAY }),
        handshake: handshake(async (c) => {
          signals.push(c.signal);
          if (c.attempt === 1) return failing(c);
          c.send(`auth:${c.attempt}`);
          await c.nextMessage((data) => data.toString() === `auth:${c.attempt}`); // the echo is the ack
        }),
      });
      expect(socket.send('hello')).toBe('buffered');

      await waitFor(() => socket.state === 'open', 2_000, 'open after the second handshake', {
        describe: () => rec.summary(),
      });
      await waitFor(() => rig.server.disconnects.length === 1, 1_000, 'the server to see the failed connection closed');

      expect(rec.errors).toHaveLength(1);
      expect(rec.errors[0]).toMatchObject({ code: 'ERR_RS_HANDSHAKE_FAILED' });
      expect(rec.errors[0]?.message).toEqual(
        errorMessage('ERR_RS_HANDSHAKE_FAILED', expect.stringContaining('auth rejected')),
      );
      expect(rec.errors[0]?.cause).toMatchObject({ message: 'auth rejected' });
      expect(rec.closes).toEqual([{ code: 1006, reason: 'handshake failed', wasClean: false, willReconnect: true }]);
      expect(rig.server.disconnects[0]?.code).toBe(1006);
      expect(rig.server.connections).toBe(2);
      expect(rig.server.openClients).toBe(1);
      expect(rec.opens).toEqual([{ attempt: 2, reconnected: false }]);
      expect(signals.map((s) => s.aborted)).toEqual([true, false]);

      // The buffered message goes out after the successful handshake, never on the failed connection.
      await waitFor(() => rec.messages.length === 1, 1_000, 'the echo of "hello"');
      expect(rig.server.received).toEqual(['auth:1', 'auth:2', 'hello']);
      expect(rec.messages).toEqual(['hello']); // the ack was consumed by the hook

      await closeAndCheckLeftovers(rig, socket, rec);
      expect(unhandled.errors).toEqual([]);
    },
  );

  it.each(
    named([
      { name: 'waits for a message that never comes', late: false },
      { name: 'settles only after the timeout', late: true },
    ]),
  )(
    'a hook that %s → ERR_RS_HANDSHAKE_TIMEOUT at its timeout (200 ms), connection closed; recovers',
    async (_name, { late }) => {
      const unhandled = watchUnhandled(cleanup);
      const rig = await createRig(cleanup, ECHO);
      const hookErrors: unknown[] = [];
      let lateDone = false;
      const { socket, rec } = rig.socket(undefined, {
        backoff: constant({ delay: RETRY_DELAY }),
        handshake: handshake(
          async (c) => {
            c.send(`auth:${c.attempt}`);
            if (c.attempt === 1) {
              if (late) {
                await sleep(300);
                lateDone = true;
                return;
              }
              try {
                await c.nextMessage((data) => data.toString() === 'welcome');
              } catch (error) {
                hookErrors.push(error);
                throw error;
              }
              return;
            }
            await c.nextMessage((data) => data.toString() === `auth:${c.attempt}`);
          },
          { timeout: 200 },
        ),
      });

      await waitFor(() => socket.state === 'open', 2_000, 'open after the second handshake', {
        describe: () => rec.summary(),
      });
      await waitFor(
        () => rig.server.disconnects.length === 1,
        1_000,
        'the server to see the timed-out connection closed',
      );
      if (late) await waitFor(() => lateDone, 1_000, 'the late hook to finish');
      await sleep(30);

      expect(rec.errors).toHaveLength(1);
      expect(rec.errors[0]).toMatchObject({ code: 'ERR_RS_HANDSHAKE_TIMEOUT' });
      expect(rec.errors[0]?.message).toEqual(
        errorMessage('ERR_RS_HANDSHAKE_TIMEOUT', expect.stringContaining('200 ms')),
      );
      expect(rec.closes).toEqual([{ code: 1006, reason: 'handshake timeout', wasClean: false, willReconnect: true }]);
      expect(rig.server.disconnects[0]?.code).toBe(1006);
      expect(rec.opens).toEqual([{ attempt: 2, reconnected: false }]);
      expect(rig.server.connections).toBe(2);
      expect(socket.state).toBe('open');
      if (!late) {
        // The hook's pending nextMessage() was rejected when the attempt was abandoned.
        expect(hookErrors).toHaveLength(1);
        expect(hookErrors[0]).toMatchObject({ code: 'ERR_RS_CLOSED' });
      }

      await closeAndCheckLeftovers(rig, socket, rec);
      expect(unhandled.errors).toEqual([]);
    },
  );
});

describe('a server that never answers the upgrade', () => {
  it('a stalled upgrade → ERR_RS_CONNECT_TIMEOUT at connectTimeout, close {1006, connect timeout}; opens after', async () => {
    const unhandled = watchUnhandled(cleanup);
    const rig = await createRig(cleanup, ({ index }) => (index === 0 ? { kind: 'stall' } : ECHO));
    const started = performance.now();
    const { socket, rec } = rig.socket(undefined, { backoff: constant({ delay: RETRY_DELAY }), connectTimeout: 300 });
    expect(socket.send('queued during the stall')).toBe('buffered');

    await waitFor(() => socket.state === 'open', 2_000, 'open on the second attempt', {
      describe: () => rec.summary(),
    });

    const timedOutAt = (rec.events('error')[0]?.at ?? 0) - started;
    expect(timedOutAt).toBeGreaterThanOrEqual(290);
    expect(timedOutAt).toBeLessThan(600);
    expect(rec.errors.map((e) => e.code)).toEqual(['ERR_RS_CONNECT_TIMEOUT']);
    expect(rec.closes).toEqual([{ code: 1006, reason: 'connect timeout', wasClean: false, willReconnect: true }]);
    expect(rig.server.upgrades.map((u) => u.kind)).toEqual(['stall', 'accept']);
    expect(rig.instances).toHaveLength(2);
    expect(rec.opens).toEqual([{ attempt: 2, reconnected: false }]);
    await waitFor(() => rec.messages.length === 1, 1_000, 'the echo of the queued message');
    expect(rig.server.received).toEqual(['queued during the stall']);

    await closeAndCheckLeftovers(rig, socket, rec);
    expect(unhandled.errors).toEqual([]);
  });
});
