// The page of test/browser/websocket-conformance.test.ts: `ResilientWebSocket` from the browser
// build, next to the native `WebSocket`. The test runs the same code on both classes
// (`wsTest.both(fn, arg)`) and compares what each did, as JSON: what a call threw, and every event
// described (its class, payload, target and the readyState at that moment).
import { ResilientWebSocket } from 'resilient-socket/websocket';

/** Every socket made through `make`, closed by `closeAll` after each test. */
const made = [];

/** A JSON view of message data (Blob contents are read asynchronously: see `settle`). */
function describeData(data) {
  if (typeof data === 'string') return { kind: 'string', text: data };
  if (data instanceof ArrayBuffer) return { kind: 'arraybuffer', bytes: Array.from(new Uint8Array(data)) };
  if (data instanceof Blob) return { kind: 'blob', size: data.size, type: data.type, blob: data };
  return { kind: data === null ? 'null' : typeof data };
}

/** A JSON view of an event as `ws` dispatched it. */
function describeEvent(event, ws) {
  const described = {
    type: event.type,
    class: event.constructor.name,
    isEvent: event instanceof Event,
    isMessageEvent: event instanceof MessageEvent,
    isCloseEvent: event instanceof CloseEvent,
    isCustomEvent: event instanceof CustomEvent,
    targetIsSocket: event.target === ws,
    currentTargetIsSocket: event.currentTarget === ws,
    bubbles: event.bubbles,
    cancelable: event.cancelable,
    isTrusted: event.isTrusted,
    readyState: ws.readyState,
  };
  if (event.type === 'message') {
    Object.assign(described, { data: describeData(event.data), origin: event.origin, lastEventId: event.lastEventId });
  }
  if (event.type === 'close')
    Object.assign(described, { code: event.code, reason: event.reason, wasClean: event.wasClean });
  return described;
}

/** Replaces the Blobs in a log by their bytes. */
async function settle(log) {
  for (const entry of log) {
    if (entry.data?.blob)
      entry.data = {
        ...entry.data,
        blob: undefined,
        bytes: Array.from(new Uint8Array(await entry.data.blob.arrayBuffer())),
      };
  }
  return log;
}

window.wsTest = {
  ResilientWebSocket,

  /** `new WS(...args)`, tracked for `closeAll`. */
  make(WS, ...args) {
    const ws = new WS(...args);
    made.push(ws);
    return ws;
  },

  /** What `call()` did: `{ ok: true, url? }` or the error's class, name and message. */
  outcome(call) {
    try {
      const value = call();
      if (value && typeof value === 'object' && 'readyState' in value) {
        made.push(value);
        return { ok: true, url: value.url };
      }
      return { ok: true };
    } catch (error) {
      return {
        ok: false,
        type: error instanceof DOMException ? 'DOMException' : error.constructor.name,
        name: error.name,
        message: error.message,
      };
    }
  },

  /** Records the events of `types` on `ws` (with addEventListener), in order. */
  record(ws, types = ['open', 'message', 'error', 'close']) {
    const log = [];
    for (const type of types) ws.addEventListener(type, (event) => log.push(describeEvent(event, ws)));
    return log;
  },

  describeEvent,
  settle,

  /** Resolves on the first event of `type` on `ws`; rejects after `ms`. */
  next(ws, type, ms = 5000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} within ${ms} ms (readyState ${ws.readyState})`)), ms);
      ws.addEventListener(
        type,
        (event) => {
          clearTimeout(timer);
          resolve(event);
        },
        { once: true },
      );
    });
  },

  /** Runs `fn(wsTest, WS, arg)` for the native WebSocket and for ResilientWebSocket. */
  async both(fn, arg) {
    return {
      native: await fn(window.wsTest, WebSocket, arg),
      ours: await fn(window.wsTest, ResilientWebSocket, arg),
    };
  },

  closeAll() {
    for (const ws of made.splice(0)) {
      try {
        ws.close();
      } catch {
        // closing twice or a CONNECTING native socket may throw nothing, but be safe
      }
    }
  },
};
