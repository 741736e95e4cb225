/**
 * The options of the `delivery()` feature (`ResilientSocket`'s `delivery` option), and their
 * validation: the factory checks them once.
 */
import { assertKnownKeys, assertNumber, assertOptionsObject, assertThat, withDefault } from '../../validation.js';
import { type DeliveryCodec, jsonCodec } from './codec.js';
import type { DeliveryStore } from './store.js';

/** Options of the `delivery()` feature (`ResilientSocket`'s `delivery` option). */
export interface DeliveryOptions {
  /**
   * How long a message sent on an open connection may wait for its acknowledgement, in ms (> 0),
   * before it is sent again. After a reconnect every unacknowledged message is sent again anyway.
   * @default 10_000
   * @example
   * ```ts
   * delivery({ ackTimeout: 3_000 })
   * ```
   */
  ackTimeout?: number;
  /**
   * How many times a message is sent without an acknowledgement before it is given up: its promise
   * rejects with `ERR_RS_NOT_ACKNOWLEDGED` and a `drop` (reason `'unacknowledged'`) reports it, one
   * `ackTimeout` after its last send (at once if that connection ended). An integer ≥ 1, or
   * `Infinity`: never give up.
   * @default Infinity
   * @example
   * ```ts
   * delivery({ maxAttempts: 5 })
   * ```
   */
  maxAttempts?: number;
  /**
   * Where the outbox, the session id, the sequence and the de-duplication window are kept. A
   * persistent store (`indexedDbStore(name)` in browsers, or your own {@link DeliveryStore}) keeps
   * them across reloads: the next page's socket says the same hello and sends what this one could
   * not. One store serves one socket at a time.
   * @default undefined (the socket's own memory, as a fresh memoryStore() per socket)
   * @example
   * ```ts
   * delivery({ store: indexedDbStore('chat') })
   * ```
   */
  store?: DeliveryStore;
  /**
   * How frames go on the wire: replace it to speak an existing server protocol (see
   * {@link DeliveryCodec}).
   * @default jsonCodec
   * @example
   * ```ts
   * delivery({ codec: { encode: (frame) => msgpack.encode(frame), decode: (raw) => decodeFrame(raw) } })
   * ```
   */
  codec?: DeliveryCodec;
  /**
   * How many recent incoming ids are remembered to drop duplicates (an integer ≥ 1). A duplicate
   * older than the window is delivered again: keep it above what the server may resend at once.
   * @default 1000
   * @example
   * ```ts
   * delivery({ window: 10_000 })
   * ```
   */
  window?: number;
  /**
   * How many messages may wait for their acknowledgement at once (an integer ≥ 1). `sendReliable()`
   * past it rejects at once with `ERR_RS_BUFFER_OVERFLOW`, and nothing is kept.
   * @default 10_000
   * @example
   * ```ts
   * delivery({ maxPending: 500 })
   * ```
   */
  maxPending?: number;
}

/**
 * The options, checked, with their defaults, in this order: `ackTimeout`, `maxAttempts`, `window`,
 * `maxPending`, `store`, `codec`. A list rather than an object: it is what feature interning
 * compares, and what the socket's delivery takes apart.
 */
export type DeliveryConfig = readonly [
  ackTimeout: number,
  maxAttempts: number,
  window: number,
  maxPending: number,
  store: DeliveryStore | undefined,
  codec: DeliveryCodec,
];

/** Whether `value` has a method of each name (`names` space-separated). */
const hasMethods = (value: unknown, names: string[]): boolean =>
  names.every((name) => typeof (value as Record<string, unknown> | undefined)?.[name] === 'function');

/**
 * Checks the options of `delivery(options)` and fills in the defaults.
 * @throws TypeError / RangeError naming the option (`delivery.ackTimeout`, …).
 */
export function resolveDelivery(options: unknown): DeliveryConfig {
  assertOptionsObject('delivery', options);
  // In the order they are checked (made here: a module-level list would stay in every bundle that
  // imports the entry).
  const keys = ['ackTimeout', 'maxAttempts', 'window', 'maxPending', 'store', 'codec'];
  assertKnownKeys('delivery', options, keys);
  return keys.map((key, i) => {
    const name = `delivery.${key}`;
    const value = withDefault(
      (options as Record<string, unknown> | undefined)?.[key],
      [10_000, Infinity, 1_000, 10_000, undefined, jsonCodec][i],
    ) as Partial<DeliveryStore> | undefined;
    // The numbers: ackTimeout > 0; the others integers >= 1, maxAttempts also Infinity.
    if (i < 4) assertNumber(name, value, i ? { integer: true, min: 1, allowInfinity: i < 2 } : { above: 0 });
    else {
      assertThat(
        i > 4
          ? hasMethods(value, ['encode', 'decode'])
          : value === undefined ||
              (typeof value === 'object' &&
                value !== null &&
                typeof value.persistent === 'boolean' &&
                hasMethods(value, ['load', 'put', 'delete'])),
        name,
        process.env.NODE_ENV !== 'production'
          ? i > 4
            ? 'a codec (encode() and decode())'
            : 'a store (persistent, load(), put() and delete())'
          : '',
        value,
      );
    }
    return value;
  }) as unknown as DeliveryConfig;
}
