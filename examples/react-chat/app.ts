/**
 * The React chat app (bundled by `./build.ts`): the chat of `examples/chat/`, written with
 * `useResilientSocket` under `<StrictMode>`. Four components each call the hook with the same URL
 * and their own copy of the options, built afresh on every render; the hook compares them by
 * value, so the page makes one connection, which all four share:
 *
 * - `StatusBadge` reads `state` (live / reconnecting / offline);
 * - `Presence` reads `lastMessage` (the `presence` frames: who is online);
 * - `MessageList` takes every frame in `onMessage` (none is missed, and it does not re-render for
 *   frames it ignores);
 * - `Composer` `send`s: a line typed while the server is down is queued by the socket (shown
 *   "queued"), sent when it is back ("sending…") and marked delivered when the server's broadcast
 *   of it comes back (no note).
 *
 * Each component's root element carries `data-state` (the state it rendered) and `data-last` (the
 * last frame it saw), and `<html data-mounts>` counts their mounts, so the browser test can check
 * that every one of them follows the socket, under StrictMode.
 * Written with `createElement` (no JSX), so the repository's tsconfig needs no JSX setting.
 * ?name=alice sets your name.
 */
import {
  createContext,
  type Dispatch,
  type FormEvent,
  createElement as h,
  StrictMode,
  useContext,
  useEffect,
  useReducer,
  useRef,
  useState,
} from 'react';
import { createRoot } from 'react-dom/client';
import { heartbeat } from 'resilient-socket/modular';
import { type UseResilientSocketOptions, useResilientSocket } from 'resilient-socket/react';

/** A chat line as the server broadcasts it (see `examples/chat/server.ts`). */
interface ChatMessage {
  readonly type: 'message';
  readonly id: string;
  readonly clientId: string | null;
  readonly from: string;
  readonly text: string;
}

type Frame =
  | ChatMessage
  | { readonly type: 'welcome'; readonly name: string; readonly history: readonly ChatMessage[] }
  | { readonly type: 'presence'; readonly online: number };

type Status = 'queued' | 'sending' | 'delivered' | 'dropped';

/** A line of the list: the server's `id` once it has been broadcast; `clientId` for our own lines. */
interface Line {
  readonly key: string;
  readonly id?: string;
  readonly clientId?: string;
  readonly from: string;
  readonly text: string;
  readonly status?: Status;
}

type Action =
  | { readonly type: 'said'; readonly clientId: string; readonly from: string; readonly text: string; status: Status }
  | { readonly type: 'received'; readonly message: ChatMessage }
  | { readonly type: 'opened' }
  | { readonly type: 'dropped'; readonly clientIds: readonly string[] };

const NOTES: Record<Status, string> = { queued: 'queued', sending: 'sending…', delivered: '', dropped: 'not sent' };

/** The list (pure: StrictMode calls it twice). A message shows once, though it may come live and again in a welcome's history. */
function lines(state: readonly Line[], action: Action): readonly Line[] {
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

/** What the components share besides the socket: its URL, and the list with its dispatch. */
const Room = createContext<{ url: string; lines: readonly Line[]; dispatch: Dispatch<Action> } | null>(null);

function useRoom() {
  const room = useContext(Room);
  if (!room) throw new Error('a chat component outside <Room.Provider>');
  return room;
}

/**
 * The socket's options, a new object (with a new heartbeat feature and a new `isPong` function)
 * on every call: the hook compares them by value, so every component calling this shares one socket.
 */
function socketOptions(hook: Pick<UseResilientSocketOptions, 'onMessage' | 'onDrop'> = {}): UseResilientSocketOptions {
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
    ...hook,
  };
}

function parse(data: unknown): Frame | undefined {
  try {
    return JSON.parse(String(data)) as Frame;
  } catch {
    return undefined;
  }
}

/** `type` (and the text of a chat line) of a frame, for the `data-last` attributes. */
function describe(data: unknown): string {
  const frame = parse(data);
  if (!frame) return 'junk';
  return frame.type === 'message' ? `message:${frame.text}` : frame.type;
}

/**
 * Counts the mounts of the chat components' effects on `<html data-mounts>`, for the browser test:
 * StrictMode mounts every effect twice in development, so the four components count 8, not 4.
 */
let mounts = 0;
function useMountCount(): void {
  useEffect(() => {
    mounts += 1;
    document.documentElement.dataset.mounts = String(mounts);
  }, []);
}

function StatusBadge() {
  useMountCount();
  const { url } = useRoom();
  const { state, lastMessage } = useResilientSocket(url, socketOptions());
  const badge =
    state === 'open' ? 'live' : state === 'connecting' || state === 'reconnecting' ? 'reconnecting' : 'offline';
  return h(
    'span',
    {
      id: 'badge',
      className: 'badge',
      'data-badge': badge,
      'data-state': state,
      'data-last': describe(lastMessage?.data),
    },
    badge,
  );
}

