/**
 * Type tests for the public API (checked by `npm run typecheck`; nothing here runs). Each
 * `expectTypeOf` fails compilation when a published type changes; each `@ts-expect-error` fails
 * when something that must not compile starts to.
 */
import { expectTypeOf } from 'vitest';
import {
  type AckedInfo,
  type BackoffPolicy,
  type BackoffPolicyLike,
  type BufferPolicyFeature,
  type BufferPolicyOptions,
  bufferPolicy,
  type CloseEventInfo,
  type ConnectingInfo,
  type Data,
  type DeliveryCodec,
  type DeliveryFeature,
  type DeliveryOptions,
  type DeliveryStats,
  type DeliveryStore,
  type DropInfo,
  delivery,
  type ErrorCode,
  type Frame,
  type GiveUpInfo,
  type HandshakeFeature,
  type HandshakeHook,
  type HandshakeOptions,
  handshake,
  isResilientSocketError,
  jsonCodec,
  memoryStore,
  type OpenInfo,
  type QueueOptions,
  type ReconnectingInfo,
  ResilientSocket,
  type ResilientSocketError,
  type ResilientSocketEvents,
  type ResilientSocketOptions,
  retry,
  type SendResult,
  type SocketState,
  type SocketStats,
  type StateChange,
  truncatedBinaryExponential,
} from '../../src/index.js';
import { FlakyServer, type TestClock, until } from '../../src/testing/index.js';

declare const socket: ResilientSocket;

// --- send(): its result is a closed union callers can switch over exhaustively.
expectTypeOf(socket.send('x')).toEqualTypeOf<SendResult>();
expectTypeOf<SendResult>().toEqualTypeOf<'sent' | 'buffered' | 'dropped'>();
expectTypeOf(socket.send).parameter(0).toEqualTypeOf<Data>();
expectTypeOf(socket.send(new Uint8Array(2), { buffer: false })).toEqualTypeOf<SendResult>();
// @ts-expect-error -- only strings and binary data can be sent
socket.send({ not: 'data' });
// @ts-expect-error -- `buffer` is a boolean
socket.send('x', { buffer: 'no' });

// --- the event map: every event's payload, as listeners receive it.
expectTypeOf<ResilientSocketEvents>().toEqualTypeOf<{
  state: [change: StateChange];
  connecting: [info: ConnectingInfo];
  open: [info: OpenInfo];
  message: [data: Data];
  close: [info: CloseEventInfo];
  reconnecting: [info: ReconnectingInfo];
  stable: [];
  error: [error: ResilientSocketError];
  giveup: [info: GiveUpInfo];
  drop: [info: DropInfo];
  acked: [info: AckedInfo];
  drain: [];
}>();
socket.on('open', (info) => {
  expectTypeOf(info.reconnected).toEqualTypeOf<boolean>();
  expectTypeOf(info.attempt).toEqualTypeOf<number>();
});
socket.on('state', ({ previous, current }) => {
  expectTypeOf(previous).toEqualTypeOf<SocketState>();
  expectTypeOf(current).toEqualTypeOf<SocketState>();
});
socket.on('reconnecting', ({ delay }) => expectTypeOf(delay).toEqualTypeOf<number>());
socket.on('error', (error) => expectTypeOf(error.code).toEqualTypeOf<ErrorCode>());
socket.on('drop', ({ reason, messages, bytes }) => {
  expectTypeOf(reason).toEqualTypeOf<
    'overflow' | 'expired' | 'closed' | 'not-connected' | 'unsendable' | 'unacknowledged' | 'unflushed'
  >();
  expectTypeOf(messages).toEqualTypeOf<readonly Data[]>();
  expectTypeOf(bytes).toEqualTypeOf<number | undefined>();
});
socket.on('stable', (...args) => expectTypeOf(args).toEqualTypeOf<[]>());
// @ts-expect-error -- no such event
socket.on('opened', () => undefined);
// @ts-expect-error -- `message` hands over the data, not an event object
socket.on('message', (event: MessageEvent) => event);

// --- states and stats.
expectTypeOf<SocketState>().toEqualTypeOf<'idle' | 'connecting' | 'open' | 'reconnecting' | 'closing' | 'closed'>();
expectTypeOf(socket.state).toEqualTypeOf<SocketState>();
expectTypeOf(socket.stats).toEqualTypeOf<SocketStats>();
expectTypeOf(socket.stats.nextRetryAt).toEqualTypeOf<number | undefined>();
expectTypeOf(socket.bufferedCount).toEqualTypeOf<number>();
expectTypeOf(socket[Symbol.asyncIterator]()).toEqualTypeOf<AsyncIterableIterator<Data>>();

