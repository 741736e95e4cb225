/**
 * The servers the runtime smoke app talks to, hosted by the driver (Node, ws) on 127.0.0.1 and
 * free ports, so that an app without ws still has them:
 *
 * - `echo`: echoes text and binary; `restart:MS` drops every connection (no close frame) and stops
 *   listening for MS ms, then listens again on the same port; `close:CODE:REASON` closes that
 *   connection with the code and reason;
 * - `silent`: accepts, then reads nothing more (a ping is never answered: a host that vanished),
 *   and resets the connection 2 s later (the host is back): a runtime's own WebSocket has no way
 *   to cut a connection whose closing handshake is never answered (no `terminate()`), so without
 *   ws a closed socket's TCP connection would otherwise outlive the app;
 * - `reliable`: a `ReliableServer` that answers each reliable message with `{ got: data }`, reliably;
 * - `refused`: a port nothing listens on.
 */
import { createServer, type Server as NetServer } from 'node:net';
import { WebSocketServer } from 'ws';
import { ReliableServer } from '../../src/server/index.js';

export interface SmokeServers {
  readonly urls: { echo: string; silent: string; reliable: string; refused: string };
  stop(): Promise<void>;
}

const listening = (wss: WebSocketServer): Promise<number> =>
  new Promise((resolve, reject) => {
    wss.once('listening', () => resolve((wss.address() as { port: number }).port));
    wss.once('error', reject);
  });

const closing = (wss: WebSocketServer): Promise<void> =>
  new Promise((resolve) => {
    for (const client of wss.clients) client.terminate();
    wss.close(() => resolve());
  });

/** A port free now (listened on, then closed). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe: NetServer = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export async function startSmokeServers(): Promise<SmokeServers> {
  const host = '127.0.0.1';
  let echo = new WebSocketServer({ host, port: 0 });
  const echoPort = await listening(echo);
  let stopped = false;
  const restarts = new Set<NodeJS.Timeout>();
  const serveEcho = (wss: WebSocketServer): void => {
    wss.on('connection', (ws) => {
      ws.on('message', (data, isBinary) => {
        const text = isBinary ? '' : String(data);
        if (text.startsWith('restart:')) {
          const down = Number(text.slice('restart:'.length));
          void closing(wss).then(() => {
            const timer = setTimeout(() => {
              restarts.delete(timer);
              if (stopped) return;
              echo = new WebSocketServer({ host, port: echoPort });
              serveEcho(echo);
            }, down);
            restarts.add(timer);
          });
        } else if (text.startsWith('close:')) {
          const [, code, reason] = text.split(':');
          ws.close(Number(code), reason);
        } else ws.send(data, { binary: isBinary });
      });
    });
  };
  serveEcho(echo);

  const silent = new WebSocketServer({ host, port: 0 });
  const silentPort = await listening(silent);
  const resets = new Set<NodeJS.Timeout>();
  silent.on('connection', (ws) => {
    (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const timer = setTimeout(() => {
      resets.delete(timer);
      ws.terminate();
    }, 2_000);
    resets.add(timer);
  });

  const reliableWss = new WebSocketServer({ host, port: 0 });
  const reliablePort = await listening(reliableWss);
  const reliable = new ReliableServer(reliableWss);
  reliable.on('message', (data, session) => {
    reliable.send(session, { got: data }).catch(() => undefined);
  });
  reliable.on('error', () => undefined);

  return {
    urls: {
      echo: `ws://${host}:${echoPort}/`,
      silent: `ws://${host}:${silentPort}/`,
      reliable: `ws://${host}:${reliablePort}/`,
      refused: `ws://${host}:${await freePort()}/`,
    },
    async stop() {
      stopped = true;
      for (const timer of [...restarts, ...resets]) clearTimeout(timer);
      reliable.close();
      await Promise.all([closing(echo), closing(silent), closing(reliableWss)]);
    },
  };
}
