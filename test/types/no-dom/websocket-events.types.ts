/**
 * Type tests of `ResilientWebSocket`'s events in a Node project without the DOM lib only (this
 * folder's tsconfig): the close event is our `CloseEventLike` (@types/node declares no
 * `CloseEvent`), the rest `CustomEvent`s as @types/node declares them. ../websocket-events.types.ts
 * runs here too. Nothing here runs.
 */
import { type CloseEventLike, ResilientWebSocket, type ResilientWebSocketEventMap } from 'resilient-socket/websocket';
import { expectTypeOf } from 'vitest';

expectTypeOf<ResilientWebSocketEventMap['close']>().toEqualTypeOf<CloseEventLike>();
const ws = new ResilientWebSocket('ws://127.0.0.1:9', 'chat', { maxDelay: 1_000 });
ws.onclose = (event: CloseEventLike) => event.wasClean;

export { ws };
