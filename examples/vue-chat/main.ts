/**
 * `npm run example:vue-chat`: the chat of `examples/chat/` as a Vue 3 app, built on
 * `resilient-socket/vue`.
 *
 * It builds the library if needed (`dist/`), bundles `./app.ts` with esbuild in memory (Vue's
 * esm-bundler build, and `resilient-socket/vue` resolved to `dist/vue.js`, the browser build),
 * starts the chat server and the page on 127.0.0.1 and prints the URLs. PORT (default 8099) is the
 * page, WS_PORT (default PORT + 1) the chat server.
 *
 * Four components call `useResilientSocket(url, { …options… })` with the same URL and equal
 * options: a status badge (`state`), the online count (`lastJsonMessage`), the message list
 * (`onMessage`) and the composer (`sendJson`). They share one connection: the server logs one
 * `joined` per tab. A line typed while the server is down shows "queued" and is delivered once it
 * is back; "Leave" unmounts the components and the connection closes (`closeDelay`, 250 ms, after
 * the last one unmounts).
 *
 * Show recovery with the page's buttons or here: c + Enter crashes the chat server (it stays
 * down), r + Enter restarts it, q + Enter (or Ctrl-C) quits. Its Chromium test:
 * `test/browser/vue-chat.test.ts`.
 */

import { runChatExample } from '../lib/chat-main.js';
import { startVueChatServer } from './server.js';

await runChatExample({
  label: 'Vue chat',
  port: 8099,
  start: startVueChatServer,
  more: (server) => [
    ['Bundle', `${(server.bundleBytes / 1024).toFixed(0)} kB (Vue development build: its warnings on)`],
  ],
});
