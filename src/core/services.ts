/**
 * What features offer beyond their hooks, reached from a socket's members (`stats`,
 * `sendReliable()`, async iteration) and from other features: each service is found by its key, a
 * symbol that the feature object offering it has as a member. The key's description is the
 * factory to import when no feature has it (a TypeError, `ERR_RS_NEEDS_FEATURE`). Kept apart from
 * `./socket.ts` so that a face that is no `BaseSocket` (the drop-in, the tab socket) reaches them
 * without bringing the emitter `BaseSocket` extends.
 */
import type { Data } from '../data.js';
import { inputError } from '../validation.js';
import type { Connection } from './connection.js';
import type { Feature, Host } from './feature.js';
import type { SocketStats } from './socket.js';

/** `socket.stats`: a snapshot of the counters (the `stats()` feature). */
export const SNAPSHOT: unique symbol = /* @__PURE__ */ Symbol('stats');
/** `socket[Symbol.asyncIterator]()`: an iterator over the messages (the `asyncIteration()` feature). */
export const MESSAGES: unique symbol = /* @__PURE__ */ Symbol('asyncIteration');
/** `socket.sendReliable(data)` (the `delivery()` feature). */
export const SEND_RELIABLE: unique symbol = /* @__PURE__ */ Symbol('delivery');
/** A feature's own counters, shown in `socket.stats` under the feature's name (`stats.delivery`). */
export const COUNTERS: unique symbol = /* @__PURE__ */ Symbol('counters');
/** Whether the open connection is alive: the `heartbeat()` feature's, asked by other features (see {@link Liveness}). */
export const LIVENESS: unique symbol = /* @__PURE__ */ Symbol('heartbeat');

/** What the feature watching the connection (the heartbeat) offers the others. */
export interface Liveness {
  /**
   * Asks the open connection whether it is alive (a resume): pings it the heartbeat's way and
   * declares it dead (reason `'probe timeout'`) if no answer comes within `timeout` ms. A connection
   * with no way to ask is left alone.
   */
  probe(host: Host, index: number, timeout: number): void;
  /** Whether the current connection is watched (a mode other than `off`). */
  watching(host: Host, index: number): boolean;
  /** A message another feature consumed (a protocol frame of its own) arrived on `attempt`: a sign of life. */
  heard(host: Host, index: number, attempt: Connection, data: Data): void;
}

/** The services, by key: what a feature offering one has under that key. */
export interface Services {
  [SNAPSHOT](host: Host): SocketStats;
  [MESSAGES](host: Host, index: number): AsyncIterableIterator<Data>;
  [SEND_RELIABLE](host: Host, index: number, data: unknown): Promise<void>;
  [COUNTERS](host: Host, index: number): object;
  readonly [LIVENESS]: Liveness;
}

/** A feature offering the service `key`, and its index among the socket's features. */
export type Offering<K extends keyof Services> = [feature: Feature & Pick<Services, K>, index: number];

/** The first feature of the socket that offers `key`, if any. */
export function serviceOf<K extends keyof Services>(host: Host, key: K): Offering<K> | undefined {
  const index = host.config_.features.findIndex((feature) => key in feature);
  return index < 0 ? undefined : [host.config_.features[index] as Feature & Pick<Services, K>, index];
}

/** The feature offering `key`, or a TypeError (`ERR_RS_NEEDS_FEATURE`) naming the factory to import. */
export function need<K extends keyof Services>(host: Host, key: K): Offering<K> {
  const found = serviceOf(host, key);
  if (found) return found;
  const name = key.description;
  throw inputError(
    TypeError,
    'ERR_RS_NEEDS_FEATURE',
    `${name}()`,
    process.env.NODE_ENV !== 'production'
      ? `This needs the ${name}() feature: import { ${name} } from 'resilient-socket/modular' and add ${name}() to \`features\``
      : '',
  );
}

/** `socket.stats`: the `stats()` feature's snapshot. @throws TypeError naming the feature when it is not installed. */
export function statsOf(host: Host): SocketStats {
  return need(host, SNAPSHOT)[0][SNAPSHOT](host);
}

/** `socket.sendReliable(data)`: the `delivery()` feature's. @throws TypeError naming the feature when it is not installed. */
export function sendReliableOf(host: Host, data: unknown): Promise<void> {
  const [feature, index] = need(host, SEND_RELIABLE);
  return feature[SEND_RELIABLE](host, index, data);
}

/** `socket[Symbol.asyncIterator]()`: the `asyncIteration()` feature's iterator. @throws TypeError naming the feature when it is not installed. */
export function messagesOf(host: Host): AsyncIterableIterator<Data> {
  const [feature, index] = need(host, MESSAGES);
  return feature[MESSAGES](host, index);
}
