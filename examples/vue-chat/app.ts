/**
 * The Vue chat app (bundled by `./build.ts`): the chat of `examples/chat/`, written with
 * `useResilientSocket` from `resilient-socket/vue`. Four components each call the composable with
 * the same URL and their own copy of the options, built afresh by each one; the composable
 * compares them by value, so the page makes one connection, which all four share:
 *
 * - `StatusBadge` reads `state` (live / reconnecting / offline);
 * - `Presence` reads `lastJsonMessage` (the `presence` frames: who is online);
 * - `MessageList` takes every frame in `onMessage` (none is missed when several arrive in one tick);
 * - `Composer` writes with `sendJson`: a line typed while the server is down is queued by the
 *   socket (shown "queued"), sent when it is back ("sending…") and marked delivered when the
 *   server's broadcast of it comes back (no note).
 *
 * Each component's root element carries `data-state` (the state it rendered) and `data-last` (the
 * last frame it saw), and `<html data-mounts>` counts their mounts, so the browser test can check
 * that every one of them follows the socket. Written with render functions (`h()`), so no template
 * compiler or single-file-component tooling is needed. ?name=alice sets your name.
 */
import { heartbeat } from 'resilient-socket/modular';
import { type UseResilientSocketOptions, useResilientSocket } from 'resilient-socket/vue';
import {
  createApp,
  defineComponent,
  h,
  type InjectionKey,
  inject,
  onMounted,
  provide,
  reactive,
  ref,
  watch,
} from 'vue';

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
  key: string;
  id?: string;
  clientId?: string;
  from: string;
  text: string;
  status?: Status;
}

const NOTES: Record<Status, string> = { queued: 'queued', sending: 'sending…', delivered: '', dropped: 'not sent' };

/** What the components share besides the socket: its URL, and the list with the ways it changes. */
interface Room {
  readonly url: string;
  readonly lines: Line[];
  said(line: Line): void;
  /** A broadcast line: ours (matched by `clientId`) is marked delivered; a line shows once. */
  received(message: ChatMessage): void;
  /** The socket flushes its queue before it reports `open`: queued lines are on their way. */
  opened(): void;
  dropped(clientIds: readonly string[]): void;
}

const ROOM: InjectionKey<Room> = Symbol('room');

function makeRoom(url: string): Room {
  const lines = reactive<Line[]>([]);
  return {
    url,
    lines,
    said: (line) => void lines.push(line),
    received(message) {
      if (lines.some((line) => line.id === message.id)) return;
      const own = lines.find((line) => line.clientId !== undefined && line.clientId === message.clientId);
      if (!own) lines.push({ key: message.id, id: message.id, from: message.from, text: message.text });
      else Object.assign(own, { id: message.id, status: 'delivered' });
    },
    opened() {
      for (const line of lines) if (line.status === 'queued') line.status = 'sending';
    },
    dropped(clientIds) {
      for (const line of lines) if (line.clientId && clientIds.includes(line.clientId)) line.status = 'dropped';
    },
  };
}

function useRoom(): Room {
  const room = inject(ROOM);
  if (!room) throw new Error('a chat component outside the room');
  return room;
}

/**
 * The socket's options, a new object (with a new heartbeat feature and a new `isPong` function)
 * on every call: the composable compares them by value, so every component calling this shares one socket.
 */
