/**
 * `delivery()`: acknowledged delivery, `socket.sendReliable(data)`, over the protocol of
 * `docs/guide/protocol.md` (three frames, see `./codec.ts`). At least once on the wire, once to the app:
 *
 * - out: every reliable message waits in the outbox (and the store) until the peer acknowledges it;
 *   on every connection the hello goes first (the feature's `gate`, before the core flushes plain
 *   queued messages), then every unacknowledged message in the order it was first sent (the `open`
 *   hook), then newer ones as they are sent; one unacknowledged `ackTimeout` after its last send on
 *   an open connection is sent again; after `maxAttempts` sends without an acknowledgement it is
 *   given up when the next would be due (`ackTimeout` later, or the next connection);
 * - in: a `msg` frame reaches the `deliver` hooks and `message` listeners as its `data`, then its
 *   id joins the window of recent ids (the store keeps it), then it is acknowledged; an id in the
 *   window is acknowledged again and not delivered again. A `msg` that arrives while a later gate
 *   (a handshake) still holds the connection waits until the connection is open.
 *
 * The feature object is shared by the sockets made alike; each socket keeps its own delivery (see
 * `./socket-delivery.ts`) in its data slot, and the hooks hand their calls to it.
 *
 * Why it ranks 15: before the handshake (20), so that the hello is the first frame of every
 * connection and the handshake never takes a protocol frame for its own; protocol frames it
 * consumes are shown to the heartbeat (30) first, which counts them as signs of life.
 */
import { type Feature, getData, type Host, setData } from '../../core/feature.js';
import { COUNTERS, SEND_RELIABLE } from '../../core/services.js';
import { intern } from '../intern.js';
import { HANDED, type SocketDelivery } from './handed.js';
import { type DeliveryOptions, resolveDelivery } from './options.js';
import { startDelivery } from './socket-delivery.js';

/** What {@link delivery} makes: a feature, for `features` or `ResilientSocket`'s `delivery` option. */
export interface DeliveryFeature extends Feature {
  readonly name: 'delivery';
}

/**
 * The `delivery` feature: `socket.sendReliable(data)`, resolved once the peer acknowledged it,
 * and incoming reliable messages delivered once each (see {@link DeliveryOptions} and
 * `docs/guide/protocol.md`). `ResilientSocket`'s `delivery` option.
 * @throws TypeError / RangeError naming the option (`delivery.ackTimeout`, …).
 * @example
 * ```ts
 * const socket = new BaseSocket(url, { features: [delivery({ ackTimeout: 5_000 })] });
 * await socket.sendReliable({ type: 'order', id: 42 }); // the server has it
 * ```
 */
export function delivery(options?: DeliveryOptions): DeliveryFeature {
  const config = resolveDelivery(options);
  const feature: Record<string | symbol, unknown> = {
    name: 'delivery',
    rank: 15,
    slots: 1,
    options_: config,
    init: (host: Host, position: number) => setData(host, position, startDelivery(host, position, config)),
  };
  // Each hook and service hands its call (its arguments after the socket and the feature's
  // position) to the socket's delivery, kept in the feature's data slot.
  // The services are found by their keys (`socket.sendReliable()`, its counters in `socket.stats`).
  for (const name of HANDED) {
    const key = name === 'sendReliable' ? SEND_RELIABLE : name === 'counts' ? COUNTERS : name;
    feature[key] = (host: Host, position: number, ...args: unknown[]) =>
      ((getData(host, position) as SocketDelivery)[name] as (...args: unknown[]) => unknown)(...args);
  }
  return intern(feature as unknown as DeliveryFeature);
}
