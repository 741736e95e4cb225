// The helpers the WebSocket conformance code runs with, the same in the page (page.js, Chromium)
// and in Node (test/integration/websocket-wpt.test.ts): one code path for a runtime's own
// WebSocket (Chromium's, or ws in Node) and for ResilientWebSocket, whose results are compared.
// Plain JavaScript for the page; its types are in kit.d.ts.

/** A JSON view of message data (Blob contents are read asynchronously: see `settle`). */
function describeData(data) {
  if (typeof data === 'string') return { kind: 'string', text: data };
  if (data instanceof ArrayBuffer) return { kind: 'arraybuffer', bytes: Array.from(new Uint8Array(data)) };
  if (typeof Blob === 'function' && data instanceof Blob) {
    return { kind: 'blob', size: data.size, type: data.type, blob: data };
  }
  if (ArrayBuffer.isView(data)) return { kind: 'view', bytes: Array.from(new Uint8Array(data.buffer)) };
  return { kind: data === null ? 'null' : typeof data };
}

/** A JSON view of an event as `ws` dispatched it. */
function describeEvent(event, ws) {
  const described = {
    type: event.type,
    class: event.constructor.name,
    isEvent: typeof Event === 'function' && event instanceof Event,
    isMessageEvent: typeof MessageEvent === 'function' && event instanceof MessageEvent,
    isCloseEvent: typeof CloseEvent === 'function' && event instanceof CloseEvent,
    isCustomEvent: typeof CustomEvent === 'function' && event instanceof CustomEvent,
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
  if (event.type === 'close') {
    Object.assign(described, { code: event.code, reason: event.reason, wasClean: event.wasClean });
  }
  return described;
}

/** A short text for message data: the string itself when short, else its kind and size. */
function shortData(data) {
  if (data.kind === 'string') return data.text.length <= 40 ? JSON.stringify(data.text) : `string(${data.text.length})`;
  if (data.kind === 'blob') return `blob(${data.size})`;
  if (data.bytes) return `${data.kind}(${data.bytes.length})`;
  return data.kind;
}

/** The four WebSocket events, which `make` queues for `next`. */
const TYPES = ['open', 'message', 'error', 'close'];

/** The helpers; `closeAll()` closes every socket `make` and `outcome` made. */
export function createKit() {
  const made = [];
  /**
   * Per socket made by `make`: per event type, the events `next` has not handed out yet and who
   * waits for one; and the logs of `record`.
   */
  const queues = new WeakMap();
  return {
    describeEvent,

    /**
     * `new WS(...args)`, tracked for `closeAll`. Its events are queued from now on, so that `next`
     * misses none that came together (ws in Node dispatches what one TCP read brought at once),
     * and recorded by its first listener, before any code that awaited them runs.
     */
    make(WS, ...args) {
      const ws = new WS(...args);
      made.push(ws);
      const byType = { logs: [] };
      for (const type of TYPES) {
        const queue = { events: [], waiting: [] };
        byType[type] = queue;
        ws.addEventListener(type, (event) => {
          for (const { types, log } of byType.logs) if (types.includes(type)) log.push(describeEvent(event, ws));
          const waiter = queue.waiting.shift();
          if (waiter) waiter(event);
          else queue.events.push(event);
        });
      }
      queues.set(ws, byType);
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
          type:
            typeof DOMException === 'function' && error instanceof DOMException
              ? 'DOMException'
              : error.constructor.name,
          name: error.name,
          message: error.message,
        };
      }
    },

    /** Records the events of `types` on `ws` (with addEventListener), in order, described. */
    record(ws, types = TYPES) {
      const log = [];
      const own = queues.get(ws);
      if (own && types.every((type) => TYPES.includes(type))) own.logs.push({ types, log });
      else for (const type of types) ws.addEventListener(type, (event) => log.push(describeEvent(event, ws)));
      return log;
    },

    /**
     * A log as short lines: `open@1`, `message@1 "text"`, `error@3`, `close@3 1005 "" clean`
     * (the type, `@` the readyState at that moment, then the payload).
     */
    brief(log) {
      return log.map((e) => {
        const head = `${e.type}@${e.readyState}`;
        if (e.type === 'message') return `${head} ${shortData(e.data)}`;
        if (e.type === 'close')
          return `${head} ${e.code} ${JSON.stringify(e.reason)} ${e.wasClean ? 'clean' : 'unclean'}`;
        return head;
      });
    },

    /** The log with every Blob's bytes read. */
    async settle(log) {
      for (const entry of log) {
        if (entry.data?.blob) {
          const bytes = Array.from(new Uint8Array(await entry.data.blob.arrayBuffer()));
          entry.data = { ...entry.data, blob: undefined, bytes };
        }
      }
      return log;
    },

    /**
     * Resolves with the next event of `type` on `ws` that no earlier `next` took (for a socket of
     * `make`; on another, the next one to come); rejects after `ms`.
     */
    next(ws, type, ms = 5000) {
      const queue = queues.get(ws)?.[type];
      if (queue?.events.length) return Promise.resolve(queue.events.shift());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${type} within ${ms} ms (readyState ${ws.readyState})`)),
          ms,
        );
        const take = (event) => {
          clearTimeout(timer);
          resolve(event);
        };
        if (queue) queue.waiting.push(take);
        else ws.addEventListener(type, take, { once: true });
      });
    },

    /** Resolves after `ms`. */
    sleep(ms) {
      return new Promise((resolve) => setTimeout(resolve, ms));
    },

    closeAll() {
      for (const ws of made.splice(0)) {
        try {
          ws.close();
        } catch {
          // a socket some implementation refuses to close twice
        }
      }
    },
  };
}
