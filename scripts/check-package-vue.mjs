// The checks of `resilient-socket/vue` that scripts/check-package.mjs runs on the installed tarball
// (vue installed in the consumer project first, as an app has it):
//   - VUE_SSR: `renderToString` (vue/server-renderer) of an app using the composable, ESM and CJS:
//     the HTML says 'idle', no WebSocket is constructed and no timer is armed (the process exits
//     by itself);
//   - VUE_TYPES: a DOM project using the composable (refs, a getter URL, options) compiles with
//     skipLibCheck off.

import { ssrProbe } from './check-package-ssr.mjs';

/** The SSR script of one format: no WebSocket, no timer, state 'idle'. */
export const VUE_SSR = (format) =>
  ssrProbe(
    format,
    {
      esm: "import { createSSRApp, defineComponent, h } from 'vue';\nimport { renderToString } from 'vue/server-renderer';\nimport { useResilientSocket } from 'resilient-socket/vue';",
      cjs: "const { createSSRApp, defineComponent, h } = require('vue');\nconst { renderToString } = require('vue/server-renderer');\nconst { useResilientSocket } = require('resilient-socket/vue');",
    },
    (verdict) => `const Feed = defineComponent({
  setup() {
    const { state, socket } = useResilientSocket(() => 'ws://127.0.0.1:9/feed', { maxDelay: 1000 });
    return () => h('p', state.value + ':' + (socket.value === null));
  },
});
renderToString(createSSRApp(Feed)).then((html) => {
${verdict.replace(/^/gm, '  ')}
});`,
  );

/** A DOM project that uses the composable, for tsc with skipLibCheck off. */
export const VUE_TYPES = `import { type Ref, computed, defineComponent, h, ref } from 'vue';
import { heartbeat } from 'resilient-socket/modular';
import { type LastMessage, type ResilientSocketRefs, useResilientSocket } from 'resilient-socket/vue';

export const Chat = defineComponent({
  props: { room: { type: String, default: null } },
  setup(props) {
    const token: Ref<string> = ref('t1');
    const refs: ResilientSocketRefs = useResilientSocket(
      () => (props.room ? \`wss://example.test/\${props.room}?token=\${token.value}\` : null),
      computed(() => ({
        maxDelay: 10_000,
        features: [heartbeat({ interval: 15_000 })],
        filter: (data: unknown) => typeof data === 'string',
        onDrop: ({ reason, messages }: { reason: string; messages: readonly unknown[] }) =>
          console.warn(reason, messages.length),
      })),
    );
    const last: LastMessage | null = refs.lastMessage.value;
    const json: unknown = refs.lastJsonMessage.value;
    const result: 'sent' | 'buffered' | 'dropped' = refs.sendJson({ hello: 'world' });
    return () =>
      h('p', { title: refs.socket.value?.state ?? 'none' }, \`\${refs.state.value} \${String(last?.data ?? json)} \${result}\`);
  },
});
`;
