// The checks of `resilient-socket/websocket` (ResilientWebSocket) that scripts/check-package.mjs
// runs on the installed tarball, kept here so that file stays readable:
//   - WEBSOCKET_ECHO: in Node, with ws installed and no WebSocket option, the class talks to a real
//     ws server on 127.0.0.1 (text and binary messages, real MessageEvent/CloseEvent payloads,
//     one `open`/`close` per connection across a server-side close, `close()` final) and the
//     process exits by itself;
//   - WEBSOCKET_CLASS_NAME: it is called `ResilientWebSocket` in every entry that exports it;
//   - checkWebSocketTypes: its declarations compile with `skipLibCheck: false` in a DOM project
//     (where it must be assignable to `typeof WebSocket`, the type of y-websocket's
//     `WebSocketPolyfill` and graphql-ws's `webSocketImpl`) and in a Node project without the DOM
//     lib.

/** `import { a } from 'x';` (esm) or `const { a } = require('x');` (cjs). */
const importName = (format, name, specifier) =>
  format === 'esm'
    ? `import { ${name} } from ${JSON.stringify(specifier)};`
    : `const { ${name} } = require(${JSON.stringify(specifier)});`;

/** The echo script of one format for `specifier`'s ResilientWebSocket (the Node entries find ws). */
export const WEBSOCKET_ECHO = (format, { className, specifier }) => `${importName(format, className, specifier)}
${importName(format, 'WebSocketServer', 'ws')}
const tag = '[${format}] ${className} from ${specifier}';
const failures = [];
const expect = (label, ok, seen) => { if (!ok) failures.push(label + ': ' + JSON.stringify(seen)); };
const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
let connections = 0;
server.on('connection', (ws) => {
  connections++;
  ws.on('message', (data, isBinary) => {
    if (String(data) === 'hang up') ws.close(4001, 'go away');
    else ws.send(isBinary ? data : 'echo:' + data, { binary: isBinary });
  });
});
server.on('listening', () => {
  const url = 'ws://127.0.0.1:' + server.address().port;
  expect('static constants', [${className}.CONNECTING, ${className}.OPEN, ${className}.CLOSING, ${className}.CLOSED].join() === '0,1,2,3', ${className}.OPEN);
  const socket = new ${className}(url, [], { maxDelay: 100, ceiling: 2 });
  expect('readyState before open', socket.readyState === socket.CONNECTING, socket.readyState);
  socket.binaryType = 'arraybuffer';
  socket.send('queued');
  const deadline = setTimeout(() => {
    console.error('FAIL ' + tag + ': not done within 5 s; readyState ' + socket.readyState + '; ' + failures.join('; '));
    process.exit(1);
  }, 5000);
  const opens = [];
  const closes = [];
  socket.onopen = (event) => {
    opens.push(event.type);
    expect('open is an Event', event instanceof Event, String(event));
    if (opens.length === 2) socket.send(new Uint8Array([1, 2, 3]));
  };
  socket.addEventListener('close', (event) => {
    closes.push([event.code, event.reason, event.wasClean]);
    if (closes.length === 2) {
      clearTimeout(deadline);
      expect('opens', opens.length === 2, opens);
      expect('closes', JSON.stringify(closes) === JSON.stringify([[4001, 'go away', true], [1000, 'bye', true]]), closes);
      expect('readyState after close()', socket.readyState === socket.CLOSED, socket.readyState);
      expect('one connection per open', connections === 2, connections);
      server.close();
      if (failures.length > 0) {
        console.error('FAIL ' + tag + ': ' + failures.join('; '));
        process.exitCode = 1;
      } else {
        console.log('OK   ' + tag + ': queued before open, text and binary echoed, close 4001 then reconnect, close() final; the process must now exit by itself');
      }
    }
  });
  socket.onmessage = (event) => {
    expect('a MessageEvent', event instanceof MessageEvent, String(event));
    if (event.data === 'echo:queued') socket.send('hang up');
    else if (event.data instanceof ArrayBuffer) {
      expect('binary data', new Uint8Array(event.data).join() === '1,2,3', new Uint8Array(event.data).join());
      socket.close(1000, 'bye');
    } else expect('unexpected message', false, event.data);
  };
});
`;

/**
 * Checks the `name`, `constructor.name`, util.inspect and `String()` of the class one entry exports
 * as `className` (no connection): they say `name` (BaseWebSocket for the core drop-in, which
 * resilient-socket/websocket exports as ResilientWebSocket too).
 */
