// The checks of `resilient-socket/react` that scripts/check-package.mjs runs on the installed
// tarball (react and react-dom installed in the consumer project first, as an app has them):
//   - REACT_SSR: `renderToString` of a component using the hook, ESM and CJS: the HTML says
//     'idle', no WebSocket is constructed and no timer is armed (the process exits by itself);
//   - REACT_TYPES: a DOM project using the hook compiles with skipLibCheck off.

import { ssrProbe } from './check-package-ssr.mjs';

/** The SSR script of one format: no WebSocket, no timer, state 'idle'. */
export const REACT_SSR = (format) =>
  ssrProbe(
    format,
    {
      esm: "import { createElement } from 'react';\nimport { renderToString } from 'react-dom/server';\nimport { useResilientSocket } from 'resilient-socket/react';",
      cjs: "const { createElement } = require('react');\nconst { renderToString } = require('react-dom/server');\nconst { useResilientSocket } = require('resilient-socket/react');",
    },
    (verdict) => `function Feed() {
  const { state, socket } = useResilientSocket('ws://127.0.0.1:9/feed', { maxDelay: 1000 });
  return createElement('p', null, state + ':' + (socket === null));
}
const html = renderToString(createElement(Feed));
${verdict}`,
  );

/** A DOM project that uses the hook (no JSX: createElement), for tsc with skipLibCheck off. */
export const REACT_TYPES = `import { createElement } from 'react';
import { heartbeat } from 'resilient-socket/modular';
import { type LastMessage, useResilientSocket } from 'resilient-socket/react';

export function Chat({ room }: { room: string | null }) {
  const { socket, state, lastMessage, send } = useResilientSocket(room && \`wss://example.test/\${room}\`, {
    maxDelay: 10_000,
    features: [heartbeat({ interval: 15_000 })],
    onDrop: ({ reason, messages }) => console.warn(reason, messages.length),
  });
  const last: LastMessage | null = lastMessage;
  const result: 'sent' | 'buffered' | 'dropped' = send('hello');
  return createElement('p', { title: socket?.state ?? 'none' }, \`\${state} \${String(last?.data ?? '')} \${result}\`);
}
`;
