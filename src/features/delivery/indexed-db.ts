/**
 * `indexedDbStore(name)`: the persistent store of the `delivery()` feature in browsers, so that the
 * outbox, the session id, the sequence and the de-duplication window survive a reload.
 *
 * Each store is one IndexedDB database, `resilient-socket:<name>` (version 1), holding one object
 * store, `delivery`, of the feature's keys and values: stores of different names never share a
 * database, and the package never touches an app's own databases (opening one of those would mean
 * upgrading its version, which breaks the app's next `open`). Two store objects of one name share
 * the database: what one wrote, the other loads.
 *
 * Written directly on IndexedDB rather than on idb-keyval (Jake Archibald's keyval store, the
 * obvious candidate, 6.x). Measured the way `npm run size` measures (esbuild, browser, minified,
 * production flavour, gzip -9), added to `{ BaseSocket }`: this module ~0.65 kB; a store on
 * idb-keyval's `createStore` + `entries` + `set` + `del` with the same coded errors ~0.55 kB.
 * The 0.1 kB buys what an outbox needs and idb-keyval does not do: a connection that closes when
 * another tab upgrades or deletes the database (idb-keyval's holds on, and blocks that tab's
 * request for as long as this page lives); a bounded open (an open queued behind such a blocked
 * request, or a browser's hung open, would leave every call of the store pending for ever); a
 * missing or refused IndexedDB reported as a rejection (idb-keyval reads the global `indexedDB`
 * synchronously, a ReferenceError thrown at the call where there is none); a polyfill passed in
 * rather than installed as the global; an explicit schema version. It also keeps the package at
 * one runtime dependency (eventemitter3).
 *
 * Durability: writes are committed with `durability: 'relaxed'`: a `put` has resolved once the
 * browser handed it to the operating system, so it survives a reload, a closed tab and a browser
 * crash; an operating-system crash or a power cut may lose the last writes. `'strict'` would flush
 * every write to disk, one flush per message sent and per acknowledgement.
 */
import { systemClock } from '../../clock.js';
import { ResilientSocketError } from '../../errors.js';
import {
  assertKnownKeys,
  assertNumber,
  assertOptionsObject,
  describeReceived,
  describeThrown,
  quoteKey,
  rangeError,
  typeError,
} from '../../validation.js';
import type { DeliveryStore } from './store.js';

/** What {@link indexedDbStore} needs of IndexedDB: its factory, `open`. A real `IDBFactory` is one. */
export interface IndexedDbFactoryLike {
  /** `IDBFactory.open`: asks for the database `name` at `version`, answering with an `IDBOpenDBRequest`. */
  open(name: string, version?: number): unknown;
}

/** The options of {@link indexedDbStore}. */
export interface IndexedDbStoreOptions {
  /**
   * How long opening the database may take, in ms (> 0, or `Infinity`): past it, the call that
   * opened it rejects with `ERR_RS_STORE_FAILED`, and the next call tries again. An open can wait
   * for ever when another tab holds the database while upgrading or deleting it; the socket's first
   * connection waits for the store's `load()`.
   * @default 5_000
   * @example
   * ```ts
   * indexedDbStore('chat', { openTimeout: 2_000 })
   * ```
   */
  openTimeout?: number;
  /**
   * The IndexedDB to use: an `IDBFactory`, e.g. a polyfill's (`new IDBFactory()` from fake-indexeddb
   * in Node tests).
   * @default globalThis.indexedDB (read at each open)
   * @example
   * ```ts
   * import { IDBFactory } from 'fake-indexeddb';
   * indexedDbStore('chat', { indexedDB: new IDBFactory() })
   * ```
   */
  indexedDB?: IndexedDbFactoryLike;
}

// The parts of IndexedDB used here, typed without the DOM lib (the package's types work without it).
type Handler = ((event: { preventDefault(): void }) => void) | null;
interface Request<T> {
  readonly result: T;
  readonly error: unknown;
  onsuccess: Handler;
  onerror: Handler;
}
interface OpenRequest extends Request<Database> {
  onupgradeneeded: Handler;
}
interface Database {
  createObjectStore(name: string): unknown;
  transaction(name: string, mode: 'readonly' | 'readwrite', options: { durability: 'relaxed' }): Transaction;
  close(): void;
  onversionchange: Handler;
  onclose: Handler;
}
interface Transaction {
  objectStore(name: string): ObjectStore;
  readonly error: unknown;
  oncomplete: Handler;
  onabort: Handler;
}
interface ObjectStore {
  put(value: unknown, key: string): unknown;
  delete(key: string): unknown;
  getAll(): Request<unknown[]>;
  getAllKeys(): Request<string[]>;
}

