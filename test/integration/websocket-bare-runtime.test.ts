/**
 * `ResilientWebSocket` where the runtime has a `WebSocket` but none of the DOM's event classes,
 * as React Native: a fresh process without `EventTarget`, `Event`, `CustomEvent`, `MessageEvent`,
 * `CloseEvent`, `DOMException` and `reportError` (removed before anything loads), with a global
 * `WebSocket` (ws's, standing in for the platform's) and the browser entry. It must need no
 * polyfill: listeners and `on…` handlers work, events carry their payloads, the other events their
 * `detail`, bad arguments still throw errors named as a browser names them, and a throwing listener
 * is reported without ending the process.
 */
import { describe, expect, it } from 'vitest';
import { parseLines, runNodeChild } from '../helpers/node-child.js';

const GONE = ['EventTarget', 'Event', 'CustomEvent', 'MessageEvent', 'CloseEvent', 'DOMException', 'reportError'];
const STRIP = `data:text/javascript,${encodeURIComponent(
  `for (const name of ${JSON.stringify(GONE)}) delete globalThis[name];`,
)}`;

const SCRIPT = `
import { WebSocket, WebSocketServer } from 'ws';
import { ResilientWebSocket } from '#src/websocket.ts';

console.log('missing ' + ${JSON.stringify(GONE)}.filter((name) => !(name in globalThis)).length);
globalThis.WebSocket = WebSocket;
const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
await new Promise((resolve) => server.once('listening', resolve));
server.on('connection', (ws) => ws.on('message', (data) => (String(data) === 'bye' ? ws.close(4000, 'ok') : ws.send('echo:' + data))));
const names = [];
for (const bad of [() => new ResilientWebSocket('ftp://x'), () => new ResilientWebSocket('ws://x', 'a b')]) {
  try {
    bad();
  } catch (error) {
    names.push(error.name + ':' + /Failed to construct 'WebSocket'/.test(error.message));
  }
}
console.log('errors ' + JSON.stringify(names));
const seen = [];
const socket = new ResilientWebSocket('ws://127.0.0.1:' + server.address().port, [], { maxDelay: 50, maxRetries: 0 });
socket.addEventListener('state', (event) => seen.push('state:' + event.detail.current));
socket.addEventListener('message', () => {
  throw new Error('a listener that throws');
});
socket.onopen = (event) => {
  seen.push(event.type + ':' + (event.target === socket));
  socket.send('hi');
};
socket.onmessage = (event) => {
  seen.push('message:' + event.data);
  socket.send('bye');
};
socket.onclose = (event) => {
  seen.push('close:' + event.code + ':' + event.reason + ':' + event.wasClean);
  server.close();
  console.log('seen ' + JSON.stringify(seen));
};
`;

describe('ResilientWebSocket without the DOM event classes (React Native)', () => {
  it('works with no polyfill and reports a throwing listener without ending the process', async () => {
    const child = await runNodeChild(SCRIPT, 10_000, { execArgv: ['--import', STRIP] });
    expect(child.killed).toBe(false);
    expect(child.code).toBe(0);
    const lines = parseLines(child.stdout);
    expect(lines.get('missing')).toBe(String(GONE.length));
    expect(JSON.parse(lines.get('errors') ?? '[]')).toEqual(['SyntaxError:true', 'SyntaxError:true']);
    expect(JSON.parse(lines.get('seen') ?? '[]')).toEqual([
      'state:open',
      'open:true',
      'message:echo:hi',
      'state:closed',
      'close:4000:ok:true',
    ]);
    // Reported where the platform shows it (no reportError here), never thrown.
    expect(child.stderr).toContain('a listener that throws');
  });
});
