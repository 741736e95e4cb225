/**
 * Where the `delivery()` feature keeps what must outlive a connection (and, with a persistent store,
 * a page): the outbox, the session id, the sequence and the de-duplication window.
 */

/**
 * A plain key/value store: the `delivery()` feature's `store` option. The keys it uses: `session`
 * (the session id), `seq` (the last sequence number given out), `seen` (the de-duplication window:
 * an array of the latest incoming ids) and `out:<id>` (`{ data }`, one per message not yet
 * acknowledged). Values are JSON values. One store serves one socket at a time.
 *
 * The feature loads it once, when the socket is made (the first connection waits for it), and then
 * writes without waiting: a call that throws or rejects is reported once (`error`, code
 * `ERR_RS_STORE_FAILED`) and the socket lets the store go and carries on in memory.
 *
 * @example
 * ```ts
 * // A store on localStorage (synchronous, small outboxes only).
 * const prefix = 'outbox:';
 * const store: DeliveryStore = {
 *   persistent: true,
 *   load: async () =>
 *     Object.keys(localStorage)
 *       .filter((key) => key.startsWith(prefix))
 *       .map((key) => [key.slice(prefix.length), JSON.parse(localStorage.getItem(key) as string)] as [string, unknown]),
 *   put: async (key, value) => localStorage.setItem(prefix + key, JSON.stringify(value)),
 *   delete: async (key) => localStorage.removeItem(prefix + key),
 * };
 * ```
 */
export interface DeliveryStore {
  /**
   * Whether what is stored outlives the page. With `true`, `close()` and a give-up keep the
   * messages still waiting for their acknowledgement in the store for the next session, and reject
   * their promises with `ERR_RS_DELIVERY_DEFERRED`; with `false`, they are given up
   * (`ERR_RS_DELIVERY_STOPPED`, and a `drop` with reason `'closed'`).
   */
  readonly persistent: boolean;
  /** Every entry stored, as `[key, value]` pairs. */
  load(): Promise<Iterable<[string, unknown]>>;
  /** Stores `value` under `key`, replacing what was there. */
  put(key: string, value: unknown): Promise<void>;
  /** Removes `key` (nothing happens if it is not there). */
  delete(key: string): Promise<void>;
}

/**
 * A store in memory (`persistent: false`): what survives is what survives the socket, nothing
 * more. Without a `store` option each socket keeps the same in its own memory, without the copies;
 * this one is for tests, and for code that wants to look into the store.
 * @example
 * ```ts
 * const store = memoryStore();
 * const socket = new BaseSocket(url, { features: [delivery({ store })] });
 * ```
 */
export function memoryStore(): DeliveryStore {
  const entries = new Map<string, unknown>();
  return {
    persistent: false,
    load: () => Promise.resolve([...entries]),
    put: (key, value) => {
      entries.set(key, value);
      return Promise.resolve();
    },
    delete: (key) => {
      entries.delete(key);
      return Promise.resolve();
    },
  };
}
