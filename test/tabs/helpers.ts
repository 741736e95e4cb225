/**
 * What the `SharedSocket` suites share: sockets in fake tabs (`../helpers/fake-tabs.ts`) on
 * mock-socket, under fake timers, each closed after its test.
 */
import { afterEach, beforeEach, vi } from 'vitest';
import { SharedSocket, type SharedSocketOptions } from '../../src/tabs/shared-socket.js';
import type { FakeTab } from '../helpers/fake-tabs.js';
import { cleanup, type TestServer, WebSocketImpl } from '../resilient-socket/helpers.js';

/** Makes a SharedSocket in a tab, to a server (or a URL). */
export type Share = (tab: FakeTab, to: TestServer | string, options?: SharedSocketOptions) => SharedSocket;

/**
 * Registers the hooks of the calling file (or `describe`): fake timers before each test; after
 * it, every socket made through the returned function closed, and mock-socket cleaned up.
 */
export function useSharedSockets(): Share {
  const made: SharedSocket[] = [];
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(async () => {
    for (const socket of made.splice(0)) socket.close();
    await cleanup();
  });
  return (tab, to, options = {}) => {
    const socket = new SharedSocket(typeof to === 'string' ? to : to.url, {
      WebSocket: WebSocketImpl,
      locks: tab.locks as never,
      BroadcastChannel: tab.BroadcastChannel as never,
      ...options,
    });
    made.push(socket);
    return socket;
  };
}
