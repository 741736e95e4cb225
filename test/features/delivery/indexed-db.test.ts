/**
 * `indexedDbStore(name)` in Node, on fake-indexeddb (an in-memory IndexedDB that follows the
 * standard): one fresh `IDBFactory` per test, passed as the `indexedDB` option (or installed as the
 * global where the test is about the global). A browser's IndexedDB is tested in Chromium
 * (test/browser/indexed-db-store.test.ts).
 */
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isResilientSocketError, type ResilientSocketError } from '../../../src/errors.js';
import { indexedDbStore } from '../../../src/features/delivery/indexed-db.js';
import type { DeliveryStore } from '../../../src/features/delivery/store.js';
import { errorMessage, expectInputError } from '../../helpers/mode.js';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

// ─── raw IndexedDB, to look at what the store wrote and to play another tab ────────────────────────

function settled<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** Opens `name` (at `version`, running `upgrade` if it is new) as another tab would. */
function rawOpen(
  factory: IDBFactory,
  name: string,
  version?: number,
  upgrade?: (db: IDBDatabase) => void,
): Promise<IDBDatabase> {
  const request = factory.open(name, version);
  request.onupgradeneeded = () => upgrade?.(request.result);
  return settled(request);
}

/** Every database's name and version. */
async function databases(factory: IDBFactory): Promise<Record<string, number>> {
  const list = await factory.databases();
  return Object.fromEntries(list.map(({ name, version }) => [name, version]));
}

async function entries(store: DeliveryStore): Promise<Record<string, unknown>> {
  return Object.fromEntries(await store.load());
}

/** What `promise` rejected with; fails the test if it fulfilled. */
async function rejection(promise: Promise<unknown>): Promise<ResilientSocketError> {
  const outcome = await promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  return outcome.error as ResilientSocketError;
}

/** Asserts a store error: a ResilientSocketError `ERR_RS_STORE_FAILED` whose development text matches `text`. */
function expectStoreFailed(error: ResilientSocketError, text: RegExp): void {
  expect(isResilientSocketError(error)).toBe(true);
  expect(error.code).toBe('ERR_RS_STORE_FAILED');
  expect(error.message).toMatch(errorMessage('ERR_RS_STORE_FAILED', text));
}

// ─── the argument and the options ─────────────────────────────────────────────────────────────────

describe('indexedDbStore(): the name and the options, checked at the call', () => {
  it.each([
    [undefined, 'undefined'],
    [42, 'number 42'],
    [null, 'null'],
    [{ name: 'x' }, 'an object'],
  ])('a name that is not a string (%o) is a TypeError naming `name`', (name, shown) => {
    expectInputError(
      () => indexedDbStore(name as never),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'name',
      `Expected \`name\` (of indexedDbStore) to be a string, got ${shown}`,
    );
  });

  it('an empty name is a RangeError naming `name`', () => {
    expectInputError(
      () => indexedDbStore(''),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'name',
      'Expected `name` (of indexedDbStore) to be a non-empty string, got ""',
    );
  });

  it('options that are not an object, an unknown option, a bad openTimeout or indexedDB are refused', () => {
    expectInputError(() => indexedDbStore('a', 5 as never), TypeError, 'ERR_RS_INVALID_TYPE', 'options');
    expectInputError(
      () => indexedDbStore('a', { openTimout: 10 } as never),
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      'openTimout',
      'Unknown option `openTimout`: did you mean `openTimeout`?',
    );
    expectInputError(
      () => indexedDbStore('a', { timeout: 10 } as never),
      TypeError,
      'ERR_RS_UNKNOWN_OPTION',
      'timeout',
      'Unknown option `timeout`: the options of indexedDbStore() are `openTimeout`, `indexedDB`',
    );
    for (const bad of [0, -1, Number.NaN, 2 ** 31]) {
      expectInputError(
        () => indexedDbStore('a', { openTimeout: bad }),
        RangeError,
        'ERR_RS_INVALID_VALUE',
        'openTimeout',
      );
    }
    expectInputError(
      () => indexedDbStore('a', { openTimeout: '5s' as never }),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'openTimeout',
    );
    expectInputError(
      () => indexedDbStore('a', { indexedDB: {} as never }),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'indexedDB',
      'Expected `indexedDB` to be an IDBFactory, got an object',
    );
    expect(indexedDbStore('a', { openTimeout: Number.POSITIVE_INFINITY }).persistent).toBe(true);
  });

  it('opens nothing until it is used, and says it is persistent', async () => {
    const factory = new IDBFactory();
    const open = vi.spyOn(factory, 'open');
    const store = indexedDbStore('outbox', { indexedDB: factory });
    expect(store.persistent).toBe(true);
    expect(open).not.toHaveBeenCalled();
    expect(await databases(factory)).toEqual({});
    await store.load();
    expect(open).toHaveBeenCalledTimes(1);
    expect(open).toHaveBeenCalledWith('resilient-socket:outbox', 1);
  });
});

