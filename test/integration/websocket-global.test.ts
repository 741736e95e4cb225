/**
 * `ResilientWebSocket` over the runtime's own global `WebSocket` (undici's, as in Node ≥ 22; Node
 * 20 has it behind `--experimental-websocket`, and has no global `CloseEvent`), in a fresh process
 * where `ws` is not installed, against a real ws server on 127.0.0.1: the Node entry uses the
 * global (it prefers ws, which can ping, only when it can load it), messages
 * arrive as `MessageEvent`s with Blob or ArrayBuffer data per `binaryType` (kept across a
 * reconnect), close events carry the code, reason and `wasClean`, `close()` is final, and the
 * process exits by itself.
 */
import { describe, expect, it } from 'vitest';
import { parseLines, runNodeChild } from '../helpers/node-child.js';

const SCRIPT = `
import { WebSocketServer } from 'ws';
import { ResilientWebSocket } from '#src/websocket-node.ts';

const Native = globalThis.WebSocket;
let made = 0;
// Counts the sockets the runtime's own WebSocket makes (the Node entry must pick the global: no ws here).
globalThis.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    made++;
  }
};
const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
await new Promise((resolve) => server.once('listening', resolve));
let connections = 0;
server.on('connection', (ws) => {
  connections++;
  ws.on('message', (data, isBinary) => {
    if (String(data) === 'hang up') ws.close(4001, 'go away');
    else ws.send(data, { binary: isBinary });
  });
});
const seen = [];
const socket = new ResilientWebSocket('ws://127.0.0.1:' + server.address().port, [], { maxDelay: 50, ceiling: 2 });
socket.onopen = () => {
  seen.push('open');
  socket.send(new Uint8Array([1, 2, 3]));
};
socket.onmessage = async (event) => {
  const data = event.data;
  const kind = data instanceof Blob ? 'Blob' : data instanceof ArrayBuffer ? 'ArrayBuffer' : typeof data;
  const bytes = new Uint8Array(kind === 'Blob' ? await data.arrayBuffer() : data).join('.');
  seen.push('message:' + (event instanceof MessageEvent) + ':' + kind + ':' + bytes);
  if (socket.binaryType === 'blob') {
    socket.binaryType = 'arraybuffer';
    socket.send('hang up');
  } else {
    socket.close(1000, 'done');
  }
};
socket.onclose = (event) => {
  seen.push('close:' + event.code + ':' + event.reason + ':' + event.wasClean + ':' + socket.readyState);
  if (socket.readyState === socket.CLOSED) {
    server.close();
    console.log('seen ' + JSON.stringify(seen));
    console.log('made ' + made);
    console.log('connections ' + connections);
  }
};
`;

describe('ResilientWebSocket over the global WebSocket (undici)', () => {
  it('uses it, delivers Blob then ArrayBuffer across a reconnect, closes for good, and the process exits', async () => {
    const child = await runNodeChild(SCRIPT, 10_000, {
      execArgv: ['--experimental-websocket', '--no-warnings'],
      withoutWs: true,
    });
    expect(child.stderr).toBe('');
    expect(child.killed).toBe(false);
    expect(child.code).toBe(0);
    const lines = parseLines(child.stdout);
    expect(JSON.parse(lines.get('seen') ?? '[]')).toEqual([
      'open',
      'message:true:Blob:1.2.3',
      'close:4001:go away:true:0',
      'open',
      'message:true:ArrayBuffer:1.2.3',
      'close:1000:done:true:3',
    ]);
    expect(lines.get('made')).toBe('2');
    expect(lines.get('connections')).toBe('2');
  });
});
