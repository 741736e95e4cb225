// The test page of test/browser/indexed-db-store.test.ts: it exposes `window.rsTest`, which the
// tests drive with page.evaluate:
// - `store(name, options)`: the package's `indexedDbStore` (one object per name, so a test can reach
//   it again), and `load`/`put`/`remove` on it, each answering with what happened (`attempt`);
// - `connect(name, url, options)`: a `ResilientSocket` whose events are logged, e.g.
//   `t.connect('a', url, { delivery: t.lib.delivery({ store: t.store('chat') }) })`, and `reliable(name, data)`,
//   which sends reliably and logs how its promise settled;
// - `sandboxedLoad(name)`: a store used in a sandboxed frame (an opaque origin, where the browser
//   refuses IndexedDB), answering with what its `load()` did. The frame cannot fetch from this
//   origin, so it runs the store module alone inline (/store/indexed-db.js, which the test bundles
//   from src/, production flavour as the build, and serves).
import * as lib from 'resilient-socket';

const STANDALONE = '/store/indexed-db.js';
const { indexedDbStore } = lib;

/** What a rejection or a throw was, as JSON. */
function describeError(error) {
  return {
    name: error?.name,
    code: error?.code,
    message: String(error?.message),
    isResilientSocketError: lib.isResilientSocketError(error),
    cause: error?.cause === undefined ? undefined : { name: error.cause?.name, message: String(error.cause?.message) },
  };
}

/** Runs `call` (sync or async) and says how it ended: `{ ok: true, value }` or `{ ok: false, error }`. */
async function attempt(call) {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error: describeError(error) };
  }
}

/** name → store */
const stores = new Map();
/** name → { socket, log, record } */
const sockets = new Map();

function socketEntry(name) {
  const found = sockets.get(name);
  if (!found) throw new Error(`no socket named ${name}`);
  return found;
}

window.rsTest = {
  lib,
  attempt,

  /** The store of `name`: made on first use (with `options`), the same object after. */
  store(name, options) {
    if (!stores.has(name)) stores.set(name, indexedDbStore(name, options));
    return stores.get(name);
  },
  /** Every entry of store `name`, as an object, or what the load rejected with. */
  load: (name) => attempt(async () => Object.fromEntries(await window.rsTest.store(name).load())),
  /** Puts `entries` (`[key, value]` pairs) one after the other, each awaited. */
  put: (name, entries) =>
    attempt(async () => {
      for (const [key, value] of entries) await window.rsTest.store(name).put(key, value);
    }),
  /** Deletes `keys`, one after the other. */
  remove: (name, keys) =>
    attempt(async () => {
      for (const key of keys) await window.rsTest.store(name).delete(key);
    }),

  /** Makes this page a browser without IndexedDB (as `indexedDB` is absent in some contexts). */
  hideIndexedDB() {
    Object.defineProperty(window, 'indexedDB', { configurable: true, value: undefined });
  },

  /**
   * Loads store `name` in a sandboxed frame (no allow-same-origin: an opaque origin, where Chromium
   * refuses IndexedDB) and answers with what `load()` did there. The frame runs the store module
   * inline (it cannot fetch from this origin), and posts its answer back.
   */
  async sandboxedLoad(name) {
    const source = await (await fetch(STANDALONE)).text();
    const frame = document.createElement('iframe');
    frame.sandbox.add('allow-scripts');
    const answer = new Promise((resolve) => {
      const onMessage = (event) => {
        if (event.source !== frame.contentWindow) return;
        window.removeEventListener('message', onMessage);
        resolve(event.data);
      };
      window.addEventListener('message', onMessage);
    });
    frame.srcdoc = `<script type="module">${source}
      let answer;
      try {
        answer = { ok: true, value: Object.fromEntries(await indexedDbStore(${JSON.stringify(name)}).load()) };
      } catch (error) {
        const { name, code, message, cause } = error;
        answer = { ok: false, error: { name, code, message, cause: { name: cause?.name, message: cause?.message } } };
      }
      parent.postMessage(answer, '*');
    </script>`;
    document.body.append(frame);
    try {
      return await answer;
    } finally {
      frame.remove();
    }
  },

  /** Creates `ResilientSocket` `name` and logs its events. */
  connect(name, url, options) {
    if (sockets.has(name)) throw new Error(`socket ${name} exists`);
    const socket = new lib.ResilientSocket(url, options);
    const log = [];
    const record = (event, detail) => log.push({ t: performance.now(), event, state: socket.state, ...detail });
    socket.on('open', ({ attempt, reconnected }) => record('open', { attempt, reconnected }));
    socket.on('close', ({ code, reason }) => record('close', { code, reason }));
    socket.on('message', (data) => record('message', { data: typeof data === 'string' ? data : `(${typeof data})` }));
    socket.on('error', (error) => record('error', describeError(error)));
    socket.on('drop', ({ reason, messages }) => record('drop', { reason, count: messages.length }));
    socket.on('acked', ({ id, data }) => record('acked', { id, data }));
    socket.on('giveup', ({ error }) => record('giveup', { code: error.code }));
    sockets.set(name, { socket, log, record });
    return socket.state;
  },
  socket: (name) => socketEntry(name).socket,
  log: (name, event) => socketEntry(name).log.filter((e) => event === undefined || e.event === event),
  /** Sends `data` reliably on socket `name`; logs `reliable` with how its promise settled. */
  reliable(name, data) {
    const { socket, record } = socketEntry(name);
    return attempt(() => socket.sendReliable(data)).then((outcome) => {
      record('reliable', { data, ...outcome });
      return outcome;
    });
  },
  /** For failure messages: each socket's state and its last events. */
  dump() {
    const out = { stores: [...stores.keys()] };
    for (const [name, { socket, log }] of sockets) out[name] = { state: socket.state, recent: log.slice(-25) };
    return out;
  },
  /** Closes every socket (idempotent) and says what state each is in afterwards. */
  closeAll() {
    const states = {};
    for (const [name, { socket }] of sockets) {
      socket.close();
      states[name] = socket.state;
    }
    return states;
  },
};