// ─── what it stores ───────────────────────────────────────────────────────────────────────────────

describe('indexedDbStore(): load, put, delete', () => {
  it('a new store loads nothing; put adds or replaces one key, delete removes one', async () => {
    const store = indexedDbStore('outbox', { indexedDB: new IDBFactory() });
    expect([...(await store.load())]).toEqual([]);
    await store.put('session', 'c0ffee');
    await store.put('seq', 3);
    await store.put('out:3', { data: { text: 'hi', n: [1, 2] } });
    await store.put('seen', ['7', '8']);
    expect(await entries(store)).toEqual({
      session: 'c0ffee',
      seq: 3,
      'out:3': { data: { text: 'hi', n: [1, 2] } },
      seen: ['7', '8'],
    });
    await store.put('seq', 4);
    await store.delete('out:3');
    await store.delete('out:99'); // not there: nothing happens
    expect(await entries(store)).toEqual({ session: 'c0ffee', seq: 4, seen: ['7', '8'] });
  });

  it('load() gives [key, value] pairs with string keys', async () => {
    const store = indexedDbStore('outbox', { indexedDB: new IDBFactory() });
    await store.put('out:1', { data: null });
    const loaded = [...(await store.load())];
    expect(loaded).toEqual([['out:1', { data: null }]]);
    expect(typeof loaded[0]?.[0]).toBe('string');
  });

  it('calls made at once, before the database opened, apply in the order they were made', async () => {
    const store = indexedDbStore('outbox', { indexedDB: new IDBFactory() });
    const calls = [
      store.put('out:1', { data: 'a' }),
      store.put('out:2', { data: 'b' }),
      store.delete('out:1'),
      store.put('seq', 2),
      store.put('out:2', { data: 'b2' }),
    ];
    const loaded = store.load();
    await Promise.all(calls);
    expect(Object.fromEntries(await loaded)).toEqual({ 'out:2': { data: 'b2' }, seq: 2 });
  });

  it('the returned value is a copy: changing what was stored or loaded changes nothing stored', async () => {
    const store = indexedDbStore('outbox', { indexedDB: new IDBFactory() });
    const seen = ['1'];
    await store.put('seen', seen);
    seen.push('2');
    const first = await entries(store);
    (first.seen as string[]).push('3');
    expect(await entries(store)).toEqual({ seen: ['1'] });
  });
});

