/**
 * The Vue chat example's server: the chat server of `examples/chat/` and a page server for the
 * bundled Vue app (`./page/index.html`, `/app.js` from `./build.ts`), on 127.0.0.1; see
 * `../lib/bundled-chat-server.ts` for its routes and what it counts (`joins`, `leaves`).
 */
import { fileURLToPath } from 'node:url';
import {
  type BundledChatServer,
  type ChatAppServerOptions,
  startBundledChatServer,
} from '../lib/bundled-chat-server.js';
import { bundleVueChat } from './build.js';

export type VueChatServer = BundledChatServer;
export type VueChatServerOptions = ChatAppServerOptions;

const PAGE = fileURLToPath(new URL('./page/', import.meta.url));

/** Bundles the app (once per process), then starts the chat server and the page server on 127.0.0.1. */
export function startVueChatServer(options: VueChatServerOptions = {}): Promise<VueChatServer> {
  return startBundledChatServer({ ...options, page: PAGE, bundle: bundleVueChat });
}
