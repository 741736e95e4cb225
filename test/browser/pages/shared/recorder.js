// The test page of test/browser/shared-socket.test.ts: it loads `resilient-socket/shared` (the
// import map points it at /dist/shared.js, the browser build) and exposes `window.rsShared`, a
// recorder the test drives with page.evaluate. A page (a tab) holds at most one SharedSocket; the
// recorder logs everything it reports (every event with performance.now(), its role and state at
// that moment), so the test can check roles, states and messages from Node.
import * as lib from 'resilient-socket/shared';

let socket;
const log = [];

function record(event, detail) {
  log.push({ t: performance.now(), event, role: socket?.role, state: socket?.state, ...detail });
}

function describeData(data) {
  if (typeof data === 'string') return { kind: 'text', text: data };
  if (data instanceof Blob) return { kind: 'blob', size: data.size };
  if (data instanceof ArrayBuffer) return { kind: 'arraybuffer', size: data.byteLength };
  return { kind: typeof data };
}

function need() {
  if (!socket) throw new Error('no SharedSocket in this page yet (call create first)');
  return socket;
}

window.rsShared = {
  /** The names the module exports (proves the browser build loaded). */
  exports: Object.keys(lib).sort(),

  /** Creates this page's SharedSocket and starts recording it. */
  create(url, options) {
    if (socket) throw new Error('this page already has a SharedSocket');
    socket = new lib.SharedSocket(url, options);
    record('created');
    socket.on('role', (role) => record('role', { value: role }));
    socket.on('state', ({ previous, current, reason }) => record('state', { previous, current, reason }));
    socket.on('connecting', ({ attempt }) => record('connecting', { attempt }));
    socket.on('open', ({ attempt, reconnected }) => record('open', { attempt, reconnected }));
    socket.on('message', (data) => record('message', describeData(data)));
    socket.on('close', ({ code, reason, wasClean, willReconnect }) =>
      record('close', { code, reason, wasClean, willReconnect }),
    );
    socket.on('reconnecting', ({ attempt, delay }) => record('reconnecting', { attempt, delay }));
    socket.on('stable', () => record('stable'));
    socket.on('error', (error) => record('error', { code: error.code, message: error.message }));
    socket.on('giveup', ({ attempts }) => record('giveup', { attempts }));
    socket.on('drop', ({ reason, messages }) => record('drop', { reason, messages: messages.map(describeData) }));
    return this.snapshot();
  },

  /** Role, state and queue of this page's socket now. */
  snapshot() {
    const s = need();
    return { role: s.role, state: s.state, readyState: s.readyState, bufferedCount: s.bufferedCount };
  },

  /** Sends every text in one task (a burst) and returns what send() said for each. */
  send(texts) {
    const s = need();
    return texts.map((text) => s.send(text));
  },

  /** The texts of the messages received, in order. */
  messages: () => log.filter((e) => e.event === 'message').map((e) => e.text ?? `<${e.kind}>`),

  /** The log, or only its entries of one event. */
  log: (event) => log.filter((e) => event === undefined || e.event === event),
  count: (event) => log.filter((e) => e.event === event).length,

  /** close(code, reason) on this page's socket; returns its state right after. */
  close(code, reason) {
    const s = need();
    s.close(code, reason);
    record('closed-by-test');
    return s.state;
  },

  /** For failure messages: the snapshot and the last entries of the log (messages left out). */
  dump() {
    if (!socket) return { socket: 'none' };
    return { ...this.snapshot(), recent: log.filter((e) => e.event !== 'message').slice(-20) };
  },
};
