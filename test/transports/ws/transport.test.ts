/**
 * The ws transport (src/transports/ws/index.ts) on a server runtime where ws cannot be loaded: it
 * takes the runtime's global WebSocket, which cannot ping, so the default heartbeat watches
 * nothing. It says so once per process, in development, as a process warning (`RS_NO_PING`), when
 * the first such connection opens; not for a heartbeat the app configured (it works without pings),
 * nor for a WebSocket the app passed itself (a test double). mock-socket stands in for the global;
 * fake timers. The order of the tests matters: the warning is said once per process.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ResilientSocket } from '../../../src/node.js';
import type { Transport } from '../../../src/transports/transport.js';
import { wsTransport } from '../../../src/transports/ws/index.js';
import { PRODUCTION } from '../../helpers/mode.js';
import { advance, cleanup, MOCK_DELAY, startServer, WebSocketImpl } from '../../resilient-socket/helpers.js';

/** `ResilientSocket` of the Node entry, on a runtime where ws is not installed. */
class WithoutWs extends ResilientSocket {
  protected static override transport: Transport = { ...wsTransport, preferred_: () => undefined };
}

const made: ResilientSocket[] = [];
let warnings: { message: string; code: string | undefined }[];

beforeEach(() => {
  vi.useFakeTimers();
  vi.stubGlobal('WebSocket', WebSocketImpl);
  warnings = [];
  vi.spyOn(process, 'emitWarning').mockImplementation(((message: string, options?: { code?: string }) => {
    warnings.push({ message: String(message), code: options?.code });
  }) as typeof process.emitWarning);
});
afterEach(async () => {
  for (const socket of made.splice(0)) socket.close();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  await cleanup();
});

async function opened(options: Record<string, unknown> = {}): Promise<ResilientSocket> {
  const server = startServer();
  const socket = new WithoutWs(server.url, options);
  made.push(socket);
  await advance(MOCK_DELAY * 2);
  expect(socket.state).toBe('open');
  return socket;
}

const noPing = () => warnings.filter((w) => w.code === 'RS_NO_PING');

describe('the ws transport without ws', () => {
  it('says nothing for a heartbeat the app configured (application pings, or silence detection)', async () => {
    await opened({ heartbeat: { interval: 5_000 } });
    await opened({ heartbeat: { message: 'ping', isPong: (data: unknown) => data === 'pong' } });
    await opened({ heartbeat: false });
    expect(noPing()).toEqual([]);
  });

  it('says nothing for a WebSocket the app passed itself', async () => {
    class Double extends (WebSocketImpl as unknown as new (url: string) => object) {}
    await opened({ WebSocket: Double });
    expect(noPing()).toEqual([]);
  });

  it("says once, in development, that the default heartbeat cannot watch the runtime's WebSocket", async () => {
    await opened();
    await opened();
    if (PRODUCTION) {
      expect(noPing()).toEqual([]);
      return;
    }
    expect(noPing()).toHaveLength(1);
    expect(noPing()[0]?.message).toMatch(
      /cannot send pings.*Install ws \(npm install ws\).*heartbeat: \{ message, isPong \}/,
    );
  });
});
