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
 * compiler or single-file-component tooling is needed. ?name=alice sets your name. What is not
 * Vue (the frames, the socket's options, the list of lines and how a line of ours moves along) is
 * `../lib/chat-room.ts`, shared with the React chat.
 */
import { useResilientSocket } from 'resilient-socket/vue';
import {
  createApp,
  defineComponent,
  h,
  type InjectionKey,
  inject,
  onMounted,
  provide,
  type Ref,
  ref,
  shallowRef,
  watch,
} from 'vue';
import {
  badgeOf,
  type ChatAction,
  chatLines,
  chatRoom,
  chatSocketOptions,
  countMount,
  describeFrame,
  droppedIds,
  type Frame,
  type Line,
  messagesOf,
  NOTES,
  parseFrame,
  say,
  serverControl,
} from '../lib/chat-room.js';

/** What the components share besides the socket: its URL, and the list with the way it changes. */
interface Room {
  readonly url: string;
  readonly lines: Readonly<Ref<readonly Line[]>>;
  dispatch(action: ChatAction): void;
}

const ROOM: InjectionKey<Room> = Symbol('room');

function makeRoom(url: string): Room {
  const lines = shallowRef<readonly Line[]>([]);
  return {
    url,
    lines,
    dispatch(action) {
      lines.value = chatLines(lines.value, action);
    },
  };
}

function useRoom(): Room {
  const room = inject(ROOM);
  if (!room) throw new Error('a chat component outside the room');
  return room;
}

/** The `data-last` attribute: `none` before any frame (`any` false), `junk` for one that is not JSON. */
function describe(frame: Frame | undefined, any: boolean): string {
  return any ? describeFrame(frame) : 'none';
}

const StatusBadge = defineComponent(() => {
  onMounted(countMount);
  const { state, lastMessage, lastJsonMessage } = useResilientSocket(useRoom().url, chatSocketOptions());
  return () => {
    const badge = badgeOf(state.value);
    const last = describe(lastJsonMessage.value as Frame | undefined, lastMessage.value !== null);
    return h(
      'span',
      { id: 'badge', class: 'badge', 'data-badge': badge, 'data-state': state.value, 'data-last': last },
      badge,
    );
  };
});

const Presence = defineComponent(() => {
  onMounted(countMount);
  const { state, lastMessage, lastJsonMessage } = useResilientSocket(useRoom().url, chatSocketOptions());
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
  onMounted(countMount);
  const room = useRoom();
  const last = ref('none');
  const { state } = useResilientSocket(room.url, {
    ...chatSocketOptions(),
    onMessage: (message) => {
      const frame = parseFrame(message.data);
      last.value = describe(frame, true);
      for (const received of messagesOf(frame)) room.dispatch({ type: 'received', message: received });
    },
  });
  const list = ref<HTMLOListElement | null>(null);
  // `flush: 'post'`: after the new line is in the DOM.
  watch(
    () => room.lines.value.length,
    () => list.value?.lastElementChild?.scrollIntoView({ block: 'nearest' }),
    { flush: 'post' },
  );
  return () =>
    h(
      'ol',
      { id: 'messages', ref: list, class: 'messages', 'data-state': state.value, 'data-last': last.value },
      room.lines.value.map((line) =>
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
    onMounted(countMount);
    const room = useRoom();
    const { state, lastMessage, lastJsonMessage, sendJson } = useResilientSocket(room.url, {
      ...chatSocketOptions(),
      onDrop: ({ messages }) => room.dispatch({ type: 'dropped', clientIds: droppedIds(messages) }),
    });
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
      if (now === 'open') room.dispatch({ type: 'opened' });
    });
    const submit = (event: Event) => {
      event.preventDefault();
      const said = say(text.value, me.value, sendJson);
      if (!said) return;
      text.value = '';
      room.dispatch(said);
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
  (props: { url: string; name: string }) => {
    provide(ROOM, makeRoom(props.url));
    const joined = ref(true);
    return () => [
      h('header', null, [h('h1', null, 'Vue chat'), joined.value && h(Presence), joined.value && h(StatusBadge)]),
      joined.value
        ? [h(MessageList), h(Composer, { name: props.name })]
        : h('p', { id: 'left' }, 'You left the room (the connection is closed).'),
      h('section', { class: 'controls' }, [
        'server: ',
        h('button', { id: 'crash', type: 'button', onClick: serverControl('crash') }, 'Crash'),
        ' ',
        h('button', { id: 'restart', type: 'button', onClick: serverControl('restart') }, 'Restart'),
        ' · you: ',
        h(
          'button',
          { id: 'join-leave', type: 'button', onClick: () => (joined.value = !joined.value) },
          joined.value ? 'Leave' : 'Join',
        ),
      ]),
    ];
  },
  { props: ['url', 'name'] },
);

const { url, name } = await chatRoom();
createApp(App, { url, name }).mount('#root');