export const WEBSOCKET_CLASS_NAME = (
  format,
  label,
  specifier,
  className,
  name = className,
) => `${importName(format, className, specifier)}
${importName(format, 'inspect', 'node:util')}
const socket = new ${className}('ws://127.0.0.1:9', [], { autoConnect: false, WebSocket: class {} });
const seen = { class: ${className}.name, constructor: socket.constructor.name, inspect: inspect(socket).slice(0, 30), string: String(${className}) };
if (seen.class === '${name}' && seen.constructor === '${name}' && /^${name} /.test(seen.inspect) && seen.string.startsWith('class ${name} {')) {
  console.log('OK   [${format}] ${label}: ${className}.name, constructor.name, util.inspect and String() say ${name}');
} else {
  console.error('FAIL [${format}] ${label}: ${className} is named ' + JSON.stringify(seen));
  process.exitCode = 1;
}
`;

const DOM_TYPES = `import { ResilientWebSocket } from 'resilient-socket';
import { ResilientWebSocket as Small } from 'resilient-socket/websocket';
// Where a library asks for a WebSocket constructor (y-websocket's WebSocketPolyfill, graphql-ws's webSocketImpl).
const polyfill: typeof WebSocket = ResilientWebSocket;
const small: typeof WebSocket = Small;
const socket: WebSocket = new Small('wss://example.test', ['v1'], { maxDelay: 1000 });
socket.onclose = (event: CloseEvent) => console.log(event.code, event.reason, event.wasClean);
socket.addEventListener('message', (event: MessageEvent) => console.log(event.data));
const full = new ResilientWebSocket('wss://example.test', undefined, { heartbeat: { interval: 1000 } });
// The events by name, as on a WebSocket, and the socket's own ones with their payload: no cast.
full.addEventListener('message', (event) => console.log(event.data));
full.addEventListener('close', (event) => console.log(event.code, event.reason, event.wasClean));
full.addEventListener('reconnecting', (event) => console.log(event.detail.delay));
full.addEventListener('reconnecting', (event: CustomEvent<{ delay: number }>) => console.log(event.detail.delay));
const retries: number = full.retryCount;
export { polyfill, small, retries };
`;

const NODE_TYPES = `import { ResilientWebSocket } from 'resilient-socket';
import { ResilientWebSocket as Small } from 'resilient-socket/websocket';
const socket = new ResilientWebSocket('ws://127.0.0.1:9', 'chat', { maxDelay: 1000 });
socket.onmessage = (event) => console.log(event.data);
socket.onclose = (event) => console.log(event.code, event.reason, event.wasClean);
socket.addEventListener('drop', (event) => console.log(event.type, event.detail.messages.length));
socket.addEventListener('message', (event) => console.log(event.data));
socket.addEventListener('close', (event) => console.log(event.code, event.wasClean));
const small = new Small('ws://127.0.0.1:9');
small.addEventListener('reconnecting', (event) => console.log(event.detail.delay));
small.binaryType = 'arraybuffer';
small.send(new Uint8Array(2));
const state: string = small.state;
export { socket, small, state };
`;

/**
 * Compiles a DOM project and a Node project (lib ES2022 with @types/node, no DOM) against the
 * installed package's declarations, skipLibCheck off. `install` installs packages in the consumer project; `run`
 * runs a command there.
 */
export function checkWebSocketTypes({ write, install, run, typescript, typesNode }) {
  install([`typescript@${typescript}`, `@types/node@${typesNode}`]);
  const base = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: false,
  };
  write('types-dom.mts', DOM_TYPES);
  write(
    'tsconfig.dom.json',
    JSON.stringify({ compilerOptions: { ...base, lib: ['ES2022', 'DOM'], types: [] }, files: ['types-dom.mts'] }),
  );
  write('types-node.mts', NODE_TYPES);
  write(
    'tsconfig.node.json',
    JSON.stringify({ compilerOptions: { ...base, lib: ['ES2022'], types: ['node'] }, files: ['types-node.mts'] }),
  );
  const tsc = ['node_modules/typescript/bin/tsc'];
  run(process.execPath, [...tsc, '-p', 'tsconfig.dom.json']);
  run(process.execPath, [...tsc, '-p', 'tsconfig.node.json']);
  return `lib DOM (assignable to typeof WebSocket) and lib ES2022 + @types/node compile with skipLibCheck: false (typescript ${typescript})`;
}