/** The prefix of every database name (`resilient-socket:<name>`). */
const DATABASE_PREFIX = 'resilient-socket:';
/** The object store of the entries, in each database. */
const OBJECT_STORE = 'delivery';
/** The schema version: one object store of string keys. */
const VERSION = 1;

/**
 * A persistent {@link DeliveryStore} on IndexedDB (browsers), for the `delivery()` feature: the
 * outbox, the session id and the sequence survive a reload, and the next page sends what the last
 * one could not. Stores of different names are independent; the database is
 * `resilient-socket:<name>`, opened on the first call.
 *
 * Nothing is opened here. A database that cannot open (no IndexedDB, a sandboxed frame, storage
 * refused by the browser or the user, an open held up past `openTimeout`) makes the calls reject
 * with a `ResilientSocketError` `ERR_RS_STORE_FAILED` (its `cause` the browser's error); the feature
 * reports it and goes on in memory. Each call after a failure tries to open again.
 *
 * @param name the store's name (a non-empty string), e.g. one per app or per user.
 * @param options see {@link IndexedDbStoreOptions}.
 * @throws TypeError / RangeError (`ERR_RS_INVALID_TYPE` / `ERR_RS_INVALID_VALUE` /
 *   `ERR_RS_UNKNOWN_OPTION`) for a bad `name` or option.
 * @example
 * ```ts
 * const socket = new ResilientSocket(url, { delivery: delivery({ store: indexedDbStore('chat') }) });
 * ```
 */
