/**
 * What features offer beyond their hooks, reached from a socket's members (`stats`,
 * `sendReliable()`, async iteration): each found by its feature's name, or a TypeError naming the
 * factory to import. Kept apart from `./socket.ts` so that a face that is no `BaseSocket` (the
 * drop-in, the tab socket) reaches them without bringing the emitter `BaseSocket` extends.
 */
import type { Data } from '../data.js';
import { inputError } from '../validation.js';
import { type Feature, findFeature } from './feature.js';
import type { Machine } from './machine.js';
import type { SocketStats } from './socket.js';

/** A feature the socket needs for what was asked, or a TypeError (`ERR_RS_NEEDS_FEATURE`) naming the factory to import. */
export function need(m: Machine, name: string): [Feature, number] {
  const found = findFeature(m, name);
  if (found) return found;
  throw inputError(
    TypeError,
    'ERR_RS_NEEDS_FEATURE',
    `${name}()`,
    process.env.NODE_ENV !== 'production'
      ? `This needs the ${name}() feature: import { ${name} } from 'resilient-socket/modular' and add ${name}() to \`features\``
      : '',
  );
}

/** What the `stats()`, `asyncIteration()` and `delivery()` features offer beyond their hooks. */
interface Services {
  snapshot(m: Machine): SocketStats;
  iterate(m: Machine, me: number): AsyncIterableIterator<Data>;
  sendReliable(m: Machine, me: number, data: unknown): Promise<void>;
}

/** `socket.stats`: the `stats()` feature's snapshot. @throws TypeError naming the feature when it is not installed. */
export function statsOf(m: Machine): SocketStats {
  return (need(m, 'stats')[0] as unknown as Services).snapshot(m);
}

/** `socket.sendReliable(data)`: the `delivery()` feature's. @throws TypeError naming the feature when it is not installed. */
export function sendReliableOf(m: Machine, data: unknown): Promise<void> {
  const [feature, me] = need(m, 'delivery');
  return (feature as unknown as Services).sendReliable(m, me, data);
}

/** `socket[Symbol.asyncIterator]()`: the `asyncIteration()` feature's iterator. @throws TypeError naming the feature when it is not installed. */
export function messagesOf(m: Machine): AsyncIterableIterator<Data> {
  const [feature, me] = need(m, 'asyncIteration');
  return (feature as unknown as Services).iterate(m, me);
}
