/**
 * `npm run example:chat`: builds the library if needed, starts the chat server and the page on
 * 127.0.0.1 and prints the URLs. PORT (default 8090) is the page, WS_PORT (default PORT + 1) the
 * chat server. Show recovery with the page's buttons or here: c + Enter crashes the chat server
 * (it stays down), r + Enter restarts it, q + Enter (or Ctrl-C) quits.
 */

import { runChatExample } from '../lib/chat-main.js';
import { startChatServer } from './server.js';

await runChatExample({
  label: 'Chat page',
  port: 8090,
  start: startChatServer,
});
