import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A running count server (bench/lib/count-server.mjs) in a child process. */
export interface CountServer {
  readonly port: number;
  readonly url: string;
  /** Ends the child (closes its stdin) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts the count server (or another server script of this folder that prints `{"port":N}` and
 * exits when its stdin closes, e.g. `ack-server.mjs`) in a child Node process and resolves once it
 * listens.
 */
export function startCountServer(file = 'count-server.mjs'): Promise<CountServer> {
  const script = fileURLToPath(new URL(`./${file}`, import.meta.url));
  const child: ChildProcess = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split('\n')[0];
      if (!buffer.includes('\n') || line === undefined) return;
      child.stdout?.off('data', onData);
      const { port } = JSON.parse(line) as { port: number };
      resolve({
        port,
        url: `ws://127.0.0.1:${port}`,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.stdin?.end();
          }),
      });
    };
    child.stdout?.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`count server exited early (${code})`)));
  });
}

/** The count in the server's answer to "END" (`COUNT <n>`); `undefined` for any other message. */
function parseCount(data: unknown): number | undefined {
  const text = String(data);
  return text.startsWith('COUNT ') ? Number(text.slice(6)) : undefined;
}

/** A client whose `message` events carry the data (ws and ResilientSocket alike). */
export interface MessageSource {
  // biome-ignore lint/suspicious/noExplicitAny: ws and ResilientSocket type their listeners differently.
  on(event: 'message', listener: (data: any) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  off(event: 'message', listener: (data: any) => void): unknown;
}

/** Resolves with the count of the next `COUNT <n>` message of `client`, then stops listening. */
export function awaitCount(client: MessageSource): Promise<number> {
  return new Promise((resolve) => {
    const listener = (data: unknown): void => {
      const count = parseCount(data);
      if (count === undefined) return;
      client.off('message', listener);
      resolve(count);
    };
    client.on('message', listener);
  });
}