export function indexedDbStore(
  name: string,
  options?: IndexedDbStoreOptions,
): DeliveryStore & {
  /** Always `true`: what it holds outlives the page. */
  readonly persistent: true;
} {
  if (typeof name !== 'string') {
    throw typeError(
      'name',
      process.env.NODE_ENV !== 'production'
        ? `Expected \`name\` (of indexedDbStore) to be a string, got ${describeReceived(name)}`
        : '',
    );
  }
  if (name === '') {
    throw rangeError(
      'name',
      process.env.NODE_ENV !== 'production'
        ? 'Expected `name` (of indexedDbStore) to be a non-empty string, got ""'
        : '',
    );
  }
  assertOptionsObject('options', options);
  assertKnownKeys(
    '',
    options,
    ['openTimeout', 'indexedDB'],
    process.env.NODE_ENV !== 'production' ? 'indexedDbStore()' : undefined, // for the development message
  );
  const { openTimeout = 5_000, indexedDB: factory } = options ?? {};
  assertNumber('openTimeout', openTimeout, { above: 0, max: 2_147_483_647, allowInfinity: true });
  if (factory !== undefined && typeof (factory as Partial<IndexedDbFactoryLike> | null)?.open !== 'function') {
    throw typeError(
      'indexedDB',
      process.env.NODE_ENV !== 'production'
        ? `Expected \`indexedDB\` to be an IDBFactory, got ${describeReceived(factory)}`
        : '',
    );
  }
  const database = DATABASE_PREFIX + name;

  /** The store's error: `text` (development builds) and the browser's error, if any, as its `cause`. */
  const fail = (text: string, cause?: unknown): ResilientSocketError =>
    new ResilientSocketError(
      'ERR_RS_STORE_FAILED',
      process.env.NODE_ENV !== 'production' && text
        ? `indexedDbStore(${quoteKey(name)}): ${text}${cause === undefined ? '' : `: ${describeThrown(cause)}`}`
        : '',
      { cause },
    );

  /** The open connection, or the open under way; undefined before the first call and after a failure. */
  let connection: Promise<Database> | undefined;

  /** Opens the database; `forget` is called when the connection becomes unusable (closed for another tab, or by the browser). */
  const connect = (forget: () => void): Promise<Database> =>
    new Promise<Database>((resolve, reject) => {
      let settled = false;
      let timer: unknown;
      const settle = (error: ResilientSocketError | undefined, db?: Database): void => {
        systemClock.clearTimeout(timer);
        if (settled) {
          db?.close(); // opened after its caller gave up: nobody will use it
          return;
        }
        settled = true;
        if (error) reject(error);
        else resolve(db as Database);
      };
      if (openTimeout !== Number.POSITIVE_INFINITY) {
        timer = systemClock.setTimeout(
          () =>
            settle(
              fail(
                process.env.NODE_ENV !== 'production'
                  ? `the database ${JSON.stringify(database)} did not open within ${openTimeout} ms ` +
                      '(another tab may hold it while upgrading or deleting it)'
                  : '',
              ),
            ),
          openTimeout,
        );
      }
      try {
        // Read at each open: in some browsers the getter itself throws where storage is refused.
        const idb = (factory ?? (globalThis as { indexedDB?: IndexedDbFactoryLike }).indexedDB) as
          | { open(name: string, version: number): OpenRequest }
          | undefined;
        if (!idb) {
          settle(
            fail(
              process.env.NODE_ENV !== 'production'
                ? 'IndexedDB is not available here (pass `indexedDB`, e.g. a polyfill, or use another store)'
                : '',
            ),
          );
          return;
        }
        const request = idb.open(database, VERSION);
        request.onupgradeneeded = () => request.result.createObjectStore(OBJECT_STORE);
        request.onsuccess = () => {
          const db = request.result;
          // Another tab upgrades or deletes the database: let it (this connection would block it),
          // and open again on the next call.
          db.onversionchange = () => {
            forget();
            db.close();
          };
          db.onclose = forget; // closed by the browser (storage cleared, a disk error)
          settle(undefined, db);
        };
        request.onerror = (event) => {
          event.preventDefault();
          settle(fail(openText(database), request.error));
        };
      } catch (error) {
        // A synchronous refusal: a SecurityError in an opaque origin (a sandboxed frame, a data: URL).
        settle(fail(openText(database), error));
      }
    });

  const open = (): Promise<Database> => {
    if (connection) return connection;
    const forget = (): void => {
      if (connection === opened) connection = undefined;
    };
    const opened = connect(forget);
    opened.catch(forget); // a failed open is tried again on the next call
    connection = opened;
    return opened;
  };

  /** One transaction on the object store: `act` makes its requests and returns how to read its result once committed. */
  const run = <T>(what: string, mode: 'readonly' | 'readwrite', act: (store: ObjectStore) => () => T): Promise<T> =>
    open().then(
      (db) =>
        new Promise<T>((resolve, reject) => {
          try {
            const transaction = db.transaction(OBJECT_STORE, mode, { durability: 'relaxed' });
            const read = act(transaction.objectStore(OBJECT_STORE));
            transaction.oncomplete = () => resolve(read());
            transaction.onabort = () => reject(fail(what, transaction.error ?? undefined));
          } catch (error) {
            // The connection closed under it (another tab's upgrade), or a value that cannot be stored.
            reject(fail(what, error));
          }
        }),
    );

  const done = (): undefined => undefined;
  return {
    persistent: true,
    load: () =>
      run(process.env.NODE_ENV !== 'production' ? 'load() failed' : '', 'readonly', (store) => {
        // One transaction: the keys and the values are of the same moment.
        const keys = store.getAllKeys();
        const values = store.getAll();
        return () => keys.result.map((key, i): [string, unknown] => [key, values.result[i]]);
      }),
    put: (key, value) =>
      run(process.env.NODE_ENV !== 'production' ? `put(${quoteKey(key)}) failed` : '', 'readwrite', (store) => {
        store.put(value, key);
        return done;
      }),
    delete: (key) =>
      run(process.env.NODE_ENV !== 'production' ? `delete(${quoteKey(key)}) failed` : '', 'readwrite', (store) => {
        store.delete(key);
        return done;
      }),
  };
}

/** The development text of a database that refused to open. */
const openText = (database: string): string =>
  process.env.NODE_ENV !== 'production'
    ? `could not open the database ${JSON.stringify(database)} (IndexedDB may be refused here: a sandboxed ` +
      'frame, storage blocked by the user or the browser; or the database is of a newer version of the package)'
    : '';