// --- acknowledged delivery.
expectTypeOf(socket.sendReliable({ any: ['json'] })).toEqualTypeOf<Promise<void>>();
expectTypeOf(socket.stats.delivery).toEqualTypeOf<DeliveryStats | undefined>();
expectTypeOf<ResilientSocketOptions['delivery']>().toEqualTypeOf<DeliveryFeature | undefined>();
expectTypeOf(delivery).parameter(0).toEqualTypeOf<DeliveryOptions | undefined>();
expectTypeOf(delivery()).toEqualTypeOf<DeliveryFeature>();
new ResilientSocket('wss://example.test', { delivery: delivery({ ackTimeout: 5_000 }) });
new ResilientSocket('wss://example.test', { delivery: delivery() });
// @ts-expect-error -- the options go to delivery(…), whose value is the option
new ResilientSocket('wss://example.test', { delivery: { ackTimeout: 5_000 } });
// @ts-expect-error -- `delivery: {}` was the old way to turn it on: now `delivery()`
new ResilientSocket('wss://example.test', { delivery: {} });
// @ts-expect-error -- the other feature
new ResilientSocket('wss://example.test', { delivery: handshake(() => undefined) });
expectTypeOf(memoryStore()).toEqualTypeOf<DeliveryStore>();
expectTypeOf(jsonCodec).toEqualTypeOf<DeliveryCodec>();
expectTypeOf(jsonCodec.decode).returns.toEqualTypeOf<Frame | undefined>();
socket.on('acked', ({ id, data }) => {
  expectTypeOf(id).toEqualTypeOf<string>();
  expectTypeOf(data).toEqualTypeOf<unknown>();
});

// --- the handshake hook: given as handshake(hook, options)'s value.
expectTypeOf<ResilientSocketOptions['handshake']>().toEqualTypeOf<HandshakeFeature | undefined>();
expectTypeOf(handshake).parameter(0).toEqualTypeOf<HandshakeHook>();
expectTypeOf(handshake).parameter(1).toEqualTypeOf<HandshakeOptions | undefined>();
expectTypeOf(handshake(() => undefined)).toEqualTypeOf<HandshakeFeature>();
new ResilientSocket('wss://example.test', {
  handshake: handshake(
    async (connection) => {
      connection.send('auth');
      await connection.nextMessage((data) => data === 'ok');
    },
    { timeout: 5_000 },
  ),
});
// @ts-expect-error -- a plain hook was the old way: now handshake(hook)
new ResilientSocket('wss://example.test', { handshake: () => undefined });
// @ts-expect-error -- the timeout is handshake(hook, { timeout })'s; refused at run time too
new ResilientSocket('wss://example.test', { handshake: handshake(() => undefined), handshakeTimeout: 5_000 });
// @ts-expect-error -- the other feature
new ResilientSocket('wss://example.test', { handshake: delivery() });

// --- the buffer policies: given as bufferPolicy(options)'s value; `buffer` holds only the queue's limits.
expectTypeOf<ResilientSocketOptions['buffer']>().toEqualTypeOf<QueueOptions | undefined>();
expectTypeOf<ResilientSocketOptions['bufferPolicy']>().toEqualTypeOf<BufferPolicyFeature | undefined>();
expectTypeOf(bufferPolicy).parameter(0).toEqualTypeOf<BufferPolicyOptions | undefined>();
expectTypeOf(bufferPolicy({ overflow: 'error' })).toEqualTypeOf<BufferPolicyFeature>();
new ResilientSocket('wss://example.test', {
  buffer: { maxMessages: 10 },
  bufferPolicy: bufferPolicy({ overflow: 'drop-newest', ttl: 60_000 }),
});
// @ts-expect-error -- overflow is bufferPolicy({ overflow })'s now; refused at run time too
new ResilientSocket('wss://example.test', { buffer: { maxMessages: 10, overflow: 'drop-newest' } });
// @ts-expect-error -- ttl is bufferPolicy({ ttl })'s now; refused at run time too
new ResilientSocket('wss://example.test', { buffer: { ttl: 60_000 } });
// @ts-expect-error -- a plain options object is not the feature: bufferPolicy(options)
new ResilientSocket('wss://example.test', { bufferPolicy: { overflow: 'error' } });
// @ts-expect-error -- another feature
new ResilientSocket('wss://example.test', { bufferPolicy: delivery() });
// @ts-expect-error -- bufferPolicy() takes only the policies; the limits are `buffer`'s
bufferPolicy({ maxMessages: 10 });

