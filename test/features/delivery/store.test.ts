import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeliveryStore } from '../../../src/features/delivery/store.js';
import { delivery, memoryStore } from '../../../src/modular-node.js';
import { errorMessage } from '../../helpers/mode.js';
import { advance, cleanup, createSocket, expectRsError, MOCK_DELAY, record } from '../../resilient-socket/helpers.js';
import { outcome, startPeer } from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

/** A memory store that says it is persistent (what indexedDbStore is to the feature), its entries in view. */
function persistentStore(): DeliveryStore & { entries: Map<string, unknown> } {
  const entries = new Map<string, unknown>();
  return {
    persistent: true,
    entries,
    load: async () => [...entries].map(([key, value]) => [key, structuredClone(value)] as [string, unknown]),
    put: async (key, value) => {
      entries.set(key, structuredClone(value));
    },
    delete: async (key) => {
      entries.delete(key);
    },
  };
}

describe('memoryStore()', () => {
  it('is a plain key/value store, not persistent', async () => {
    const store = memoryStore();
    expect(store.persistent).toBe(false);
    await store.put('a', { data: 1 });
    await store.put('b', 2);
    await store.delete('b');
    await store.delete('missing');
    expect([...(await store.load())]).toEqual([['a', { data: 1 }]]);
  });
});

describe('a persistent store', () => {
  it('close() keeps the pending in the store (ERR_RS_DELIVERY_DEFERRED); the next socket sends them with the same session and ids', async () => {
    const store = persistentStore();
    const peer = startPeer();
    peer.acking = false;
    const first = createSocket(peer.server.url, { delivery: delivery({ store }) });
    const log = record(first, ['drop']);
    const a = outcome(first.sendReliable({ order: 1 }));
    const b = outcome(first.sendReliable({ order: 2 }));
    await advance(MOCK_DELAY * 2);
    peer.ack('1');
    await advance(0);
    expect(a.value).toBe('resolved');
    first.close();
    await advance(MOCK_DELAY);
    expect(expectRsError(b.value, 'ERR_RS_DELIVERY_DEFERRED').message).toBe(
      errorMessage(
        'ERR_RS_DELIVERY_DEFERRED',
        'The socket was closed before the acknowledgement; the message stays in the persistent store and is sent by the next socket on it',
      ),
    );
    expect(log.of('drop')).toEqual([]); // nothing lost
    const session = store.entries.get('session');
    expect(typeof session).toBe('string');
    expect(store.entries.get('out:2')).toEqual({ data: { order: 2 } });
    expect(store.entries.has('out:1')).toBe(false);
    expect(store.entries.get('seq')).toBe(2);

    peer.frames.length = 0;
    peer.acking = true;
    const second = createSocket(peer.server.url, { delivery: delivery({ store }) });
    const acked = record(second, ['acked']);
    const c = outcome(second.sendReliable('after reload'));
    await advance(MOCK_DELAY * 3);
    // What the store held first, then what was sent while it loaded, with the next id.
    expect(peer.log()).toEqual([`hello:${String(session)}`, 'msg:2:{"order":2}', 'msg:3:"after reload"']);
    expect(acked.of('acked')).toEqual([
      { id: '2', data: { order: 2 } },
      { id: '3', data: 'after reload' },
    ]);
    expect(c.value).toBe('resolved');
    expect([...store.entries.keys()].filter((k) => k.startsWith('out:'))).toEqual([]);
  });

  it('the de-duplication window survives: an id seen by the last socket is acked, not delivered again', async () => {
    const store = persistentStore();
    const peer = startPeer();
    const first = createSocket(peer.server.url, { delivery: delivery({ store }) });
    const got: unknown[] = [];
    first.on('message', (data) => got.push(data));
    await advance(MOCK_DELAY);
    peer.send('7', 'once');
    await advance(0);
    first.close();
    await advance(MOCK_DELAY);
    expect(store.entries.get('seen')).toEqual(['7']);
    const second = createSocket(peer.server.url, { delivery: delivery({ store }) });
    second.on('message', (data) => got.push(data));
    await advance(MOCK_DELAY * 2);
    peer.send('7', 'once');
    peer.send('8', 'new');
    await advance(MOCK_DELAY);
    expect(got).toEqual(['once', 'new']);
    expect(peer.log().filter((l) => l.startsWith('ack'))).toEqual(['ack:7', 'ack:7', 'ack:8']);
    expect(second.stats.delivery?.duplicates).toBe(1);
  });

  it('a give-up keeps them too, and open() sends them again', async () => {
    const store = persistentStore();
    const peer = startPeer();
    peer.acking = false;
    const socket = createSocket(peer.server.url, { delivery: delivery({ store }), maxRetries: 0 });
    record(socket, ['giveup', 'drop']);
    await advance(MOCK_DELAY * 2);
    const sent = outcome(socket.sendReliable('kept'));
    await advance(MOCK_DELAY);
    peer.server.closeLast(1012);
    await advance(MOCK_DELAY * 2);
    expect(socket.state).toBe('closed');
    expectRsError(sent.value, 'ERR_RS_DELIVERY_DEFERRED');
    expect(socket.stats.delivery?.pending).toBe(1);
    peer.frames.length = 0;
    socket.open();
    await advance(MOCK_DELAY * 2);
    expect(peer.log().slice(1)).toEqual(['msg:1:"kept"']);
  });
});

