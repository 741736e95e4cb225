/**
 * Type tests for `resilient-socket/server` (checked by `npm run typecheck`; nothing here runs): over
 * a ws `WebSocketServer` the sessions' sockets are ws's `WebSocket`, the events are typed by name,
 * `send()` takes a session or its id, and the options are checked.
 */
import { expectTypeOf } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import {
  type Delivery,
  type DeliveryCodec,
  type Frame,
  jsonCodec,
  ReliableServer,
  type ReliableServerOptions,
  type Session,
} from '../../src/server/index.js';

const server = new ReliableServer(new WebSocketServer({ port: 0 }));
expectTypeOf(server).toEqualTypeOf<ReliableServer<WebSocket>>();
server.on('message', (data, session) => {
  expectTypeOf(data).toEqualTypeOf<unknown>();
  expectTypeOf(session).toEqualTypeOf<Session<WebSocket>>();
  expectTypeOf(session.socket).toEqualTypeOf<WebSocket | undefined>();
  expectTypeOf(server.send(session, { ok: true })).toEqualTypeOf<Delivery>();
  expectTypeOf(server.send(session, { ok: true })).toMatchTypeOf<Promise<void>>();
  expectTypeOf(server.send(session, { ok: true }).stored).toEqualTypeOf<Promise<void>>();
});
server.on('plain', (data, socket, session) => {
  expectTypeOf(data).toEqualTypeOf<unknown>();
  expectTypeOf(socket).toEqualTypeOf<WebSocket>();
  expectTypeOf(session).toEqualTypeOf<Session<WebSocket> | undefined>();
});
server.on('error', (error) => expectTypeOf(error.code).toBeString());
// @ts-expect-error -- no such event
server.on('acked', () => {});
void server.send('a session id', [1, 2]);
expectTypeOf(server.sessions).toEqualTypeOf<ReadonlyMap<string, Session<WebSocket>>>();

const options: ReliableServerOptions = { ackTimeout: 5_000, maxAttempts: 5, codec: jsonCodec };
void options;
// @ts-expect-error -- not an option
const wrong: ReliableServerOptions = { ackTimout: 5 };
void wrong;

const codec: DeliveryCodec = {
  encode: (frame: Frame) => JSON.stringify(frame),
  decode: () => undefined,
};
void codec;
