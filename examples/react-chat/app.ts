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
 * ?name=alice sets your name. What is not React (the frames, the socket's options, the list of
 * lines and how a line of ours moves along) is `../lib/chat-room.ts`, shared with the Vue chat.
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
import { useResilientSocket } from 'resilient-socket/react';
import {
  badgeOf,
  type ChatAction,
  chatLines,
  chatRoom,
  chatSocketOptions,
  countMount,
  describeFrame,
  droppedIds,
  type Line,
  messagesOf,
  NOTES,
  parseFrame,
  say,
  serverControl,
} from '../lib/chat-room.js';

/** What the components share besides the socket: its URL, and the list with its dispatch. */
const Room = createContext<{ url: string; lines: readonly Line[]; dispatch: Dispatch<ChatAction> } | null>(null);

function useRoom() {
  const room = useContext(Room);
  if (!room) throw new Error('a chat component outside <Room.Provider>');
  return room;
}

/** The `data-last` attribute for a frame's data (`junk` for none). */
const describe = (data: unknown): string => describeFrame(parseFrame(data));

/** Counts the mounts of the chat components' effects (StrictMode mounts each twice in development). */
function useMountCount(): void {
  useEffect(countMount, []);
}

function StatusBadge() {
  useMountCount();
  const { url } = useRoom();
  const { state, lastMessage } = useResilientSocket(url, chatSocketOptions());
  const badge = badgeOf(state);
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
  const { state, lastMessage } = useResilientSocket(url, chatSocketOptions());
  const [online, setOnline] = useState<number | null>(null);
  useEffect(() => {
    const frame = parseFrame(lastMessage?.data);
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
  const { state } = useResilientSocket(url, {
    ...chatSocketOptions(),
    onMessage: (message) => {
      setLast(describe(message.data));
      for (const received of messagesOf(parseFrame(message.data))) dispatch({ type: 'received', message: received });
    },
  });
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
  const { state, lastMessage, send } = useResilientSocket(url, {
    ...chatSocketOptions(),
    onDrop: ({ messages }) => dispatch({ type: 'dropped', clientIds: droppedIds(messages) }),
  });
  const [me, setMe] = useState(name || 'me');
  const [text, setText] = useState('');
  useEffect(() => {
    const frame = parseFrame(lastMessage?.data);
    if (frame?.type === 'welcome') setMe(frame.name);
  }, [lastMessage]);
  useEffect(() => {
    if (state === 'open') dispatch({ type: 'opened' });
  }, [state, dispatch]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const said = say(text, me, (frame) => send(JSON.stringify(frame)));
    if (!said) return;
    setText('');
    dispatch(said);
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

function App({ url, name }: { url: string; name: string }) {
  const [list, dispatch] = useReducer(chatLines, []);
  const [joined, setJoined] = useState(true);
  return h(
    Room.Provider,
    { value: { url, lines: list, dispatch } },
    h('header', null, h('h1', null, 'React chat'), joined && h(Presence), joined && h(StatusBadge)),
    joined
      ? [h(MessageList, { key: 'list' }), h(Composer, { key: 'composer', name })]
      : h('p', { id: 'left' }, 'You left the room (the connection is closed).'),
    h(
      'section',
      { className: 'controls' },
      'server: ',
      h('button', { id: 'crash', type: 'button', onClick: serverControl('crash') }, 'Crash'),
      ' ',
      h('button', { id: 'restart', type: 'button', onClick: serverControl('restart') }, 'Restart'),
      ' · you: ',
      h('button', { id: 'join-leave', type: 'button', onClick: () => setJoined(!joined) }, joined ? 'Leave' : 'Join'),
    ),
  );
}

const { url, name } = await chatRoom();
const root = document.getElementById('root');
if (!root) throw new Error('no #root element');
createRoot(root).render(h(StrictMode, null, h(App, { url, name })));
