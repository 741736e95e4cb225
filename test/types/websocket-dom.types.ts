/**
 * Type tests of `ResilientWebSocket` in a DOM project only (`npm run typecheck`, lib DOM): both
 * classes are assignable to `typeof WebSocket` (what y-websocket and vscode-ws-jsonrpc ask for),
 * an instance to `WebSocket`, and the close event is the DOM's `CloseEvent`: the same lines
 * compile against a `WebSocket` and against ours. Nothing here runs.
 */
import { ResilientWebSocket as Full } from 'resilient-socket';
import { type ResilientWebSocketEventMap, ResilientWebSocket as Small } from 'resilient-socket/websocket';
import { expectTypeOf } from 'vitest';

export const polyfills: (typeof WebSocket)[] = [Small, Full];
export const instance: WebSocket = new Small('wss://example.test', ['v1'], { maxDelay: 1_000 });

expectTypeOf<ResilientWebSocketEventMap['close']>().toEqualTypeOf<CloseEvent>();
expectTypeOf<ResilientWebSocketEventMap['drop']>().toMatchTypeOf<CustomEvent>();

declare const native: WebSocket;
native.addEventListener('message', (e) => e.data);
native.addEventListener('close', (e: CloseEvent) => e.wasClean);
native.addEventListener('reconnecting', (e) => (e as CustomEvent).detail);
native.onmessage = (e: MessageEvent<string>) => e.data.length;
native.onclose = (e: CloseEvent) => e.code;

declare const small: Small;
small.addEventListener('message', (e) => e.data);
small.addEventListener('close', (e: CloseEvent) => e.wasClean);
small.addEventListener('reconnecting', (e) => e.detail.delay);
small.addEventListener('reconnecting', (e: CustomEvent<{ delay: number }>) => e.detail.delay);
small.onmessage = (e: MessageEvent<string>) => e.data.length;
small.onclose = (e: CloseEvent) => e.code;
