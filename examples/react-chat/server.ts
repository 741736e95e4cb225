/**
 * The React chat example's server: the chat server of `examples/chat/` and a page server for the
 * bundled React app (`./page/index.html`, `/app.js` from `./build.ts`), on 127.0.0.1; see
 * `../lib/bundled-chat-server.ts` for its routes and what it counts (`joins`, `leaves`: one
 * shared connection or several).
 */
import { fileURLToPath } from 'node:url';
import {
  type BundledChatServer,
  type ChatAppServerOptions,
  startBundledChatServer,
} from '../lib/bundled-chat-server.js';
import { bundleReactChat } from './build.js';

export type ReactChatServer = BundledChatServer;
export type ReactChatServerOptions = ChatAppServerOptions;

const PAGE = fileURLToPath(new URL('./page/', import.meta.url));

/** Bundles the app (once per process), then starts the chat server and the page server on 127.0.0.1. */
export function startReactChatServer(options: ReactChatServerOptions = {}): Promise<ReactChatServer> {
  return startBundledChatServer({ ...options, page: PAGE, bundle: bundleReactChat });
}
