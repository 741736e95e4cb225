// A ws server for the delivery benchmark, run in its own process, written from docs/guide/protocol.md
// alone (not with the package's server helper, so the benchmark measures the client). It listens
// on 127.0.0.1:0 and prints {"port":N} on stdout. Per connection:
// - {"rs":"hello",…} is taken and not counted;
// - {"rs":"msg","id":…} is counted once per id and acknowledged ({"rs":"ack","id":…}), unless the
//   connection's path is /silent (then nothing is acknowledged: messages stay pending);
// - "PING" is answered with "PONG" (the plain round trip the latency is compared with);
// - "END" is answered with "COUNT <n>", n counting plain messages and reliable ids alike, then
//   the count starts again; any other frame is a plain message and counted.
// It exits when its stdin closes.
import { WebSocketServer } from 'ws';

const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
wss.on('connection', (ws, request) => {
  const silent = request.url === '/silent';
  const seen = new Set();
  let count = 0;
  ws.on('message', (data, isBinary) => {
    if (isBinary) return void count++;
    const text = data.toString();
    if (text === 'END') {
      ws.send(`COUNT ${count}`);
      count = 0;
      return;
    }
    if (text === 'PING') return void ws.send('PONG');
    if (text.startsWith('{"rs":')) {
      const frame = JSON.parse(text);
      if (frame.rs === 'hello') return;
      if (frame.rs === 'msg') {
        if (!seen.has(frame.id)) {
          seen.add(frame.id);
          count++;
        }
        if (!silent) ws.send(JSON.stringify({ rs: 'ack', id: frame.id }));
        return;
      }
    }
    count++;
  });
  ws.on('error', () => undefined);
});
wss.on('listening', () => {
  process.stdout.write(`${JSON.stringify({ port: wss.address().port })}\n`);
});
process.stdin.on('end', () => {
  for (const client of wss.clients) client.terminate();
  wss.close(() => process.exit(0));
});
process.stdin.resume();
