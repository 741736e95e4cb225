/**
 * The React chat example's server: the chat server of `examples/chat/` and a page server for the
 * bundled React app (`./page/index.html`, `/app.js` from `./build.ts`), on 127.0.0.1; see
 * `../lib/bundled-chat-server.ts` for its routes and what it counts (`joins`, `leaves`: one
 * shared connection or several).
 */
import { fileURLToPath } from 'node:url';
import { type BundledChatServer, startBundledChatServer } from '../lib/bundled-chat-server.js';
import { bundleApp } from './build.js';

export type ReactChatServer = BundledChatServer;

export interface ReactChatServerOptions {
  /** Port of the React page. @default 0 (a free port) */
  readonly port?: number;
  /** Port of the chat server. @default 0 (a free port) */
  readonly wsPort?: number;
  /** Messages sent to a client when it joins. @default 50 */
  readonly history?: number;
  /** Called with a line for every notable event. */
  readonly log?: (line: string) => void;
}

const PAGE = fileURLToPath(new URL('./page/', import.meta.url));

/** Bundles the app (once per process), then starts the chat server and the page server on 127.0.0.1. */
export function startReactChatServer(options: ReactChatServerOptions = {}): Promise<ReactChatServer> {
  return startBundledChatServer({ ...options, page: PAGE, bundle: bundleApp });
}