describe('indexedDbStore(): one database per name', () => {
  it('two store objects of one name share it: what one wrote, the other loads (a reload)', async () => {
    const factory = new IDBFactory();
    const before = indexedDbStore('chat', { indexedDB: factory });
    await before.put('session', 's1');
    await before.put('seq', 2);
    await before.put('out:2', { data: 'pending' });
    const after = indexedDbStore('chat', { indexedDB: factory });
    expect(await entries(after)).toEqual({ session: 's1', seq: 2, 'out:2': { data: 'pending' } });
    await after.delete('out:2');
    expect(await entries(before)).toEqual({ session: 's1', seq: 2 });
  });

  it('stores of different names are isolated, each in a database of its own', async () => {
    const factory = new IDBFactory();
    const a = indexedDbStore('a', { indexedDB: factory });
    const b = indexedDbStore('b', { indexedDB: factory });
    await Promise.all([a.put('session', 'A'), b.put('session', 'B'), a.put('out:1', { data: 1 })]);
    expect(await entries(a)).toEqual({ session: 'A', 'out:1': { data: 1 } });
    expect(await entries(b)).toEqual({ session: 'B' });
    await b.delete('session');
    expect(await entries(a)).toEqual({ session: 'A', 'out:1': { data: 1 } });
    expect(await databases(factory)).toEqual({ 'resilient-socket:a': 1, 'resilient-socket:b': 1 });
  });

  it("leaves an app's database of the same name alone (no upgrade of its version)", async () => {
    const factory = new IDBFactory();
    const app = await rawOpen(factory, 'chat', 3, (db) => db.createObjectStore('messages'));
    const store = indexedDbStore('chat', { indexedDB: factory });
    await store.put('seq', 1);
    expect(await entries(store)).toEqual({ seq: 1 });
    expect(await databases(factory)).toEqual({ chat: 3, 'resilient-socket:chat': 1 });
    expect([...app.objectStoreNames]).toEqual(['messages']);
    app.close();
  });

  it('uses the global indexedDB when none is passed, read at the first call', async () => {
    const store = indexedDbStore('outbox');
    const factory = new IDBFactory();
    vi.stubGlobal('indexedDB', factory);
    await store.put('seq', 1);
    expect(await databases(factory)).toEqual({ 'resilient-socket:outbox': 1 });
  });
});

// ─── when IndexedDB fails ─────────────────────────────────────────────────────────────────────────

describe('indexedDbStore(): a database that cannot open', () => {
  it('no IndexedDB at all (Node): every call rejects with ERR_RS_STORE_FAILED, none throws', async () => {
    vi.stubGlobal('indexedDB', undefined);
    const store = indexedDbStore('outbox');
    for (const call of [() => store.load(), () => store.put('seq', 1), () => store.delete('seq')]) {
      let promise: Promise<unknown> | undefined;
      expect(() => {
        promise = call();
      }).not.toThrow();
      expectStoreFailed(
        await rejection(promise as Promise<unknown>),
        /^indexedDbStore\("outbox"\): IndexedDB is not available here \(pass `indexedDB`, e\.g\. a polyfill, or use another store\)$/,
      );
    }
  });

  it('tries again at the next call: IndexedDB that appears later is used', async () => {
    vi.stubGlobal('indexedDB', undefined);
    const store = indexedDbStore('outbox');
    await rejection(store.put('seq', 1));
    vi.stubGlobal('indexedDB', new IDBFactory());
    await store.put('seq', 2);
    expect(await entries(store)).toEqual({ seq: 2 });
  });

  it('a refused IndexedDB (the getter or open() throws, as in a sandboxed frame) rejects with that error as the cause', async () => {
    const refusal = new DOMException('access to the Indexed Database API is denied in this context', 'SecurityError');
    Object.defineProperty(globalThis, 'indexedDB', {
      configurable: true,
      get() {
        throw refusal;
      },
    });
    try {
      const error = await rejection(indexedDbStore('outbox').load());
      expectStoreFailed(error, /could not open the database "resilient-socket:outbox" .*: access to the Indexed/);
      expect((error as Error & { cause?: unknown }).cause).toBe(refusal);
    } finally {
      delete (globalThis as { indexedDB?: unknown }).indexedDB;
    }
    const factory = new IDBFactory();
    vi.spyOn(factory, 'open').mockImplementation(() => {
      throw refusal;
    });
    const error = await rejection(indexedDbStore('outbox', { indexedDB: factory }).put('seq', 1));
    expectStoreFailed(error, /could not open the database "resilient-socket:outbox"/);
    expect((error as Error & { cause?: unknown }).cause).toBe(refusal);
  });

  it('an open that fails (the database of a newer version) rejects with the browser error as the cause', async () => {
    const factory = new IDBFactory();
    (await rawOpen(factory, 'resilient-socket:outbox', 2, (db) => db.createObjectStore('delivery'))).close();
    const error = await rejection(indexedDbStore('outbox', { indexedDB: factory }).load());
    expectStoreFailed(error, /could not open the database "resilient-socket:outbox" .*: /);
    expect((error as Error & { cause?: { name?: string } }).cause?.name).toBe('VersionError');
  });

  it('a database of that name without the object store: each call rejects (NotFoundError), none hangs', async () => {
    const factory = new IDBFactory();
    (await rawOpen(factory, 'resilient-socket:outbox', 1, (db) => db.createObjectStore('other'))).close();
    const store = indexedDbStore('outbox', { indexedDB: factory });
    const error = await rejection(store.put('seq', 1));
    expectStoreFailed(error, /^indexedDbStore\("outbox"\): put\("seq"\) failed: /);
    expect((error as Error & { cause?: { name?: string } }).cause?.name).toBe('NotFoundError');
    expectStoreFailed(await rejection(store.load()), /load\(\) failed/);
    expectStoreFailed(await rejection(store.delete('out:1')), /delete\("out:1"\) failed/);
  });

  it('an open held up past openTimeout (queued behind another tab’s blocked upgrade) rejects, and the next call tries again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }); // fake-indexeddb runs on setImmediate
    const factory = new IDBFactory();
    const store = indexedDbStore('outbox', { indexedDB: factory, openTimeout: 2_000 });
    // Another tab holds version 1 and ignores `versionchange`; a third asks for version 2, which
    // waits for it: every later open of the database queues behind that request.
    const holder = await rawOpen(factory, 'resilient-socket:outbox', 1, (db) => db.createObjectStore('delivery'));
    let upgraded = false;
    const upgrade = factory.open('resilient-socket:outbox', 2);
    upgrade.onsuccess = () => {
      upgraded = true;
      upgrade.result.close();
    };
    await new Promise<void>((resolve) => {
      upgrade.onblocked = () => resolve();
    });
    let outcome: string | undefined;
    const loading = store.load().then(
      () => 'loaded',
      (error: ResilientSocketError) => {
        outcome = 'rejected';
        return error;
      },
    );
    await vi.advanceTimersByTimeAsync(1_999);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBe('rejected');
    const error = (await loading) as ResilientSocketError;
    expectStoreFailed(
      error,
      /^indexedDbStore\("outbox"\): the database "resilient-socket:outbox" did not open within 2000 ms \(another tab may hold it while upgrading or deleting it\)$/,
    );
    // The tab lets go: the upgrade goes through; the open that timed out fails late (version 1 <
    // 2) and nobody hears of it; the next call opens again and reports that.
    holder.close();
    await vi.waitFor(() => expect(upgraded).toBe(true));
    const next = await rejection(store.load());
    expect((next as Error & { cause?: { name?: string } }).cause?.name).toBe('VersionError');
  });
});

