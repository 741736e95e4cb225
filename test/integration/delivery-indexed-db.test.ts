import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { isResilientSocketError, type ResilientSocketError } from '../../src/errors.js';
import { indexedDbStore } from '../../src/features/delivery/indexed-db.js';
import { delivery, ResilientSocket } from '../../src/node.js';
import { ProtocolServer } from '../helpers/protocol-server.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

// `indexedDbStore` under a real socket in Node, on fake-indexeddb (one IDBFactory per test: one
// browser profile), against a server written from the protocol alone: what one socket could not
// deliver before close() is delivered once by the next socket on a store of the same name, as
// after a page reload. The reload itself, in Chromium: test/browser/indexed-db-store.test.ts.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** A socket on store `name` of `factory`, following `server` (waiting while it is down, until closed). */
function client(server: ProtocolServer, factory: IDBFactory, name: string, errors: string[]): ResilientSocket {
  let closed = false;
  const socket = new ResilientSocket(
    async () => {
      while (!server.url && !closed) await sleep(2);
      return server.url || 'ws://127.0.0.1:9';
    },
    { delivery: delivery({ store: indexedDbStore(name, { indexedDB: factory }) }), backoff: constant({ delay: 10 }) },
  );
  socket.on('error', (error) => errors.push(isResilientSocketError(error) ? error.code : String(error)));
  socket.on('close', () => undefined);
  socket.on('state', ({ current }) => {
    if (current === 'closed') closed = true;
  });
  cleanup.add(socket, (s) => s.close());
  return socket;
}

/** Store `name`'s entries, read through another store object of the same name. */
async function entries(factory: IDBFactory, name: string): Promise<Record<string, unknown>> {
  return Object.fromEntries(await indexedDbStore(name, { indexedDB: factory }).load());
}

const outKeys = (stored: Record<string, unknown>): string[] => Object.keys(stored).filter((k) => k.startsWith('out:'));

describe('indexedDbStore under a ResilientSocket (Node, fake-indexeddb, a real ws server)', () => {
  it('messages not delivered before close() stay in the store (ERR_RS_DELIVERY_DEFERRED) and the next socket delivers them once', async () => {
    const factory = new IDBFactory();
    const errors: string[] = [];
    const server = cleanup.add(new ProtocolServer(), (s) => s.stop()); // down for now
    const first = client(server, factory, 'app', errors);
    const outcomes = ['a', 'b', 'c'].map((data) =>
      first.sendReliable(data).then(
        () => 'acked',
        (error: ResilientSocketError) => error,
      ),
    );
    let stored: Record<string, unknown> = {};
    const started = performance.now();
    while (outKeys(stored).length < 3 && performance.now() - started < 5_000) {
      await sleep(5);
      stored = await entries(factory, 'app');
    }
    expect(outKeys(stored).sort()).toEqual(['out:1', 'out:2', 'out:3']);
    expect(typeof stored.session).toBe('string');
    first.close();
    for (const outcome of await Promise.all(outcomes)) {
      expect(isResilientSocketError(outcome)).toBe(true);
      expect((outcome as ResilientSocketError).code).toBe('ERR_RS_DELIVERY_DEFERRED');
    }

    await server.start();
    const second = client(server, factory, 'app', errors);
    const acked: unknown[] = [];
    second.on('acked', ({ data }) => acked.push(data));
    await waitFor(() => acked.length === 3, 5_000, 'the three stored messages acknowledged', {
      describe: () => ({ acked, sessions: [...server.sessions.values()].map((s) => s.processed) }),
    });
    await second.sendReliable('d');
    const sessions = [...server.sessions.values()];
    expect(sessions.map((s) => [s.id, s.processed])).toEqual([[stored.session, ['a', 'b', 'c', 'd']]]);
    expect(acked).toEqual(['a', 'b', 'c', 'd']);
    let after: Record<string, unknown> = {};
    for (let i = 0; i < 200 && (outKeys(after).length > 0 || after.seq !== 4); i++) {
      after = await entries(factory, 'app');
      await sleep(5);
    }
    expect(outKeys(after)).toEqual([]);
    expect(after).toMatchObject({ session: stored.session, seq: 4 });
    expect(errors.filter((code) => code === 'ERR_RS_STORE_FAILED')).toEqual([]);
  });
});
