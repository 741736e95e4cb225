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
import type { Connection } from '../../core/connection.js';
import { type Feature, getData, type Host, setData } from '../../core/feature.js';
import type { SocketState } from '../../core/states.js';
import type { Data } from '../../data.js';
import { intern } from '../intern.js';
import { type DeliveryOptions, resolveDelivery } from './options.js';
import { type SocketDelivery, startDelivery } from './socket-delivery.js';

/** The socket's own delivery, in the feature's data slot. */
const of = (m: Host, me: number): SocketDelivery => getData(m, me) as SocketDelivery;

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
export function delivery(options?: DeliveryOptions): Feature {
  const config = resolveDelivery(options);
  // Each hook hands the call to the socket's delivery; `sendReliable` and `counts` (for the stats) are its services.
  return intern({
    name: 'delivery',
    rank: 15,
    slots: 1,
    options_: config,
    init: (m: Host, me: number) => setData(m, me, startDelivery(m, me, config)),
    gate: (m: Host, me: number, attempt: Connection) => of(m, me).gate(attempt),
    open: (m: Host, me: number, attempt: Connection) => of(m, me).open(attempt),
    message: (m: Host, me: number, attempt: Connection, data: Data) => of(m, me).message(attempt, data),
    timer: (m: Host, me: number) => of(m, me).timer(),
    end: (m: Host, me: number) => of(m, me).end(),
    state: (m: Host, me: number, previous: SocketState, next: SocketState) => of(m, me).state(previous, next),
    dispose: (m: Host, me: number) => of(m, me).dispose(),
    buffered: (m: Host, me: number) => of(m, me).buffered(),
    sendReliable: (m: Host, me: number, data: unknown) => of(m, me).sendReliable(data),
    counts: (m: Host, me: number) => of(m, me).counts(),
  });
}
