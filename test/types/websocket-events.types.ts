/**
 * Type tests of `ResilientWebSocket`'s events, for both entries (`resilient-socket` and
 * `resilient-socket/websocket`), checked in a DOM project (`npm run typecheck`: the root
 * tsconfig, lib DOM) and in a Node project without the DOM lib (test/types/no-dom/, the same
 * file). What compiles with a `WebSocket` compiles here, and the socket's own events carry their
 * payload as `detail`, with no cast. Nothing here runs.
 */
import type {
  ConnectingInfo,
  DropInfo,
  ResilientWebSocket as Full,
  GiveUpInfo,
  ReconnectingInfo,
  ResilientSocketError,
  StateChange,
} from 'resilient-socket';
import type { DetailEvent, ResilientWebSocketEventMap, ResilientWebSocket as Small } from 'resilient-socket/websocket';
import { expectTypeOf } from 'vitest';

declare const small: Small;
declare const full: Full;

for (const ws of [small, full]) {
  // --- what code written for a WebSocket does, as it does it.
  ws.addEventListener('message', (e) => e.data);
  ws.addEventListener('message', (e) => expectTypeOf(e).toEqualTypeOf<MessageEvent>());
  ws.onmessage = (e) => e.data;
  ws.onmessage = null;
  ws.addEventListener('open', (e) => expectTypeOf(e).toEqualTypeOf<Event>());
  ws.onopen = (e) => e.type;
  ws.addEventListener('close', (e) => {
    expectTypeOf(e.code).toEqualTypeOf<number>();
    expectTypeOf(e.reason).toEqualTypeOf<string>();
    expectTypeOf(e.wasClean).toEqualTypeOf<boolean>();
  });
  ws.onclose = (e) => [e.code, e.reason, e.wasClean];
  ws.addEventListener('error', (e) => {
    expectTypeOf(e).toMatchTypeOf<Event>();
    expectTypeOf(e.error).toEqualTypeOf<ResilientSocketError | undefined>();
  });
  ws.onerror = (e) => e.error?.code;
  ws.addEventListener('message', {
    handleEvent(e) {
      expectTypeOf(e).toEqualTypeOf<MessageEvent>();
    },
  });
  ws.addEventListener('message', (e) => e.data, { once: true });
  ws.removeEventListener('message', (e) => e.data);
  // Any other name: an Event, as on any EventTarget.
  ws.addEventListener('something-else', (e) => expectTypeOf(e).toEqualTypeOf<Event>());

  // --- the socket's own events: the payload as `detail`, no cast.
  ws.addEventListener('reconnecting', (e) => expectTypeOf(e.detail).toEqualTypeOf<ReconnectingInfo>());
  ws.addEventListener('reconnecting', (e) => e.detail.delay + e.detail.attempt);
  ws.addEventListener('drop', (e) => e.detail.messages.length);
  ws.addEventListener('state', (e) => expectTypeOf(e.detail).toEqualTypeOf<StateChange>());
  ws.addEventListener('connecting', (e) => expectTypeOf(e.detail).toEqualTypeOf<ConnectingInfo>());
  ws.addEventListener('giveup', (e) => expectTypeOf(e.detail).toEqualTypeOf<GiveUpInfo>());
  ws.addEventListener('drop', (e) => expectTypeOf(e.detail).toEqualTypeOf<DropInfo>());
  ws.addEventListener('stable', (e) => expectTypeOf(e.detail).toEqualTypeOf<null>());
  ws.addEventListener('giveup', { handleEvent: (e) => e.detail.error.code });

  // @ts-expect-error -- a MessageEvent has no `detail`
  ws.addEventListener('message', (e) => e.detail);
  // @ts-expect-error -- `reconnecting` has no `code`
  ws.addEventListener('reconnecting', (e) => e.code);
  // @ts-expect-error -- its detail is a ReconnectingInfo
  ws.addEventListener('reconnecting', (e: DetailEvent<string>) => e);
  // @ts-expect-error -- onmessage is not for `reconnecting` events
  ws.onmessage = (e: DetailEvent<ReconnectingInfo>) => e;
}

// `this` in a listener is the socket, of the class it was added on.
small.addEventListener('open', function () {
  expectTypeOf(this).toEqualTypeOf<Small>();
});
full.addEventListener('close', function () {
  expectTypeOf(this).toEqualTypeOf<Full>();
  return this.retryCount;
});

// --- the map names every event the socket dispatches, each with its payload; DetailEvent<T> is a CustomEvent<T>.
expectTypeOf<keyof ResilientWebSocketEventMap>().toEqualTypeOf<
  | 'open'
  | 'message'
  | 'error'
  | 'close'
  | 'state'
  | 'connecting'
  | 'reconnecting'
  | 'stable'
  | 'giveup'
  | 'drop'
  | 'drain'
>();
expectTypeOf<ResilientWebSocketEventMap['reconnecting']>().toEqualTypeOf<DetailEvent<ReconnectingInfo>>();
expectTypeOf<DetailEvent<ReconnectingInfo>>().toEqualTypeOf<CustomEvent<ReconnectingInfo>>();
expectTypeOf<ResilientWebSocketEventMap['message']>().toEqualTypeOf<MessageEvent>();
