/**
 * Compile-time checks (run by `npm run typecheck`, not by vitest): what `useResilientSocket` from
 * `resilient-socket/vue` accepts (a string, a `URL`, `null`, a ref, a getter, a URL provider in a
 * ref; options as an object, a ref or a getter) and the types of the refs it returns.
 */
import { expectTypeOf } from 'vitest';
import { type ComputedRef, computed, ref, shallowRef } from 'vue';
import type { UrlProvider } from '../../src/core/options.js';
import type { BaseSocket, SendResult } from '../../src/core/socket.js';
import type { SocketState } from '../../src/core/states.js';
import type { Data } from '../../src/data.js';
import { heartbeat, providers } from '../../src/modular.js';
import {
  type LastMessage,
  type ResilientSocketRefs,
  type UseResilientSocketOptions,
  useResilientSocket,
} from '../../src/vue.js';

const room = ref<string | null>('lobby');
const refs = useResilientSocket(() => (room.value ? `wss://example.test/${room.value}` : null), {
  maxDelay: 10_000,
  features: [heartbeat({ interval: 15_000 })],
  filter: (data) => typeof data === 'string',
  onDrop: ({ reason, messages }) => console.warn(reason, messages.length),
});
expectTypeOf(refs).toEqualTypeOf<ResilientSocketRefs>();
expectTypeOf(refs.state).toEqualTypeOf<ComputedRef<SocketState>>();
expectTypeOf(refs.lastMessage.value).toEqualTypeOf<LastMessage | null>();
expectTypeOf(refs.lastJsonMessage.value).toEqualTypeOf<unknown>();
expectTypeOf(refs.socket.value).toEqualTypeOf<BaseSocket | null>();
expectTypeOf(refs.send).parameter(0).toEqualTypeOf<Data>();
expectTypeOf(refs.sendJson({ a: 1 })).toEqualTypeOf<SendResult>();

useResilientSocket('wss://example.test/feed');
useResilientSocket(new URL('wss://example.test/feed'));
useResilientSocket(null);
useResilientSocket(undefined);
useResilientSocket(ref('wss://example.test/feed'));
useResilientSocket(computed(() => `wss://example.test/${room.value}`));
useResilientSocket(
  shallowRef<UrlProvider>(() => 'wss://example.test/feed'),
  { features: [providers()] },
);
useResilientSocket('wss://example.test/feed', ref<UseResilientSocketOptions>({ enabled: false }));
useResilientSocket('wss://example.test/feed', () => ({ enabled: room.value !== null, closeDelay: 1_000 }));
// @ts-expect-error: a number is no URL
useResilientSocket(42);
// @ts-expect-error: an unknown option
useResilientSocket('wss://example.test/feed', { maxDelai: 10 });
// @ts-expect-error: the refs are read-only
refs.state.value = 'open';