describe('store failures: reported, coded, and delivery goes on in memory', () => {
  it('a load that rejects: ERR_RS_STORE_FAILED, then a fresh session; sends made meanwhile go out', async () => {
    const peer = startPeer();
    const store: DeliveryStore = {
      persistent: true,
      load: () => Promise.reject(new Error('quota')),
      put: vi.fn(async () => undefined),
      delete: vi.fn(async () => undefined),
    };
    const socket = createSocket(peer.server.url, { delivery: delivery({ store }) });
    const log = record(socket, ['error']);
    const sent = outcome(socket.sendReliable('still delivered'));
    await advance(MOCK_DELAY * 3);
    expect(log.errors()).toEqual(['ERR_RS_STORE_FAILED']);
    expect(log.of('error')[0]?.message).toBe(
      errorMessage('ERR_RS_STORE_FAILED', 'The delivery store failed (quota); delivery goes on in memory'),
    );
    expect(sent.value).toBe('resolved');
    expect(store.put).not.toHaveBeenCalled(); // the store was let go
  });

  it('a load that never settles: given up after connectTimeout, then the socket opens', async () => {
    const peer = startPeer();
    const store: DeliveryStore = {
      persistent: true,
      load: () => new Promise(() => undefined),
      put: async () => undefined,
      delete: async () => undefined,
    };
    const socket = createSocket(peer.server.url, { delivery: delivery({ store }), connectTimeout: 2_000 });
    const log = record(socket, ['error']);
    const sent = outcome(socket.sendReliable('x'));
    await advance(1_000);
    expect(socket.state).toBe('connecting');
    await advance(1_000 + MOCK_DELAY * 2);
    expect(socket.state).toBe('open');
    expect(log.errors()).toEqual(['ERR_RS_STORE_FAILED']);
    expect(sent.value).toBe('resolved');
  });

  it('a put that throws: reported once, acknowledgements still settle the promises', async () => {
    const peer = startPeer();
    const store: DeliveryStore = {
      persistent: false,
      load: async () => [],
      put: () => {
        throw new Error('disk full');
      },
      delete: async () => undefined,
    };
    const socket = createSocket(peer.server.url, { delivery: delivery({ store }) });
    const log = record(socket, ['error']);
    const sent = [outcome(socket.sendReliable(1)), outcome(socket.sendReliable(2))];
    await advance(MOCK_DELAY * 3);
    expect(log.errors()).toEqual(['ERR_RS_STORE_FAILED']);
    expect(sent.map((s) => s.value)).toEqual(['resolved', 'resolved']);
  });

  it('close() while the store loads settles what was sent meanwhile', async () => {
    const store: DeliveryStore = {
      persistent: true,
      load: () => new Promise(() => undefined),
      put: async () => undefined,
      delete: async () => undefined,
    };
    const socket = createSocket('ws://localhost:1', { delivery: delivery({ store }), autoConnect: false });
    record(socket, ['drop']);
    const sent = outcome(socket.sendReliable('early'));
    socket.close();
    await advance(0);
    expectRsError(sent.value, 'ERR_RS_DELIVERY_STOPPED');
  });
});