function socketOptions(own: Pick<UseResilientSocketOptions, 'onMessage' | 'onDrop'> = {}): UseResilientSocketOptions {
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
    ...own,
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
function describe(frame: Frame | undefined, any: boolean): string {
  if (!any) return 'none';
  if (!frame) return 'junk';
  return frame.type === 'message' ? `message:${frame.text}` : frame.type;
}

/** Counts the chat components' mounts on `<html data-mounts>`, for the browser test. */
let mounts = 0;
function countMount(): void {
  onMounted(() => {
    mounts += 1;
    document.documentElement.dataset.mounts = String(mounts);
  });
}

const StatusBadge = defineComponent(() => {
  countMount();
  const { state, lastMessage, lastJsonMessage } = useResilientSocket(useRoom().url, socketOptions());
  return () => {
    const badge =
      state.value === 'open'
        ? 'live'
        : state.value === 'connecting' || state.value === 'reconnecting'
          ? 'reconnecting'
          : 'offline';
    const last = describe(lastJsonMessage.value as Frame | undefined, lastMessage.value !== null);
    return h(
      'span',
      { id: 'badge', class: 'badge', 'data-badge': badge, 'data-state': state.value, 'data-last': last },
      badge,
    );
  };
});

const Presence = defineComponent(() => {
  countMount();
  const { state, lastMessage, lastJsonMessage } = useResilientSocket(useRoom().url, socketOptions());
  const online = ref<number | null>(null);
  // `flush: 'sync'`: a presence frame followed by another frame in the same tick is still seen.
  watch(
    lastJsonMessage,
    (frame) => {
      if ((frame as Frame | undefined)?.type === 'presence') online.value = (frame as { online: number }).online;
    },
    { flush: 'sync' },
  );
  // Who is online is unknown while disconnected, until the next presence frame.
  watch(state, (now) => {
    if (now !== 'open') online.value = null;
  });
  return () =>
    h(
      'span',
      {
        id: 'online',
        class: 'online',
        'data-state': state.value,
        'data-last': describe(lastJsonMessage.value as Frame | undefined, lastMessage.value !== null),
      },
      online.value === null ? '' : `${online.value} online`,
    );
});

const MessageList = defineComponent(() => {
  countMount();
  const room = useRoom();
  const last = ref('none');
  const { state } = useResilientSocket(
    room.url,
    socketOptions({
      onMessage: (message) => {
        const frame = parse(message.data);
        last.value = describe(frame, true);
        if (frame?.type === 'message') room.received(frame);
        if (frame?.type === 'welcome') for (const old of frame.history) room.received(old);
      },
    }),
  );
  const list = ref<HTMLOListElement | null>(null);
  // `flush: 'post'`: after the new line is in the DOM.
  watch(
    () => room.lines.length,
    () => list.value?.lastElementChild?.scrollIntoView({ block: 'nearest' }),
    { flush: 'post' },
  );
  return () =>
    h(
      'ol',
      { id: 'messages', ref: list, class: 'messages', 'data-state': state.value, 'data-last': last.value },
      room.lines.map((line) =>
        h('li', { key: line.key, 'data-id': line.id, 'data-status': line.status }, [
          h('span', { class: 'from' }, line.from),
          h('span', { class: 'text' }, line.text),
          h('span', { class: 'note' }, line.status ? NOTES[line.status] : ''),
        ]),
      ),
    );
});

const Composer = defineComponent(
  (props: { name: string }) => {
    countMount();
    const room = useRoom();
    const { state, lastMessage, lastJsonMessage, sendJson } = useResilientSocket(
      room.url,
      socketOptions({
        onDrop: ({ messages }) =>
          room.dropped(messages.map((data) => (parse(data) as { id?: string } | undefined)?.id ?? '')),
      }),
    );
    const me = ref(props.name || 'me');
    const text = ref('');
    watch(
      lastJsonMessage,
      (frame) => {
        if ((frame as Frame | undefined)?.type === 'welcome') me.value = (frame as { name: string }).name;
      },
      { flush: 'sync' },
    );
    watch(state, (now) => {
      if (now === 'open') room.opened();
    });
    const submit = (event: Event) => {
      event.preventDefault();
      const line = text.value.trim();
      if (!line) return;
      text.value = '';
      const clientId = crypto.randomUUID();
      const result = sendJson({ type: 'say', id: clientId, text: line });
      const status = result === 'sent' ? 'sending' : result === 'buffered' ? 'queued' : 'dropped';
      room.said({ key: clientId, clientId, from: me.value, text: line, status });
    };
    return () =>
      h(
        'form',
        {
          id: 'composer',
          class: 'composer',
          autocomplete: 'off',
          onSubmit: submit,
          'data-state': state.value,
          'data-last': describe(lastJsonMessage.value as Frame | undefined, lastMessage.value !== null),
        },
        [
          h('label', { id: 'me', for: 'text' }, me.value),
          h('input', {
            id: 'text',
            value: text.value,
            maxlength: 2_000,
            placeholder: 'Say something (it is queued while the server is down)',
            onInput: (event: Event) => {
              text.value = (event.target as HTMLInputElement).value;
            },
          }),
          h('button', { type: 'submit' }, 'Send'),
        ],
      );
  },
  { props: ['name'] },
);

const App = defineComponent(
  (props: { wsUrl: string; name: string }) => {
    const url = new URL(props.wsUrl);
    if (props.name) url.searchParams.set('name', props.name);
    provide(ROOM, makeRoom(url.href));
    const joined = ref(true);
    const control = (action: 'crash' | 'restart') => () => void fetch(`/api/${action}`, { method: 'POST' });
    return () => [
      h('header', null, [h('h1', null, 'Vue chat'), joined.value && h(Presence), joined.value && h(StatusBadge)]),
      joined.value
        ? [h(MessageList), h(Composer, { name: props.name })]
        : h('p', { id: 'left' }, 'You left the room (the connection is closed).'),
      h('section', { class: 'controls' }, [
        'server: ',
        h('button', { id: 'crash', type: 'button', onClick: control('crash') }, 'Crash'),
        ' ',
        h('button', { id: 'restart', type: 'button', onClick: control('restart') }, 'Restart'),
        ' · you: ',
        h(
          'button',
          { id: 'join-leave', type: 'button', onClick: () => (joined.value = !joined.value) },
          joined.value ? 'Leave' : 'Join',
        ),
      ]),
    ];
  },
  { props: ['wsUrl', 'name'] },
);

const { wsUrl } = (await (await fetch('/config.json')).json()) as { wsUrl: string };
const name = new URLSearchParams(location.search).get('name')?.trim() ?? '';
createApp(App, { wsUrl, name }).mount('#root');
