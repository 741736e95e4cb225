// The test page of test/browser/socket.test.ts: it loads the library's browser build by name (the
// import map points `resilient-socket` at /dist/index.js) and exposes `window.rsTest`, a small
// recorder the test drives with page.evaluate: it creates named sockets and logs everything each
// one reports (every event, with performance.now() and Date.now() timestamps and the state at that
// moment), so the test can check orders, payloads and timings from Node.
import * as lib from 'resilient-socket';

/** name → { socket, log } */
const sockets = new Map();

/** A JSON-friendly view of a message (or of a dropped one). */
function describeData(data) {
  if (typeof data === 'string') return { kind: 'text', text: data };
  if (data instanceof ArrayBuffer) return { kind: 'arraybuffer', bytes: Array.from(new Uint8Array(data)) };
  if (ArrayBuffer.isView(data)) {
    return { kind: 'view', bytes: Array.from(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)) };
  }
  if (data instanceof Blob) return { kind: 'blob', size: data.size };
  return { kind: typeof data };
}

/**
 * Builds what to send from a JSON spec: a string is sent as text; `{ bytes, as }` as an
 * `ArrayBuffer`, a `Uint8Array`, or a `Uint8Array` view into the middle of a larger buffer
 * (`subarray`: only the view's bytes must go out).
 */
function makeData(spec) {
  if (typeof spec === 'string') return spec;
  const bytes = Uint8Array.from(spec.bytes);
  if (spec.as === 'arraybuffer') return bytes.buffer;
  if (spec.as === 'uint8array') return bytes;
  if (spec.as === 'subarray') {
    const big = new Uint8Array(bytes.length + 8).fill(0xee);
    big.set(bytes, 4);
    return big.subarray(4, 4 + bytes.length);
  }
  throw new TypeError(`unknown data spec ${JSON.stringify(spec)}`);
}

function entry(name) {
  const found = sockets.get(name);
  if (!found) throw new Error(`no socket named ${name}`);
  return found;
}

function snapshot(socket) {
  const { lastError, ...stats } = socket.stats;
  return {
    state: socket.state,
    readyState: socket.readyState,
    protocol: socket.protocol,
    binaryType: socket.binaryType,
    bufferedCount: socket.bufferedCount,
    attempt: socket.attempt,
    stats: { ...stats, lastError: lastError?.code },
    now: Date.now(),
  };
}

window.rsTest = {
  /** The names the module exports (proves the browser build loaded). */
  exports: Object.keys(lib).sort(),
  /** The module itself, to build options in the page (e.g. `backoff: t.lib.constant({ delay: 400 })`). */
  lib,

  /**
   * Makes the page say it is `state` ('visible' or 'hidden'): `document.visibilityState` (and
   * `document.hidden`) are overridden on the document, then `visibilitychange` is dispatched, as
   * Chromium does when a tab is switched to or away from (headless Chromium never hides a page).
   */
  setVisibility(state) {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => state !== 'visible' });
    document.dispatchEvent(new Event('visibilitychange'));
  },
  /** Dispatches `pageshow` as a navigation back to the page does (`persisted`: from the back/forward cache). */
  pageshow(persisted) {
    window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted }));
  },

  /** Creates a ResilientSocket named `name` and starts recording it; returns its first snapshot. */
  create(name, url, options) {
    if (sockets.has(name)) throw new Error(`socket ${name} exists`);
    const socket = new lib.ResilientSocket(url, options);
    const log = [];
    const record = (event, detail) =>
      log.push({ t: performance.now(), wall: Date.now(), event, state: socket.state, ...detail });
    record('created', { readyState: socket.readyState });
    socket.on('state', ({ previous, current, reason }) => record('state', { previous, current, reason }));
    socket.on('connecting', ({ attempt, url }) => record('connecting', { attempt, url }));
    socket.on('open', ({ attempt, reconnected }) =>
      record('open', { attempt, reconnected, readyState: socket.readyState, protocol: socket.protocol }),
    );
    socket.on('message', (data) => record('message', describeData(data)));
    socket.on('close', (close) => record('close', { ...close, readyState: socket.readyState }));
    socket.on('reconnecting', ({ attempt, delay }) =>
      record('reconnecting', { attempt, delay, nextRetryAt: socket.stats.nextRetryAt }),
    );
    socket.on('stable', () => record('stable'));
    socket.on('error', (error) => record('error', { code: error.code, message: error.message }));
    socket.on('giveup', ({ attempts, error }) => record('giveup', { attempts, code: error.code }));
    socket.on('drop', ({ reason, messages }) => record('drop', { reason, messages: messages.map(describeData) }));
    sockets.set(name, { socket, log, record });
    return snapshot(socket);
  },

  /** The socket itself, for what the helpers do not cover. */
  socket: (name) => entry(name).socket,
  /** Adds a line of the test's own to a socket's log (e.g. from an instrumented heartbeat). */
  note: (name, event, detail) => entry(name).record(event, detail),
  /** The log, or only its entries of one event. */
  log: (name, event) => entry(name).log.filter((e) => event === undefined || e.event === event),
  count: (name, event) => entry(name).log.filter((e) => e.event === event).length,
  snapshot: (name) => snapshot(entry(name).socket),
  /**
   * Resolves once the socket is in `state` (at once if it is), so that code after `await` runs in
   * the same task as the state change, before any timer; rejects after `timeoutMs`.
   */
  inState(name, state, timeoutMs) {
    const { socket } = entry(name);
    if (socket.state === state) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onState = ({ current }) => {
        if (current !== state) return;
        clearTimeout(timer);
        socket.off('state', onState);
        resolve();
      };
      const timer = setTimeout(() => {
        socket.off('state', onState);
        reject(new Error(`${name} did not reach ${state} within ${timeoutMs} ms (it is ${socket.state})`));
      }, timeoutMs);
      socket.on('state', onState);
    });
  },
  /** Sends each spec (see makeData) and returns what send() said for each. */
  send: (name, specs) => specs.map((spec) => entry(name).socket.send(makeData(spec))),
  /** For failure messages: each socket's snapshot and the last entries of its log (messages left out). */
  dump() {
    const out = {};
    for (const [name, { socket, log }] of sockets) {
      out[name] = { ...snapshot(socket), recent: log.filter((e) => e.event !== 'message').slice(-25) };
    }
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
