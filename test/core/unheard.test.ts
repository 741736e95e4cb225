/**
 * What nobody listens for is said once: a socket that gives up with no `giveup` or `error`
 * listener, or drops messages with no `drop` listener, warns (a process warning in Node,
 * `console.warn` where there is no `process`), once per socket and kind, naming the socket by its
 * redacted URL. Heard, it says nothing. These warnings are development diagnostics: a production
 * build says nothing, heard or not. On mock-socket under fake timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { warn } from '../../src/core/report.js';
import { BaseSocket } from '../../src/core/socket.js';
import { BaseWebSocket as ResilientWebSocket } from '../../src/websocket/resilient-websocket.js';
import { PRODUCTION } from '../helpers/mode.js';
import { advance, cleanup, MOCK_DELAY, startServer, uniqueUrl, WebSocketImpl } from '../resilient-socket/helpers.js';

const sockets: { close(): void }[] = [];
let warnings: { message: string; code: string | undefined }[] = [];

beforeEach(() => {
  vi.useFakeTimers();
  warnings = [];
  vi.spyOn(process, 'emitWarning').mockImplementation(((message: string, options?: { code?: string }) => {
    warnings.push({ message, code: options?.code });
  }) as typeof process.emitWarning);
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  await cleanup();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** A socket whose every attempt fails (nothing listens at its URL), giving up at the first failure. */
function doomed(options: Record<string, unknown> = {}, url = `${uniqueUrl()}/feed?token=s3cret`): BaseSocket {
  const socket = new BaseSocket(url, { WebSocket: WebSocketImpl, maxRetries: 0, ...options });
  sockets.push(socket);
  return socket;
}

describe('a give-up nobody hears', () => {
  it('is said once, as a process warning with the error code, naming the socket by its redacted URL', async () => {
    const socket = doomed();
    await advance(MOCK_DELAY * 3);
    expect(socket.state).toBe('closed');
    if (PRODUCTION) expect(warnings).toEqual([]);
    else {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.code).toBe('ERR_RS_RETRIES_EXHAUSTED');
      expect(warnings[0]?.message).toMatch(
        /^resilient-socket: the socket to ws:\/\/localhost:\d+\/feed\?token=\*\*\* gave up/,
      );
      expect(warnings[0]?.message).toContain('`giveup` or `error`');
      expect(warnings[0]?.message).not.toContain('s3cret');
    }

    socket.open(); // gives up again: not said again
    await advance(MOCK_DELAY * 3);
    expect(socket.state).toBe('closed');
    expect(warnings).toHaveLength(PRODUCTION ? 0 : 1);
  });

  it.each(['giveup', 'error'] as const)('is not said when a `%s` listener hears it', async (event) => {
    const socket = doomed({ autoConnect: false });
    socket.on(event, () => undefined);
    socket.open();
    await advance(MOCK_DELAY * 3);
    expect(socket.state).toBe('closed');
    expect(warnings).toEqual([]);
  });

  it('on the drop-in, an `onerror` handler hears it; without one it is said', async () => {
    const heard = new ResilientWebSocket(`${uniqueUrl()}/`, [], { WebSocket: WebSocketImpl, maxRetries: 0 });
    heard.onerror = () => undefined;
    const unheard = new ResilientWebSocket(`${uniqueUrl()}/`, [], { WebSocket: WebSocketImpl, maxRetries: 0 });
    sockets.push(heard, unheard);
    await advance(MOCK_DELAY * 3);
    expect([heard.readyState, unheard.readyState]).toEqual([3, 3]);
    if (PRODUCTION) expect(warnings).toEqual([]);
    else {
      expect(warnings.map((w) => w.code)).toEqual(['ERR_RS_RETRIES_EXHAUSTED']);
      expect(warnings[0]?.message).toContain(unheard.url);
    }
  });
});

describe('drops nobody hears', () => {
  it('are said once per socket, with the reason', async () => {
    const socket = doomed({ autoConnect: false });
    expect(socket.send('a', { buffer: false })).toBe('dropped');
    expect(socket.send('b', { buffer: false })).toBe('dropped');
    if (PRODUCTION) expect(warnings).toEqual([]);
    else {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.code).toBe('RS_UNHEARD_DROP');
      expect(warnings[0]?.message).toContain('dropped a message (not-connected)');
    }

    const other = doomed({ autoConnect: false });
    other.send('c');
    other.send('d');
    expect(other.bufferedCount).toBe(2);
    other.close(); // both queued messages dropped as `closed`
    expect(other.bufferedCount).toBe(0);
    if (PRODUCTION) expect(warnings).toEqual([]);
    else {
      expect(warnings).toHaveLength(2);
      expect(warnings[1]?.message).toContain('dropped 2 messages (closed)');
    }
  });

  it('are not said when a `drop` listener hears them', async () => {
    const socket = doomed({ autoConnect: false });
    const drops: unknown[] = [];
    socket.on('drop', (drop) => drops.push(drop));
    socket.send('a', { buffer: false });
    socket.close();
    expect(drops).toHaveLength(1);
    expect(warnings).toEqual([]);
  });

  it('a connected socket that never drops says nothing', async () => {
    const server = startServer();
    const socket = new BaseSocket(server.url, { WebSocket: WebSocketImpl });
    sockets.push(socket);
    await advance(MOCK_DELAY * 2);
    expect(socket.send('hello')).toBe('sent');
    socket.close();
    await advance(MOCK_DELAY * 2);
    expect(warnings).toEqual([]);
  });
});

describe('warn()', () => {
  it('uses console.warn where there is no process.emitWarning (browsers)', () => {
    const emitWarning = process.emitWarning;
    const consoleWarn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      (process as { emitWarning?: unknown }).emitWarning = undefined;
      warn('RS_UNHEARD_DROP', 'resilient-socket: the socket dropped a message');
    } finally {
      process.emitWarning = emitWarning;
    }
    expect(consoleWarn).toHaveBeenCalledWith('resilient-socket: the socket dropped a message (RS_UNHEARD_DROP)');
  });
});
