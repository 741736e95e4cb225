/**
 * The test-kit example of docs/guide/testing.md, verbatim apart from the imports (the package's own sources
 * here), so the documentation cannot drift from what works.
 */
import { expect, it, vi } from 'vitest';
import { ResilientSocket } from '../../src/node.js';
import { FlakyServer, until, waitFor } from '../../src/testing/index.js';

it('re-subscribes after the server drops the connection', async () => {
  vi.useFakeTimers();
  const time = { advance: vi.advanceTimersByTimeAsync };
  const server = new FlakyServer();
  const socket = new ResilientSocket(server.url, { WebSocket: server.WebSocket });
  socket.on('open', () => socket.send('subscribe prices'));
  await until(socket, 'open', time);

  server.down();
  await until(socket, 'reconnecting', time);
  server.up();
  await until(socket, 'open', time);

  await waitFor(() => server.received.length === 2, time);
  expect(server.received).toEqual(['subscribe prices', 'subscribe prices']);
  socket.close();
  server.stop();
  vi.useRealTimers();
});
