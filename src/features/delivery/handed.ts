/**
 * What the `delivery()` feature hands to each socket's delivery, by name: the feature object is
 * shared by the sockets made alike (`./delivery.ts`), and each of its hooks and services calls
 * the member of that name of the socket's own delivery (`./socket-delivery.ts`), kept in the
 * feature's data slot.
 */
import type { Feature, Host } from '../../core/feature.js';
import type { DeliveryStats } from '../../core/socket.js';

/** The hooks, then the services (`sendReliable`, and `counts` for the stats). */
export const HANDED = [
  'gate',
  'open',
  'message',
  'timer',
  'end',
  'state',
  'dispose',
  'buffered',
  'sendReliable',
  'counts',
] as const;

/** A hook of {@link Feature} as the socket's delivery takes it: without the socket and the feature's position. */
type Handed<Hook> = Hook extends (host: Host, position: number, ...args: infer A) => infer R
  ? (...args: A) => R
  : never;

/** A socket's delivery: a member for each name of {@link HANDED}. */
export type SocketDelivery = {
  [K in Exclude<(typeof HANDED)[number], 'sendReliable' | 'counts'>]-?: Handed<Feature[K]>;
} & {
  sendReliable(data: unknown): Promise<void>;
  counts(): DeliveryStats;
};
