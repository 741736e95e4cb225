// The test page of test/browser/modular.test.ts: it loads the modular browser build by name (the
// import map points `resilient-socket/modular` at /dist/modular.js) and exposes `window.rsTest`,
// a recorder the test drives with page.evaluate: it creates named `BaseSocket`s (with the features
// the test builds in the page from `rsTest.lib`) and logs everything each one reports (every
// event, with performance.now() and Date.now() timestamps and the state at that moment), so the
// test can check orders, payloads and timings from Node.
import * as lib from 'resilient-socket/modular';

/** name → { socket, log, record, iterated } */
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

/** Builds what to send from a JSON spec: a string is text; `{ bytes, as }` an ArrayBuffer or a Uint8Array. */
function makeData(spec) {
  if (typeof spec === 'string') return spec;
  const bytes = Uint8Array.from(spec.bytes);
  if (spec.as === 'arraybuffer') return bytes.buffer;
  if (spec.as === 'uint8array') return bytes;
  throw new TypeError(`unknown data spec ${JSON.stringify(spec)}`);
}

function entry(name) {
  const found = sockets.get(name);
  if (!found) throw new Error(`no socket named ${name}`);
  return found;
}

/** What a call threw, as JSON (or `{ threw: false }`). */
function attempt(call) {
  try {
    call();
    return { threw: false };
  } catch (error) {
    return {
      threw: true,
      name: error?.name,
      isTypeError: error instanceof TypeError,
      code: error?.code,
      message: String(error?.message),
    };
  }
}

function snapshot(socket) {
  let stats;
  try {
    const { lastError, ...rest } = socket.stats;
    stats = { ...rest, lastError: lastError?.code };
  } catch {
    stats = undefined; // no stats() feature
  }
  return {
    state: socket.state,
    readyState: socket.readyState,
    protocol: socket.protocol,
    binaryType: socket.binaryType,
    bufferedCount: socket.bufferedCount,
    attempt: socket.attempt,
    stats,
    now: Date.now(),
  };
}

window.rsTest = {
  /** The names the module exports (proves which build loaded). */
  exports: Object.keys(lib).sort(),
  /** The module itself, to build features and options in the page. */
  lib,
  attempt,

  /** Creates a BaseSocket named `name` and starts recording it; returns its first snapshot. */
  create(name, url, options) {
    if (sockets.has(name)) throw new Error(`socket ${name} exists`);
    const socket = new lib.BaseSocket(url, options);
    const log = [];
    const record = (event, detail) =>
      log.push({ t: performance.now(), wall: Date.now(), event, state: socket.state, ...detail });
    record('created', { readyState: socket.readyState });
    socket.on('state', ({ previous, current, reason }) => record('state', { previous, current, reason }));
    socket.on('connecting', ({ attempt, url }) => record('connecting', { attempt, url }));
    socket.on('open', ({ attempt, reconnected }) =>
      record('open', { attempt, reconnected, readyState: socket.readyState }),
    );
    socket.on('message', (data) => record('message', describeData(data)));
    socket.on('close', (close) => record('close', { ...close, readyState: socket.readyState }));
    socket.on('reconnecting', ({ attempt, delay }) => record('reconnecting', { attempt, delay }));
    socket.on('stable', () => record('stable'));
    socket.on('error', (error) => record('error', { code: error.code, message: error.message }));
    socket.on('giveup', ({ attempts, error }) => record('giveup', { attempts, code: error.code }));
    socket.on('drop', ({ reason, messages }) => record('drop', { reason, messages: messages.map(describeData) }));
    sockets.set(name, { socket, log, record });
    return snapshot(socket);
  },

  /**
   * Starts `for await (const data of socket)` on socket `name`: every value is logged as `iter`,
   * the end of the loop as `iter-end` (or `iter-error` if it threw).
   */
  iterate(name) {
    const { socket, record } = entry(name);
    void (async () => {
      try {
        for await (const data of socket) record('iter', describeData(data));
        record('iter-end');
      } catch (error) {
        record('iter-error', { name: error?.name, message: String(error?.message) });
      }
    })();
  },

  socket: (name) => entry(name).socket,
  note: (name, event, detail) => entry(name).record(event, detail),
  log: (name, event) => entry(name).log.filter((e) => event === undefined || e.event === event),
  count: (name, event) => entry(name).log.filter((e) => e.event === event).length,
  snapshot: (name) => snapshot(entry(name).socket),
  /** Resolves once the socket is in `state` (at once if it is); rejects after `timeoutMs`. */
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
  send: (name, specs) => specs.map((spec) => entry(name).socket.send(makeData(spec))),
  /** For failure messages: each socket's snapshot and the last entries of its log (messages left out). */
  dump() {
    const out = {};
    for (const [name, { socket, log }] of sockets) {
      out[name] = {
        ...snapshot(socket),
        recent: log.filter((e) => e.event !== 'message' && e.event !== 'iter').slice(-25),
      };
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