// --- options: what is accepted, and what is not.
expectTypeOf<ResilientSocketOptions['maxDelay']>().toEqualTypeOf<number | undefined>();
expectTypeOf<ResilientSocketOptions['maxRetryAfter']>().toEqualTypeOf<number | undefined>();
expectTypeOf<ResilientSocketOptions['heartbeat']>().extract<false>().toEqualTypeOf<false>();
expectTypeOf<ResilientSocketOptions['backoff']>().toEqualTypeOf<
  BackoffPolicyLike | (() => BackoffPolicyLike) | undefined
>();
expectTypeOf<ResilientSocketOptions['buffer']>().exclude<undefined>().toHaveProperty('maxMessages');
new ResilientSocket('wss://example.test', { maxDelay: 10_000, ceiling: 10 });
new ResilientSocket(() => 'wss://example.test', { autoConnect: false });
new ResilientSocket(async () => new URL('wss://example.test'), { protocols: async () => ['v2'] });
new ResilientSocket('wss://example.test', { backoff: truncatedBinaryExponential({ maxDelay: 5_000 }) });
new ResilientSocket('wss://example.test', { backoff: () => ({ next: () => 1_000, reset: () => undefined }) });
new ResilientSocket('wss://example.test', {
  heartbeat: { interval: 5_000, message: 'ping', isPong: (d) => d === 'pong' },
});
new ResilientSocket('wss://example.test', {
  buffer: { maxMessages: 10 },
  bufferPolicy: bufferPolicy({ overflow: 'drop-newest', ttl: 60_000 }),
});
new ResilientSocket('wss://example.test', { maxRetryAfter: 60_000 });
new ResilientSocket('wss://example.test', { shouldReconnect: async ({ code }) => code !== 4001 });
// @ts-expect-error -- shouldReconnect decides with a boolean (or a promise of one)
new ResilientSocket('wss://example.test', { shouldReconnect: () => 'yes' });
new ResilientSocket('wss://example.test', { maxRetryAfter: Number.POSITIVE_INFINITY });
// @ts-expect-error -- maxRetryAfter is a number of milliseconds
new ResilientSocket('wss://example.test', { maxRetryAfter: '5m' });
// @ts-expect-error -- unknown heartbeat option (a typo of interval); refused at run time too
new ResilientSocket('wss://example.test', { heartbeat: { intervall: 5_000 } });
// @ts-expect-error -- retry() has no `retries` (p-retry's name): refused at run time too
retry(async () => 1, { retries: 3 });
// @ts-expect-error -- truncatedBinaryExponential() takes no `base`
truncatedBinaryExponential({ base: 100 });
// @ts-expect-error -- maxDelay is a number of milliseconds
new ResilientSocket('wss://example.test', { maxDelay: '10s' });
// @ts-expect-error -- unknown overflow policy
new ResilientSocket('wss://example.test', { bufferPolicy: bufferPolicy({ overflow: 'drop-all' }) });
// @ts-expect-error -- unknown option (a typo of maxDelay)
new ResilientSocket('wss://example.test', { maxdelay: 1 });
// @ts-expect-error -- the URL is required
new ResilientSocket();

// --- backoff and retry.
expectTypeOf(truncatedBinaryExponential()).toMatchTypeOf<BackoffPolicy>();
expectTypeOf(truncatedBinaryExponential().next()).toEqualTypeOf<number>();
expectTypeOf(retry(async () => 42)).toEqualTypeOf<Promise<number>>();
expectTypeOf(retry((attempt: number) => `try ${attempt}`)).toEqualTypeOf<Promise<string>>();

// --- errors: the guard narrows.
declare const thrown: unknown;
if (isResilientSocketError(thrown)) expectTypeOf(thrown.code).toEqualTypeOf<ErrorCode>();

// --- the test kit: until() resolves with the event's payload, or the reached state.
declare const clock: TestClock;
expectTypeOf(until(socket, 'open')).toEqualTypeOf<Promise<OpenInfo>>();
expectTypeOf(until(socket, 'message')).toEqualTypeOf<Promise<Data>>();
expectTypeOf(until(socket, 'closed')).toEqualTypeOf<Promise<{ readonly state: 'closed' }>>();
expectTypeOf(until(socket, 'reconnecting', { advance: (ms) => clock.advance(ms) })).toEqualTypeOf<
  Promise<ReconnectingInfo>
>();
// @ts-expect-error -- not an event or a state
until(socket, 'opne');
expectTypeOf(new FlakyServer().WebSocket).toMatchTypeOf<NonNullable<ResilientSocketOptions['WebSocket']>>();
