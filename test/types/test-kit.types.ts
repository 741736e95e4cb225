/**
 * Type tests for the URLs of the test kit's servers (checked by `npm run typecheck`; nothing here
 * runs): `url` is a string on both servers, ready for a socket, and `urlFor` is no URL provider by
 * itself (it needs its path).
 */
import { expectTypeOf } from 'vitest';
import { ResilientSocket } from '../../src/index.js';
import type { FlakyServer, TestWsServer } from '../../src/testing/index.js';

declare const server: TestWsServer;
declare const flaky: FlakyServer;

expectTypeOf(server.url).toEqualTypeOf<string>();
expectTypeOf(flaky.url).toEqualTypeOf<string>();
expectTypeOf(server.urlFor).toEqualTypeOf<(path: string) => string>();

new ResilientSocket(server.url);
new ResilientSocket(flaky.url, { WebSocket: flaky.WebSocket });
new ResilientSocket(() => server.urlFor('/feed?token=1'));
// @ts-expect-error -- urlFor needs its path: wrap it, () => server.urlFor('/feed')
new ResilientSocket(server.urlFor);
// @ts-expect-error -- url is a string, not a method: server.url, or server.urlFor(path)
server.url();