describe('indexedDbStore(): living beside other tabs and the browser', () => {
  it('never blocks another tab that deletes or upgrades the database: it lets go, and opens again next time', async () => {
    const factory = new IDBFactory();
    const store = indexedDbStore('outbox', { indexedDB: factory });
    await store.put('seq', 1); // the connection is open now
    const deletion = factory.deleteDatabase('resilient-socket:outbox');
    const outcome = await new Promise((resolve) => {
      deletion.onsuccess = () => resolve('deleted');
      deletion.onblocked = () => resolve('blocked');
      deletion.onerror = () => resolve(deletion.error);
    });
    expect(outcome).toBe('deleted');
    expect(await databases(factory)).toEqual({});
    // The next call makes a fresh, empty database.
    expect(await entries(store)).toEqual({});
    await store.put('seq', 2);
    expect(await entries(indexedDbStore('outbox', { indexedDB: factory }))).toEqual({ seq: 2 });
  });

  it('a value IndexedDB cannot store (a function) rejects that put; the store goes on', async () => {
    const store = indexedDbStore('outbox', { indexedDB: new IDBFactory() });
    const error = await rejection(store.put('out:1', { data: () => 1 }));
    expectStoreFailed(error, /^indexedDbStore\("outbox"\): put\("out:1"\) failed: /);
    expect((error as Error & { cause?: { name?: string } }).cause?.name).toBe('DataCloneError');
    await store.put('out:2', { data: 2 });
    expect(await entries(store)).toEqual({ 'out:2': { data: 2 } });
  });
});

