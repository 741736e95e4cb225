/**
 * The options of the `delivery()` feature (given to `ResilientSocket` as `delivery: delivery(options)`), and their
 * validation: the factory checks them once.
 */
import { assertKnownKeys, assertNumber, assertOptionsObject, assertThat, type NumberRule } from '../../validation.js';
import { type DeliveryCodec, jsonCodec } from './codec.js';
import type { DeliveryStore } from './store.js';

/** Options of the `delivery()` feature (given to `ResilientSocket` as `delivery: delivery(options)`). */
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

/** The options, checked, with their defaults: what feature interning compares, and what the socket's delivery reads. */
export interface DeliveryConfig extends Readonly<Required<Omit<DeliveryOptions, 'store'>>> {
  readonly store: DeliveryStore | undefined;
}

/**
 * How an option is read: its value (`undefined` when left out) becomes its default if it has one,
 * is checked (a TypeError for a value of the wrong type, a RangeError for one out of range, naming
 * the option `name`) and returned.
 */
type Rule = (name: string, value: unknown) => unknown;

/** A number within `rule`, returned as it is. */
const number = (name: string, value: unknown, rule: NumberRule): unknown => {
  assertNumber(name, value, rule);
  return value;
};

/** Whether `value` has a method of each name. */
const hasMethods = (value: unknown, names: string[]): boolean =>
  names.every((name) => typeof (value as Record<string, unknown> | undefined)?.[name] === 'function');

/** An integer ≥ 1. */
const COUNT: NumberRule = { integer: true, min: 1 };

/**
 * Every option by name, in the order they are checked (and unknown ones are told about): its
 * default (the parameter's) and its rule. The compiler reports an option of
 * {@link DeliveryOptions} missing here.
 */
const OPTIONS: Record<keyof DeliveryOptions, Rule> = {
  ackTimeout: (name, value = 10_000) => number(name, value, { above: 0 }),
  maxAttempts: (name, value = Infinity) => number(name, value, { ...COUNT, allowInfinity: true }),
  window: (name, value = 1_000) => number(name, value, COUNT),
  maxPending: (name, value = 10_000) => number(name, value, COUNT),
  store: (name, value) => {
    assertThat(
      value === undefined ||
        (typeof value === 'object' &&
          typeof (value as Partial<DeliveryStore> | null)?.persistent === 'boolean' &&
          hasMethods(value, ['load', 'put', 'delete'])),
      name,
      process.env.NODE_ENV !== 'production' ? 'a store (persistent, load(), put() and delete())' : '',
      value,
    );
    return value;
  },
  codec: (name, value = jsonCodec) => {
    assertThat(
      hasMethods(value, ['encode', 'decode']),
      name,
      process.env.NODE_ENV !== 'production' ? 'a codec (encode() and decode())' : '',
      value,
    );
    return value;
  },
};

/**
 * Checks the options of `delivery(options)` and fills in the defaults.
 * @throws TypeError / RangeError naming the option (`delivery.ackTimeout`, …).
 */
export function resolveDelivery(options: unknown): DeliveryConfig {
  assertOptionsObject('delivery', options);
  const names = Object.keys(OPTIONS) as (keyof DeliveryOptions)[];
  assertKnownKeys('delivery', options, names);
  const config: Record<string, unknown> = {};
  for (const name of names) {
    config[name] = OPTIONS[name](`delivery.${name}`, (options as DeliveryOptions | undefined)?.[name]);
  }
  return config as unknown as DeliveryConfig;
}
