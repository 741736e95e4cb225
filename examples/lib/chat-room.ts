/**
 * The framework-free part of the framework chat apps (`examples/react-chat/app.ts`,
 * `examples/vue-chat/app.ts`), bundled into each: the frames of the chat protocol, the socket's
 * options, and the list of chat lines with the way a line of ours goes from "queued" to
 * "sending…" to delivered (no note), or "not sent".
 *
 * The list is changed by a pure function ({@link chatLines}: a React reducer, and what the Vue app
 * applies to its ref): a message shows once, though it may come live and again in a welcome's
 * history.
 */
import type { BaseSocketOptions, SendResult } from 'resilient-socket/modular';
import { heartbeat } from 'resilient-socket/modular';
import type { ChatMessage } from '../chat/server.js';

export type { ChatMessage };

/** A frame from the chat server (see `examples/chat/server.ts`). */
export type Frame =
  | ChatMessage
  | { readonly type: 'welcome'; readonly name: string; readonly history: readonly ChatMessage[] }
  | { readonly type: 'presence'; readonly online: number };

export type Status = 'queued' | 'sending' | 'delivered' | 'dropped';

/** A line of the list: the server's `id` once it has been broadcast; `clientId` for our own lines. */
export interface Line {
  readonly key: string;
  readonly id?: string;
  readonly clientId?: string;
  readonly from: string;
  readonly text: string;
  readonly status?: Status;
}

/** What changes the list. */
export type ChatAction =
  | { readonly type: 'said'; readonly clientId: string; readonly from: string; readonly text: string; status: Status }
  | { readonly type: 'received'; readonly message: ChatMessage }
  | { readonly type: 'opened' }
  | { readonly type: 'dropped'; readonly clientIds: readonly string[] };

/** The note a line of ours shows for its status. */
export const NOTES: Record<Status, string> = {
  queued: 'queued',
  sending: 'sending…',
  delivered: '',
  dropped: 'not sent',
};

/** The list after `action` (pure: React's StrictMode calls it twice). A message shows once. */
export function chatLines(state: readonly Line[], action: ChatAction): readonly Line[] {
  switch (action.type) {
    case 'said': {
      const { clientId, from, text, status } = action;
      return [...state, { key: clientId, clientId, from, text, status }];
    }
    case 'received': {
      const { message } = action;
      if (state.some((line) => line.id === message.id)) return state;
      const own = state.findIndex((line) => line.clientId !== undefined && line.clientId === message.clientId);
      if (own < 0) return [...state, { key: message.id, id: message.id, from: message.from, text: message.text }];
      return state.map((line, i) => (i === own ? { ...line, id: message.id, status: 'delivered' } : line));
    }
    case 'opened': // the socket flushes its queue before it reports `open`: queued lines are on their way
      return state.map((line) => (line.status === 'queued' ? { ...line, status: 'sending' } : line));
    case 'dropped':
      return state.map((line) =>
        line.clientId !== undefined && action.clientIds.includes(line.clientId) ? { ...line, status: 'dropped' } : line,
      );
  }
}

/**
 * The socket's options, a new object (with a new heartbeat feature and a new `isPong` function)
 * on every call: the hook and the composable compare options by value, so every component that
 * calls this shares one socket.
 */
export function chatSocketOptions() {
  return {
    maxDelay: 2_000,
    ceiling: 5,
    stableAfter: 2_000,
    // Browsers have no ping API: an application-level ping every 10 s, answered by the server.
    features: [
      heartbeat({
        interval: 10_000,
        timeout: 5_000,
        message: '{"type":"ping"}',
        isPong: (data) => data === '{"type":"pong"}',
      }),
    ],
  } satisfies BaseSocketOptions;
}

export function parseFrame(data: unknown): Frame | undefined {
  try {
    return JSON.parse(String(data)) as Frame;
  } catch {
    return undefined;
  }
}

/** `type` (and the text of a chat line) of a frame, for the `data-last` attributes; `junk` if none. */
export function describeFrame(frame: Frame | undefined): string {
  if (!frame) return 'junk';
  return frame.type === 'message' ? `message:${frame.text}` : frame.type;
}

/** The chat messages a frame carries: a broadcast line, or a welcome's history. */
export function messagesOf(frame: Frame | undefined): readonly ChatMessage[] {
  if (frame?.type === 'message') return [frame];
  if (frame?.type === 'welcome') return frame.history;
  return [];
}

/** The client ids of the `say` frames the socket dropped (`onDrop`'s `messages`). */
export function droppedIds(messages: readonly unknown[]): string[] {
  return messages.map((data) => (parseFrame(data) as { id?: string } | undefined)?.id ?? '');
}

/** The badge for a socket state. */
export function badgeOf(state: string): 'live' | 'reconnecting' | 'offline' {
  if (state === 'open') return 'live';
  return state === 'connecting' || state === 'reconnecting' ? 'reconnecting' : 'offline';
}

/**
 * Sends a typed line as a `say` frame with a new client id, through `sendJson`; the action that
 * adds it to the list (queued, sending or not sent, from what the socket did with it), or
 * undefined for a blank line (nothing sent).
 */
export function say(
  typed: string,
  from: string,
  sendJson: (frame: { type: 'say'; id: string; text: string }) => SendResult,
): ChatAction | undefined {
  const text = typed.trim();
  if (!text) return undefined;
  const clientId = crypto.randomUUID();
  const result = sendJson({ type: 'say', id: clientId, text });
  const status = result === 'sent' ? 'sending' : result === 'buffered' ? 'queued' : 'dropped';
  return { type: 'said', clientId, from, text, status };
}

/** The page's buttons for the chat server's outage controls (`POST /api/crash`, `/api/restart`). */
export function serverControl(action: 'crash' | 'restart'): () => void {
  return () => void fetch(`/api/${action}`, { method: 'POST' });
}

let mounts = 0;
/**
 * Counts one mount of a chat component on `<html data-mounts>`, for the browser tests (React's
 * StrictMode mounts every effect twice in development, so its four components count 8).
 */
export function countMount(): void {
  mounts += 1;
  document.documentElement.dataset.mounts = String(mounts);
}

/** The chat server's URL (from the page's `/config.json`) with `?name=` set, and the name (`?name=` of the page). */
export async function chatRoom(): Promise<{ url: string; name: string }> {
  const { wsUrl } = (await (await fetch('/config.json')).json()) as { wsUrl: string };
  const name = new URLSearchParams(location.search).get('name')?.trim() ?? '';
  const url = new URL(wsUrl);
  if (name) url.searchParams.set('name', name);
  return { url: url.href, name };
}