function Presence() {
  useMountCount();
  const { url } = useRoom();
  const { state, lastMessage } = useResilientSocket(url, socketOptions());
  const [online, setOnline] = useState<number | null>(null);
  useEffect(() => {
    const frame = parse(lastMessage?.data);
    if (frame?.type === 'presence') setOnline(frame.online);
  }, [lastMessage]);
  // Who is online is unknown while disconnected, until the next presence frame.
  useEffect(() => {
    if (state !== 'open') setOnline(null);
  }, [state]);
  const text = online === null ? '' : `${online} online`;
  return h(
    'span',
    { id: 'online', className: 'online', 'data-state': state, 'data-last': describe(lastMessage?.data) },
    text,
  );
}

function MessageList() {
  useMountCount();
  const { url, lines, dispatch } = useRoom();
  const [last, setLast] = useState('none');
  const { state } = useResilientSocket(
    url,
    socketOptions({
      onMessage: (message) => {
        setLast(describe(message.data));
        const frame = parse(message.data);
        if (frame?.type === 'message') dispatch({ type: 'received', message: frame });
        if (frame?.type === 'welcome') for (const old of frame.history) dispatch({ type: 'received', message: old });
      },
    }),
  );
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    if (lines.length > 0) list.current?.lastElementChild?.scrollIntoView({ block: 'nearest' });
  }, [lines]);
  return h(
    'ol',
    { id: 'messages', ref: list, className: 'messages', 'data-state': state, 'data-last': last },
    lines.map((line) =>
      h(
        'li',
        { key: line.key, 'data-id': line.id, 'data-status': line.status },
        h('span', { className: 'from' }, line.from),
        h('span', { className: 'text' }, line.text),
        h('span', { className: 'note' }, line.status ? NOTES[line.status] : ''),
      ),
    ),
  );
}

function Composer({ name }: { name: string }) {
  useMountCount();
  const { url, dispatch } = useRoom();
  const { state, lastMessage, send } = useResilientSocket(
    url,
    socketOptions({
      onDrop: ({ messages }) => {
        const clientIds = messages.map((data) => (parse(data) as { id?: string } | undefined)?.id ?? '');
        dispatch({ type: 'dropped', clientIds });
      },
    }),
  );
  const [me, setMe] = useState(name || 'me');
  const [text, setText] = useState('');
  useEffect(() => {
    const frame = parse(lastMessage?.data);
    if (frame?.type === 'welcome') setMe(frame.name);
  }, [lastMessage]);
  useEffect(() => {
    if (state === 'open') dispatch({ type: 'opened' });
  }, [state, dispatch]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const line = text.trim();
    if (!line) return;
    setText('');
    const clientId = crypto.randomUUID();
    const result = send(JSON.stringify({ type: 'say', id: clientId, text: line }));
    const status = result === 'sent' ? 'sending' : result === 'buffered' ? 'queued' : 'dropped';
    dispatch({ type: 'said', clientId, from: me, text: line, status });
  };
  return h(
    'form',
    {
      id: 'composer',
      className: 'composer',
      autoComplete: 'off',
      onSubmit: submit,
      'data-state': state,
      'data-last': describe(lastMessage?.data),
    },
    h('label', { id: 'me', htmlFor: 'text' }, me),
    h('input', {
      id: 'text',
      value: text,
      maxLength: 2_000,
      placeholder: 'Say something (it is queued while the server is down)',
      onChange: (event: { target: { value: string } }) => setText(event.target.value),
    }),
    h('button', { type: 'submit' }, 'Send'),
  );
}

function App({ wsUrl, name }: { wsUrl: string; name: string }) {
  const url = new URL(wsUrl);
  if (name) url.searchParams.set('name', name);
  const [list, dispatch] = useReducer(lines, []);
  const [joined, setJoined] = useState(true);
  const control = (action: 'crash' | 'restart') => () => void fetch(`/api/${action}`, { method: 'POST' });
  return h(
    Room.Provider,
    { value: { url: url.href, lines: list, dispatch } },
    h('header', null, h('h1', null, 'React chat'), joined && h(Presence), joined && h(StatusBadge)),
    joined
      ? [h(MessageList, { key: 'list' }), h(Composer, { key: 'composer', name })]
      : h('p', { id: 'left' }, 'You left the room (the connection is closed).'),
    h(
      'section',
      { className: 'controls' },
      'server: ',
      h('button', { id: 'crash', type: 'button', onClick: control('crash') }, 'Crash'),
      ' ',
      h('button', { id: 'restart', type: 'button', onClick: control('restart') }, 'Restart'),
      ' · you: ',
      h('button', { id: 'join-leave', type: 'button', onClick: () => setJoined(!joined) }, joined ? 'Leave' : 'Join'),
    ),
  );
}

const { wsUrl } = (await (await fetch('/config.json')).json()) as { wsUrl: string };
const name = new URLSearchParams(location.search).get('name')?.trim() ?? '';
const root = document.getElementById('root');
if (!root) throw new Error('no #root element');
createRoot(root).render(h(StrictMode, null, h(App, { wsUrl, name })));
