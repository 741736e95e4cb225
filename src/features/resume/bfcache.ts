/**
 * The back/forward cache, for `resume()`: a browser keeps a page it navigates away from, frozen,
 * to show it again at once on Back, unless something prevents it; an open WebSocket long did (and
 * still does in Firefox, and in Chrome before 149 or with the `BackForwardCacheForWebSocketsAllowed`
 * policy off), and where it no longer does the browser cuts the connection itself and the page
 * comes back to an `error` and a 1006. The advice of web.dev ("close open connections" in its
 * bfcache article) is to close on `pagehide` and connect again on `pageshow`; this does it for the
 * socket, without losing what waits to be sent.
 *
 * On `pagehide` (into the cache, or away for good: the same, the page is going) a socket that is
 * connected or trying to be:
 * - closes its connection politely: code 1001 (going away) where the WebSocket accepts it (`ws`),
 *   otherwise 1000 (a browser's WebSocket takes only 1000 and 3000–4999 from scripts), reason
 *   `'page hidden'`; an attempt still connecting is cut;
 * - waits in `reconnecting` with no timer (reason `'page hidden for the back/forward cache'`, or
 *   `'page hidden for good'`): no attempt, no delay drawn, the failure count unchanged (this close
 *   is no failure), the queue kept (`send()` buffers);
 * - tells it as a `close` with `willReconnect: true` (no `error`, no `reconnecting` event: no retry
 *   is scheduled).
 * The page's return starts an attempt at once, which flushes the queue once open: `pageshow` from
 * the cache (`'retrying now: page restored from the back/forward cache'`), or any other resume
 * signal (Chromium makes a restored page visible just before its `pageshow`: `'retrying now: page
 * visible'`); offline, it waits for the network. `reconnect()` ends the wait too, and `close()`
 * leaves nothing running. A `pageshow` that is no restore (`persisted: false`: a page loaded anew)
 * has no socket of the old page to resume.
 */
import { type Host, pauseRetry } from '../../core/feature.js';
import type { SocketState } from '../../core/states.js';
import type { WebSocketLike } from '../../transports/websocket-like.js';
import type { ResumeOptions } from './resume.js';
import type { ResumeSignal } from './signals.js';

/** The back/forward cache options of {@link ResumeOptions}. */
export interface BfcacheOptions {
  /**
   * Let the page into the browser's back/forward cache: on `pagehide` close the connection
   * politely (1000 `'page hidden'` from a browser's WebSocket, 1001 where the WebSocket accepts
   * it, as `ws` does), keep the queue and make no attempt while the page is away (state
   * `reconnecting` with no timer; a `close` with `willReconnect: true`, no `error`, no
   * `reconnecting` event, the failure count unchanged); when it is shown again (`pageshow` from the
   * cache) connect at once, with no backoff wait, and flush the queue. A `pagehide` of a page
   * unloaded for good closes politely too. `false`: the connection stays open through `pagehide`
   * (a browser that keeps no page with an open WebSocket in its cache then reloads it on Back; one
   * that cuts it restores the page to an `error` and a 1006, then a backoff wait).
   * @default true
   * @example
   * ```ts
   * resume({ bfcache: false }) // keep the connection open through pagehide
   * ```
   */
  bfcache?: boolean;
}

/** The close reason of a connection closed because the page was hidden. */
export const PAGE_HIDDEN = 'page hidden';

/** Sockets waiting for their page to be shown again (an entry only while they wait). */
const waiting = /* @__PURE__ */ new WeakSet<object>();

/** Closes `ws` politely for a page that goes away: 1001 where the WebSocket accepts it, else 1000 (1006: it refused both). */
function closeGoingAway(ws: WebSocketLike): number {
  for (const code of [1001, 1000]) {
    try {
      ws.close(code, PAGE_HIDDEN);
      return code;
    } catch {
      // a browser's WebSocket refuses 1001 from scripts: try 1000
    }
  }
  return 1006; // the retirement deadline cuts it
}

/** The page is going (`reason`: into the cache, or for good): let the connection go and wait. */
function hide(host: Host, reason: string): void {
  const state = host.state_;
  if (state === 'reconnecting') {
    waiting.add(host);
    // An async `shouldReconnect` deciding goes on (its deadline too): its verdict meets the hold.
    if (!host.deciding_) pauseRetry(host);
    return;
  }
  if (state !== 'open' && state !== 'connecting') return; // idle, closing, closed: nothing to let go
  waiting.add(host);
  const attempt = host.attempt_;
  let code: number | undefined;
  if (attempt?.socket?.readyState === 1) {
    host.endAttempt_(attempt, 'retire'); // its close handshake finishes in the background, bounded
    code = closeGoingAway(attempt.socket);
  } else if (attempt && host.endAttempt_(attempt, 'abort', PAGE_HIDDEN)) code = 1006;
  host.enter_('reconnecting', reason);
  if (code) host.emitClose_({ code, reason: PAGE_HIDDEN, wasClean: false });
}

/**
 * What `resume()`'s listener does first with a signal: `'pagehide'` is this file's (`enabled`:
 * the `bfcache` option), handled here (returns true); a resume signal ends the wait for the page
 * (and goes on to the listener, which retries now).
 */
export function pageSignal(host: Host, signal: ResumeSignal, reason: string, enabled: boolean): boolean {
  if (signal !== 'pagehide') {
    if (signal === 'resumed') waiting.delete(host);
    return false;
  }
  if (enabled) hide(host, reason);
  return true;
}

/** Whether the socket waits for its page to be shown again (no retry meanwhile: `resume()`'s `hold`). */
export function pageHidden(host: Host): boolean {
  return waiting.has(host);
}

/** Follows the state: an attempt started by other means (`reconnect()`), or the end, ends the wait. */
export function pageState(host: Host, next: SocketState): void {
  if (next !== 'reconnecting') waiting.delete(host);
}
