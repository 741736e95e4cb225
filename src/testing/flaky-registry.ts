/**
 * What `until` and `waitFor` know about live FlakyServers, without loading mock-socket: the URLs
 * they answer on, and how many FlakyServer WebSockets were created for each. A socket that
 * connects to a FlakyServer's URL with another WebSocket class (the global one, or `ws`) never
 * reaches the server; with this, a timeout says so instead of blaming the timers.
 * @internal
 */
import { redactUrl } from '../redact.js';

/** One live FlakyServer. */
interface Entry {
  readonly url: string;
  /** Connection attempts that reached the server (any mock-socket WebSocket). */
  readonly attempts: () => number;
  /** FlakyServer WebSockets created for this URL since the server started. */
  sockets: number;
}

const live = /* @__PURE__ */ new Map<string, Entry>();

/** The URL as mock-socket and WebSocket compare it (`ws://a.test` and `ws://a.test/` are one). */
function normalise(url: string | URL): string {
  try {
    return new URL(url).href;
  } catch {
    return String(url);
  }
}

/** Called by a FlakyServer once it listens on `url`; returns the key to unregister with. */
export function registerFlakyServer(url: string, attempts: () => number): object {
  const entry: Entry = { url, attempts, sockets: 0 };
  live.set(normalise(url), entry);
  return entry;
}

/** Called by a FlakyServer when it stops (a later server on the same URL keeps its entry). */
export function unregisterFlakyServer(key: object): void {
  const entry = key as Entry;
  const name = normalise(entry.url);
  if (live.get(name) === entry) live.delete(name);
}

/** Called by every FlakyServer WebSocket as it is constructed. */
export function noteFlakySocket(url: string | URL): void {
  const entry = live.get(normalise(url));
  if (entry) entry.sockets += 1;
}

/**
 * How many FlakyServer WebSockets were created for the live FlakyServer at `url`; `undefined`
 * when no FlakyServer answers there.
 */
export function flakySocketsAt(url: string): number | undefined {
  return url === '' ? undefined : live.get(normalise(url))?.sockets;
}

/** Whether a FlakyServer answers at `url` and nothing has ever tried to connect to it. */
export function isUntouched(url: string): boolean {
  const entry = url === '' ? undefined : live.get(normalise(url));
  return entry !== undefined && entry.sockets === 0 && entry.attempts() === 0;
}

/**
 * Whether a live FlakyServer answers at `url`. mock-socket finds a server by the URL without its
 * query, so `server.url + '?token=1'` reaches it too.
 */
export function flakyServerAnswers(url: string): boolean {
  const target = withoutQuery(normalise(url));
  for (const name of live.keys()) if (withoutQuery(name) === target) return true;
  return false;
}

function withoutQuery(url: string): string {
  const question = url.indexOf('?');
  return question < 0 ? url : url.slice(0, question);
}

/**
 * The hint for a FlakyServer WebSocket that dialled a URL no FlakyServer answers at (a real
 * server's, a misspelt one, or a server that was stopped): what is wrong and the fix.
 */
export function noServerHint(url: string): string {
  return (
    `no FlakyServer answers at ${redactUrl(url)}: a FlakyServer's WebSocket class reaches only a live ` +
    "FlakyServer's URL (never a real server, nor a stopped FlakyServer). Connect to the server's own URL: " +
    'new ResilientSocket(server.url, { WebSocket: server.WebSocket })'
  );
}

/**
 * URLs of the live FlakyServers nothing has ever tried to connect to: no FlakyServer WebSocket
 * was created for them, and no attempt reached them.
 */
export function untouchedFlakyServers(): string[] {
  return [...live.values()].filter((entry) => isUntouched(entry.url)).map((entry) => entry.url);
}

/**
 * The hint for a socket that tried to reach a FlakyServer with some other WebSocket class: what
 * is wrong and the fix.
 */
export function bypassHint(url: string): string {
  return (
    `the socket connects to ${url}, a FlakyServer's URL, but not with that server's WebSocket class, ` +
    "so it can never reach the server. Create it with the server's class: " +
    'new ResilientSocket(server.url, { WebSocket: server.WebSocket })'
  );
}