// ─── the connection's life, on a scripted IndexedDB ───────────────────────────────────────────────

/** An IndexedDB whose open requests the test settles by hand. */
function scriptedFactory() {
  const requests: { onsuccess: (() => void) | null; result: unknown }[] = [];
  const closed: number[] = [];
  const factory = {
    open: vi.fn(() => {
      const request = { onsuccess: null, onerror: null, onupgradeneeded: null, result: undefined as unknown };
      requests.push(request);
      return request;
    }),
  };
  /**
   * Makes open request `i` succeed with a database whose transactions commit at once, or, while
   * `abortWith()` gives an error, abort with it (as a browser aborts a write past the quota).
   */
  const succeed = (i: number, abortWith: () => unknown = () => null) => {
    const request = requests[i] as (typeof requests)[number];
    const db = {
      onversionchange: null as (() => void) | null,
      onclose: null as (() => void) | null,
      close: () => closed.push(i),
      transaction: () => {
        const transaction = {
          oncomplete: null as (() => void) | null,
          onabort: null as (() => void) | null,
          error: abortWith(),
          objectStore: () => ({ put: () => undefined, delete: () => undefined }),
        };
        setImmediate(() => (transaction.error ? transaction.onabort?.() : transaction.oncomplete?.()));
        return transaction;
      },
    };
    request.result = db;
    request.onsuccess?.();
    return db;
  };
  return { factory, requests, closed, succeed };
}

describe('indexedDbStore(): the connection', () => {
  it('a database that opens after its call timed out is closed at once (it would hold up other tabs)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { factory, closed, succeed } = scriptedFactory();
    const store = indexedDbStore('outbox', { indexedDB: factory, openTimeout: 100 });
    let failed: ResilientSocketError | undefined;
    store.put('seq', 1).catch((error: ResilientSocketError) => {
      failed = error;
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(failed).toBeDefined();
    expectStoreFailed(failed as ResilientSocketError, /did not open within 100 ms/);
    succeed(0);
    expect(closed).toEqual([0]);
  });

  it('one connection serves every call; one the browser closed is opened again at the next call', async () => {
    const { factory, succeed } = scriptedFactory();
    const store = indexedDbStore('outbox', { indexedDB: factory });
    const first = store.put('seq', 1);
    const second = store.delete('seq');
    const db = succeed(0);
    await Promise.all([first, second]);
    await store.put('seq', 2);
    expect(factory.open).toHaveBeenCalledTimes(1);
    db.onclose?.(); // storage cleared, a disk error
    const third = store.put('seq', 3);
    expect(factory.open).toHaveBeenCalledTimes(2);
    succeed(1);
    await third;
  });

  it('a write past the quota (its transaction aborted with QuotaExceededError) rejects with it as the cause; the store goes on', async () => {
    const { factory, succeed } = scriptedFactory();
    const store = indexedDbStore('outbox', { indexedDB: factory });
    const quota = new DOMException('the quota has been exceeded', 'QuotaExceededError');
    let full = true;
    const put = store.put('out:1', { data: 'x'.repeat(1_000) });
    succeed(0, () => (full ? quota : null));
    const error = await rejection(put);
    expectStoreFailed(error, /^indexedDbStore\("outbox"\): put\("out:1"\) failed: .*quota has been exceeded/);
    expect((error as Error & { cause?: unknown }).cause).toBe(quota);
    full = false;
    await store.put('out:2', { data: 'y' });
    expect(factory.open).toHaveBeenCalledTimes(1);
  });

  it('no timer is left behind by an open that succeeded, nor with openTimeout Infinity', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { factory, succeed } = scriptedFactory();
    const put = indexedDbStore('outbox', { indexedDB: factory }).put('seq', 1);
    expect(vi.getTimerCount()).toBe(1);
    succeed(0);
    await put;
    expect(vi.getTimerCount()).toBe(0);
    const forever = indexedDbStore('other', { indexedDB: factory, openTimeout: Number.POSITIVE_INFINITY });
    const load = forever.put('seq', 1);
    expect(vi.getTimerCount()).toBe(0);
    succeed(1);
    await load;
  });
});
