// A ws server for benchmarks, run in its own process (so it does not compete with the clients
// for the benchmark's event loop). It listens on 127.0.0.1:0, prints {"port":N} on stdout, counts
// the messages each connection sends, and answers the text message "END" with "COUNT <n>"
// (then resets that connection's count). It exits when its stdin closes.
import { WebSocketServer } from 'ws';

const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
wss.on('connection', (ws) => {
  let count = 0;
  ws.on('message', (data, isBinary) => {
    if (!isBinary && data.length === 3 && data.toString() === 'END') {
      ws.send(`COUNT ${count}`);
      count = 0;
      return;
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
