/**
 * What the `delivery()` feature hands to each socket's delivery, by name: the feature object is
 * shared by the sockets made alike (`./delivery.ts`), and each of its hooks and services calls
 * the member of that name of the socket's own delivery (`./socket-delivery.ts`), kept in the
 * feature's data slot. Also the counters that delivery hands to `socket.stats` ({@link DeliveryStats}).
 */
import type { Feature, Host } from '../../core/feature.js';

/** The `delivery()` feature's counters (in `socket.stats.delivery`). */
export interface DeliveryStats {
  /** Reliable messages waiting for their acknowledgement. */
  readonly pending: number;
  /** Reliable messages the peer acknowledged. */
  readonly acked: number;
  /** Sends of a reliable message after its first (after a reconnect, or `ackTimeout`). */
  readonly resent: number;
  /** Incoming reliable messages seen again and not delivered again. */
  readonly duplicates: number;
}

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
