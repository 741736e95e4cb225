/**
 * A mock-socket peer that speaks the delivery protocol (hello, msg, ack as JSON text), for the
 * `delivery()` unit tests under fake timers: it records what it received, acks on demand, and sends
 * reliable messages to the client.
 */
import type { Client } from 'mock-socket';
import type { Data } from '../../../src/data.js';
import { startServer, type TestServer, uniqueUrl } from '../../resilient-socket/helpers.js';

/** A frame the peer received. */
export type Received =
  | { rs: 'hello'; session: string }
  | { rs: 'msg'; id: string; data: unknown }
  | { rs: 'ack'; id: string }
  | { rs: 'plain'; data: Data };

export interface Peer {
  readonly server: TestServer;
  /** Every frame received, in order. */
  readonly frames: Received[];
  /** Whether it acknowledges each `msg` at once. */
  acking: boolean;
  /** What it received, as short strings: `hello:<session>`, `msg:<id>:<json>`, `ack:<id>`, `plain:<text>`. */
  log(): string[];
  /** Sends a `msg` frame to the latest client. */
  send(id: string, data: unknown): void;
  /** Acks `id` on the latest client. */
  ack(id: string): void;
  /** The latest client. */
  client(): Client;
}

export function parse(raw: Data): Received {
  if (typeof raw === 'string') {
    try {
      const frame = JSON.parse(raw) as Received;
      if (frame && typeof frame === 'object' && ['hello', 'msg', 'ack'].includes(frame.rs)) return frame;
    } catch {
      // plain text
    }
  }
  return { rs: 'plain', data: raw };
}

export function startPeer(url = uniqueUrl()): Peer {
  const frames: Received[] = [];
  const peer: Peer = {
    server: startServer(url, (client) => {
      client.on('message', (raw) => {
        const frame = parse(raw as Data);
        frames.push(frame);
        if (frame.rs === 'msg' && peer.acking) client.send(JSON.stringify({ rs: 'ack', id: frame.id }));
      });
    }),
    frames,
    acking: true,
    log: () =>
      frames.map((f) =>
        f.rs === 'hello'
          ? `hello:${f.session}`
          : f.rs === 'msg'
            ? `msg:${f.id}:${JSON.stringify(f.data)}`
            : f.rs === 'ack'
              ? `ack:${f.id}`
              : `plain:${String(f.data)}`,
      ),
    send: (id, data) => peer.client().send(JSON.stringify({ rs: 'msg', id, data })),
    ack: (id) => peer.client().send(JSON.stringify({ rs: 'ack', id })),
    client: () => peer.server.last(),
  };
  return peer;
}

/** What a promise came to: `'resolved'`, or the rejection (so that no rejection goes unhandled). */
export function outcome(promise: Promise<unknown>): { value: unknown } {
  const box: { value: unknown } = { value: 'pending' };
  promise.then(
    () => {
      box.value = 'resolved';
    },
    (error: unknown) => {
      box.value = error;
    },
  );
  return box;
}
