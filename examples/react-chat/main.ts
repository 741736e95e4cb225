/**
 * `npm run example:react-chat`: the chat of `examples/chat/` as a React app, built on
 * `resilient-socket/react`.
 *
 * It builds the library if needed (`dist/`), bundles `./app.ts` with esbuild in memory (React,
 * react-dom, and `resilient-socket/react` resolved to `dist/react.js`, the browser build), starts
 * the chat server and the page on 127.0.0.1 and prints the URLs. PORT (default 8095) is the page,
 * WS_PORT (default PORT + 1) the chat server.
 *
 * The page renders under `<StrictMode>`, and four components call
 * `useResilientSocket(url, { …options… })` with the same URL and equal options: a status badge
 * (`state`), the online count (`lastMessage`), the message list (`onMessage`) and the composer
 * (`send`). They share one connection: StrictMode's extra mount does not open a second one, and
 * the server logs one `joined` per tab. A line typed while the server is down shows "queued" and is
 * delivered once it is back; "Leave" unmounts the components and the connection closes
 * (`closeDelay`, 250 ms, after the last one unmounts).
 *
 * Show recovery with the page's buttons or here: c + Enter crashes the chat server (it stays
 * down), r + Enter restarts it, q + Enter (or Ctrl-C) quits. Its Chromium test:
 * `test/browser/react-chat.test.ts`.
 */

import { runChatExample } from '../lib/chat-main.js';
import { startReactChatServer } from './server.js';

await runChatExample({
  label: 'React chat',
  port: 8095,
  start: startReactChatServer,
  more: (server) => [
    ['Bundle', `${(server.bundleBytes / 1024).toFixed(0)} kB (React development build: StrictMode checks on)`],
  ],
});
